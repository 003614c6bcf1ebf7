package charges

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func click(x, y int) tea.MouseClickMsg {
	return tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft}
}

// TestClickSelectsRow: a click on a row puts the cursor on the row drawn
// there, the window scrolled or not; a click on the filter bar, the
// headings or the footer moves nothing.
func TestClickSelectsRow(t *testing.T) {
	hs := newHarness(t, 100, 12, servePages(contracts(1, 40), 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.press("G")) // scrolled to the end: offset > 0
	if hs.m.offset == 0 {
		t.Fatal("the window did not scroll")
	}
	lines := hs.lines()
	y := 4 // the third row under the bar and the headings
	hs.settle(hs.m.Update(click(30, y)))
	if got := hs.cursorLine(); !strings.Contains(lines[y], strings.TrimSpace(strings.TrimPrefix(got, "›"))) {
		t.Fatalf("clicked line %d %q, cursor on %q", y, lines[y], got)
	}
	at := hs.m.cursor
	for _, y := range []int{0, 1, len(lines) - 1} { // bar, headings, footer
		hs.settle(hs.m.Update(click(30, y)))
		if hs.m.cursor != at {
			t.Fatalf("a click on line %d %q moved the cursor", y, lines[y])
		}
	}
}

// TestClickBelowRowsDoesNothing: with fewer rows than lines, a click on
// the blank area moves nothing, nor does a right click on a row.
func TestClickBelowRowsDoesNothing(t *testing.T) {
	hs := newHarness(t, 100, 20, servePages(contracts(1, 3), 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.m.Update(click(30, 4))) // the last of 3 rows: bar, headings, rows at 2..4
	if hs.m.cursor != 2 {
		t.Fatalf("cursor %d after a click on the third row", hs.m.cursor)
	}
	hs.settle(hs.m.Update(click(30, 8)))
	if hs.m.cursor != 2 {
		t.Fatalf("a click below the rows moved the cursor to %d", hs.m.cursor)
	}
	hs.settle(hs.m.Update(tea.MouseClickMsg{X: 30, Y: 2, Button: tea.MouseRight}))
	if hs.m.cursor != 2 {
		t.Fatal("a right click moved the cursor")
	}
}
