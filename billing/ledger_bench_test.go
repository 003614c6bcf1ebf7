package billing

import (
	"context"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
)

// BenchmarkLedgerYear: a year of 20,000 contracts through the ledger. The
// first sync asks the API's floor, ⌈20,000/500⌉ = 40 requests and nothing
// more, no 429 (first-requests, first-s); the ledger then holds
// bytes/contract. The server's data moves on an hour (running contracts
// grow, 20 new ones), and a second run reopens the year: every row loaded
// and summed from the ledger (reopen-rows-ms, what the dashboard shows at
// once), then the sync of what changed and the count (reopen-requests):
// the pages of the contracts overlapping the margin before the last sync
// and since (the running and new ones, and those ended in the margin) and
// one count, nothing more, and never over 3; done
// (reopen-done-ms, when a command prints). At the real threshold (1 s)
// with VASTDASH_BENCH_LONG=1, else at 20 ms.
func BenchmarkLedgerYear(b *testing.B) {
	th := 20 * time.Millisecond
	if os.Getenv("VASTDASH_BENCH_LONG") == "1" {
		th = time.Second
	}
	const contracts = 20_000
	now := time.Date(2026, 12, 31, 12, 0, 0, 0, time.UTC)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv, err := demoserver.Start(demoserver.Options{Contracts: contracts, Now: now, Span: 360 * 24 * time.Hour, Threshold: th})
		if err != nil {
			b.Fatal(err)
		}
		dir := b.TempDir()
		open := func() (*Service, *ledger.Ledger, *http.Transport) {
			tr := &http.Transport{}
			c, err := api.New(srv.URL(), demoserver.DemoKey, api.WithHTTPClient(&http.Client{Transport: tr}), api.WithChargesThreshold(th))
			if err != nil {
				b.Fatal(err)
			}
			id := ledger.Identity{Host: "bench", Account: ledger.KeyDigest(demoserver.DemoKey)}
			led, _, err := ledger.Open(ledger.Path(dir, id), id)
			if err != nil {
				b.Fatal(err)
			}
			return New(context.Background(), c, WithLocation(time.UTC), WithClock(srv.Now), WithLedger(ledger.Opened(led))), led, tr
		}
		q := RangeQuery(now.AddDate(-1, 0, 0), now)

		s, led, tr := open()
		b.StartTimer()
		start := time.Now()
		f := s.Feed(q)
		rows, _, err := f.All(context.Background(), nil)
		first := time.Since(start)
		b.StopTimer()
		f.Release()
		if err != nil || len(rows) != contracts {
			b.Fatalf("first sync: %v, %d rows", err, len(rows))
		}
		reqs := srv.CountPath("/api/v0/charges")
		firstReqs := reqs
		if reqs != contracts/api.MaxLimit || srv.CountStatus(http.StatusTooManyRequests) != 0 {
			b.Fatalf("first sync: %d requests, %d 429s", reqs, srv.CountStatus(http.StatusTooManyRequests))
		}
		s.Close()
		_ = led.Close()
		tr.CloseIdleConnections()
		size := int64(0)
		for _, p := range []string{"", "-wal"} {
			if st, err := os.Stat(led.Path() + p); err == nil {
				size += st.Size()
			}
		}

		synced := srv.Now().Unix()
		srv.Advance(time.Hour, 20)
		srv.ResetRequests()
		s, led, tr = open()
		q = RangeQuery(now.AddDate(-1, 0, 0), srv.Now())
		b.StartTimer()
		start = time.Now()
		f = s.Feed(q)
		f.WantAll()
		var ver uint64
		var shown time.Duration
		for {
			st := f.Wait(context.Background(), ver)
			ver = st.Version
			if shown == 0 && st.Ledger && st.Entries >= contracts && !st.Overflow {
				shown = time.Since(start) // every row there, summed in st.Amount
			}
			if st.Done || st.Err != nil {
				break
			}
		}
		rows, st, err := f.All(context.Background(), nil)
		done := time.Since(start)
		b.StopTimer()
		f.Release()
		want := srv.Contracts(demoserver.Filter{Gte: q.From.Unix(), Lte: q.To.Unix()})
		recent := srv.Contracts(demoserver.Filter{Gte: synced - int64(chargesMargin/time.Second), Lte: q.To.Unix()})
		reqs = srv.CountPath("/api/v0/charges")
		if floor := (len(recent)+api.MaxLimit-1)/api.MaxLimit + 1; err != nil || len(rows) != len(want) || st.Amount != sumOf(want) || reqs > min(floor, 3) {
			b.Fatalf("reopen: %v, %d rows of %d, %v of %v, %d requests (the rule's %d)", err, len(rows), len(want), st.Amount, sumOf(want), reqs, floor)
		}
		b.ReportMetric(float64(firstReqs), "first-requests")
		b.ReportMetric(first.Seconds(), "first-s")
		b.ReportMetric(first.Seconds()/(time.Duration(contracts/api.MaxLimit-1)*th).Seconds(), "first-x-floor")
		b.ReportMetric(float64(size)/contracts, "bytes/contract")
		b.ReportMetric(float64(shown.Milliseconds()), "reopen-rows-ms")
		b.ReportMetric(float64(done.Milliseconds()), "reopen-done-ms")
		b.ReportMetric(float64(reqs), "reopen-requests")
		s.Close()
		_ = led.Close()
		tr.CloseIdleConnections()
		srv.Close()
		b.StartTimer()
	}
}

// sumOf is the ground truth's sum.
func sumOf(cs []demoserver.Contract) (sum money.Amount) {
	for _, c := range cs {
		sum += money.Amount(c.Amount)
	}
	return sum
}
