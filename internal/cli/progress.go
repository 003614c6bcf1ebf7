package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/textwrap"
)

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
	// width is the terminal's, 0 when unknown: the line is cut to fit,
	// not wrapped, since a line that wraps cannot be redrawn in place.
	width int
}

func newProgress(w io.Writer, on bool) *progress {
	// Until a feed says what it fetches, a wait is for the server at all.
	return &progress{w: w, on: on, what: "contacting the server"}
}

// showLocked replaces the line with msg.
func (p *progress) showLocked(msg string) {
	if !p.on {
		return
	}
	// \r and erase-line: redraw in place without leaving a tail behind.
	fmt.Fprint(p.w, "\r\x1b[2K"+p.fit(msg))
	p.shown = true
}

// show sets what is being fetched and shows it.
func (p *progress) show(what string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.what = what
	p.showLocked(what)
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

// warn prints a warning on its own line, above the progress line, which
// is drawn again below it: a warning said while a load runs (the ledger
// opened on demand) neither cuts the line nor is cut by it.
func (p *progress) warn(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.on && p.shown {
		fmt.Fprint(p.w, "\r\x1b[2K")
	}
	warn(p.w, msg)
	if p.on && p.shown {
		fmt.Fprint(p.w, p.fit(p.what))
	}
}

// fit is msg cut at a word's end to one cell less than the width (the
// last cell would move the cursor to the next line on some terminals).
func (p *progress) fit(msg string) string {
	if p.width <= 1 {
		return msg
	}
	return textwrap.Cut(msg, p.width-1)
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

// records is the progress callback of a feed of what ("payment records"):
// "fetching payment records: 100 of 240 (page 1 of 3)".
func (p *progress) records(what string) func(billing.State) {
	return func(st billing.State) {
		what := "fetching " + what
		if st.Pages > 0 {
			what += ": " + money.Group(int64(st.Entries))
			if st.Total >= 0 {
				what += " of " + money.Group(int64(st.Total))
			}
			what += " (" + st.Progress() + ")"
		}
		p.show(what)
	}
}
