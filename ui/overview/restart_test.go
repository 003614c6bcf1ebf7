package overview

import (
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
)

var invalidToken = &api.Error{Kind: api.ErrInvalidToken, Op: "GET /api/v0/charges/", Status: 400, Msg: "Invalid pagination token."}

// A refused page token mid-way loads the range again from the first page,
// by itself, and its totals count every contract once.
func TestInvalidTokenReloadsRange(t *testing.T) {
	cs := fixture()
	n := 0
	m, d, qs := modelWith(100, 30, func(api.ChargesQuery) *fakePager {
		n++
		p := &fakePager{pages: paged(cs, 10), total: len(cs)}
		if n == 1 {
			p.errs = map[int]error{2: invalidToken}
		}
		return p
	})
	m.Update(shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	if v := view(m); !strings.Contains(v, "all 42 contracts loaded") || strings.Contains(v, "✗") {
		t.Errorf("after the restart:\n%s", v)
	}
	if len(*qs) != 2 {
		t.Errorf("%d queries; want the range paged once more", len(*qs))
	}
	var tot spend.Totals
	tot.Add(cs)
	if m.main.totals.Total != tot.Total || m.main.totals.Contracts != len(cs) {
		t.Errorf("totals %v over %d contracts, want %v over %d", m.main.totals.Total, m.main.totals.Contracts, tot.Total, len(cs))
	}
}

// A server that refuses the token again stops with r to retry rather than
// restarting for ever.
func TestInvalidTokenTwiceStops(t *testing.T) {
	cs := fixture()
	m, d, qs := modelWith(100, 30, func(api.ChargesQuery) *fakePager {
		return &fakePager{pages: paged(cs, 10), total: len(cs), errs: map[int]error{2: invalidToken}}
	})
	m.Update(shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	if v := view(m); !strings.Contains(v, "✗ charges: ") || !strings.Contains(v, "invalid pagination token") {
		t.Errorf("no retryable error:\n%s", v)
	}
	if len(*qs) != 2 {
		t.Errorf("%d queries; want one restart only", len(*qs))
	}
}
