package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
)

// answerBuffer is the size of the buffer an answer is written through: few
// system calls for a long table, and memory that does not grow with it.
const answerBuffer = 64 << 10

// writeAnswer runs write on a buffer over stdout and flushes it; it returns
// write's error, else the flush's. The flush is where a short answer meets
// the file at all: checking only write's error would miss /dev/full.
func (r *runner) writeAnswer(write func(w io.Writer) error) error {
	bw := bufio.NewWriterSize(r.stdout, answerBuffer)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// answer writes a command's answer to stdout with write and returns the
// exit code: 0, or 1 after one line on stderr when stdout could not take
// it (a full disk, /dev/full, a closed pipe). A script must not read an
// exit 0 as "the answer is in the file" when the file is empty or cut.
func (r *runner) answer(write func(w io.Writer) error) int {
	if err := r.writeAnswer(write); err != nil {
		return r.writeError(err)
	}
	return exitOK
}

// writeError reports that stdout could not be written, as one line, exit 1.
func (r *runner) writeError(err error) int {
	return r.runtimeError(fmt.Errorf("cannot write the answer: %w", unwrapPath(err)))
}

// unwrapPath is err without the path of an *fs.PathError: for stdout it is
// "/dev/stdout", which tells the user nothing.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// newService is the billing layer of one command run: the session's client,
// days beginning in the settings' timezone (UTC with --utc, or when none is
// set) and the runner's clock. base bounds its loads; the caller closes it.
// Every rule of the domain the commands apply (paging, bounds, burn,
// runway, saves) comes from it, the same as for the dashboard.
func (r *runner) newService(base context.Context, sess *session, utc bool) *billing.Service {
	opts := []billing.Option{billing.WithClock(r.now)}
	if utc || sess.settings.Location == nil {
		opts = append(opts, billing.WithLocation(time.UTC))
	}
	return sess.billing(base, opts...)
}

// progress is a status line on stderr, redrawn in place. It is off unless
// stderr is a terminal: a script or a log file gets no carriage returns.
//
// It is written from two goroutines: the command's, which sees the feed's
// states, and the feed's loader, on which the client reports its waits.
type progress struct {
	w  io.Writer
	mu sync.Mutex
	on bool
	// shown is set while a line is on the terminal.
	shown bool
	// what is being fetched, for the client's wait notices.
	what string
}

func (r *runner) newProgress() *progress {
	// Until a feed says what it fetches, a wait is for the server at all.
	return &progress{w: r.stderr, on: r.isTerminal(r.stderr), what: "contacting the server"}
}

// showLocked replaces the line with msg.
func (p *progress) showLocked(msg string) {
	if !p.on {
		return
	}
	// \r and erase-line: redraw in place without leaving a tail behind.
	fmt.Fprint(p.w, "\r\x1b[2K"+msg)
	p.shown = true
}

// done removes the line for good, before the final output or an error: a
// wait notice of a loader still winding down must not print after it.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on && p.shown {
		fmt.Fprint(p.w, "\r\x1b[2K")
		p.shown = false
	}
	p.on = false
}

// observe is the client's observer: it shows waits for a 429 or a retry
// (regular pacing is expected and not worth a notice).
func (p *progress) observe(e api.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Kind {
	case api.EventRateLimited:
		p.showLocked(fmt.Sprintf("%s — rate limited, retrying in %s", p.what, e.Wait.Round(100*time.Millisecond)))
	case api.EventRetry:
		p.showLocked(fmt.Sprintf("%s — no answer, retrying in %s", p.what, e.Wait.Round(100*time.Millisecond)))
	}
}

// feed shows a charges feed's state: "fetching charges: 1,000 of 2,400
// contracts (page 2 of 5)", or the feed's own wait after a 429 the client
// gave up on. It is the progress callback of billing's Feed.All.
func (p *progress) feed(st billing.State) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if st.Pages == 0 {
		p.what = "fetching charges"
		p.showLocked(p.what + "…")
		return
	}
	p.what = "fetching charges: " + money.Group(int64(st.Contracts))
	if st.Total >= 0 {
		p.what += " of " + money.Group(int64(st.Total))
	}
	p.what += " contracts (" + st.Progress() + ")"
	if !st.WaitUntil.IsZero() {
		p.showLocked(p.what + " — rate limited, waiting")
		return
	}
	p.showLocked(p.what)
}

// commandRun is what a command that reads the billing layer opens: the
// progress line, the session, the command's context and the service.
type commandRun struct {
	p    *progress
	sess *session
	ctx  context.Context
	svc  *billing.Service
	stop context.CancelFunc
}

// openRun opens a commandRun (nil and the exit code when the session
// cannot be opened); close it when done.
func (r *runner) openRun(o options, utc bool) (*commandRun, int) {
	p := r.newProgress()
	sess, code := r.openSession(o, p.observe)
	if sess == nil {
		return nil, code
	}
	ctx, stop := r.commandContext(o)
	return &commandRun{p: p, sess: sess, ctx: ctx, stop: stop, svc: r.newService(ctx, sess, utc)}, exitOK
}

func (c *commandRun) close() {
	c.svc.Close()
	c.stop()
	c.sess.close()
}
