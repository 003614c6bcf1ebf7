package overview

import (
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
)

var invalidToken = &api.Error{Kind: api.ErrInvalidToken, Op: "GET /api/v0/charges/", Status: 400, Msg: "Invalid pagination token."}

// A refused page token mid-way pages the range again from the first page,
// by itself (the feed's restart), and the screen's totals count every
// contract once. When the restart, and giving up on a second refusal,
// happen is the feed's policy, tested in billing.
func TestRefusedTokenCountsOnce(t *testing.T) {
	cs := fixture()
	n := 0
	m, d, qs := modelWith(t, 100, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		n++ // at the feed's creation, then at its restart: never at once
		p := &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
		if n == 1 {
			p.Errs = map[int]error{2: invalidToken}
		}
		return p
	})
	d.send(t, shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	if v := view(m); !strings.Contains(v, "all 42 contracts loaded") || strings.Contains(v, "✗") || strings.Contains(v, "repeated") {
		t.Errorf("after the restart:\n%s", v)
	}
	if qs.n() != 2 {
		t.Errorf("%d queries; want the range paged once more", qs.n())
	}
	var tot spend.Totals
	tot.Add(cs)
	if m.totals.Total != tot.Total || m.totals.Contracts != len(cs) {
		t.Errorf("totals %v over %d contracts, want %v over %d", m.totals.Total, m.totals.Contracts, tot.Total, len(cs))
	}
	for k, a := range tot.ByType {
		if m.totals.ByType[k] != a {
			t.Errorf("%s: %v, want %v", k, m.totals.ByType[k], a)
		}
	}
	if len(errorStatuses(d)) != 0 {
		t.Errorf("a restart the feed handled is no error: %+v", d.statuses)
	}
}
