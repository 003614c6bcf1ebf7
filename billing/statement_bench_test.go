package billing

import (
	"context"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// BenchmarkStatementYear: a year's statement of 20,000 contracts and 500
// payment records from the demo server takes ⌈500/100⌉ + ⌈20,000/500⌉ =
// 45 requests, no 429, and, the two feeds running side by side, about the
// time of the slower one alone (the charges: 39 intervals). At the real
// thresholds (1 s and 3 s) with VASTDASH_BENCH_LONG=1, else at 1/50 of
// them. x-slower-floor is the time over that floor.
func BenchmarkStatementYear(b *testing.B) {
	thC, thI := 20*time.Millisecond, 60*time.Millisecond
	if os.Getenv("VASTDASH_BENCH_LONG") == "1" {
		thC, thI = time.Second, 3*time.Second
	}
	const contracts, records = 20_000, 500
	now := time.Date(2026, 12, 31, 12, 0, 0, 0, time.UTC)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv, err := demoserver.Start(demoserver.Options{Contracts: contracts, Payments: records, Now: now,
			Span: 360 * 24 * time.Hour, Threshold: thC, InvoicesThreshold: thI})
		if err != nil {
			b.Fatal(err)
		}
		tr := &http.Transport{}
		c, err := api.New(srv.URL(), demoserver.DemoKey, api.WithHTTPClient(&http.Client{Transport: tr}),
			api.WithChargesThreshold(thC), api.WithEndpointThreshold(api.InvoicesPath, thI))
		if err != nil {
			b.Fatal(err)
		}
		s := New(context.Background(), c, WithLocation(time.UTC), WithClock(srv.Now))
		b.StartTimer()
		start := time.Now()
		st, err := s.Statement(context.Background(), now.AddDate(0, -11, 0), now, nil)
		elapsed := time.Since(start)
		b.StopTimer()
		if err != nil || len(st.Months) != 12 {
			b.Fatalf("%v, %d months", err, len(st.Months))
		}
		inv, chg, n := srv.CountPath(api.InvoicesPath), srv.CountPath("/api/v0/charges"), 0
		for _, m := range st.Months {
			n += len(m.Records)
		}
		if inv != 5 || chg != 40 || srv.CountStatus(http.StatusTooManyRequests) != 0 || n != records {
			b.Fatalf("%d invoices and %d charges requests, %d 429s, %d records", inv, chg, srv.CountStatus(429), n)
		}
		floor := max(39*thC, 4*thI)
		b.ReportMetric(float64(inv+chg), "requests")
		b.ReportMetric(float64(srv.CountStatus(http.StatusTooManyRequests)), "429s")
		b.ReportMetric(elapsed.Seconds()/floor.Seconds(), "x-slower-floor")
		s.Close()
		tr.CloseIdleConnections()
		srv.Close()
		b.StartTimer()
	}
}
