package api

import (
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

// memPages × 500 instance contracts (four items each) is the "heavy user"
// of the memory budget: tens of thousands of contracts loaded at once.
const memPages = 40

// demoBodies returns the raw bodies of the first k pages of 500 instance
// contracts the demo server serves, newest first. Instance contracts are
// the ones with four items (gpu, disk, bwd, bwu); their descriptions and
// labels are the server's realistic ones.
func demoBodies(tb testing.TB, k int) [][]byte {
	tb.Helper()
	srv := demoserver.New(demoserver.Options{Contracts: 34_000, Threshold: -1, Now: time.Unix(1_790_000_000, 0)})
	defer srv.Close()
	h := srv.Handler()
	q := ChargesQuery{
		From:  srv.Now().Add(-400 * 24 * time.Hour),
		To:    srv.Now(),
		Types: []ContractType{TypeInstance},
		Limit: MaxLimit,
	}
	c := &Client{key: keyFunc(canary)}
	var bodies [][]byte
	tok := ""
	for len(bodies) < k {
		req := httptest.NewRequest("GET", chargesPath+"?"+q.Values(tok).Encode(), nil)
		req.Header.Set("Authorization", "Bearer "+demoserver.DemoKey)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			tb.Fatalf("demo server: %d %s", w.Code, w.Body.String())
		}
		body := w.Body.Bytes()
		p, err := c.decodeChargesPage("op", "perm", body)
		if err != nil || len(p.Results) != MaxLimit {
			tb.Fatalf("page %d: %v, %d entries (the data set is too small?)", len(bodies), err, len(p.Results))
		}
		bodies = append(bodies, body)
		tok = p.NextToken
	}
	return bodies
}

// liveHeap collects garbage and returns the bytes still reachable. Two
// cycles: the first may leave objects freed only by finalizers.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkMemoryPerContract measures what the decoded charges hold per
// loaded contract with four items, after garbage collection: the
// api.Charge nodes (the contract and its items) and their strings. The
// bodies are read beforehand and kept alive throughout, so only what the
// decoder keeps is counted. The budget for a loaded contract, decoded data
// and the charges screen's rows together, is 1.5 KB; the screen's share is
// measured by BenchmarkScreenMemory in ui/charges.
func BenchmarkMemoryPerContract(b *testing.B) {
	bodies := demoBodies(b, memPages)
	c := &Client{key: keyFunc(canary)}
	var perContract float64
	for i := 0; i < b.N; i++ {
		held := make([]ChargesPage, 0, len(bodies))
		before := liveHeap()
		for _, body := range bodies {
			p, err := c.decodeChargesPage("op", "perm", body)
			if err != nil {
				b.Fatal(err)
			}
			held = append(held, p)
		}
		after := liveHeap()
		n := 0
		for _, p := range held {
			for _, ch := range p.Results {
				if len(ch.Items) != 4 {
					b.Fatalf("%s has %d items, want 4", ch.Source, len(ch.Items))
				}
				n++
			}
		}
		runtime.KeepAlive(held)
		perContract = float64(after-before) / float64(n)
	}
	runtime.KeepAlive(bodies)
	b.ReportMetric(perContract, "B/contract")
	b.ReportMetric(float64(memPages*MaxLimit), "contracts")
}
