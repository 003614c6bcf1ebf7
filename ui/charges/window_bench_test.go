package charges

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/theme"
)

// BenchmarkWindowScreenMemory measures what the Charges screen holds over a
// range the ledger holds whole, once it shows it, after a collection
// (HeapInuse, less the same before the screen was made): "window" is the
// screen as it runs, the sync feed and a window of rows; "full" the full
// feed it reads without a window (every row of the range, G to load them
// all), as before. The demo server's contracts (Span 80 days, all in the
// 90-day range) are synced into a ledger once, before measuring.
//
//	VASTDASH_BENCH_SIZES=100000 go test ./ui/charges -run '^$' -bench WindowScreenMemory -benchtime 1x -timeout 30m
func BenchmarkWindowScreenMemory(b *testing.B) {
	for _, n := range billingtest.BenchSizes(b) {
		srv, err := demoserver.Start(demoserver.Options{Contracts: n, Span: 80 * 24 * time.Hour, Threshold: -1, Now: demoNow})
		if err != nil {
			b.Fatal(err)
		}
		tr := &http.Transport{}
		client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0), api.WithHTTPClient(&http.Client{Transport: tr}))
		if err != nil {
			b.Fatal(err)
		}
		dir := b.TempDir()
		id := ledger.Identity{Host: "demo", Account: ledger.KeyDigest(demoserver.DemoKey)}
		open := func() (*billing.Service, *ledger.Ledger) {
			led, _, err := ledger.Open(ledger.Path(dir, id), id)
			if err != nil {
				b.Fatal(err)
			}
			return billing.New(context.Background(), client, billing.WithLocation(time.UTC), billing.WithClock(srv.Now),
				billing.WithLedger(ledger.Opened(led))), led
		}
		svc, led := open()
		r, _ := billing.PresetRange("90d", srv.Now(), time.UTC)
		if _, err := svc.SyncCharges(context.Background(), r.From, r.To, nil); err != nil {
			b.Fatal(err)
		}
		svc.Close()
		_ = led.Close()

		for _, kind := range []string{"window", "full"} {
			b.Run("contracts="+strconv.Itoa(n)+"/"+kind, func(b *testing.B) {
				var held float64
				rows := 0
				for b.Loop() {
					svc, led := open()
					before := heapInuse()
					m := New(screentest.Context(context.Background(), svc, screentest.Styles(theme.New(true)), screentest.Range("90d")))
					m.SetSize(120, 40)
					m.winOff = kind == "full"
					run := func(cmd tea.Cmd) {
						for i := 0; cmd != nil; i++ {
							if i > 100_000 {
								b.Fatal("commands never stop")
							}
							cmd = deliver(cmd(), m.Update, nil)
						}
					}
					run(m.Init())
					run(m.Update(keyMsg("G")))
					if kind == "window" && (m.win == nil || heldRows(m) != 0) {
						b.Fatalf("window %v, %d rows in the feed held", m.win != nil, heldRows(m))
					}
					if kind == "full" && m.tree.Len() < n/2 {
						b.Fatalf("the full feed shows %d rows", m.tree.Len())
					}
					rows = m.tree.Len()
					held += float64(heapInuse()-before) / (1 << 20)
					runtime.KeepAlive(m)
					m.fl.Release()
					svc.Close()
					_ = led.Close()
				}
				b.ReportMetric(held/float64(b.N), "held-MB")
				b.ReportMetric(float64(rows), "rows-shown")
			})
		}
		tr.CloseIdleConnections()
		srv.Close()
	}
}

// heapInuse is the heap in use after a collection.
func heapInuse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}
