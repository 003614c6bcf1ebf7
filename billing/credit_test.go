package billing

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
)

// Issue 27 item 8: a record with no credit figure is not an account at
// $0: CreditOf refuses it naming the field, nothing reads it as low or
// empty, the runway says the credit is unknown, the watch does not ring,
// and a statement, which runs back from the credit, is an error.
func TestNoCreditIsNotZero(t *testing.T) {
	threshold, on := money.Amount(50_000), true
	u := api.User{ID: 1, CreditMissing: true, BalanceThreshold: &threshold, BalanceThresholdEnabled: &on}
	if _, err := CreditOf(u); !errors.Is(err, ErrNoCredit) || !strings.Contains(err.Error(), `field "credit"`) {
		t.Fatalf("CreditOf: %v", err)
	}
	if LowBalance(u) {
		t.Error("a missing credit reads as below the threshold")
	}
	m := (&Service{loc: time.UTC, now: func() time.Time { return testNow }}).NewMeter()
	for _, e := range []Estimate{EstimateFor(&u, m, State{Done: true}, testNow), EstimateFor(&u, nil, State{}, testNow)} {
		if e.Runway.Reason != CreditUnknown {
			t.Errorf("runway %+v", e.Runway)
		}
	}
	rate := &CurrentRate{PerHour: 1_000_000, AsOf: testNow}
	if rw := rate.RunwayOf(&u); rw.Reason != CreditUnknown {
		t.Errorf("runway at the current rate %+v", rw)
	}
	var w Watch
	known := api.User{Credit: 60_000, BalanceThreshold: &threshold, BalanceThresholdEnabled: &on}
	w.Observe(&known, rate)
	if got := w.Observe(&u, rate); len(got) != 0 {
		t.Errorf("a missing credit rang %v", got)
	}

	for _, null := range []bool{true, false} {
		srv, s := demoService(t, demoserver.Options{Contracts: 20}, demoserver.DemoKey, nil)
		srv.AddFault(demoserver.DropCredit(null))
		from, to := LastMonths(s.Now(), time.UTC, 1)
		_, err := s.Statement(context.Background(), from, to, nil)
		if !errors.Is(err, ErrNoCredit) || !strings.Contains(err.Error(), `credit: the account record holds no credit figure (field "credit")`) {
			t.Errorf("null %v: statement error %v", null, err)
		}
	}
}
