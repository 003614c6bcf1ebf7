package overview

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/demotest"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
)

// A reopen shows the ledger's figures with how old they are while the
// sync runs, and once the sync brought new rows the screen reads the
// figures again: the totals are the server's now, nothing counted twice.
func TestReopenFromLedgerFoldsAgain(t *testing.T) {
	srv, err := demoserver.Start(demoserver.Options{Contracts: 900, Now: now, Span: 60 * 24 * time.Hour, Threshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	run := func() (*Model, *driver, func()) {
		svc, stop := ledgerServiceStop(t, srv, dir, srv.Now)
		ctx := newCtx()
		ctx.Base, ctx.Billing = context.Background(), svc
		m := New(ctx)
		m.SetSize(100, 30)
		return m, newDriver(m), stop
	}
	r := preset(t, "30d")
	m, d, _ := run()
	d.run(t, m.SetRange(r))
	if !m.mainState().Done {
		t.Fatal("the first run did not load")
	}

	srv.Advance(2*time.Hour, 12)
	// The sync held up at the server: the ledger's figures show, said old.
	srv.AddFault(demoserver.Fault{Path: "/api/v0/charges", Hang: true})
	m, d, stop := run()
	reading := ""
	d.runUntil(t, m.SetRange(r), func() bool {
		if reading == "" && m.fig.busy && !m.fig.got {
			reading = view(m)
		}
		return m.fig.got
	})
	if !strings.Contains(reading, "reading the range from the ledger") || strings.Contains(reading, "loading charges") {
		t.Errorf("while the ledger was read the screen read:\n%s", reading)
	}
	if early := view(m); !strings.Contains(early, "synced") || !strings.Contains(early, "syncing") || !strings.Contains(early, "Top 5 contracts") {
		t.Errorf("while syncing the screen read:\n%s", early)
	}
	stop()
	srv.ClearFaults()

	m, d, _ = run()
	d.runUntil(t, m.SetRange(r), func() bool { return m.main != nil && m.mainState().Done })
	d.run(t, nil)
	want := truth(srv, r.From, srv.Now())
	var tot spend.Totals
	tot.Add(want)
	if m.totals.Total != tot.Total || m.totals.Contracts != len(want) {
		t.Errorf("totals %v over %d contracts, the server's %v over %d", m.totals.Total, m.totals.Contracts, tot.Total, len(want))
	}
	if !m.held || len(m.main.Feed().Pages(0)) != 0 {
		t.Errorf("the screen holds the range's rows (held %v): it should read its figures from the ledger", m.held)
	}
}

// ledgerService is a billing layer on srv keeping its ledger in dir, on
// the clock clock; it closes with the test.
func ledgerService(tb testing.TB, srv *demoserver.Server, dir string, clock func() time.Time) *billing.Service {
	svc, _ := ledgerServiceStop(tb, srv, dir, clock)
	return svc
}

// ledgerServiceStop is ledgerService with the function that closes it
// before the test ends.
func ledgerServiceStop(tb testing.TB, srv *demoserver.Server, dir string, clock func() time.Time) (*billing.Service, func()) {
	tb.Helper()
	return demotest.Ledger(tb, srv, dir, clock)
}

// Over a ledger, the month panel reads its two months from the ledger
// once their sync ends, holding none of their rows, and shows the
// outlook a fresh fetch of the months gives (under window amounts, the
// ledger's feed of them).
func TestMonthPanelFromLedgerIsTheServers(t *testing.T) {
	for _, windowAmounts := range []bool{false, true} {
		srv, err := demoserver.Start(demoserver.Options{Contracts: 900, Now: now, Span: 90 * 24 * time.Hour, Threshold: -1, WindowAmounts: windowAmounts})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		svc := ledgerService(t, srv, t.TempDir(), srv.Now)
		ctx := newCtx()
		ctx.Base, ctx.Billing, ctx.Budget = context.Background(), svc, 900_000
		m := New(ctx)
		m.SetSize(120, 40)
		d := newDriver(m)
		d.runUntil(t, m.SetRange(preset(t, "30d")), func() bool { return m.main != nil && m.mainState().Done })
		rate := testRate()
		d.runUntil(t, m.Update(shared.RateMsg{Rate: rate}), func() bool { return m.month.out != nil })
		if !m.month.held || len(m.month.fl.Feed().Pages(0)) != 0 || !m.held || len(m.main.Feed().Pages(0)) != 0 {
			t.Fatalf("window amounts %v: the screen holds rows of its feeds (range held %v, month held %v)", windowAmounts, m.held, m.month.held)
		}

		client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0))
		if err != nil {
			t.Fatal(err)
		}
		fresh := billing.New(context.Background(), client, billing.WithClock(srv.Now), billing.WithLocation(time.UTC))
		t.Cleanup(fresh.Close)
		// Under window amounts a fresh fetch may differ by a thousandth
		// a contract: the server rounds a contract's part of the range,
		// the ledger its part of each day (docs/ledger.md); the panel
		// then shows what the ledger's own feed of the months gives, as
		// before it read the ledger itself.
		from := fresh
		if windowAmounts {
			from = svc
		}
		got := *m.month.out
		f := from.Feed(from.OutlookQuery(got.AsOf))
		if _, _, err := f.All(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		want := from.OutlookOf(f, &rate, nil, got.AsOf, got.AsOf, ctx.Budget)
		f.Release()
		if got.SoFar != want.SoFar || got.PrevSoFar != want.PrevSoFar || got.Forecast != want.Forecast || got.Used != want.Used || want.SoFar == 0 {
			t.Errorf("window amounts %v: the panel's outlook %+v\nthe server's %+v", windowAmounts, got, want)
		}
		if head := lineWith(t, m, "Month  "); !strings.Contains(head, want.SoFar.String()+" so far") {
			t.Errorf("window amounts %v: %q lacks %s so far", windowAmounts, head, want.SoFar)
		}
	}
}

// r over the ledger keeps the figures, the burn and the month on screen while the
// sync runs and the ledger is read again, as a reload of the feed keeps
// its rows: nothing blanks to "loading".
func TestReloadOverTheLedgerKeepsTheFigures(t *testing.T) {
	srv, err := demoserver.Start(demoserver.Options{Contracts: 900, Now: now, Span: 60 * 24 * time.Hour, Threshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	svc := ledgerService(t, srv, t.TempDir(), srv.Now)
	ctx := newCtx()
	ctx.Base, ctx.Billing = context.Background(), svc
	m := New(ctx)
	m.SetSize(100, 40)
	d := newDriver(m)
	d.run(t, m.SetRange(preset(t, "30d")))
	d.run(t, m.Update(shared.RateMsg{Rate: testRate()}))
	before := m.totals
	burn, month := lineWith(t, m, "Burn "), lineWith(t, m, "Month  ")
	if !m.held || before.Contracts == 0 || !strings.Contains(burn, "/day") {
		t.Fatalf("not loaded over the ledger (held %v):\n%s", m.held, view(m))
	}
	cmd := m.Update(tea.KeyPressMsg{Code: 'r', Text: "r"})
	if m.totals.Contracts != before.Contracts || strings.Contains(view(m), "loading charges") || lineWith(t, m, "Burn ") != burn ||
		lineWith(t, m, "Month  ") != month || !strings.Contains(month, "so far") {
		t.Errorf("r blanked the figures:\n%s", view(m))
	}
	d.run(t, cmd)
	if m.totals.Total != before.Total || !m.mainState().Done {
		t.Errorf("after the reload: %v over %d contracts (done %v); before %v over %d", m.totals.Total, m.totals.Contracts, m.mainState().Done, before.Total, before.Contracts)
	}
}
