package charges

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/billingtest"
)

// invalidToken is the client's error for a refused pagination token.
var invalidToken = &api.Error{Kind: api.ErrInvalidToken, Status: 400, Msg: "Invalid pagination token."}

// A refused token mid-way makes the feed page again from the first page:
// the rows shown stay, the repeated ones are not added twice, a contract
// the server added meanwhile is, and the status line says what happened.
//
// The screen used to restart the pager itself; the feed does it now, and
// billing's tests cover its policy (one restart, then an error r can
// retry), so the screen's other restart tests are gone.
func TestInvalidTokenKeepsRowsWithoutDoubles(t *testing.T) {
	entries := contracts(1, 30)
	fresh := append(contracts(100, 1), entries...) // the server gained a contract
	made := 0
	hs := newHarness(t, 100, 60, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		// Called by the feed: once at the start, once for the restart.
		if made++; made > 1 {
			return billingtest.Paged(fresh, 10)
		}
		return billingtest.Paged(entries, 10).With(map[int]error{1: invalidToken})
	})
	// The screen is taller than all rows, so it pages to the end by itself.
	hs.settle(hs.m.Init())

	if hs.numPagers() != 2 {
		t.Fatalf("%d pagers, want the first and one restarted", hs.numPagers())
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
	if !hs.sentStatus("pagination restarted") {
		t.Errorf("the status line never said the pagination restarted: %v", hs.statuses)
	}
	v := hs.view()
	if want := fmt.Sprintf("%d of %d contracts", len(fresh), len(fresh)); !strings.Contains(v, want) {
		t.Errorf("footer does not read %q:\n%s", want, v)
	}
	if strings.Contains(v, "duplicate") || hs.m.Err() != nil {
		t.Errorf("the repeats of a restart are not the server's fault (err %v):\n%s", hs.m.Err(), v)
	}
}
