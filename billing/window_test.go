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

// edgesLedger is a ledger synced under window amounts holding the
// contracts whose window amounts are the hardest to read — no start,
// running without an end from before the range, a point on the range's
// first second, one crossing its start inside a UTC day, one ending on
// its last second's UTC midnight with a day held beyond, one running
// without an end from inside the range with days held past its end (its
// stored amount holds them: it is no contract inside the range) — and a
// service reading it at the sync's time, with the ranges [lo, hi) that
// cut them: one starting and ending inside UTC days, one ending on a UTC
// midnight.
func edgesLedger(t *testing.T) (*ledger.Ledger, *Service, [][2]int64) {
	t.Helper()
	const day = 86400
	base := int64(1780272000) // 2026-06-01 00:00 UTC
	id := ledger.Identity{Host: "edges", Account: "a"}
	led, _, err := ledger.Open(ledger.Path(t.TempDir(), id), id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = led.Close() })
	lines := func(start, end int64, mills ...money.Amount) []api.Charge {
		var it []api.Charge
		for k, m := range mills {
			it = append(it, api.Charge{Type: []string{"gpu", "disk"}[k], Description: "line", Start: start, End: end, Amount: m})
		}
		return it
	}
	contract := func(src string, start, end int64, days ...ledger.Day) ledger.ChargeRow {
		c := api.Charge{Source: src, Type: "instance", Start: start, End: end, Description: src}
		var a, b money.Amount
		for _, d := range days {
			c.Amount += d.Mills
			a += d.Items[0]
			b += d.Items[1]
		}
		c.Items = lines(start, end, a, b)
		return ledger.ChargeRow{Charge: c, Days: days}
	}
	d := func(at int64, gpu, disk money.Amount) ledger.Day {
		return ledger.Day{Day: at, Mills: gpu + disk, Items: []money.Amount{gpu, disk}}
	}
	rows := []ledger.ChargeRow{
		contract("instance-1", 0, base+5*day+3600, d(base+5*day, 700, 11)),
		contract("instance-2", base-2*day+600, 0, d(base-2*day, 500, 3), d(base-day, 900, 7), d(base, 1300, 9), d(base+day, 1700, 13)),
		contract("instance-3", base+3*day+19800, base+3*day+19800, d(base+3*day, 333, 1)),
		contract("instance-4", base+2*day+3600, base+4*day+43200, d(base+2*day, 2300, 17), d(base+3*day, 2900, 19), d(base+4*day, 1100, 23)),
		contract("instance-5", base+9*day+7200, base+10*day, d(base+9*day, 4100, 29), d(base+10*day, 37, 2)),
		contract("instance-6", base+6*day, base+6*day+7200, d(base+6*day, 777, 5)),
		contract("instance-7", base+7*day+3600, 0, d(base+7*day, 610, 4), d(base+8*day, 620, 4), d(base+9*day, 630, 4),
			d(base+10*day, 640, 4), d(base+11*day, 650, 4), d(base+12*day, 660, 4)),
	}
	for i := range rows {
		if i%2 == 0 {
			rows[i].Charge.Meta.Label = "edge"
		}
	}
	w := ledger.Window{Lo: base - 20*day, Hi: base + 20*day, Started: base + 20*day}
	if _, err := led.WriteCharges(context.Background(), ledger.ChargesPage{Window: w, Rows: rows, Windowed: true, Done: true,
		Merge: func([]ledger.Span) []ledger.Span { return []ledger.Span{{Lo: w.Lo, Hi: w.Hi, SyncedAt: w.Started}} }}); err != nil {
		t.Fatal(err)
	}
	client, err := api.New("http://127.0.0.1:9", "key")
	if err != nil {
		t.Fatal(err)
	}
	s := New(context.Background(), client, WithLocation(time.UTC), WithAmountRule(RuleWindow),
		WithClock(func() time.Time { return time.Unix(w.Started, 0) }), WithLedger(ledger.Opened(led)))
	t.Cleanup(s.Close)
	return led, s, [][2]int64{{base + 3*day + 19800, base + 9*day + 43200}, {base + 19800, base + 10*day}}
}

// TestChargesWindowEdgesUnderWindowAmounts: the contracts of edgesLedger
// count and sort by the same amounts, lines and all, as the feed reads
// them from the ledger, over each of its ranges.
func TestChargesWindowEdgesUnderWindowAmounts(t *testing.T) {
	led, s, ranges := edgesLedger(t)
	for _, r := range ranges {
		q := RangeQuery(time.Unix(r[0], 0).UTC(), time.Unix(r[1]-1, 0).UTC())
		feed, err := s.ledgerCharges(context.Background(), led, q, RuleWindow)
		if err != nil {
			t.Fatal(err)
		}
		cw, ok := s.ChargesWindow(context.Background(), q)
		if !ok || !cw.WindowAmounts() {
			t.Fatal("no window under window amounts")
		}
		var total money.Amount
		for i := range feed {
			total += feed[i].Amount
		}
		if n, sum, err := cw.Totals(context.Background()); err != nil || n != len(feed) || sum != total {
			t.Fatalf("%v: %d contracts, %v (%v); the feed's %d, %v", r, n, sum, err, len(feed), total)
		}
		for _, by := range []ledger.SortBy{ledger.ByStart, ledger.ByAmount} {
			want := screenOrder(feed, by)
			got := windowAll(t, cw, ledger.WindowOrder{By: by}, 2, false)
			if len(got) != len(want) {
				t.Fatalf("%v by %d: %d rows, the feed's %d", r, by, len(got), len(want))
			}
			for i := range want {
				if got[i].Source != want[i].Source || got[i].Amount != want[i].Amount || !slices.Equal(lineAmounts(got[i].Items), lineAmounts(want[i].Items)) {
					t.Fatalf("%v by %d, row %d: %s %v %v, the feed's %s %v %v", r, by, i, got[i].Source, got[i].Amount, lineAmounts(got[i].Items),
						want[i].Source, want[i].Amount, lineAmounts(want[i].Items))
				}
			}
		}
	}
}
