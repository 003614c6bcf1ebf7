package cli

import (
	"strings"
	"testing"
)

// A warning said while the progress line is up (the ledger opened when a
// load first reads history) takes a line of its own above it, and the
// progress line comes back below: neither is cut into the other.
func TestWarningAboveTheProgressLine(t *testing.T) {
	var b strings.Builder
	p := newProgress(&b, true)
	p.show("fetching charges: 500 contracts (page 1)")
	p.warn("the ledger is off this run: the disk is full")
	p.done()
	// What a terminal shows once the carriage returns and erases are played.
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if i := strings.LastIndex(l, "\r\x1b[2K"); i >= 0 {
			l = l[i+len("\r\x1b[2K"):]
		}
		lines = append(lines, l)
	}
	want := []string{"vastdash: the ledger is off this run: the disk is full", ""}
	if strings.Join(lines, "|") != strings.Join(want, "|") {
		t.Fatalf("the terminal shows %q, want %q", lines, want)
	}
	if !strings.Contains(b.String(), "disk is full\nfetching charges: 500 contracts (page 1)") {
		t.Errorf("the progress line is not drawn again below the warning: %q", b.String())
	}
}

// The progress line is redrawn in place with \r, which a line the
// terminal wrapped defeats (each redraw left a row behind): it is cut at a
// word's end to one cell less than the width, and a warning said under it
// is wrapped at words.
func TestProgressLineFitsTheTerminal(t *testing.T) {
	var b strings.Builder
	w := newWordWrapper(&b, 30)
	p := newProgress(w, true)
	p.width = 30
	p.show("fetching charges: 1,000 of 2,400 contracts (page 2 of 5)")
	p.warn("the ledger is off this run: the disk is full")
	p.done()
	out := b.String()
	for _, want := range []string{"\r\x1b[2Kfetching charges: 1,000 of…", "vastdash: the ledger is off\n          this run: the disk\n          is full\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q: %q", want, out)
		}
	}
}
