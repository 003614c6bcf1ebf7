package billing

import (
	"cmp"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
)

// windowAll reads every row of w in o by pages of n, forward or backward
// from the end.
func windowAll(t *testing.T, w *ChargesWindow, o ledger.WindowOrder, n int, back bool) []api.Charge {
	t.Helper()
	var out []api.Charge
	var key *ledger.WindowKey
	for {
		page, err := w.Page(context.Background(), o, key, n, back)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			return out
		}
		cs := make([]api.Charge, len(page))
		for i := range page {
			cs[i] = page[i].Charge
		}
		if back {
			out, key = append(cs, out...), &page[0].Key
		} else {
			out, key = append(out, cs...), &page[len(page)-1].Key
		}
	}
}

// screenOrder is the screen's sort of the feed's rows today (ui/charges
// sortTops): stable, largest amount or longest first.
func screenOrder(rows []api.Charge, by ledger.SortBy) []api.Charge {
	rows = slices.Clone(rows)
	dur := func(c api.Charge) int64 {
		if c.Start == 0 || c.End < c.Start {
			return 0
		}
		return c.End - c.Start
	}
	switch by {
	case ledger.ByAmount:
		slices.SortStableFunc(rows, func(a, b api.Charge) int { return cmp.Compare(b.Amount, a.Amount) })
	case ledger.ByDuration:
		slices.SortStableFunc(rows, func(a, b api.Charge) int { return cmp.Compare(dur(b), dur(a)) })
	}
	return rows
}

// TestChargesWindowIsTheFeed: over a synced year, under either amount
// rule, a window's count and total are the feed's, and its pages in
// every order of the screen, read forward or back from the end, are the
// feed's rows as the screen orders them, lines and amounts alike — for
// the year, for a month whose edges fall inside UTC days (window amounts
// split those days), and with a type filter.
func TestChargesWindowIsTheFeed(t *testing.T) {
	zone := time.FixedZone("IST", 5*3600+1800)
	for _, windowAmounts := range []bool{false, true} {
		srv := startServer(t, demoserver.Options{Contracts: 900, WindowAmounts: windowAmounts})
		dir := t.TempDir()
		r := openRun(t, srv, dir)
		now := srv.Now()
		load(t, r.s, yearQuery(now))
		// A second run reads the rule the first one learnt.
		r.close()
		r = openRun(t, srv, dir)
		sawWindow := false
		from := time.Date(2026, 6, 1, 0, 0, 0, 0, zone)
		month := RangeQuery(from, from.AddDate(0, 1, 0).Add(-time.Second))
		typed := month
		typed.Types = []api.ContractType{api.TypeServerless, api.TypeVolume}
		for _, q := range []api.ChargesQuery{yearQuery(now), month, typed} {
			for _, oldest := range []bool{false, true} {
				q.OldestFirst = oldest
				rows, st := load(t, r.s, q)
				w, ok := r.s.ChargesWindow(context.Background(), q)
				if !ok {
					t.Fatalf("window amounts %v, %v: the ledger does not hold the range", windowAmounts, q.Key())
				}
				if w.WindowAmounts() != st.WindowAmounts {
					t.Fatalf("window amounts %v, %v: the window's %v, the feed's %v", windowAmounts, q.Key(), w.WindowAmounts(), st.WindowAmounts)
				}
				sawWindow = sawWindow || w.WindowAmounts()
				var total money.Amount
				for i := range rows {
					total += rows[i].Amount
				}
				n, sum, err := w.Totals(context.Background())
				if err != nil || n != len(rows) || sum != total {
					t.Fatalf("window amounts %v, %v: %d contracts, %v (%v); the feed's %d, %v", windowAmounts, q.Key(), n, sum, err, len(rows), total)
				}
				for _, by := range []ledger.SortBy{ledger.ByStart, ledger.ByAmount, ledger.ByDuration} {
					o := ledger.WindowOrder{By: by, Oldest: oldest}
					want := screenOrder(rows, by)
					var each []api.Charge
					if err := w.Each(context.Background(), o, func(c *api.Charge) error {
						each = append(each, *c)
						return nil
					}); err != nil {
						t.Fatal(err)
					}
					for k, got := range [][]api.Charge{windowAll(t, w, o, 61, false), windowAll(t, w, o, 61, true), each} {
						if len(got) != len(want) {
							t.Fatalf("%v by %d, walk %d: %d rows, the feed's %d", q.Key(), by, k, len(got), len(want))
						}
						for i := range want {
							g, f := &got[i], &want[i]
							if g.Source != f.Source || g.Amount != f.Amount || g.Start != f.Start || g.End != f.End ||
								g.Meta != f.Meta || !slices.Equal(lineAmounts(g.Items), lineAmounts(f.Items)) {
								t.Fatalf("window amounts %v, %v by %d, walk %d (forward, back, Each), row %d: %s %v %v, the feed's %s %v %v", windowAmounts, q.Key(),
									by, k, i, g.Source, g.Amount, lineAmounts(g.Items), f.Source, f.Amount, lineAmounts(f.Items))
							}
						}
					}
					// A row's position is its index.
					for _, i := range []int{0, len(want) / 3, len(want) - 1} {
						page, err := w.Page(context.Background(), o, nil, i+1, false)
						if err != nil || len(page) != i+1 {
							t.Fatal(len(page), err)
						}
						if at, err := w.Position(context.Background(), o, page[i].Key); err != nil || at != i {
							t.Fatalf("%v by %d: row %d at %d (%v)", q.Key(), by, i, at, err)
						}
					}
				}
			}
		}
		if sawWindow != windowAmounts {
			t.Fatalf("window amounts %v: a window under them %v", windowAmounts, sawWindow)
		}
		// Find narrows the window; "" is the whole range again.
		w, _ := r.s.ChargesWindow(context.Background(), month)
		all, _, _ := w.Totals(context.Background())
		if n, _, err := w.Find("zzz-nothing").Totals(context.Background()); err != nil || n != 0 {
			t.Errorf("a find of nothing counts %d (%v)", n, err)
		}
		if n, _, _ := w.Find("zzz").Find("").Totals(context.Background()); n != all {
			t.Errorf("an empty find counts %d of %d", n, all)
		}
	}
}

// TestChargesWindowOnlyWhatTheLedgerHolds: a range the ledger has not
// synced, the tree format, or a run without a ledger gets no window: the
// screen reads the feed, paged from the server, as it always has.
func TestChargesWindowOnlyWhatTheLedgerHolds(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 200})
	r := openRun(t, srv, t.TempDir())
	now := srv.Now()
	month := RangeQuery(now.AddDate(0, -1, 0), now)
	if _, ok := r.s.ChargesWindow(context.Background(), month); ok {
		t.Fatal("a window of a range never synced")
	}
	load(t, r.s, month)
	if _, ok := r.s.ChargesWindow(context.Background(), month); !ok {
		t.Fatal("no window of the month just synced")
	}
	if _, ok := r.s.ChargesWindow(context.Background(), yearQuery(now)); ok {
		t.Fatal("a window of a year of which a month is synced")
	}
	tree := month
	tree.Format = api.FormatTree
	if _, ok := r.s.ChargesWindow(context.Background(), tree); ok {
		t.Fatal("a window of the tree format, whose wrappers are the server's")
	}
	bare := New(context.Background(), r.s.client, WithLocation(time.UTC), WithClock(srv.Now))
	defer bare.Close()
	if _, ok := bare.ChargesWindow(context.Background(), month); ok {
		t.Fatal("a window without a ledger")
	}
}
