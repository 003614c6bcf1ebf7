package charges

import (
	"slices"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/money"
)

// TestSortCycles: s sorts by amount (loading the whole range first, and
// saying so), then by duration, then back to the server's order; the cursor
// stays on its entry and open rows stay open.
func TestSortCycles(t *testing.T) {
	es := contracts(1, 250)
	es[200].Amount = 999 * money.Dollar  // on the third page
	es[10].End = es[10].Start + 40*86400 // the longest
	hs := newHarness(t, 100, 24, servePages(es, 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.press("j", "enter")) // instance-2, open
	cmd := hs.press("s")
	// Sorting needs the whole range: unless the screen held it all when
	// s was handled (the feed may run ahead of the screen under a loaded
	// scheduler, and the key folds what it brought), the screen says it
	// loads the rest first. Read right after the key, before any command.
	loaded := hs.m.fl.State().Done
	hs.settle(cmd)
	if !loaded && !hs.sentStatus("sorting by amount, largest first once the range is loaded") {
		t.Errorf("statuses %v", hs.statuses)
	}
	if !hs.m.fl.State().Done || hs.statusText() != "sorted by amount, largest first" {
		t.Fatalf("done %v, status %q", hs.m.fl.State().Done, hs.statusText())
	}
	if top := hs.m.tree.At(0).node; top.Source != "instance-201" {
		t.Fatalf("first row %s", top.Source)
	}
	var amts []money.Amount
	hs.m.tree.rows.Each(0, hs.m.tree.Len(), func(_ int, r *row) bool {
		if r.depth == 0 {
			amts = append(amts, r.node.Amount)
		}
		return true
	})
	if len(amts) != 250 || !slices.IsSortedFunc(amts, func(a, b money.Amount) int { return int(b - a) }) {
		t.Fatalf("%d entries, not largest first", len(amts))
	}
	if r := hs.m.tree.At(hs.m.cursor); r.node.Source != "instance-2" || !r.expanded {
		t.Fatalf("cursor on %s (open %v)", r.node.Source, r.expanded)
	}
	// The bar names the order the rows are in, not the server's too (it
	// said "newest first · sort amount…", and at 80 columns cut the sort).
	if l := hs.lines()[0]; !strings.Contains(l, "sort amount, largest first") || strings.Contains(l, "newest first") {
		t.Errorf("filter bar %q", l)
	}
	hs.settle(hs.press("s"))
	if top := hs.m.tree.At(0).node; top.Source != "instance-11" {
		t.Fatalf("by duration, first row %s", top.Source)
	}
	hs.settle(hs.press("s"))
	if top := hs.m.tree.At(0).node; top.Source != "instance-1" || hs.m.sort != sortServer {
		t.Fatalf("server order, first row %s", top.Source)
	}
}

// With the cursor on the first row nothing is chosen: a sort shows the
// top of its order, the largest amount on the first row and the cursor on
// it, instead of following the newest contract into the middle of the list.
func TestSortFromTheTopShowsTheTop(t *testing.T) {
	es := contracts(1, 250)
	es[200].Amount = 999 * money.Dollar  // on the third page
	es[10].End = es[10].Start + 40*86400 // the longest
	hs := newHarness(t, 100, 24, servePages(es, 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.press("s"))
	if hs.m.cursor != 0 || hs.m.offset != 0 || !strings.Contains(hs.cursorLine(), "job-201 ") {
		t.Fatalf("sorted by amount from the first row: cursor %d, offset %d on %q", hs.m.cursor, hs.m.offset, hs.cursorLine())
	}
	hs.settle(hs.press("s"))
	if hs.m.cursor != 0 || !strings.Contains(hs.cursorLine(), "job-11 ") {
		t.Fatalf("sorted by duration from the first row: cursor %d on %q", hs.m.cursor, hs.cursorLine())
	}
}

// TestSortWithFind: the sort orders what the find filter keeps.
func TestSortWithFind(t *testing.T) {
	es := findEntries()
	es[40].Amount = 50 * money.Dollar
	hs := newHarness(t, 100, 24, servePages(es, 100))
	hs.settle(hs.m.Init())
	hs.m.Update(keyMsg("/"))
	hs.typeText("a100")
	hs.settle(hs.press("enter"))
	hs.m.fl.Unlisten() // typeText dropped the listener with the blink
	hs.settle(hs.press("s"))
	got := hs.rowNames()
	want := []string{"0:instance-41", "0:instance-A100x", "0:instance-4"}
	if es[120].Amount < es[3].Amount {
		want = []string{"0:instance-41", "0:instance-4", "0:instance-A100x"}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
}
