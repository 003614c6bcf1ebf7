package api

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

// fetchN is the size of the fetch budget's range: at 500 a page, exactly
// ⌈5000/500⌉ = 10 requests must fetch it.
const fetchN = 5000

// fetchRun is one complete fetch of a range of exactly fetchN contracts
// from a fresh demo server pacing at threshold, by a fresh client pacing
// at the same threshold, 500 contracts a page.
type fetchRun struct {
	requests, limited int           // charges requests the server saw; how many it answered 429
	got               int           // contracts the client handed out
	elapsed           time.Duration // from the first request to the last contract
}

func fetchAll(tb testing.TB, threshold time.Duration) fetchRun {
	tb.Helper()
	srv, err := demoserver.Start(demoserver.Options{
		Contracts: fetchN, Threshold: threshold, Now: time.Unix(1_790_000_000, 0),
	})
	if err != nil {
		tb.Fatal(err)
	}
	defer srv.Close()
	// The whole generated history, which holds every contract.
	from, to := srv.Now().Add(-400*24*time.Hour), srv.Now()
	if n := len(srv.Contracts(demoserver.Filter{Gte: from.Unix(), Lte: to.Unix()})); n != fetchN {
		tb.Fatalf("the range holds %d contracts, want %d", n, fetchN)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c, err := New(srv.URL(), demoserver.DemoKey,
		WithChargesThreshold(threshold), WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		tb.Fatal(err)
	}

	var run fetchRun
	seen := make(map[string]bool, fetchN)
	start := time.Now()
	for ch, err := range c.All(context.Background(), ChargesQuery{From: from, To: to, Limit: MaxLimit}) {
		if err != nil {
			tb.Fatalf("after %d contracts: %v", run.got, err)
		}
		if seen[ch.Source] {
			tb.Fatalf("%s handed out twice", ch.Source)
		}
		seen[ch.Source] = true
		run.got++
	}
	run.elapsed = time.Since(start)
	for _, r := range srv.Requests() {
		if strings.Contains(r.Path, "/charges") {
			run.requests++
			if r.Status == http.StatusTooManyRequests {
				run.limited++
			}
		}
	}
	return run
}

// check fails when the fetch took more requests than the pages need, was
// ever rate limited, or lost contracts.
func (r fetchRun) check(tb testing.TB) {
	tb.Helper()
	want := (fetchN + MaxLimit - 1) / MaxLimit
	if r.got != fetchN || r.requests != want || r.limited != 0 {
		tb.Fatalf("fetched %d contracts in %d requests with %d 429s; want %d in exactly %d with none",
			r.got, r.requests, r.limited, fetchN, want)
	}
}

// TestFetchExactPages: fetching 5,000 contracts at 500 a page costs exactly
// 10 requests and provokes no 429, client and server both pacing at the
// same threshold (20 ms here, so the test stays fast; BenchmarkFetch5000
// runs the real 1 s).
func TestFetchExactPages(t *testing.T) {
	fetchAll(t, 20*time.Millisecond).check(t)
}

// BenchmarkFetch5000 fetches 5,000 contracts from the demo server at the
// real threshold of 1 s with the default client: exactly 10 requests, no
// 429. The server allows one request a second, so 9 s is the floor; the
// wait is counted from the end of each response (see pacer), which costs
// one round trip per page over that floor, reported as overhead-ms. About
// 10 s per iteration: run it with -benchtime 1x. It is skipped with -short.
func BenchmarkFetch5000(b *testing.B) {
	if testing.Short() {
		b.Skip("10 s per iteration")
	}
	var last fetchRun
	var total time.Duration
	for i := 0; i < b.N; i++ {
		last = fetchAll(b, DefaultChargesThreshold)
		last.check(b)
		total += last.elapsed
	}
	floor := time.Duration((fetchN+MaxLimit-1)/MaxLimit-1) * DefaultChargesThreshold
	b.ReportMetric(float64(last.requests), "requests")
	b.ReportMetric(float64(last.limited), "429s")
	b.ReportMetric(float64(total/time.Duration(b.N)-floor)/1e6, "overhead-ms")
	b.ReportMetric(fetchN/(float64(total)/float64(b.N)/1e9), "contracts/s")
}
