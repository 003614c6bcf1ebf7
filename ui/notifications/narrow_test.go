package notifications

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing/notices"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/shared"
)

// At 40 columns the threshold row and the suggestion under it show their
// amounts whole: they read "threshold: $…" and "spend: $4…" before, the
// explanation kept and the figure cut.
func TestThresholdAmountsWholeWhenNarrow(t *testing.T) {
	_, s := suggested(t, 40, 12)
	want, err := notices.SuggestThreshold(context.Background(), s.ctx.Billing, api.ChargesQuery{})
	if err != nil || want.Reason != "" {
		t.Fatalf("billing's suggestion %+v %v", want, err)
	}
	u, err := s.ctx.Billing.Account(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	golden.AssertFits(t, s.View(), 40, 12)
	v := view(s)
	for _, amount := range []string{u.BalanceThreshold.Credit(), want.Amount.Credit()} {
		if !strings.Contains(v, amount) {
			t.Errorf("%s cut:\n%s", amount, v)
		}
	}
	if strings.Contains(v, "$…") {
		t.Errorf("an amount is cut:\n%s", v)
	}
	// The hint calls the key a key: "a applies $594.86" read as an
	// article at 40 columns.
	if !strings.Contains(v, "key a applies "+want.Amount.Credit()) {
		t.Errorf("the suggestion's hint at 40 columns:\n%s", v)
	}
}

// suggested is the screen on the demo server in w×h with the last 30 days
// loaded, so the threshold row has its suggestion.
func suggested(t *testing.T, w, h int) (*demoserver.Server, *screen) {
	t.Helper()
	return suggestedKeys(t, w, h, nil)
}

// suggestedKeys is suggested with the keys bound as keys binds them.
func suggestedKeys(t *testing.T, w, h int, keys keymap.Bindings) (*demoserver.Server, *screen) {
	t.Helper()
	srv := startDemo(t, false)
	s, u := demoScreenKeys(t, srv, demoserver.DemoKey, w, h, keys)
	s.send(shared.UserMsg{User: u})
	s.deliver()
	now := srv.Now()
	s.exec(s.SetRange(spend.Range{From: now.AddDate(0, 0, -29).Truncate(24 * time.Hour), To: now}))
	s.deliver()
	return srv, s
}
