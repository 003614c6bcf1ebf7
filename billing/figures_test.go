package billing

import (
	"cmp"
	"context"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/spend"
)

// figuresOfRows folds a feed's rows as the Overview folds its pages: the
// totals and the split by label of the rows, the days and the meter of
// their Spreadable entries, the top by amount then source.
func figuresOfRows(f *Feed, rows []api.Charge, loc *time.Location, from, to time.Time, m *Meter) RangeFigures {
	fig := RangeFigures{
		Daily:  spend.NewPeriodWindow(loc, from, to, spend.PeriodFor(from, to, loc)),
		Labels: NewGrouping(ByLabel, loc, from, to),
		Meter:  m,
	}
	fig.Totals.Add(rows)
	sp := f.Spreadable(rows)
	fig.Daily.Add(sp)
	fig.Labels.Add(rows)
	m.Add(sp)
	top := slices.Clone(rows)
	slices.SortStableFunc(top, func(a, b api.Charge) int {
		if c := cmp.Compare(b.Amount, a.Amount); c != 0 {
			return c
		}
		return cmp.Compare(a.Source, b.Source)
	})
	fig.Top = top[:min(5, len(top))]
	return fig
}

// TestRangeFiguresAreTheFeeds: the Overview's figures read from the
// ledger (ChargesWindow.Fill: totals by contract and charge type, the
// days, the labels, the burn meter, the top five) are those of the
// feed's rows folded page by page, under either amount rule — for the
// year, a month whose edges cut UTC days in another zone, and a range
// with a type filter.
func TestRangeFiguresAreTheFeeds(t *testing.T) {
	zone := time.FixedZone("IST", 5*3600+1800)
	for _, windowAmounts := range []bool{false, true} {
		srv := startServer(t, demoserver.Options{Contracts: 700, WindowAmounts: windowAmounts})
		dir := t.TempDir()
		r := openRun(t, srv, dir)
		now := srv.Now()
		load(t, r.s, yearQuery(now))
		r.close()
		r = openRun(t, srv, dir) // the rule the first run learnt
		from := time.Date(2026, 6, 1, 0, 0, 0, 0, zone)
		to := from.AddDate(0, 1, 0).Add(-time.Second)
		month := RangeQuery(from, to)
		typed := month
		typed.Types = []api.ContractType{api.TypeServerless, api.TypeVolume}
		for _, q := range []api.ChargesQuery{yearQuery(now), month, typed} {
			f := r.s.Feed(q)
			ctx, cancel := context.WithTimeout(context.Background(), syncWait)
			rows, _, err := f.All(ctx, nil)
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			want := figuresOfRows(f, rows, zone, q.From, q.To, r.s.NewMeter())
			f.Release()
			w, ok := r.s.ChargesWindow(context.Background(), q)
			if !ok {
				t.Fatalf("window amounts %v, %v: the ledger does not hold the range", windowAmounts, q.Key())
			}
			got := RangeFigures{
				Daily:  spend.NewPeriodWindow(zone, q.From, q.To, spend.PeriodFor(q.From, q.To, zone)),
				Labels: NewGrouping(ByLabel, zone, q.From, q.To),
				Meter:  r.s.NewMeter(),
				TopN:   5,
			}
			if err := w.Fill(context.Background(), &got); err != nil {
				t.Fatal(err)
			}
			name := q.Key()
			if got.Totals.Contracts != want.Totals.Contracts || got.Totals.Total != want.Totals.Total || got.Totals.Overflow ||
				!maps.Equal(got.Totals.ByType, want.Totals.ByType) || !maps.Equal(got.Totals.ByItem, want.Totals.ByItem) {
				t.Fatalf("window amounts %v, %s: totals %+v, the feed's %+v", windowAmounts, name, got.Totals, want.Totals)
			}
			if g, w := got.Daily.Days(q.From, q.To), want.Daily.Days(q.From, q.To); !reflect.DeepEqual(g, w) {
				t.Fatalf("window amounts %v, %s: days\n%v\nthe feed's\n%v", windowAmounts, name, g, w)
			}
			gb, ga := got.Daily.Outside()
			wb, wa := want.Daily.Outside()
			if gb != wb || ga != wa {
				t.Fatalf("window amounts %v, %s: outside %v %v, the feed's %v %v", windowAmounts, name, gb, ga, wb, wa)
			}
			if g, w := got.Labels.Groups(), want.Labels.Groups(); !slices.Equal(g, w) || got.Labels.Total() != want.Labels.Total() {
				t.Fatalf("window amounts %v, %s: labels %v, the feed's %v", windowAmounts, name, g, w)
			}
			st := State{Done: true}
			if g, w := got.Meter.Estimate(1_000_000, st), want.Meter.Estimate(1_000_000, st); g != w {
				t.Fatalf("window amounts %v, %s: burn %+v, the feed's %+v", windowAmounts, name, g, w)
			}
			if len(got.Top) != len(want.Top) || len(got.Top) == 0 {
				t.Fatalf("window amounts %v, %s: %d top contracts, the feed's %d", windowAmounts, name, len(got.Top), len(want.Top))
			}
			for i := range want.Top {
				g, w := got.Top[i], want.Top[i]
				if g.Source != w.Source || g.Amount != w.Amount || g.Meta.Label != w.Meta.Label || spend.ContractKind(&g) != spend.ContractKind(&w) {
					t.Fatalf("window amounts %v, %s: top %d is %s %v, the feed's %s %v", windowAmounts, name, i, g.Source, g.Amount, w.Source, w.Amount)
				}
			}
		}
		// The month panel's outlook, from the months read off the ledger.
		asOf := r.s.Now()
		oq := r.s.OutlookQuery(asOf)
		f := r.s.Feed(oq)
		ctx, cancel := context.WithTimeout(context.Background(), syncWait)
		if _, _, err := f.All(ctx, nil); err != nil {
			t.Fatal(err)
		}
		cancel()
		rate := &CurrentRate{PerHour: 1_250_000}
		want := r.s.OutlookOf(f, rate, nil, asOf, asOf, 400_000)
		h, ok, err := r.s.ReadMonths(context.Background(), oq, asOf)
		if err != nil || !ok {
			t.Fatalf("window amounts %v: the months read %v, %v", windowAmounts, ok, err)
		}
		got := r.s.OutlookOfHeld(h, f.State(), rate, nil, 400_000)
		f.Release()
		if want.SoFar == 0 || want.PrevSoFar == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("window amounts %v: outlook\n got %+v\nwant %+v", windowAmounts, got, want)
		}
		r.close()
	}
}

// The month so far (the exporter's vastdash_month_spend) from a ledger
// is spread from it a contract at a time, and equals a fresh fetch's.
func TestMonthSoFarFromTheLedger(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 900})
	r := openRun(t, srv, t.TempDir())
	defer r.close()
	got, err := r.s.MonthSoFar(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := r.s.MonthSoFar(context.Background(), nil) // now from the ledger the first synced
	if err != nil {
		t.Fatal(err)
	}
	fresh := New(context.Background(), r.s.client, WithLocation(r.s.loc), WithClock(r.s.now))
	defer fresh.Close()
	want, err := fresh.MonthSoFar(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got != want || again != want || want.Spend == 0 {
		t.Fatalf("from the ledger %+v, then %+v; a fresh fetch %+v", got, again, want)
	}
}
