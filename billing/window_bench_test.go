package billing

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/spend"
)

// BenchmarkChargesWindowFile opens the Charges screen's window on a
// generated ledger (ledger's TestGenWindowLedger; VASTDASH_WINDOW_LEDGER
// names the file) as the dashboard would on choosing the year: the ledger
// opened, the window made, the count and total read (totals-ms), then G's
// last 100 rows (end-ms) and the first 100 by amount (amount-ms). Peak
// memory is the process's: run the test binary under /usr/bin/time -v.
// No request is made. Skipped unless the file is named.
func BenchmarkChargesWindowFile(b *testing.B) {
	p := os.Getenv("VASTDASH_WINDOW_LEDGER")
	if p == "" {
		b.Skip("VASTDASH_WINDOW_LEDGER is not set")
	}
	const lo, hi = 1767225600, 1798761600 // the generated year, 2026 in UTC
	id := ledger.Identity{Host: "console.vast.ai", Account: ledger.KeyDigest("key-one")}
	client, err := api.New("http://127.0.0.1:9", "key-one")
	if err != nil {
		b.Fatal(err)
	}
	q := RangeQuery(time.Unix(lo, 0).UTC(), time.Unix(hi-1, 0).UTC())
	for _, rule := range []AmountRule{RuleTotals, RuleWindow} {
		b.Run(rule.String(), func(b *testing.B) { benchWindowFile(b, p, id, client, q, rule) })
	}
}

func benchWindowFile(b *testing.B, p string, id ledger.Identity, client *api.Client, q api.ChargesQuery, rule AmountRule) {
	ctx := context.Background()
	led, _, err := ledger.Open(p, id)
	if err == nil {
		err = led.SetMeta(ctx, "amount_rule", rule.String())
		_ = led.Close()
	}
	if err != nil {
		b.Fatal(err)
	}
	const hi = 1798761600
	var totals, end, amount, figures time.Duration
	for b.Loop() {
		start := time.Now()
		led, _, err := ledger.Open(p, id)
		if err != nil {
			b.Fatal(err)
		}
		s := New(ctx, client, WithLocation(time.UTC), WithClock(func() time.Time { return time.Unix(hi-3600, 0) }), WithLedger(ledger.Opened(led)))
		w, ok := s.ChargesWindow(ctx, q)
		if !ok || w.WindowAmounts() != (rule == RuleWindow) {
			b.Fatal("the ledger does not hold the year under ", rule)
		}
		if n, _, err := w.Totals(ctx); err != nil || n == 0 {
			b.Fatal(n, err)
		}
		totals += time.Since(start)
		t := time.Now()
		if rows, err := w.Page(ctx, ledger.WindowOrder{}, nil, 100, true); err != nil || len(rows) != 100 {
			b.Fatal(len(rows), err)
		}
		end += time.Since(t)
		t = time.Now()
		if rows, err := w.Page(ctx, ledger.WindowOrder{By: ledger.ByAmount}, nil, 100, false); err != nil || len(rows) != 100 {
			b.Fatal(len(rows), err)
		}
		amount += time.Since(t)
		// The Overview's figures of the year: totals by contract and
		// charge type, the days by kind, the labels, the burn, the top.
		t = time.Now()
		f := &RangeFigures{Daily: spend.NewPeriodWindow(time.UTC, q.From, q.To, spend.PeriodFor(q.From, q.To, time.UTC)),
			Labels: NewGrouping(ByLabel, time.UTC, q.From, q.To), Meter: s.NewMeter(), TopN: 5}
		if err := w.Fill(ctx, f); err != nil || f.Totals.Contracts == 0 {
			b.Fatal(f.Totals.Contracts, err)
		}
		figures += time.Since(t)
		s.Close()
		_ = led.Close()
	}
	n := float64(b.N)
	b.ReportMetric(float64(totals.Milliseconds())/n, "totals-ms")
	b.ReportMetric(float64(end.Microseconds())/1000/n, "end-ms")
	b.ReportMetric(float64(amount.Microseconds())/1000/n, "amount-ms")
	b.ReportMetric(float64(figures.Milliseconds())/n, "figures-ms")
}
