package overview

import (
	"context"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/spend"
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
	clock := func() time.Time { return now }
	r, err := spend.PresetRange("90d", now, time.UTC)
	if err != nil {
		b.Fatal(err)
	}
	q := billing.RangeQuery(r.From, r.To)
	// The first run fills the ledger (a test's cleanups close it: b's
	// would run only at the end).
	var rows []api.Charge
	b.Run("fill", func(b *testing.B) {
		f := ledgerService(b, srv, dir, clock).Feed(q)
		defer f.Release()
		if rows, _, err = f.All(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.Run("reopen", func(b *testing.B) {
			ctx := newCtx()
			ctx.Base, ctx.Billing = context.Background(), ledgerService(b, srv, dir, clock)
			m := New(ctx)
			m.SetSize(120, 40)
			d := newDriver(m)
			start := time.Now()
			d.runUntil(b, m.SetRange(r), func() bool {
				return m.main != nil && m.mainState().Whole() && m.totals.Contracts == len(rows) && m.meter != nil
			})
			b.ReportMetric(float64(time.Since(start).Milliseconds()), "rows-ms")
			b.ReportMetric(float64(len(rows)), "contracts")
		})
	}
}
