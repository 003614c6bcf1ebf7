package charges

import (
	"strings"
	"testing"
)

// TestRevealWidensTypes: enter on an Overview top contract whose type the
// type filter hides widens the filter to every type, says so, and lands on
// the contract.
func TestRevealWidensTypes(t *testing.T) {
	hs := newHarness(t, 100, 24, servePages(contracts(1, 30), 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.press("t", "v", "enter")) // volumes only
	if q := hs.m.Query(); len(q.Types) != 1 || q.Types[0] != "volume" {
		t.Fatalf("types %v", q.Types)
	}
	hs.settle(hs.m.Reveal("instance-5"))
	if q := hs.m.Query(); len(q.Types) != 0 {
		t.Fatalf("types still %v", q.Types)
	}
	if got := hs.m.tree.At(hs.m.cursor).node.Source; got != "instance-5" {
		t.Fatalf("cursor on %s", got)
	}
	if !hs.sentStatus("types widened to all to show instance-5") {
		t.Fatalf("statuses %v", hs.statuses)
	}
	if !strings.Contains(hs.lines()[0], "types all") {
		t.Fatalf("filter bar %q", hs.lines()[0])
	}
}

// TestReloadKeepsCursorAndOpenRows: r starts over from the first page but
// puts back the open rows and the cursor's contract, loading up to its
// page, without a "looking for" line.
func TestReloadKeepsCursorAndOpenRows(t *testing.T) {
	hs := newHarness(t, 100, 24, servePages(contracts(1, 250), 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.press("j", "enter")) // instance-2 open
	for range 8 {
		hs.settle(hs.press("pgdown"))
	}
	hs.settle(hs.press("enter")) // and the cursor's contract
	want := hs.m.tree.At(hs.m.cursor).node.Source
	if hs.m.fl.Entries() < 200 || want == "" {
		t.Fatalf("setup: %d entries, cursor on %q", hs.m.fl.Entries(), want)
	}
	hs.statuses = nil
	hs.settle(hs.press("r"))
	if n := hs.numPagers(); n < 2 {
		t.Fatalf("r did not start over (%d pagers)", n)
	}
	r := hs.m.tree.At(hs.m.cursor)
	if r.node.Source != want || !r.expanded {
		t.Fatalf("cursor on %s (open %v), want open %s", r.node.Source, r.expanded, want)
	}
	if r := hs.m.tree.At(1); r.node.Source != "instance-2" || !r.expanded {
		t.Fatalf("row 1 is %s (open %v), want instance-2 open", r.node.Source, r.expanded)
	}
	if hs.sentStatus("looking for") {
		t.Fatalf("statuses %v", hs.statuses)
	}
}

// TestInputHelpListsOnlyFieldKeys: the custom range field's help lists what
// works there, enter, esc and ctrl+u, and nothing typed into the field.
func TestInputHelpListsOnlyFieldKeys(t *testing.T) {
	hs := newHarness(t, 100, 24, servePages(contracts(1, 3), 100))
	hs.settle(hs.m.Init())
	hs.press("c")
	var got []string
	for _, col := range hs.m.Help().FullHelp() {
		for _, b := range col {
			got = append(got, b.Help().Key)
		}
	}
	if strings.Join(got, " ") != "enter esc ctrl+u" {
		t.Fatalf("field help %v", got)
	}
	if !hs.m.Capturing() {
		t.Fatal("the field must capture q, ? and the digits")
	}
}
