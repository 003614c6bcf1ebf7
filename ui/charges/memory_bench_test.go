package charges

import (
	"context"
	"net/http"
	"runtime"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/theme"
)

// memBudget is the most a loaded contract with four items may hold, its
// decoded data and its rows on the charges screen together.
const memBudget = 1536

// memLiveHeap collects garbage and returns the bytes still reachable.
func memLiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// memScreen is a charges screen on a billing layer over a real client of
// srv, filtered to instance contracts (the ones with four items: gpu, disk,
// bwd, bwu). Close svc to free what its feeds hold.
func memScreen(srv *demoserver.Server, client *api.Client) (m *Model, svc *billing.Service) {
	svc = billing.New(context.Background(), client, billing.WithLocation(time.UTC), billing.WithClock(srv.Now))
	m = New(screentest.Context(context.Background(), svc, screentest.Styles(theme.New(true)), screentest.Range("90d")))
	m.f.types = [3]bool{true, false, false}
	m.SetSize(120, 40)
	return m, svc
}

// memLoadAll loads every page through the screen's own message path: Init
// asks for the first page, End makes the screen follow the last row, so
// each page that arrives asks for the next one. The commands are the real
// ones: the feed, the real pager and client against the demo server.
func memLoadAll(b *testing.B, m *Model) {
	b.Helper()
	run := func(cmd tea.Cmd) {
		for i := 0; cmd != nil; i++ {
			if i > 10_000 {
				b.Fatal("fetches never stop")
			}
			cmd = deliver(cmd(), m.Update, nil)
		}
	}
	run(m.Init())
	run(m.Update(keyMsg("end")))
	if !m.Complete() || m.Err() != nil {
		b.Fatalf("loading stopped: complete %v, err %v", m.Complete(), m.Err())
	}
}

// BenchmarkScreenMemory measures what the charges screen holds per loaded
// contract with four items, after garbage collection, in three parts:
//
//   - B/contract: everything the screen and its feed hold once every page
//     has arrived (decoded pages, rows, totals, the feed's set of sources
//     seen), the figure the 1.5 KB budget is about;
//   - B/contract-expanded: the same with every contract expanded (five rows
//     each and the memory of which nodes are open), the worst case;
//   - B/contract-data: the decoded pages and the feed alone, so rows =
//     total − data.
//
// Pages come from the demo server (realistic descriptions and labels)
// through the real client and the screen's own fetch commands. The data
// set is read once before measuring, so the server's cached view of it is
// not counted.
func BenchmarkScreenMemory(b *testing.B) {
	srv, err := demoserver.Start(demoserver.Options{
		Contracts: 34_000, Span: 80 * 24 * time.Hour, Threshold: -1, Now: demoNow,
	})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client, err := api.New(srv.URL(), demoserver.DemoKey,
		api.WithChargesThreshold(0), api.WithHTTPClient(&http.Client{Transport: tr}))
	if err != nil {
		b.Fatal(err)
	}
	func() { // warm: the server builds its view, the client its connection
		warm, svc := memScreen(srv, client)
		defer svc.Close()
		memLoadAll(b, warm)
	}()

	var total, expanded, data float64
	var n int
	for i := 0; i < b.N; i++ {
		srv.ResetRequests()
		before := memLiveHeap()
		m, svc := memScreen(srv, client)
		memLoadAll(b, m)
		srv.ResetRequests() // the request log is the server's, not the screen's
		loaded := memLiveHeap()

		n = m.tree.Len()
		for _, p := range m.pages {
			for _, c := range p {
				if len(c.Items) != 4 {
					b.Fatalf("%s has %d items, want 4", c.Source, len(c.Items))
				}
			}
		}
		for r := n - 1; r >= 0; r-- {
			m.tree.Expand(r)
		}
		if m.tree.Len() != 5*n {
			b.Fatalf("expanded to %d rows, want %d", m.tree.Len(), 5*n)
		}
		open := memLiveHeap()
		runtime.KeepAlive(m) // the screen is measured up to here

		dataOnly := memLiveHeap() // the screen is gone; its feed keeps the pages
		svc.Close()

		total = float64(loaded-before) / float64(n)
		expanded = float64(open-before) / float64(n)
		data = float64(dataOnly-before) / float64(n)
	}
	b.ReportMetric(total, "B/contract")
	b.ReportMetric(expanded, "B/contract-expanded")
	b.ReportMetric(data, "B/contract-data")
	b.ReportMetric(float64(n), "contracts")
	if expanded > memBudget {
		b.Errorf("%.0f bytes per expanded contract, budget %d", expanded, memBudget)
	}
}
