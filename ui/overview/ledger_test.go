package overview

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/spend"
)

// A reopen shows the ledger's rows with how old they are, and when the
// sync brings new rows the screen folds them again from the first: the
// totals are the server's now, nothing counted twice.
func TestReopenFromLedgerFoldsAgain(t *testing.T) {
	srv, err := demoserver.Start(demoserver.Options{Contracts: 900, Now: now, Span: 60 * 24 * time.Hour, Threshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	run := func() (*Model, *driver) {
		svc := ledgerService(t, srv, dir, srv.Now)
		ctx := newCtx()
		ctx.Base, ctx.Billing = context.Background(), svc
		m := New(ctx)
		m.SetSize(100, 30)
		return m, newDriver(m)
	}
	r := preset(t, "30d")
	m, d := run()
	d.run(t, m.SetRange(r))
	if !m.main.State().Done {
		t.Fatal("the first run did not load")
	}

	srv.Advance(2*time.Hour, 12)
	m, d = run()
	early := ""
	d.runUntil(t, m.SetRange(r), func() bool {
		if early == "" && m.main != nil && m.main.State().Ledger && !m.main.State().Done {
			early = view(m)
		}
		return m.main != nil && m.main.State().Done
	})
	d.run(t, nil)
	if !strings.Contains(early, "synced") || !strings.Contains(early, "syncing") {
		t.Errorf("while syncing the screen read:\n%s", early)
	}
	want := truth(srv, r.From, srv.Now())
	var tot spend.Totals
	tot.Add(want)
	if m.totals.Total != tot.Total || m.totals.Contracts != len(want) {
		t.Errorf("totals %v over %d contracts, the server's %v over %d", m.totals.Total, m.totals.Contracts, tot.Total, len(want))
	}
}

// ledgerService is a billing layer on srv keeping its ledger in dir, on
// the clock clock; it closes with the test.
func ledgerService(tb testing.TB, srv *demoserver.Server, dir string, clock func() time.Time) *billing.Service {
	tb.Helper()
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0))
	if err != nil {
		tb.Fatal(err)
	}
	id := ledger.Identity{Host: "demo", Account: ledger.KeyDigest(demoserver.DemoKey)}
	led, _, err := ledger.Open(ledger.Path(dir, id), id)
	if err != nil {
		tb.Fatal(err)
	}
	base, cancel := context.WithCancel(context.Background())
	svc := billing.New(base, client, billing.WithClock(clock), billing.WithLocation(time.UTC), billing.WithLedger(ledger.Opened(led)))
	tb.Cleanup(func() {
		cancel()
		svc.Close()
		_ = led.Close()
	})
	return svc
}
