package ui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/ui/internal/golden"
)

// sgr matches the colour and attribute sequences the program's own styles
// write; nothing else may start with ESC in a frame.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// checkFrameSafe fails on anything in a raw frame that could drive the
// terminal: escape sequences other than styling, BEL and other C0 controls
// but newline, C1 controls, bidi overrides.
func checkFrameSafe(t *testing.T, name, raw string) {
	t.Helper()
	rest := sgr.ReplaceAllString(raw, "")
	for _, r := range rest {
		switch {
		case r == '\n':
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			t.Fatalf("%s: control %U reached the frame:\n%q", name, r, rest)
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			t.Fatalf("%s: bidi control %U reached the frame", name, r)
		}
	}
}

// The demo server's hostile mode puts escape sequences, OSC titles, bidi
// overrides, zero-width joiners and 2 KB labels in every string field. Each
// screen renders them harmlessly, at its exact size, the same every time.
func TestHostileGoldenScreens(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC)
	r := startRig(t, demoserver.Options{Hostile: true, Contracts: 150, Now: now}, nil)
	r.waitFor("the overview loaded", func(s string) bool { return strings.Contains(s, "Runway") && !strings.Contains(s, "loading") })
	r.press("2")
	r.waitFor("all charges", func(s string) bool { return strings.Contains(s, "all loaded") })
	r.prog.Send(keyPress('G', "G"))
	r.prog.Send(keyPress('g', "g"))
	r.press("space")
	r.waitFor("an expanded contract", func(s string) bool { return strings.Contains(s, "▾") })
	r.press("3")
	r.waitFor("the switches", func(s string) bool { return strings.Contains(s, "[x]") || strings.Contains(s, "[ ]") })
	// The goldens are of a dashboard at rest: a read still under way (the
	// header's spinner) made the frames differ now and then.
	r.waitFor("nothing loading", func(s string) bool {
		header, _, _ := strings.Cut(s, "\n")
		return !strings.ContainsFunc(header, func(c rune) bool { return c >= 0x2800 && c <= 0x28ff })
	})
	r.quit()

	// The program has ended: the model can be rendered directly.
	for i, name := range []string{"overview", "charges", "notifications"} {
		r.model.switchTo(screenID(i))
		raw := r.model.render()
		checkFrameSafe(t, name, raw)
		text := ansi.Strip(raw)
		lines := strings.Split(text, "\n")
		if len(lines) != 30 {
			t.Fatalf("%s: %d lines", name, len(lines))
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w != 100 {
				t.Fatalf("%s: line %q is %d wide", name, l, w)
			}
		}
		golden.Check(t, "hostile-"+name+".golden", text)
	}
}
