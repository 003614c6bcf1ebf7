package charges

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/internal/screentest"
)

// The tests in this file run the screen's real commands — the billing
// layer's feeds and the real client paging the demo server on 127.0.0.1 —
// instead of fake pagers.

var demoNow = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

func startDemo(t *testing.T, opts demoserver.Options) *demoserver.Server {
	t.Helper()
	opts.Now = demoNow
	if opts.Threshold == 0 {
		opts.Threshold = -1 // no pacing: these tests are not about it
	}
	srv, err := demoserver.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// realScreen is the screen on a client of srv with key, sized w×h.
func realScreen(t *testing.T, srv *demoserver.Server, key string, w, h int) *Model {
	t.Helper()
	client, err := api.New(srv.URL(), key, api.WithChargesThreshold(0), api.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	base, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	svc := billing.New(base, client, billing.WithLocation(time.UTC), billing.WithClock(srv.Now))
	t.Cleanup(svc.Close)
	ctx := screentest.Context(base, svc, screentest.Styles(plainStyles()), screentest.Range("90d"))
	m := New(ctx)
	m.SetSize(w, h)
	return m
}

// drive runs cmd and every command its answer leads to, synchronously,
// until the feed is idle.
func drive(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	for i := 0; cmd != nil; i++ {
		if i > 5000 {
			t.Fatal("commands never stop")
		}
		cmd = deliver(cmd(), m.Update, nil)
	}
}

// demoFilter is the ground-truth filter matching the screen's range.
func demoFilter(r spend.Range) demoserver.Filter {
	return demoserver.Filter{Gte: r.From.Unix(), Lte: r.To.Unix()}
}

func TestDemoServerPagesEverything(t *testing.T) {
	srv := startDemo(t, demoserver.Options{Contracts: 3000})
	m := realScreen(t, srv, demoserver.DemoKey, 100, 30)
	drive(t, m, m.Init())
	want := srv.Contracts(demoFilter(m.Range()))
	if len(want) <= 2*api.MaxLimit {
		t.Fatalf("only %d demo contracts in range; the test should page", len(want))
	}
	if m.tree.Len() != api.MaxLimit || m.Complete() {
		t.Fatalf("first paint: %d rows, complete %v", m.tree.Len(), m.Complete())
	}
	drive(t, m, m.Update(keyMsg("G")))
	if !m.Complete() || m.tree.Len() != len(want) {
		t.Fatalf("after G: complete %v, %d rows, want %d", m.Complete(), m.tree.Len(), len(want))
	}
	var sum money.Amount
	for i, c := range want {
		sum += money.Amount(c.Amount)
		if got := m.tree.At(i).node.Source; got != c.Source {
			t.Fatalf("row %d is %s, want %s (newest first)", i, got, c.Source)
		}
	}
	if tot := m.Totals(); tot.Total != sum || tot.Contracts != len(want) {
		t.Fatalf("totals %s over %d, want %s over %d", tot.Total, tot.Contracts, sum, len(want))
	}
	if m.cursor != len(want)-1 {
		t.Errorf("G did not follow the end: cursor %d of %d", m.cursor, len(want))
	}
	lines := strings.Split(m.View(), "\n")
	n := money.Group(int64(len(want)))
	if f := lines[len(lines)-1]; !strings.Contains(f, n+" of "+n+" contracts · "+sum.String()+" loaded · all loaded") {
		t.Errorf("footer %q", f)
	}

	// The tree format groups serverless contracts under their endpoints.
	drive(t, m, m.Update(keyMsg("f")))
	drive(t, m, m.Update(keyMsg("G")))
	tree := srv.Tree(demoFilter(m.Range()))
	if !m.Complete() || m.tree.Len() != len(tree) {
		t.Fatalf("tree format: %d top-level rows, want %d", m.tree.Len(), len(tree))
	}
	if tot := m.Totals(); tot.Total != sum {
		t.Errorf("tree format total %s, want %s", tot.Total, sum)
	}
	// The demo server counts a wrapper as one entry in the tree format.
	lines = strings.Split(m.View(), "\n")
	n = money.Group(int64(len(tree)))
	if f := lines[len(lines)-1]; !strings.Contains(f, n+" of "+n+" entries · "+sum.String()+" loaded · all loaded") {
		t.Errorf("tree footer %q, want %s entries", f, n)
	}
}

func TestDemoServerPermission(t *testing.T) {
	srv := startDemo(t, demoserver.Options{Contracts: 50})
	m := realScreen(t, srv, demoserver.KeyNoBilling, 80, 24)
	drive(t, m, m.Init())
	if !errors.Is(m.Err(), api.ErrPermission) {
		t.Fatalf("error %v, want a permission error", m.Err())
	}
	v := m.View()
	if !strings.Contains(v, "this API key lacks the billing_read permission") || strings.Contains(v, "retry") {
		t.Fatalf("view:\n%s", v)
	}
}

func TestDemoServerRateLimitRecovers(t *testing.T) {
	srv := startDemo(t, demoserver.Options{Contracts: 50})
	// More 429s than the client retries on its own, so the feed has to
	// wait and ask again. (TestRateLimitWaitsThenRetries looks at the
	// screen during the wait.)
	const refusals = 8
	srv.AddFault(demoserver.Fault{
		Path: "/api/v0/charges", Status: 429, Times: refusals,
		Body: `{"detail": "API requests too frequent endpoint threshold=0.005"}`,
	})
	m := realScreen(t, srv, demoserver.DemoKey, 80, 24)
	drive(t, m, m.Init())
	want := srv.Contracts(demoFilter(m.Range()))
	if m.Err() != nil || m.tree.Len() != len(want) || m.Loading() {
		t.Fatalf("after the wait: err %v, %d rows, want %d, loading %v", m.Err(), m.tree.Len(), len(want), m.Loading())
	}
	if n := srv.CountStatus(429); n != refusals {
		t.Errorf("%d refusals answered, want all %d: the feed gave up early", n, refusals)
	}
}

func TestDemoServerHostileData(t *testing.T) {
	srv := startDemo(t, demoserver.Options{Contracts: 60, Hostile: true})
	for _, w := range []int{120, 80, 20} {
		m := realScreen(t, srv, demoserver.DemoKey, w, 24)
		drive(t, m, m.Init())
		for i := 0; i < 6; i++ {
			m.Update(keyMsg("enter"))
			m.Update(keyMsg("j"))
		}
		v := m.View()
		for _, bad := range []string{"\x1b", "\x07", "\u202e", "\u009b", "\r"} {
			if strings.Contains(v, bad) {
				t.Fatalf("width %d: hostile data leaked %q:\n%q", w, bad, v)
			}
		}
		assertFits(t, v, w, 24)
	}
}
