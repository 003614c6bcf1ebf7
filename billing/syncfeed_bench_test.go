package billing

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/ledger"
)

// BenchmarkHeldFeedMemory: the heap a holder keeps while it holds the
// year's feed of a generated ledger (billingtest.BenchSizes; VASTDASH_BENCH_SIZES for
// 100,000 and 1,000,000) once its sync ended: full/ is Feed, which reads
// every row of the range into memory, sync-only/ is SyncFeed, which reads
// none (the Charges window's reads are apart). held-MB is HeapInuse after
// a GC with the feed held, less the same before it was taken. No server
// answers, so the sync stops at its first request: what is held then is
// what either feed holds while the dashboard shows the range.
func BenchmarkHeldFeedMemory(b *testing.B) {
	ctx := context.Background()
	client, err := api.New("http://127.0.0.1:9", "bench-key")
	if err != nil {
		b.Fatal(err)
	}
	q := RangeQuery(genNow.AddDate(-1, 0, 0), genNow.Add(-time.Minute))
	for _, n := range billingtest.BenchSizes(b) {
		path := genLedger(b, b.TempDir(), n, RuleWindow)
		for _, kind := range []string{"full", "sync-only"} {
			b.Run("contracts="+strconv.Itoa(n)+"/"+kind, func(b *testing.B) {
				var held float64
				for b.Loop() {
					led, _, err := ledger.Open(path, genIdentity)
					if err != nil {
						b.Fatal(err)
					}
					s := New(ctx, client, WithLocation(time.UTC), WithClock(func() time.Time { return genNow }), WithLedger(ledger.Opened(led)))
					before := heapInuse()
					var f *Feed
					if kind == "full" {
						f = s.Feed(q)
					} else {
						f = s.SyncFeed(q, false)
					}
					// No server answers: the sync's request fails, after
					// the full feed read the ledger's rows.
					_, st, err := f.All(ctx, nil)
					if LedgerUnavailable(err) || !st.Ledger {
						b.Fatalf("%s: %v (ledger %v)", kind, err, st.Ledger)
					}
					held += float64(heapInuse()-before) / (1 << 20)
					runtime.KeepAlive(f)
					f.Release()
					s.Close()
					_ = led.Close()
				}
				b.ReportMetric(held/float64(b.N), "held-MB")
			})
		}
	}
}

// heapInuse is the heap in use after a collection.
func heapInuse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}
