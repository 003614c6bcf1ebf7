package charges

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/ui/internal/screentest"
)

// ledgerScreen is realScreen with the ledger in dir: one run of the
// dashboard that keeps its history.
func ledgerScreen(t *testing.T, srv *demoserver.Server, dir string) *Model {
	t.Helper()
	m, _ := ledgerScreenOf(t, srv, dir)
	return m
}

// ledgerScreenOf is ledgerScreen and its ledger.
func ledgerScreenOf(t *testing.T, srv *demoserver.Server, dir string) (*Model, *ledger.Ledger) {
	t.Helper()
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0), api.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	id := ledger.Identity{Host: "demo", Account: ledger.KeyDigest(demoserver.DemoKey)}
	led, _, err := ledger.Open(ledger.Path(dir, id), id)
	if err != nil {
		t.Fatal(err)
	}
	base, cancel := context.WithCancel(context.Background())
	svc := billing.New(base, client, billing.WithLocation(time.UTC), billing.WithClock(srv.Now), billing.WithLedger(ledger.Opened(led)))
	t.Cleanup(func() {
		cancel()
		svc.Close()
		_ = led.Close()
	})
	m := New(screentest.Context(base, svc, screentest.Styles(plainStyles()), screentest.Range("90d")))
	m.SetSize(120, 30)
	return m, led
}

// The second run shows the ledger's rows at once (a window of them), saying
// how old they are; when the sync ends, the window is read again — the
// server's rows now, none twice — and the cursor stays on its contract;
// the feed held, the sync's, holds no row.
func TestLedgerRowsThenTheSync(t *testing.T) {
	srv := startDemo(t, demoserver.Options{Contracts: 800})
	dir := t.TempDir()
	m := ledgerScreen(t, srv, dir)
	drive(t, m, m.Init())
	drive(t, m, m.Update(keyMsg("G")))
	if !m.Complete() {
		t.Fatal("the first run did not load everything")
	}

	srv.Advance(2*time.Hour, 15)
	m = ledgerScreen(t, srv, dir)
	var (
		early  string // the footer while the ledger's rows show and the sync runs
		picked string // the contract the cursor was put on then
	)
	update := func(msg tea.Msg) tea.Cmd {
		cmd := m.Update(msg)
		if early == "" && m.fl.State().Ledger && !m.fl.State().Done && m.tree.Len() > 10 {
			lines := strings.Split(m.View(), "\n")
			early = lines[len(lines)-1]
			for range 5 {
				cmd = tea.Batch(cmd, m.Update(keyMsg("j"))) // a page they read is delivered
			}
			picked = m.sourceOf(m.cursor)
		}
		return cmd
	}
	cmd := m.Init()
	for i := 0; cmd != nil; i++ {
		if i > 5000 {
			t.Fatal("commands never stop")
		}
		cmd = deliver(cmd(), update, nil)
	}
	if !strings.Contains(early, "synced") || !strings.Contains(early, "syncing") {
		t.Errorf("footer while syncing %q, want how old the rows are", early)
	}
	if picked == "" || m.sourceOf(m.cursor) != picked {
		t.Errorf("the cursor was on %s before the rows were folded again, on %s after", picked, m.sourceOf(m.cursor))
	}
	want := srv.Contracts(demoFilter(m.Range()))
	if !m.Complete() || m.win == nil || m.win.count != len(want) {
		t.Fatalf("after the sync: complete %v, window %v, the server has %d", m.Complete(), m.win != nil, len(want))
	}
	got := walkRows(t, m)
	seen := map[string]bool{}
	for i := range want {
		got[i], _, _ = strings.Cut(got[i], " ") // the source, not its amount
		if seen[got[i]] || got[i] != want[i].Source {
			t.Fatalf("row %d is %s (twice: %v), the server's %s", i, got[i], seen[got[i]], want[i].Source)
		}
		seen[got[i]] = true
	}
	if g := m.fl.State().Generation; g == 0 || m.win.gen != g {
		t.Errorf("the window was read after generation %d; the sync ended in %d", m.win.gen, g)
	}
	if f := m.fl.Feed(); f.State().Entries != 0 || len(f.Pages(0)) != 0 {
		t.Errorf("the feed held holds %d rows", f.State().Entries)
	}
}
