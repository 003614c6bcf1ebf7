package charges

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/ui/shared"
)

func TestRevealLoadedEntry(t *testing.T) {
	hs := newHarness(t, 120, 30, servePages(contracts(1, 300), 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.m.Reveal("instance-60"))
	if l := hs.cursorLine(); !strings.Contains(l, "▸ 60 ") || !strings.Contains(l, "job-60") {
		t.Fatalf("cursor row %q, want contract 60", l)
	}
	if n := hs.pager(0).Calls(); n != 1 {
		t.Fatalf("%d requests, want 1: revealing a loaded entry far from the end loads nothing", n)
	}
}

func TestRevealLoadsUntilFound(t *testing.T) {
	hs := newHarness(t, 120, 30, gated(contracts(1, 500), 100))
	cmd := hs.m.Init()
	hs.pager(0).Allow(1)
	hs.settle(cmd)
	cmd = hs.m.Reveal("instance-250")
	if !hs.m.Loading() {
		t.Fatal("no search under way")
	}
	if hs.m.cursor != 99 {
		t.Errorf("while searching the cursor should follow the end like G: %d", hs.m.cursor)
	}
	hs.pager(0).Allow(10) // more than needed: the search asks only for what it needs
	hs.settle(cmd)
	if !hs.sentStatus("looking for instance-250…") {
		t.Errorf("the status line never said what the screen was looking for: %v", hs.statuses)
	}
	if l := hs.cursorLine(); !strings.Contains(l, "▸ 250 ") {
		t.Fatalf("cursor row %q, want contract 250", l)
	}
	if hs.pager(0).Calls() != 3 || hs.m.Complete() {
		t.Fatalf("%d requests (complete %v); loading should stop at the page holding it", hs.pager(0).Calls(), hs.m.Complete())
	}
	if s := hs.statusText(); strings.Contains(s, "looking") {
		t.Errorf("status still searching: %q", s)
	}
}

func TestRevealMissingEntry(t *testing.T) {
	hs := newHarness(t, 120, 30, servePages(contracts(1, 250), 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.m.Reveal("instance-\x1b[2J999\u202e"))
	if !hs.m.Complete() {
		t.Fatal("the search should load every page before giving up")
	}
	st := hs.statusText()
	if !strings.Contains(st, "instance-999 is not in the current filters") {
		t.Fatalf("status %q", st)
	}
	if strings.Contains(st, "\x1b[2J") || strings.Contains(st, "\u202e") {
		t.Fatalf("the source was not sanitized: %q", st)
	}
	hs.settle(hs.press("k"))
	if strings.Contains(hs.statusText(), "not in the current filters") {
		t.Error("the notice stays after a key")
	}
	// Everything loaded: the answer is immediate, and said again even if
	// the same as before.
	calls := hs.pager(0).Calls()
	hs.settle(hs.m.Reveal("instance-1000"))
	if !strings.Contains(hs.statusText(), "instance-1000 is not in") || hs.pager(0).Calls() != calls {
		t.Fatalf("status %q, %d requests more", hs.statusText(), hs.pager(0).Calls()-calls)
	}
	hs.settle(hs.m.Reveal("instance-1000"))
	if n := len(hs.statuses); !strings.Contains(hs.statuses[n-1].Text, "instance-1000 is not in") || hs.statuses[n-2] != hs.statuses[n-1] {
		t.Errorf("a second search for the same entry should say so again: %v", hs.statuses)
	}
}

func TestRevealCancelledByMovement(t *testing.T) {
	hs := newHarness(t, 120, 30, gated(contracts(1, 500), 100))
	cmd := hs.m.Init()
	hs.pager(0).Allow(1)
	hs.settle(cmd)
	cmd = hs.m.Reveal("instance-450")
	cmd = tea.Batch(cmd, hs.press("k"))
	hs.pager(0).Allow(10)
	hs.settle(cmd)
	if n := hs.pager(0).Calls(); n != 2 || hs.m.tree.Len() != 200 {
		t.Fatalf("loading went on after the user moved: %d requests, %d rows", n, hs.m.tree.Len())
	}
	if hs.m.cursor != 98 || strings.Contains(hs.statusText(), "looking for") {
		t.Fatalf("cursor %d, status %q; the search should have ended where the user moved", hs.m.cursor, hs.statusText())
	}
}

func TestRevealCancelledByFilterChange(t *testing.T) {
	hs := newHarness(t, 120, 30, servePages(contracts(1, 500), 100))
	hs.settle(hs.m.Init())
	cmd := hs.m.Reveal("instance-450")
	hs.settle(tea.Batch(cmd, hs.press("d")))
	if hs.pager(1).Calls() != 1 || hs.m.cursor != 0 || strings.Contains(hs.statusText(), "looking for") {
		t.Fatalf("new filters: %d requests, cursor %d, status %q", hs.pager(1).Calls(), hs.m.cursor, hs.statusText())
	}
}

func TestRevealNestedInTreeFormat(t *testing.T) {
	es := append(contracts(1, 3), serverlessEndpoint(7, 2, 2))
	hs := newHarness(t, 120, 30, servePages(es, 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.m.Reveal("serverless-703"))
	assertRows(t, hs.rowNames(), []string{
		"0:instance-1", "0:instance-2", "0:instance-3",
		"0:endpoint-7", "1:workergroup-70", "1:workergroup-71",
		"2:serverless-702", "2:serverless-703",
	})
	if l := hs.cursorLine(); !strings.Contains(l, "serverless     ▸ 703 ") {
		t.Fatalf("cursor row %q", l)
	}
}

func TestRevealClosesTheModalAndRetriesAfterError(t *testing.T) {
	hs := newHarness(t, 120, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return billingtest.Paged(contracts(1, 300), 100).With(map[int]error{1: &api.Error{Kind: api.ErrServer, Status: 502}})
	})
	hs.settle(hs.m.Init())
	hs.press("c") // its cursor blink is not run: it would blink forever
	hs.settle(hs.m.Reveal("instance-250"))
	if hs.m.Capturing() {
		t.Fatal("the range field kept the keyboard")
	}
	if !strings.Contains(hs.statusText(), "r to reload") {
		t.Fatalf("status %q", hs.statusText())
	}
	hs.settle(hs.press("r"))
	if l := hs.cursorLine(); !strings.Contains(l, "▸ 250 ") {
		t.Fatalf("after r the search should go on: cursor row %q", l)
	}
	if hs.m.ServerTotal() != 300 {
		t.Errorf("ServerTotal %d", hs.m.ServerTotal())
	}
}

// The Audit's enter on an idle endpoint: its contract is a worker the user
// never saw. Any of the endpoint's workers' rows will do; when none is in
// the filters, the status line names the endpoint the user chose (not
// "instance-8811195 is not in the current filters") and the keys that
// change the range.
func TestRevealEndpointByItsWorkers(t *testing.T) {
	cs := contracts(1, 250)
	cs[120].Meta.EndpointID = 9201
	hs := newHarness(t, 120, 30, servePages(cs, 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.m.RevealOf(shared.RevealMsg{Source: "instance-8811195", What: "idle endpoint idle-chat (9201)", Endpoint: 9201}))
	if l := hs.cursorLine(); !strings.Contains(l, "▸ 121 ") {
		t.Fatalf("cursor row %q, want the endpoint's worker 121", l)
	}
	hs.settle(hs.m.RevealOf(shared.RevealMsg{Source: "instance-8811195", What: "idle endpoint old-chat (9202)", Endpoint: 9202}))
	st := hs.statusText()
	if strings.Contains(st, "8811195") || !strings.Contains(st, "idle endpoint old-chat (9202): none of its workers has charges in range ") ||
		!strings.Contains(st, "d/D change the range") {
		t.Fatalf("status %q", st)
	}
}
