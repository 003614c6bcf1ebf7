package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// A terminal above the bounds gets one line that says so, as wide as the
// terminal (up to maxSide) — not a frame of its size: the frame and
// Bubble Tea's buffers once grew with the window until a 10000×10000
// terminal ran the machine out of memory. q still quits; other keys do
// nothing unseen, and the dashboard comes back whole when the terminal
// shrinks.
func TestTooLargeTerminalIsOneLine(t *testing.T) {
	for _, sz := range [][2]int{{3000, 2000}, {10000, 10000}, {80, 65535}, {4097, 20}, {1001, 500}} {
		m := testModel(t)
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		out := m.View().Content
		if strings.Contains(out, "\n") || !strings.Contains(ansi.Strip(out), "terminal too large") {
			t.Fatalf("%v: want the one line saying the terminal is too large, got %d lines starting %q",
				sz, strings.Count(out, "\n")+1, ansi.Strip(out[:min(len(out), 200)]))
		}
		if w := ansi.StringWidth(out); w != sz[0] {
			t.Fatalf("%v: the line is %d wide", sz, w)
		}
	}
}

// Under Run the terminal's real size comes first and Bubble Tea is told
// the size drawn: one line, at most maxSide wide, for any terminal above
// the bounds, so its two cell buffers stay small too.
func TestRunToldSizeIsBounded(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {1000, 500}, {3000, 2000}, {10000, 10000}, {65535, 65535}} {
		dw, dh := drawnSize(sz[0], sz[1])
		if dw*dh > maxCells || dw > maxSide || dh > maxSide {
			t.Fatalf("%v: Bubble Tea is told %d×%d", sz, dw, dh)
		}
		m := testModel(t)
		m.Update(terminalSizeMsg{Width: sz[0], Height: sz[1]})
		m.Update(tea.WindowSizeMsg{Width: dw, Height: dh})
		lines := strings.Split(m.View().Content, "\n")
		if len(lines) != dh {
			t.Fatalf("%v: %d lines drawn in %d×%d", sz, len(lines), dw, dh)
		}
		if tooLarge(sz[0], sz[1]) != strings.Contains(ansi.Strip(lines[0]), "terminal too large") {
			t.Fatalf("%v: first line %q", sz, ansi.Strip(lines[0]))
		}
	}
}

func TestTooLargeTerminalTakesOnlyQuit(t *testing.T) {
	m := testModel(t)
	m.Update(terminalSizeMsg{Width: 3000, Height: 2000})
	m.Update(tea.WindowSizeMsg{Width: 3000, Height: 1})
	for _, k := range []string{"2", "3", " "} {
		if _, cmd := m.Update(press(k)); cmd != nil && isQuit(cmd) {
			t.Fatalf("%q quit", k)
		}
	}
	if _, cmd := m.Update(press("q")); !isQuit(cmd) {
		t.Fatal("q does not quit a terminal that is too large")
	}
	m.Update(terminalSizeMsg{Width: 100, Height: 30})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	if s := screenText(m); !strings.Contains(s, "[1 Overview]") || strings.Count(s, "\n") != 29 {
		t.Fatalf("back at 100×30, want the Overview as it was:\n%s", s)
	}
}
