package billing

import (
	"context"
	"database/sql"
	"strconv"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/spend"
)

// BenchmarkLedgerReads: what a command computes over a year the ledger
// holds, at each size of billingtest.BenchSizes (10,000 contracts; VASTDASH_BENCH_SIZES
// for 100,000 and 1,000,000), under window amounts (the live API's rule,
// the dearer one to read), the year in Europe/Berlin. For each question,
// /sql is the answer from SQLite (ledger.SumBy, or by day EachAmount's
// fold) and /rows the feed's way — every row read into memory, then
// grouped; statement/ the twelve months' spend (the statement's fold);
// rows/each streams every contract with its lines (charges
// --output json|csv) where rows/slice builds the slice. The /rows and
// rows/slice cases are left out above 100,000 contracts: they need
// gigabytes there, which is the point. -benchmem's B/op is what one
// answer allocates. statement/read is what both folds read, the amounts
// alone. /floor is the same question as plain SQL on the
// same file (plainSQL): the engine's own pace, which the answers' budget
// is twice. VASTDASH_BENCH_LEDGERS keeps the generated files
// for the next run (benchLedger).
func BenchmarkLedgerReads(b *testing.B) {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		b.Skip("no zone database:", err)
	}
	from := time.Date(2026, 1, 1, 0, 0, 0, 0, loc)
	to := time.Date(2026, 12, 31, 23, 59, 59, 0, loc)
	q := RangeQuery(from, to)
	ctx := context.Background()
	for _, n := range billingtest.BenchSizes(b) {
		b.Run("contracts="+strconv.Itoa(n), func(b *testing.B) {
			path := benchLedger(b, n)
			led, _, err := ledger.Open(path, genIdentity)
			if err != nil {
				b.Fatal(err)
			}
			defer led.Close()
			s := New(ctx, nil, WithLocation(loc))
			defer s.Close()
			rows := func(b *testing.B) []api.Charge {
				rs, err := s.ledgerCharges(ctx, led, q, RuleWindow)
				if err != nil {
					b.Fatal(err)
				}
				return rs
			}
			small := n <= 100_000
			floor := plainSQL(b, path, q)
			for _, by := range []GroupKey{ByDay, ByLabel, ByType, ByTemplate} {
				b.Run("group="+string(by)+"/sql", func(b *testing.B) {
					for b.Loop() {
						g, err := groupHeld(ctx, led, q, by, nil, loc, from, to, true)
						if err != nil || g.Contracts() == 0 {
							b.Fatal(err)
						}
					}
				})
				b.Run("group="+string(by)+"/floor", func(b *testing.B) {
					for b.Loop() {
						floor(b, by)
					}
				})
				if small {
					b.Run("group="+string(by)+"/rows", func(b *testing.B) {
						for b.Loop() {
							g := NewGrouping(by, loc, from, to)
							g.Add(clipCharges(q, rows(b)))
							if g.Contracts() == 0 {
								b.Fatal("no contracts")
							}
						}
					})
				}
			}
			// A twelve-month statement's spend: the months' days in the zone.
			b.Run("statement/sql", func(b *testing.B) {
				for b.Loop() {
					d := spend.NewDailyWindow(loc, from, to)
					if err := foldSpent(ctx, led, q, true, d); err != nil || d.Total() == 0 {
						b.Fatal(err)
					}
				}
			})
			// The month outlook's two months (`vastdash spend`, the month
			// panel): amounts to the days, the bandwidth lines apart.
			b.Run("outlook/sql", func(b *testing.B) {
				in := OutlookInput{Loc: loc, Now: to, Month: to}
				o, l, last := in.frame()
				oq := RangeQuery(o.Prev, to)
				for b.Loop() {
					days := newOutlookDays(l, o, last)
					if err := foldOutlook(ctx, led, oq, true, days); err != nil || days.all.Total() == 0 {
						b.Fatal(err)
					}
				}
			})
			// What the two folds read: every amount of the range from
			// SQLite, handed to a callback that keeps nothing.
			b.Run("statement/read", func(b *testing.B) {
				lo, hi := windowOf(q)
				for b.Loop() {
					k := 0
					if err := led.EachAmount(ctx, lo, hi, true, ledger.Filter{}, func(ledger.Amounted) error { k++; return nil }); err != nil || k == 0 {
						b.Fatal(k, err)
					}
				}
			})
			b.Run("statement/floor", func(b *testing.B) {
				for b.Loop() {
					floor(b, ByDay)
				}
			})
			if small {
				b.Run("statement/rows", func(b *testing.B) {
					for b.Loop() {
						d := spend.NewDailyWindow(loc, from, to)
						d.Add(clipCharges(q, rows(b)))
						if d.Total() == 0 {
							b.Fatal("no spend")
						}
					}
				})
			}
			b.Run("rows/each", func(b *testing.B) {
				for b.Loop() {
					k := 0
					if _, err := eachHeld(ctx, led, q, nil, true, func(*api.Charge) error { k++; return nil }); err != nil || k == 0 {
						b.Fatal(err)
					}
				}
			})
			if small {
				b.Run("rows/slice", func(b *testing.B) {
					for b.Loop() {
						if len(rows(b)) == 0 {
							b.Fatal("no rows")
						}
					}
				})
			}
		})
	}
}

// plainSQL is the floor BenchmarkLedgerReads measures the answers beside:
// the question by, asked of the file at path as one would type it into
// vastdash sql — the contracts overlapping q's range summed by their
// column (by day: the daily table's UTC days of the range) — read to the
// last row through the same driver, on a connection of its own.
func plainSQL(b *testing.B, path string, q api.ChargesQuery) func(*testing.B, GroupKey) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = db.Close() })
	lo, hi := windowOf(q)
	return func(b *testing.B, by GroupKey) {
		stmt := map[GroupKey]string{
			ByDay:      `SELECT day, sum(mills) FROM daily WHERE day >= ?1 - ?1 % 86400 AND day < ?2 GROUP BY day`,
			ByLabel:    `SELECT label, sum(mills) FROM contracts WHERE span_lo < ?2 AND span_hi >= ?1 GROUP BY label`,
			ByType:     `SELECT type, sum(mills) FROM contracts WHERE span_lo < ?2 AND span_hi >= ?1 GROUP BY type`,
			ByTemplate: `SELECT template_id, sum(mills) FROM contracts WHERE span_lo < ?2 AND span_hi >= ?1 GROUP BY template_id`,
		}[by]
		rows, err := db.Query(stmt, lo, hi)
		if err != nil {
			b.Fatal(err)
		}
		defer rows.Close()
		k := 0
		for rows.Next() {
			var key any
			var sum int64
			if err := rows.Scan(&key, &sum); err != nil {
				b.Fatal(err)
			}
			k++
		}
		if err := rows.Err(); err != nil || k == 0 {
			b.Fatal(k, err)
		}
	}
}
