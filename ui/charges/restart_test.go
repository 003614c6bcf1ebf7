package charges

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api"
)

// invalidToken is the client's error for a refused pagination token.
var invalidToken = &api.Error{Kind: api.ErrInvalidToken, Status: 400, Msg: "Invalid pagination token."}

// A refused token mid-way pages again from the first page: the rows shown
// stay, the repeated ones are not added twice, a contract the server added
// meanwhile is, and the status line says what happened.
func TestInvalidTokenRestartsPager(t *testing.T) {
	entries := contracts(1, 30)
	fresh := append(contracts(100, 1), entries...) // the server gained a contract
	hs := newHarness(t, 100, 60, func(api.ChargesQuery) *fakePager { return nil })
	calls := 0
	hs.m.newPager = func(q api.ChargesQuery) pageSource {
		calls++
		p := &fakePager{q: q, pages: pagesOf(entries, 10), fail: map[int]error{1: invalidToken}}
		if calls > 1 {
			p = &fakePager{q: q, pages: pagesOf(fresh, 10)}
		}
		hs.pagers = append(hs.pagers, p)
		return p
	}
	// The screen is taller than all rows, so it pages to the end by itself.
	hs.settle(hs.m.Init())

	if len(hs.pagers) != 2 {
		t.Fatalf("%d pagers, want the first and one restarted", len(hs.pagers))
	}
	seen := map[string]int{}
	for _, r := range hs.rowNames() {
		seen[r]++
		if seen[r] > 1 {
			t.Errorf("row %s shown twice", r)
		}
	}
	for _, c := range fresh {
		if seen["0:"+c.Source] != 1 {
			t.Errorf("%s missing after the restart", c.Source)
		}
	}
	if got := hs.m.Totals().Contracts; got != len(fresh) {
		t.Errorf("totals count %d contracts, want %d", got, len(fresh))
	}
	v := hs.view()
	if !strings.Contains(v, "pagination restarted") {
		t.Errorf("the screen does not say the pagination restarted:\n%s", v)
	}
	if want := fmt.Sprintf("%d of %d contracts", len(fresh), len(fresh)); !strings.Contains(v, want) {
		t.Errorf("footer does not read %q:\n%s", want, v)
	}
}

// A server that refuses the restarted pager's token too ends in an error
// the user can retry, not in a loop of restarts.
func TestInvalidTokenTwiceStops(t *testing.T) {
	entries := contracts(1, 30)
	hs := newHarness(t, 100, 60, func(api.ChargesQuery) *fakePager {
		return &fakePager{pages: pagesOf(entries, 10), fail: map[int]error{1: invalidToken}}
	})
	hs.settle(hs.m.Init())
	hs.settle(hs.press("G"))
	if len(hs.pagers) != 2 {
		t.Fatalf("%d pagers, want 2 (one restart, then stop)", len(hs.pagers))
	}
	v := hs.view()
	if !strings.Contains(v, "invalid pagination token") || !strings.Contains(v, "r to retry") {
		t.Errorf("no retryable error after the second refusal:\n%s", v)
	}
	if n := len(hs.rowNames()); n != 10 {
		t.Errorf("%d rows, want the first page's 10 kept once", n)
	}
}
