package charges

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
)

// walkRows reads every contract of a windowed screen as the user does: g,
// then j to the last row, each as "source amount"; it fails when the
// screen holds more than a few pages at any step.
func walkRows(t *testing.T, m *Model) []string {
	t.Helper()
	drive(t, m, m.Update(keyMsg("g")))
	var out []string
	for {
		if m.win == nil {
			t.Fatal("the screen left its window")
		}
		if held := len(m.win.rows); held > 4*m.winPage() {
			t.Fatalf("%d rows held at row %d", held, m.winPos())
		}
		if m.winPos() != len(out) {
			t.Fatalf("at row %d after %d rows", m.winPos(), len(out))
		}
		n := m.tree.At(m.tree.Top(m.cursor)).node
		out = append(out, n.Source+" "+n.Amount.String())
		if len(out) == m.win.count {
			return out
		}
		drive(t, m, m.Update(keyMsg("j")))
	}
}

// syncedLedger is a demo server of opts and a ledger in dir that a first
// run (first, its rows all loaded) synced for the default range.
func syncedLedger(t *testing.T, opts demoserver.Options) (srv *demoserver.Server, dir string, first *Model) {
	t.Helper()
	srv, dir = startDemo(t, opts), t.TempDir()
	first = ledgerScreen(t, srv, dir)
	first.winOff = true // the full feed: every row loaded
	drive(t, first, first.Init())
	drive(t, first, first.Update(keyMsg("G")))
	return srv, dir, first
}

// feedRows are the rows of a screen reading the feed, all loaded, as
// walkRows names them.
func feedRows(m *Model) []string {
	var out []string
	for i := 0; i < m.tree.Len(); i++ {
		n := m.tree.At(i).node
		out = append(out, n.Source+" "+n.Amount.String())
	}
	return out
}

// footerLine is the screen's last line.
func footerLine(m *Model) string {
	lines := strings.Split(m.View(), "\n")
	return lines[len(lines)-1]
}

// TestWindowIsTheFeed: over a range the ledger holds, under either amount
// rule, the screen reads a window whose count, total and rows — in the
// server's order and sorted by amount and by duration — are those the
// feed path shows of the same ledger, while the feed it holds (the
// sync's) holds none of them.
func TestWindowIsTheFeed(t *testing.T) {
	for _, windowAmounts := range []bool{false, true} {
		srv := startDemo(t, demoserver.Options{Contracts: 900, WindowAmounts: windowAmounts})
		dir := t.TempDir()
		first := ledgerScreen(t, srv, dir)
		first.winOff = true // the full feed: every row loaded
		drive(t, first, first.Init())
		drive(t, first, first.Update(keyMsg("G")))
		if !first.Complete() {
			t.Fatal("the first run did not load everything")
		}

		feed := ledgerScreen(t, srv, dir)
		feed.winOff = true // the feed path, over the same ledger
		drive(t, feed, feed.Init())
		drive(t, feed, feed.Update(keyMsg("G")))
		win := ledgerScreen(t, srv, dir)
		drive(t, win, win.Init())
		if win.win == nil {
			t.Fatalf("window amounts %v: no window over the range the ledger holds", windowAmounts)
		}
		if !win.syncOnly || heldRows(win) != 0 {
			t.Fatalf("window amounts %v: the window's screen holds %d rows of its feed", windowAmounts, heldRows(win))
		}
		st := feed.fl.State()
		if win.win.count != st.Contracts || win.win.total != st.Amount || st.Contracts < 100 {
			t.Fatalf("window amounts %v: %d contracts, %v; the feed's %d, %v", windowAmounts, win.win.count, win.win.total, st.Contracts, st.Amount)
		}
		if want := money.Group(int64(st.Contracts)) + " contracts · " + st.Amount.String(); !strings.Contains(footerLine(win), want) {
			t.Errorf("footer %q, want %q", footerLine(win), want)
		}
		for sort := range numSorts {
			want, got := feedRows(feed), walkRows(t, win)
			if len(got) != len(want) {
				t.Fatalf("sort %d: %d rows, the feed's %d", sort, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("window amounts %v, sort %d, row %d: %s, the feed's %s", windowAmounts, sort, i, got[i], want[i])
				}
			}
			drive(t, feed, feed.Update(keyMsg("s")))
			drive(t, win, win.Update(keyMsg("s")))
		}
	}
}

// TestWindowEndHoldsFew: over 5,000 contracts (a bigger first sync takes
// a minute under -race; what is held does not grow with them) G shows the last contract
// at once, the footer its row number, holding a few pages of rows, never
// the range; g goes back to the first; j and k past the edge of what is
// held read the next page.
func TestWindowEndHoldsFew(t *testing.T) {
	srv := startDemo(t, demoserver.Options{Contracts: 5000, Span: 80 * 24 * time.Hour})
	dir := t.TempDir()
	// The first run's sync, without a screen folding the rows.
	first := ledgerScreen(t, srv, dir)
	r := first.Range()
	if _, err := first.ctx.Billing.SyncCharges(context.Background(), r.From, r.To, nil); err != nil {
		t.Fatal(err)
	}
	want := srv.Contracts(demoFilter(r))
	if len(want) < 4000 {
		t.Fatalf("only %d contracts in the range", len(want))
	}

	m := ledgerScreen(t, srv, dir)
	drive(t, m, m.Init())
	if m.win == nil || m.win.count != len(want) {
		t.Fatalf("window %v, want %d contracts", m.win != nil, len(want))
	}
	drive(t, m, m.Update(keyMsg("G")))
	if got := m.sourceOf(m.cursor); got != want[len(want)-1].Source {
		t.Fatalf("G: on %s, the last contract is %s", got, want[len(want)-1].Source)
	}
	if held := len(m.win.rows); held >= 1000 || held > len(want)/4 {
		t.Fatalf("G holds %d rows", held)
	}
	if f := footerLine(m); !strings.Contains(f, "row "+money.Group(int64(len(want)))) {
		t.Errorf("footer after G %q, want the last row's number", f)
	}
	for range 300 {
		drive(t, m, m.Update(keyMsg("k")))
	}
	if got, w := m.sourceOf(m.cursor), want[len(want)-301].Source; got != w {
		t.Fatalf("300 rows up from the end: on %s, want %s", got, w)
	}
	drive(t, m, m.Update(keyMsg("g")))
	if got := m.sourceOf(m.cursor); got != want[0].Source || len(m.win.rows) >= 1000 {
		t.Fatalf("g: on %s (%d held), the first contract is %s", got, len(m.win.rows), want[0].Source)
	}
}

// TestWindowFindAndExport: / narrows the window in the ledger, its count
// and total those of the contracts it keeps; text the ledger cannot match
// as the feed does drops to the feed; e writes the whole range, a page at
// a time, in the screen's order.
func TestWindowFindAndExport(t *testing.T) {
	srv, dir, first := syncedLedger(t, demoserver.Options{Contracts: 1500})
	all := srv.Contracts(demoFilter(first.Range()))

	m := ledgerScreen(t, srv, dir)
	drive(t, m, m.Init())
	if m.win == nil {
		t.Fatal("no window")
	}
	m.exportDir = t.TempDir()
	drive(t, m, m.Update(keyMsg("e")))
	data, err := os.ReadFile(filepath.Join(m.exportDir, m.exportName()))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != len(all)+1 || !strings.Contains(lines[1], all[0].Source) || !strings.Contains(lines[len(lines)-1], all[len(all)-1].Source) {
		t.Fatalf("export: %d lines for %d contracts; first %q", len(lines), len(all), lines[1])
	}

	// The feed path's count and sum of the same find, over all loaded.
	const find = "VOLUME-" // either case
	first.setFind(find)
	n, sum := first.matchN, first.matchAmt
	m.setFind(find) // as typed
	drive(t, m, m.settle())
	if m.win == nil || m.win.count != n || m.win.total != sum || n == 0 {
		t.Fatalf("find %q: window %v (%d, %v), want %d, %v", find, m.win != nil, m.win.count, m.win.total, n, sum)
	}
	if footer := m.windowFooter(); !strings.Contains(footer, money.Group(int64(n))+" matches · ") {
		t.Fatalf("find %q: footer %q does not count its %d matches", find, footer, n)
	}
	if n < 2 || n == len(all) {
		t.Fatalf("find %q keeps %d of %d: the test finds nothing of interest", find, n, len(all))
	}
	m.setFind("é")
	drive(t, m, m.settle())
	if m.win != nil || m.find != "é" {
		t.Fatalf("a find the ledger cannot match kept the window (%v)", m.win != nil)
	}
}

// TestWindowLedgerErrorReadsTheFeed: a ledger that fails under the window
// drops the screen to the feed, its rows shown, the status line saying
// why once.
func TestWindowLedgerErrorReadsTheFeed(t *testing.T) {
	srv, dir, _ := syncedLedger(t, demoserver.Options{Contracts: 600})

	m, led := ledgerScreenOf(t, srv, dir)
	hs := &harness{t: t, m: m}
	hs.settle(m.Init())
	if m.win == nil {
		t.Fatal("no window")
	}
	_ = led.Close()
	hs.settle(m.Update(keyMsg("G")))
	if m.win != nil || m.tree.Len() == 0 || !strings.Contains(hs.statusText(), "ledger could not be read") {
		t.Fatalf("after the ledger failed: window %v, %d rows, status %q", m.win != nil, m.tree.Len(), hs.statusText())
	}
	said := 0
	for _, s := range hs.statuses {
		if strings.Contains(s.Text, "ledger could not be read") {
			said++
		}
	}
	hs.settle(m.Update(keyMsg("j")))
	if said != 1 || m.win != nil {
		t.Fatalf("the failure said %d times; window %v after a key", said, m.win != nil)
	}
}

// TestWindowRevealSortAndKeptCursor: under a window, Reveal puts the
// cursor on a contract deep in the range, the rows read around it; a
// sort keeps the cursor's contract; the account's kept cursor is found
// again on the next run; a contract not in the range says so.
func TestWindowRevealSortAndKeptCursor(t *testing.T) {
	srv, dir, first := syncedLedger(t, demoserver.Options{Contracts: 1500})
	all := srv.Contracts(demoFilter(first.Range()))

	m := ledgerScreen(t, srv, dir)
	hs := &harness{t: t, m: m}
	hs.settle(m.Init())
	deep := all[len(all)*2/3].Source
	hs.settle(m.Reveal(deep))
	if m.win == nil || m.sourceOf(m.cursor) != deep || m.winPos() != len(all)*2/3 {
		t.Fatalf("Reveal(%s): window %v, on %s", deep, m.win != nil, m.sourceOf(m.cursor))
	}
	hs.settle(m.Update(keyMsg("s")))
	if m.win == nil || m.sourceOf(m.cursor) != deep {
		t.Fatalf("after s: on %s, want %s", m.sourceOf(m.cursor), deep)
	}
	hs.settle(m.Reveal("instance-999999999"))
	if !strings.Contains(hs.statusText(), "not in the current filters") {
		t.Errorf("a contract not in the range: status %q", hs.statusText())
	}

	kept := all[len(all)/2].Source
	next := ledgerScreen(t, srv, dir)
	next.ctx.Cursor = &kept
	drive(t, next, next.Init())
	if next.win == nil || next.sourceOf(next.cursor) != kept {
		t.Fatalf("the kept cursor %s: window %v, on %s", kept, next.win != nil, next.sourceOf(next.cursor))
	}
}
