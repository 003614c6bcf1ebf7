package statement

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/demotest"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// Over a ledger the screen follows the year's sync and reads its charges
// from the ledger once the ledger holds them, holding none of the year's
// rows: its months are those of a fresh fetch without the ledger.
func TestStatementFromTheLedgerIsTheServers(t *testing.T) {
	srv, err := demoserver.Start(demoserver.Options{Now: demoNow, Contracts: 1200, Threshold: -1, InvoicesThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	paced := api.WithEndpointThreshold(api.InvoicesPath, 0)
	svc, _ := demotest.Ledger(t, srv, t.TempDir(), nil, paced)
	h := &harness{t: t, srv: srv, m: New(screentest.Context(context.Background(), svc, screentest.Styles(theme.New(false))))}
	h.m.SetSize(80, 20)
	u, err := svc.Account(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h.m.Update(shared.UserMsg{User: u})
	h.run(h.m.Shown(true))
	got := h.m.Statement()
	if got == nil || got.Incomplete {
		t.Fatalf("statement %+v\n%s", got, h.view())
	}
	if !h.m.held || len(h.m.cf.Feed().Pages(0)) != 0 {
		t.Fatalf("the screen holds the year's rows (held %v): it should read them from the ledger", h.m.held)
	}

	c, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0), paced)
	if err != nil {
		t.Fatal(err)
	}
	fresh := billing.New(context.Background(), c, billing.WithLocation(time.UTC), billing.WithClock(srv.Now))
	t.Cleanup(fresh.Close)
	want, err := fresh.Statement(context.Background(), got.Months[0].Start, srv.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Months, want.Months) {
		t.Errorf("the screen's months\n%+v\na fresh fetch's\n%+v", got.Months, want.Months)
	}
}
