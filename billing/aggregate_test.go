package billing

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/spend"
)

// aggLedger is a generated ledger of 3,000 contracts, opened.
func aggLedger(t *testing.T) *ledger.Ledger {
	t.Helper()
	path := genLedger(t, t.TempDir(), 3000, RuleWindow)
	led, _, err := ledger.Open(path, genIdentity)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = led.Close() })
	return led
}

// goGrouping is the grouping as the feed's ledger rows give it: the rows
// read whole (ledgerCharges), narrowed to the labels, spread through
// Spreadable's clip under window amounts.
func goGrouping(t *testing.T, led *ledger.Ledger, q api.ChargesQuery, rule AmountRule, by GroupKey, labels []string, loc *time.Location, from, to time.Time) *Grouping {
	t.Helper()
	s := New(context.Background(), nil, WithLocation(loc))
	defer s.Close()
	rows, err := s.ledgerCharges(context.Background(), led, q, rule)
	if err != nil {
		t.Fatal(err)
	}
	if len(labels) > 0 {
		rows = KeepLabels(rows, labels)
	}
	if rule == RuleWindow {
		rows = clipCharges(q, rows)
	}
	g := NewGrouping(by, loc, from, to)
	g.Add(rows)
	return g
}

// TestLedgerGroupingEqualsRows: every grouping the ledger answers (SQL
// sums, or by day a fold of SQL amounts) equals the grouping of the rows
// the feed reads from it — each group's count and amount, the total, the
// part outside the range, the line printed — under both amount rules, for
// a whole year, days cut mid-way in a zone half an hour off UTC's days,
// a label filter and a type filter.
func TestLedgerGroupingEqualsRows(t *testing.T) {
	led := aggLedger(t)
	stJohns, err := time.LoadLocation("America/St_Johns")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	type rng struct {
		name     string
		loc      *time.Location
		from, to time.Time
	}
	ranges := []rng{
		{"year-utc", time.UTC, genNow.AddDate(-1, 0, 0), genNow},
		{"local-days", stJohns, time.Date(2026, 3, 7, 0, 0, 0, 0, stJohns), time.Date(2026, 4, 20, 23, 59, 59, 0, stJohns)},
		{"cut-hours", stJohns, time.Date(2026, 6, 1, 7, 25, 0, 0, stJohns), time.Date(2026, 6, 9, 16, 40, 13, 0, stJohns)},
	}
	filters := []struct {
		name   string
		labels []string
		types  []api.ContractType
	}{
		{"all", nil, nil},
		{"labels", []string{"eval", "render", "nobody"}, nil},
		{"serverless", nil, []api.ContractType{api.TypeServerless}},
	}
	for _, r := range ranges {
		for _, rule := range []AmountRule{RuleTotals, RuleWindow} {
			for _, fl := range filters {
				for _, by := range GroupKeys {
					t.Run(fmt.Sprintf("%s/%s/%s/%s", r.name, rule, fl.name, by), func(t *testing.T) {
						q := RangeQuery(r.from, r.to)
						q.Types = fl.types
						want := goGrouping(t, led, q, rule, by, fl.labels, r.loc, r.from, r.to)
						got, err := groupHeld(context.Background(), led, q, by, fl.labels, r.loc, r.from, r.to, rule == RuleWindow)
						if err != nil {
							t.Fatal(err)
						}
						if want.Contracts() == 0 {
							t.Fatal("the range holds no contract: the test compares nothing")
						}
						if !slices.Equal(got.Groups(), want.Groups()) {
							t.Errorf("groups:\n got %v\nwant %v", got.Groups(), want.Groups())
						}
						if got.TotalLine() != want.TotalLine() || got.Outside() != want.Outside() {
							t.Errorf("total: got %q, want %q", got.TotalLine(), want.TotalLine())
						}
					})
				}
			}
		}
	}
}

// TestLedgerRowsEqualRows: the rows streamed from the ledger (eachHeld)
// are the feed's rows from it (ledgerCharges, KeepLabels), entry for entry
// with their lines and amounts, in the same order, and the state counts
// them as Recount does — under both amount rules, oldest or newest first,
// a range cut inside days, a label and a type filter.
func TestLedgerRowsEqualRows(t *testing.T) {
	led := aggLedger(t)
	s := New(context.Background(), nil, WithLocation(time.UTC))
	defer s.Close()
	from, to := time.Date(2026, 5, 3, 7, 25, 0, 0, time.UTC), time.Date(2026, 7, 9, 16, 40, 13, 0, time.UTC)
	for _, rule := range []AmountRule{RuleTotals, RuleWindow} {
		for _, oldest := range []bool{false, true} {
			for _, fl := range []struct {
				labels []string
				types  []api.ContractType
			}{{nil, nil}, {[]string{"eval", "dev"}, nil}, {nil, []api.ContractType{api.TypeInstance, api.TypeVolume}}} {
				t.Run(fmt.Sprintf("%s/oldest=%v/%v%v", rule, oldest, fl.labels, fl.types), func(t *testing.T) {
					q := RangeQuery(from, to)
					q.Types, q.OldestFirst = fl.types, oldest
					want, err := s.ledgerCharges(context.Background(), led, q, rule)
					if err != nil {
						t.Fatal(err)
					}
					if len(fl.labels) > 0 {
						want = KeepLabels(want, fl.labels)
					}
					var got []api.Charge
					st, err := eachHeld(context.Background(), led, q, fl.labels, rule == RuleWindow, func(c *api.Charge) error {
						got = append(got, *c)
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
					if len(want) == 0 {
						t.Fatal("no rows: the test compares nothing")
					}
					if !reflect.DeepEqual(got, want) {
						for i := range min(len(got), len(want)) {
							if !reflect.DeepEqual(got[i], want[i]) {
								t.Fatalf("row %d of %d/%d:\n got %+v\nwant %+v", i, len(got), len(want), got[i], want[i])
							}
						}
						t.Fatalf("%d rows, want %d", len(got), len(want))
					}
					if w := (State{}).Recount(want); st.Contracts != w.Contracts || st.Amount != w.Amount {
						t.Errorf("state counts %d contracts of %v, want %d of %v", st.Contracts, st.Amount, w.Contracts, w.Amount)
					}
				})
			}
		}
	}
}

// TestLedgerStatementEqualsRows: a statement's months spent from the
// ledger's fold (ledgerSpent's Daily) equal those of the ledger's rows
// through Spreadable, under both amount rules, months of a zone off UTC's
// days, the range ending inside a day.
func TestLedgerStatementEqualsRows(t *testing.T) {
	led := aggLedger(t)
	loc, err := time.LoadLocation("America/St_Johns")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	now := time.Date(2026, 11, 21, 15, 30, 0, 0, loc)
	from := time.Date(2026, 5, 1, 0, 0, 0, 0, loc)
	for _, rule := range []AmountRule{RuleTotals, RuleWindow} {
		t.Run(rule.String(), func(t *testing.T) {
			s := New(context.Background(), nil, WithLocation(loc), WithClock(func() time.Time { return now }))
			defer s.Close()
			_, cq := s.StatementQueries(from)
			rows, err := s.ledgerCharges(context.Background(), led, cq, rule)
			if err != nil {
				t.Fatal(err)
			}
			if rule == RuleWindow {
				rows = clipCharges(cq, rows)
			}
			in := StatementInput{Loc: loc, Now: now, From: from, To: now, Credit: 1000}
			want := BuildStatement(StatementInput{Loc: in.Loc, Now: in.Now, From: in.From, To: in.To, Credit: in.Credit, Charges: rows})
			d := spend.NewDailyWindow(loc, MonthStart(cq.From, loc), now)
			if err := foldSpent(context.Background(), led, cq, rule == RuleWindow, d); err != nil {
				t.Fatal(err)
			}
			in.Spent = d
			got := BuildStatement(in)
			if len(got.Months) != 7 || !reflect.DeepEqual(got.Months, want.Months) {
				t.Errorf("months:\n got %+v\nwant %+v", got.Months, want.Months)
			}
		})
	}
}

// TestLedgerAggregatesAtTheEdges: over edgesLedger's ranges, under window
// amounts, every grouping the ledger answers and the rows it streams equal
// those of the feed's rows from it — the contracts reaching past the
// range's edges read from their days, a running one from inside the
// range with days held past its end among them — with and without a
// label filter.
func TestLedgerAggregatesAtTheEdges(t *testing.T) {
	led, s, ranges := edgesLedger(t)
	for _, r := range ranges {
		from, to := time.Unix(r[0], 0).UTC(), time.Unix(r[1]-1, 0).UTC()
		q := RangeQuery(from, to)
		for _, labels := range [][]string{nil, {"edge"}} {
			for _, by := range GroupKeys {
				want := goGrouping(t, led, q, RuleWindow, by, labels, time.UTC, from, to)
				got, err := groupHeld(context.Background(), led, q, by, labels, time.UTC, from, to, true)
				if err != nil {
					t.Fatal(err)
				}
				if want.Contracts() == 0 {
					t.Fatal("the range holds no contract: the test compares nothing")
				}
				if !slices.Equal(got.Groups(), want.Groups()) || got.TotalLine() != want.TotalLine() {
					t.Errorf("%v %v by %s:\n got %v %s\nwant %v %s", r, labels, by, got.Groups(), got.TotalLine(), want.Groups(), want.TotalLine())
				}
			}
			want, err := s.ledgerCharges(context.Background(), led, q, RuleWindow)
			if err != nil {
				t.Fatal(err)
			}
			if len(labels) > 0 {
				want = KeepLabels(want, labels)
			}
			var got []api.Charge
			if _, err := eachHeld(context.Background(), led, q, labels, true, func(c *api.Charge) error {
				got = append(got, *c)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%v %v: rows\n got %+v\nwant %+v", r, labels, got, want)
			}
		}
	}
}

// TestLedgerOutlookEqualsRows: a month's outlook folded from the ledger a
// contract at a time (foldOutlook) equals the outlook of the ledger's rows
// through Spreadable — spend so far, the month before at the same point,
// the forecast on the rate (with the last week's bandwidth) and on the
// burn, and when the budget was crossed — under both amount rules, for the
// current month and a past one, in a zone off UTC's days.
func TestLedgerOutlookEqualsRows(t *testing.T) {
	led := aggLedger(t)
	loc, err := time.LoadLocation("America/St_Johns")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	now := time.Date(2026, 11, 21, 15, 30, 0, 0, loc)
	rate := &CurrentRate{PerHour: 1_250_000}
	for _, rule := range []AmountRule{RuleTotals, RuleWindow} {
		for _, month := range []time.Time{{}, time.Date(2026, 8, 9, 0, 0, 0, 0, loc)} {
			for _, r := range []*CurrentRate{rate, nil} {
				t.Run(fmt.Sprintf("%s/%s/rate=%v", rule, month.Format("2006-01"), r != nil), func(t *testing.T) {
					s := New(context.Background(), nil, WithLocation(loc), WithClock(func() time.Time { return now }))
					defer s.Close()
					q := s.OutlookQuery(cmp.Or(month, now))
					rows, err := s.ledgerCharges(context.Background(), led, q, rule)
					if err != nil {
						t.Fatal(err)
					}
					if rule == RuleWindow {
						rows = clipCharges(q, rows)
					}
					// A budget crossed halfway through the spend so far:
					// when is read from the month's days.
					in := OutlookInput{Loc: loc, Now: now, Month: month, Rate: r}
					byRows := in
					byRows.Charges = rows
					in.Budget = BuildOutlook(byRows).SoFar / 2
					byRows.Budget = in.Budget
					want := BuildOutlook(byRows)
					o, l, last := in.frame()
					in.days = newOutlookDays(l, o, last)
					if err := foldOutlook(context.Background(), led, q, rule == RuleWindow, in.days); err != nil {
						t.Fatal(err)
					}
					got := BuildOutlook(in)
					if want.SoFar == 0 || want.PrevSoFar == 0 || (!want.Past && want.Forecast == 0) || !want.CrossedAt.After(want.Month) {
						t.Fatalf("an empty outlook compares nothing: %+v", want)
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("outlook:\n got %+v\nwant %+v", got, want)
					}
				})
			}
		}
	}
}
