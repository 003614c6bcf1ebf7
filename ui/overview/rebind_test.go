package overview

import (
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
)

// With reload bound to f5, a stopped feed's hint names f5, not r (which
// no longer does anything).
func TestRetryHintNamesReboundKey(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{"reload": {"f5"}})
	if err != nil {
		t.Fatal(err)
	}
	cs := fixture()
	boom := &api.Error{Kind: api.ErrServer, Op: "GET /api/v0/charges/", Status: 500, Msg: "internal error"}
	m, d, _ := modelWith(t, 100, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs), Errs: map[int]error{2: boom}}
	})
	m.ctx.Keys = b
	d.send(t, shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	if v := view(m); !strings.Contains(v, "✗ charges: ") || !strings.Contains(v, "f5 to retry") || strings.Contains(v, "r to retry") {
		t.Fatalf("the retry hint does not name f5:\n%s", v)
	}
}
