package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
)

// newCommandFlags returns the FlagSet of a command with the global flags
// registered on o, so they work after the command too.
func newCommandFlags(name string, o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("vastdash "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.register(fs)
	return fs
}

// parseCommand parses a command's arguments. When it returns false the
// run is over (help was shown, or a usage error printed) with the code.
func (r *runner) parseCommand(name, help string, fs *flag.FlagSet, args []string) (int, bool) {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(r.stdout, "Usage: vastdash [flags] %s [options]\n\n%s\nGlobal flags: --demo, --api-key-file PATH, --url URL, --config PATH (see vastdash --help)\n", name, help)
		return exitOK, false
	}
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err != nil {
		return r.usageError(name, err), false
	}
	return exitOK, true
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
