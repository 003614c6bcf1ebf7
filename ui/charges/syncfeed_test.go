package charges

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
)

// gateCharges holds the charges requests after the first until release is
// closed (or, lest a test that went wrong hang, a while): what the screen
// shows after the sync's first page is then there to be read. do, when
// set, runs as the second request is held, before it is answered.
func gateCharges(srv *demoserver.Server, release <-chan struct{}, do func()) {
	var n atomic.Int32
	srv.AddFault(demoserver.Fault{Path: "/api/v0/charges", Mutate: func(body []byte) []byte {
		if n.Add(1) == 2 {
			if do != nil {
				do()
			}
			select {
			case <-release:
			case <-time.After(30 * time.Second):
			}
		}
		return body
	}})
}

// heldRows is how many rows the feed the screen holds keeps in memory.
func heldRows(m *Model) int {
	f := m.fl.Feed()
	n := 0
	for _, p := range f.Pages(0) {
		n += len(p)
	}
	return max(n, f.State().Entries)
}

// TestFirstRunReadsTheWindow: on the first run (an empty ledger) the
// screen says the sync's progress, page of pages, while it runs; when it
// ends the screen reads the range through the window — the server's
// count, total and rows — and the feed it holds, the sync's, holds none
// of them. Before, a first run stayed on the full feed until the range
// was chosen again.
func TestFirstRunReadsTheWindow(t *testing.T) {
	srv := startDemo(t, demoserver.Options{Contracts: 3000})
	release := make(chan struct{})
	gateCharges(srv, release, nil)
	m := ledgerScreen(t, srv, t.TempDir())
	var body, footer string
	update := func(msg tea.Msg) tea.Cmd {
		cmd := m.Update(msg)
		if st := m.fl.State(); body == "" && st.Pages >= 1 && !st.Done {
			body, footer = m.View(), footerLine(m)
			close(release)
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
	if !strings.Contains(body, "loading charges: page 2 of ") || !strings.Contains(footer, "loading page 2 of ") {
		t.Errorf("while the first sync ran:\n%s", body)
	}
	want := srv.Contracts(demoFilter(m.Range()))
	if len(want) <= 1000 {
		t.Fatalf("only %d contracts: the sync takes one page", len(want))
	}
	var total money.Amount
	for i := range want {
		total += money.Amount(want[i].Amount)
	}
	if m.win == nil || m.win.count != len(want) || m.win.total != total {
		t.Fatalf("after the first sync: window %v, the server has %d, %v", m.win != nil, len(want), total)
	}
	if f, w := footerLine(m), money.Group(int64(len(want)))+" contracts · "+total.String(); !strings.Contains(f, w) {
		t.Errorf("footer %q, want %q", f, w)
	}
	if got := m.sourceOf(m.cursor); got != want[0].Source {
		t.Errorf("on %s, the newest is %s", got, want[0].Source)
	}
	drive(t, m, m.Update(keyMsg("G")))
	if got := m.sourceOf(m.cursor); got != want[len(want)-1].Source {
		t.Errorf("G: on %s, the oldest is %s", got, want[len(want)-1].Source)
	}
	if !m.syncOnly || !m.fl.State().Done || heldRows(m) != 0 || len(m.win.rows) >= len(want) {
		t.Errorf("the screen holds the sync feed %v (done %v) with %d rows, and %d of the window", m.syncOnly, m.fl.State().Done, heldRows(m), len(m.win.rows))
	}
}

// TestLedgerFailsMidSync: a ledger that fails while the first sync runs
// stops the sync feed; the screen then reads the full feed from the
// server, as without a ledger, and the status line says why, once.
func TestLedgerFailsMidSync(t *testing.T) {
	srv := startDemo(t, demoserver.Options{Contracts: 3000})
	release := make(chan struct{})
	var led *ledger.Ledger
	gateCharges(srv, release, func() { _ = led.Close() })
	m, l := ledgerScreenOf(t, srv, t.TempDir())
	led = l
	hs := &harness{t: t, m: m}
	synced := false
	update := func(msg tea.Msg) tea.Cmd {
		cmd := m.Update(msg)
		if st := m.fl.State(); !synced && m.syncOnly && st.Pages >= 1 {
			synced = true // the first page is in the ledger; the next fails
			close(release)
		}
		return cmd
	}
	cmd := m.Init()
	for i := 0; cmd != nil; i++ {
		if i > 5000 {
			t.Fatal("commands never stop")
		}
		cmd = deliver(cmd(), update, hs.root)
	}
	if !synced {
		t.Fatal("the sync's first page was never shown")
	}
	drive(t, m, m.Update(keyMsg("G")))
	want := srv.Contracts(demoFilter(m.Range()))
	if m.syncOnly || m.win != nil || m.tree.Len() != len(want) || !m.Complete() {
		t.Fatalf("after the ledger failed: sync feed %v, window %v, %d rows of %d", m.syncOnly, m.win != nil, m.tree.Len(), len(want))
	}
	if f := footerLine(m); !strings.Contains(f, money.Group(int64(len(want)))+" of ") || !strings.Contains(f, "all loaded") {
		t.Errorf("footer %q, want the feed's", f)
	}
	said := 0
	for _, s := range hs.statuses {
		if strings.Contains(s.Text, "cannot be used") && strings.Contains(s.Text, "reads the server") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("the ledger's failure said %d times: %v", said, hs.statuses)
	}
}

// TestReloadResyncsTheWindow: r under a window takes a fresh sync feed,
// which asks the server again; when its sync ends the window is read
// again — the server's new contracts counted — with the cursor on its
// contract, and the feed held still holds no row.
func TestReloadResyncsTheWindow(t *testing.T) {
	srv, dir, _ := syncedLedger(t, demoserver.Options{Contracts: 1500})
	m := ledgerScreen(t, srv, dir)
	drive(t, m, m.Init())
	if m.win == nil {
		t.Fatal("no window")
	}
	for range 30 {
		drive(t, m, m.Update(keyMsg("j")))
	}
	at, old := m.sourceOf(m.cursor), m.fl.Feed()
	srv.Advance(2*time.Hour, 15)
	before := srv.CountPath("/api/v0/charges")
	drive(t, m, m.Update(keyMsg("r")))
	want := srv.Contracts(demoFilter(m.Range()))
	if m.fl.Feed() == old || !m.syncOnly || srv.CountPath("/api/v0/charges") == before {
		t.Fatalf("r: a new feed %v, the sync's %v, %d requests", m.fl.Feed() != old, m.syncOnly, srv.CountPath("/api/v0/charges")-before)
	}
	if st := m.fl.State(); m.win == nil || !st.Done || m.win.gen != st.Generation || m.win.count != len(want) {
		t.Fatalf("after r: window %v read after generation %d of %d, %d contracts; the server has %d", m.win != nil, m.win.gen, st.Generation, m.win.count, len(want))
	}
	if got := m.sourceOf(m.cursor); got != at {
		t.Errorf("after r on %s, was on %s", got, at)
	}
	if heldRows(m) != 0 {
		t.Errorf("the feed held holds %d rows", heldRows(m))
	}
}

// TestKeysWhileTheFirstSyncRuns: s, e and a Reveal pressed while the
// first sync runs (no row shown yet) are done once the window is read:
// the rows in the order chosen, the whole range in the file, the cursor
// on the contract asked for.
func TestKeysWhileTheFirstSyncRuns(t *testing.T) {
	srv := startDemo(t, demoserver.Options{Contracts: 3000})
	release := make(chan struct{})
	gateCharges(srv, release, nil)
	m := ledgerScreen(t, srv, t.TempDir())
	m.exportDir = t.TempDir()
	want := srv.Contracts(demoFilter(m.Range()))
	deep := want[len(want)/2].Source
	hs := &harness{t: t, m: m}
	pressed := false
	update := func(msg tea.Msg) tea.Cmd {
		cmd := m.Update(msg)
		if st := m.fl.State(); !pressed && st.Pages >= 1 && !st.Done {
			pressed = true
			cmd = tea.Batch(cmd, m.Update(keyMsg("s")), m.Update(keyMsg("e")), m.Reveal(deep))
			close(release)
		}
		return cmd
	}
	cmd := m.Init()
	for i := 0; cmd != nil; i++ {
		if i > 5000 {
			t.Fatal("commands never stop")
		}
		cmd = deliver(cmd(), update, hs.root)
	}
	if !pressed || m.win == nil || m.sort != sortAmount {
		t.Fatalf("pressed %v; window %v, sort %d", pressed, m.win != nil, m.sort)
	}
	if got := m.sourceOf(m.cursor); got != deep {
		t.Errorf("Reveal(%s) while syncing: on %s", deep, got)
	}
	if !hs.sentStatus("exported " + strconv.Itoa(len(want)) + " entries") {
		t.Errorf("the export while syncing: statuses %v", hs.statuses)
	}
	data, err := os.ReadFile(filepath.Join(m.exportDir, m.exportName()))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	largest := slices.MaxFunc(want, func(a, b demoserver.Contract) int { return cmp.Compare(a.Amount, b.Amount) })
	first := strings.Split(lines[1], ",")[3] // start, end, type, source, …
	if i := slices.IndexFunc(want, func(c demoserver.Contract) bool { return c.Source == first }); len(lines) != len(want)+1 || i < 0 || want[i].Amount != largest.Amount {
		t.Errorf("export: %d lines for %d contracts, first %q; the largest is %s", len(lines), len(want), lines[1], largest.Source)
	}
}

// TestReloadAfterTheLedgerWasGivenUp: r under a window, once the run has
// given the ledger up (another screen's read failed), reads the full feed
// from the server — the window, which only the sync feed keeps, goes.
func TestReloadAfterTheLedgerWasGivenUp(t *testing.T) {
	srv, dir, _ := syncedLedger(t, demoserver.Options{Contracts: 600})
	m, led := ledgerScreenOf(t, srv, dir)
	drive(t, m, m.Init())
	if m.win == nil {
		t.Fatal("no window")
	}
	_ = led.Close()
	// Another reader of the run finds the ledger failed, and gives it up.
	other := m.ctx.Billing.SyncFeed(m.Query(), true)
	other.WantAll()
	st := other.State()
	for st.Err == nil && !st.Done {
		st = other.Wait(context.Background(), st.Version)
	}
	other.Release()
	if !billing.LedgerUnavailable(st.Err) {
		t.Fatalf("the other reader's sync: %v", st.Err)
	}
	drive(t, m, m.Update(keyMsg("r")))
	if m.win != nil {
		t.Fatalf("r kept the window over a ledger given up: footer %q", footerLine(m))
	}
	drive(t, m, m.Update(keyMsg("G")))
	want := srv.Contracts(demoFilter(m.Range()))
	if m.win != nil || m.syncOnly || m.tree.Len() != len(want) {
		t.Fatalf("r after the ledger was given up: window %v, sync feed %v, %d rows of %d", m.win != nil, m.syncOnly, m.tree.Len(), len(want))
	}
	if f := footerLine(m); !strings.Contains(f, "all loaded") {
		t.Errorf("footer %q, want the feed's", f)
	}
}
