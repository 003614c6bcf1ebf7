package overview

import (
	"context"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
)

// BenchmarkReopenFromLedger: the dashboard reopens a covered 90 days of a
// 20,000-contract year. rows-ms is from the screen taking the range to
// every row of it loaded from the ledger and folded into the totals, the
// daily chart, the top contracts and the burn — what the Overview shows
// before the sync has asked the server anything.
func BenchmarkReopenFromLedger(b *testing.B) {
	srv, err := demoserver.Start(demoserver.Options{Contracts: 20_000, Now: now, Span: 365 * 24 * time.Hour, Threshold: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	dir := b.TempDir()
	id := ledger.Identity{Host: "bench", Account: ledger.KeyDigest(demoserver.DemoKey)}
	open := func() (*billing.Service, *ledger.Ledger, context.CancelFunc) {
		client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0))
		if err != nil {
			b.Fatal(err)
		}
		led, _, err := ledger.Open(ledger.Path(dir, id), id)
		if err != nil {
			b.Fatal(err)
		}
		base, cancel := context.WithCancel(context.Background())
		return billing.New(base, client, billing.WithClock(func() time.Time { return now }), billing.WithLocation(time.UTC),
			billing.WithLedger(led)), led, cancel
	}
	r, err := spend.PresetRange("90d", now, time.UTC)
	if err != nil {
		b.Fatal(err)
	}
	q := billing.RangeQuery(r.From, r.To)
	svc, led, cancel := open()
	f := svc.Feed(q)
	rows, _, err := f.All(context.Background(), nil)
	f.Release()
	cancel()
	svc.Close()
	_ = led.Close()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		svc, led, cancel := open()
		ctx := newCtx()
		ctx.Base, ctx.Billing = context.Background(), svc
		m := New(ctx)
		m.SetSize(120, 40)
		d := newDriver(m)
		b.StartTimer()
		start := time.Now()
		d.runUntil(b, m.Update(shared.RangeMsg{Range: r}), func() bool {
			return m.main != nil && m.main.st.Whole() && m.totals.Contracts == len(rows) && m.meter != nil
		})
		elapsed := time.Since(start)
		b.StopTimer()
		b.ReportMetric(float64(elapsed.Milliseconds()), "rows-ms")
		b.ReportMetric(float64(len(rows)), "contracts")
		cancel()
		svc.Close()
		_ = led.Close()
		b.StartTimer()
	}
}
