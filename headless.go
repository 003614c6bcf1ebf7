package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/vastdash/vastdash/money"
	"io"
	"time"

	"github.com/vastdash/vastdash/api"
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

// progress is a status line on stderr, redrawn in place. It is off unless
// stderr is a terminal: a script or a log file gets no carriage returns.
type progress struct {
	w     io.Writer
	on    bool
	shown bool
	what  string // what is being fetched, for retry notices
}

func (r *runner) newProgress() *progress {
	return &progress{w: r.stderr, on: r.isTerminal(r.stderr)}
}

// show replaces the line with msg.
func (p *progress) show(msg string) {
	if !p.on {
		return
	}
	// \r and erase-line: redraw in place without leaving a tail behind.
	fmt.Fprint(p.w, "\r\x1b[2K"+msg)
	p.shown = true
}

// clear removes the line, before the final output or an error.
func (p *progress) clear() {
	if p.on && p.shown {
		fmt.Fprint(p.w, "\r\x1b[2K")
		p.shown = false
	}
}

// observe is the client's observer: it shows waits for a 429 or a retry
// (regular pacing is expected and not worth a notice).
func (p *progress) observe(e api.Event) {
	switch e.Kind {
	case api.EventRateLimited:
		p.show(fmt.Sprintf("%s — rate limited, retrying in %s", p.what, e.Wait.Round(100*time.Millisecond)))
	case api.EventRetry:
		p.show(fmt.Sprintf("%s — no answer, retrying in %s", p.what, e.Wait.Round(100*time.Millisecond)))
	}
}

// fetched is every top-level entry of a query.
type fetched struct {
	entries []api.Charge
	pages   int
	// skipped counts entries the client dropped as malformed.
	skipped int
}

// fetchAll reads every page of q, paced by the client, showing progress.
func fetchAll(ctx context.Context, c *api.Client, q api.ChargesQuery, p *progress) (fetched, error) {
	var f fetched
	pager := c.Pager(q)
	p.what = "fetching charges"
	p.show(p.what + "…")
	for !pager.Done() {
		page, err := pager.Next(ctx)
		if err != nil {
			p.clear()
			return fetched{}, err
		}
		f.pages++
		f.entries = append(f.entries, page.Results...)
		f.skipped += page.Skipped
		p.what = fmt.Sprintf("fetching charges: %s", money.Group(int64(pager.Loaded())))
		if t := pager.Total(); t >= 0 {
			p.what += " of " + money.Group(int64(t))
		}
		p.what += " contracts"
		p.show(p.what)
	}
	p.clear()
	return f, nil
}

// plural returns "1 contract", "2 contracts" with grouping.
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return money.Group(int64(n)) + " " + word + "s"
}

// midnightOf is the start of t's day in t's location.
func midnightOf(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}
