package charges

import (
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api"
)

// statusLine is the line above the footer.
func (hs *harness) statusLine() string {
	l := hs.lines()
	return l[len(l)-2]
}

func TestRevealLoadedEntry(t *testing.T) {
	hs := newHarness(t, 120, 30, servePages(contracts(1, 300), 100))
	hs.settle(hs.m.Init())
	if cmd := hs.m.Reveal("instance-60"); cmd != nil {
		t.Fatal("revealing a loaded entry far from the end should fetch nothing")
	}
	if l := hs.cursorLine(); !strings.Contains(l, "▸ 60 ") || !strings.Contains(l, "job-60") {
		t.Fatalf("cursor row %q, want contract 60", l)
	}
	if hs.pagers[0].calls != 1 {
		t.Fatalf("%d fetches, want 1", hs.pagers[0].calls)
	}
}

func TestRevealLoadsUntilFound(t *testing.T) {
	hs := newHarness(t, 120, 30, servePages(contracts(1, 500), 100))
	hs.settle(hs.m.Init())
	cmd := hs.m.Reveal("instance-250")
	if cmd == nil || !strings.Contains(hs.statusLine(), "looking for instance-250…") {
		t.Fatalf("no search under way: fetch %v, status %q", cmd != nil, hs.statusLine())
	}
	if hs.m.cursor != 99 {
		t.Errorf("while searching the cursor should follow the end like G: %d", hs.m.cursor)
	}
	cmd = hs.run(cmd)
	if hs.m.cursor != 199 || cmd == nil {
		t.Fatalf("after page 2: cursor %d, next fetch %v", hs.m.cursor, cmd != nil)
	}
	hs.settle(cmd)
	if l := hs.cursorLine(); !strings.Contains(l, "▸ 250 ") {
		t.Fatalf("cursor row %q, want contract 250", l)
	}
	if hs.pagers[0].calls != 3 || hs.m.Complete() {
		t.Fatalf("%d fetches (complete %v); loading should stop at the page holding it", hs.pagers[0].calls, hs.m.Complete())
	}
	if s := hs.statusLine(); strings.Contains(s, "looking") {
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
	st := hs.statusLine()
	if !strings.Contains(st, "instance-999 is not in the current filters") {
		t.Fatalf("status %q", st)
	}
	if v := hs.m.View(); strings.Contains(v, "\x1b[2J") || strings.Contains(v, "\u202e") {
		t.Fatalf("the source was not sanitized: %q", v)
	}
	hs.press("k")
	if strings.Contains(hs.view(), "not in the current filters") {
		t.Error("the notice stays after a key")
	}
	// Everything loaded: the answer is immediate.
	if cmd := hs.m.Reveal("instance-1000"); cmd != nil || !strings.Contains(hs.statusLine(), "instance-1000 is not in") {
		t.Fatalf("fetch %v, status %q", cmd != nil, hs.statusLine())
	}
}

func TestRevealCancelledByMovement(t *testing.T) {
	hs := newHarness(t, 120, 30, servePages(contracts(1, 500), 100))
	hs.settle(hs.m.Init())
	cmd := hs.m.Reveal("instance-450")
	hs.press("k")
	if next := hs.run(cmd); next != nil {
		t.Fatal("loading went on after the user moved")
	}
	if hs.m.cursor != 98 || strings.Contains(hs.view(), "looking for") {
		t.Fatalf("cursor %d; the search should have ended where the user moved", hs.m.cursor)
	}
}

func TestRevealCancelledByFilterChange(t *testing.T) {
	hs := newHarness(t, 120, 30, servePages(contracts(1, 500), 100))
	hs.settle(hs.m.Init())
	hs.m.Reveal("instance-450")
	hs.settle(hs.press("d"))
	if hs.pagers[1].calls != 1 || hs.m.cursor != 0 || strings.Contains(hs.view(), "looking for") {
		t.Fatalf("new filters: %d fetches, cursor %d", hs.pagers[1].calls, hs.m.cursor)
	}
}

func TestRevealNestedInTreeFormat(t *testing.T) {
	es := append(contracts(1, 3), serverlessEndpoint(7, 2, 2))
	hs := newHarness(t, 120, 30, servePages(es, 100))
	hs.settle(hs.m.Init())
	hs.m.Reveal("serverless-703")
	assertRows(t, hs.rowNames(), []string{
		"0:instance-1", "0:instance-2", "0:instance-3",
		"0:endpoint-7", "1:workergroup-70", "1:workergroup-71",
		"2:serverless-702", "2:serverless-703",
	})
	if l := hs.cursorLine(); !strings.Contains(l, "serverless-703") {
		t.Fatalf("cursor row %q", l)
	}
}

func TestRevealClosesTheModalAndRetriesAfterError(t *testing.T) {
	hs := newHarness(t, 120, 30, func(api.ChargesQuery) *fakePager {
		return &fakePager{
			pages: pagesOf(contracts(1, 300), 100),
			fail:  map[int]error{1: &api.Error{Kind: api.ErrServer, Status: 502}},
		}
	})
	hs.settle(hs.m.Init())
	hs.press("c")
	hs.run(hs.m.Reveal("instance-250"))
	if hs.m.Capturing() {
		t.Fatal("the range field kept the keyboard")
	}
	if !strings.Contains(hs.statusLine(), "r to retry") {
		t.Fatalf("status %q", hs.statusLine())
	}
	hs.settle(hs.press("r"))
	if l := hs.cursorLine(); !strings.Contains(l, "▸ 250 ") {
		t.Fatalf("after r the search should go on: cursor row %q", l)
	}
	if hs.m.ServerTotal() != 300 {
		t.Errorf("ServerTotal %d", hs.m.ServerTotal())
	}
}
