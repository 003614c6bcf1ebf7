package ledger

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// GenWindowYear is the year the generated ledgers hold: 2026 in UTC.
const (
	genLo = 1767225600 // 2026-01-01
	genHi = 1798761600 // 2027-01-01
)

// genLedger writes n contracts spread over the generated year into the
// ledger at p in one transaction of a few INSERT … SELECT statements (a
// million take seconds, where a sync's pages would take minutes): four
// lines each, types and labels in turn, a few sharing a start (ties in
// every order), some crossing the year's edges and UTC midnights, the
// days of each holding its amount (under either rule), and one span of
// the year synced. It returns the file open.
func genLedger(tb testing.TB, p string, n int) *Ledger {
	tb.Helper()
	l, _, err := Open(p, me)
	if err != nil {
		tb.Fatal(err)
	}
	step := (genHi - genLo) / int64(n)
	err = l.write(context.Background(), func(tx *txn) error {
		for _, q := range []string{
			// Every 7th starts where the one before did; the first
			// starts before the year and the last ends after it.
			`WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ?1)
			INSERT INTO contracts(id, source, type, start, "end", amount, mills, label, description, template_id, endpoint_id, workergroup_id, synced_at, span_lo, span_hi, fp)
			SELECT i, CASE i % 3 WHEN 0 THEN 'instance-' WHEN 1 THEN 'volume-' ELSE 'worker-' END || (i * 7 % 1000003),
				CASE i % 3 WHEN 0 THEN 'instance' WHEN 1 THEN 'volume' ELSE 'serverless' END,
				s, s + dur, m / 1000.0, m, CASE WHEN i % 5 = 0 THEN NULL ELSE 'job-' || (i % 50) END,
				'Contract ' || i || CASE WHEN i % 11 = 0 THEN ' 100%_done' ELSE '' END, NULL,
				CASE WHEN i % 3 = 2 THEN 1 + i % 9 ELSE NULL END, NULL, ?3, s, s + dur, 0
			FROM (SELECT i, ?2 + (i - 1 - (i % 7 = 0)) * ?4 - CASE WHEN i = 1 THEN 86400 ELSE 0 END AS s,
				CASE WHEN i = ?1 OR i = 1 THEN 3 * 86400 WHEN i % 13 = 0 THEN 0 ELSE 600 + (i * 37 % 50000) END AS dur,
				i * 7919 % 20000 AS m FROM g)`,
			// A day a contract crosses into holds its seconds' share.
			`INSERT INTO daily(contract_id, day, amount, mills)
			SELECT id, day, 0, CASE WHEN "end" <= day + 86400 THEN mills ELSE mills * (day + 86400 - start) / ("end" - start) END
			FROM (SELECT id, start, "end", mills, start - start % 86400 AS day FROM contracts)`,
			`INSERT INTO daily(contract_id, day, amount, mills)
			SELECT c.id, d.day + 86400, 0, c.mills - d.mills FROM contracts c JOIN daily d ON d.contract_id = c.id
			WHERE c."end" > d.day + 86400`,
			`INSERT INTO items(contract_id, idx, type, source, description, start, "end", amount, mills)
			SELECT id, k.idx, k.type, NULL, k.type || ' of ' || source, start, "end", 0,
				CASE k.idx WHEN 0 THEN mills - mills / 4 * 3 ELSE mills / 4 END
			FROM contracts, (SELECT 0 AS idx, 'gpu' AS type UNION ALL SELECT 1, 'disk' UNION ALL SELECT 2, 'bwd' UNION ALL SELECT 3, 'bwu') k`,
			`INSERT INTO spans(kind, lo, hi, synced_at) VALUES ('charges', ?2, ?3, ?3)`,
		} {
			if _, err := tx.tx.ExecContext(context.Background(), q, n, genLo, genHi, step); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = l.Close()
		tb.Fatal(err)
	}
	return l
}

// sourceNumOf is billing's sourceID: the number after the source's last '-'.
func sourceNumOf(src string) int64 {
	n, _ := strconv.Atoi(src[strings.LastIndexByte(src, '-')+1:])
	return int64(n)
}

// sortedLikeScreen is what the screen shows today for rows read whole
// (Ledger.Charges, the totals rule): the server's order (by start, then
// the source's number), newest first reversed, then a stable sort by
// amount or duration, largest first.
func sortedLikeScreen(rows []api.Charge, o WindowOrder) []api.Charge {
	rows = slices.Clone(rows)
	slices.SortStableFunc(rows, func(a, b api.Charge) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(sourceNumOf(a.Source), sourceNumOf(b.Source)))
	})
	if !o.Oldest {
		slices.Reverse(rows)
	}
	dur := func(c api.Charge) int64 {
		if c.Start == 0 || c.End < c.Start {
			return 0
		}
		return c.End - c.Start
	}
	switch o.By {
	case ByAmount:
		slices.SortStableFunc(rows, func(a, b api.Charge) int { return cmp.Compare(b.Amount, a.Amount) })
	case ByDuration:
		slices.SortStableFunc(rows, func(a, b api.Charge) int { return cmp.Compare(dur(b), dur(a)) })
	}
	return rows
}

// walk reads every row of q in o by pages of n, forward from the top or
// backward from the end.
func walk(t *testing.T, l *Ledger, q WindowQuery, o WindowOrder, n int, back bool) []api.Charge {
	t.Helper()
	var out []api.Charge
	var key *WindowKey
	for {
		page, err := l.WindowPage(context.Background(), q, o, key, n, back)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		cs := make([]api.Charge, len(page))
		for i := range page {
			cs[i] = page[i].Charge
		}
		if back {
			out = append(cs, out...)
			key = &page[0].Key
		} else {
			out = append(out, cs...)
			key = &page[len(page)-1].Key
		}
	}
	return out
}

// TestWindowPagesAreTheRangeInTheScreensOrder: the pages of a window, read
// forward from the top or backward from the end (G), are the rows the
// screen shows today in each of its orders, with their lines, and the
// count and total are the range's.
func TestWindowPagesAreTheRangeInTheScreensOrder(t *testing.T) {
	l := genLedger(t, path(t), 700)
	defer l.Close()
	ctx := context.Background()
	for _, r := range []struct{ lo, hi int64 }{{genLo, genHi}, {genLo + 40*86400 + 3600, genLo + 90*86400}} {
		all, err := l.Charges(ctx, r.lo, r.hi)
		if err != nil {
			t.Fatal(err)
		}
		for _, types := range [][]string{nil, {"serverless", "volume"}} {
			q := WindowQuery{Lo: r.lo, Hi: r.hi, Types: types}
			var want []api.Charge
			var total money.Amount
			for _, c := range all {
				k := c.Type
				if c.Meta.EndpointID != 0 {
					k = "serverless"
				}
				if len(types) == 0 || slices.Contains(types, k) {
					want = append(want, c)
					total += c.Amount
				}
			}
			n, sum, err := l.WindowTotals(ctx, q)
			if err != nil || n != len(want) || sum != total {
				t.Fatalf("%v: totals %d %v, %v; want %d %v", q, n, sum, err, len(want), total)
			}
			for _, o := range []WindowOrder{{ByStart, false}, {ByStart, true}, {ByAmount, false}, {ByAmount, true}, {ByDuration, false}, {ByDuration, true}} {
				exp := sortedLikeScreen(want, o)
				for _, back := range []bool{false, true} {
					got := walk(t, l, q, o, 37, back)
					if len(got) != len(exp) {
						t.Fatalf("%v %v back %v: %d rows, want %d", q, o, back, len(got), len(exp))
					}
					for i := range got {
						if got[i].Source != exp[i].Source || got[i].Amount != exp[i].Amount || len(got[i].Items) != len(exp[i].Items) {
							t.Fatalf("%v %v back %v: row %d is %s %v, want %s %v", q, o, back, i, got[i].Source, got[i].Amount, exp[i].Source, exp[i].Amount)
						}
					}
				}
			}
		}
	}
}

// TestWindowFind keeps the rows whose label, description or source holds
// the text, as given (a % or _ is itself, not a pattern).
func TestWindowFind(t *testing.T) {
	l := genLedger(t, path(t), 300)
	defer l.Close()
	ctx := context.Background()
	all, err := l.Charges(ctx, genLo, genHi)
	if err != nil {
		t.Fatal(err)
	}
	for _, find := range []string{"JOB-7", "100%_", "worker-1", "0%d"} {
		var want int
		for _, c := range all {
			in := func(s string) bool { return strings.Contains(strings.ToLower(s), strings.ToLower(find)) }
			if in(c.Meta.Label) || in(c.Description) || in(c.Source) {
				want++
			}
		}
		n, _, err := l.WindowTotals(ctx, WindowQuery{Lo: genLo, Hi: genHi, Find: find})
		if err != nil || n != want {
			t.Errorf("find %q: %d, %v; want %d", find, n, err, want)
		}
		if got := walk(t, l, WindowQuery{Lo: genLo, Hi: genHi, Find: find}, WindowOrder{}, 50, false); len(got) != want {
			t.Errorf("find %q: %d rows, want %d", find, len(got), want)
		}
	}
}

// TestWindowPagesWalkTheirIndex: a page is a walk of the order's index,
// never a sort of the range (which would grow with it).
func TestWindowPagesWalkTheirIndex(t *testing.T) {
	l := genLedger(t, path(t), 50)
	defer l.Close()
	for _, c := range []struct {
		q WindowQuery
		o WindowOrder
	}{
		{WindowQuery{}, WindowOrder{ByStart, false}}, {WindowQuery{}, WindowOrder{ByStart, true}},
		{WindowQuery{}, WindowOrder{ByAmount, false}}, {WindowQuery{}, WindowOrder{ByAmount, true}},
		{WindowQuery{}, WindowOrder{ByDuration, false}}, {WindowQuery{}, WindowOrder{ByDuration, true}},
		// Under window amounts the rows inside the range walk the
		// amount's index; the few reaching out of it are sorted.
		{WindowQuery{Windowed: true}, WindowOrder{ByAmount, false}}, {WindowQuery{Windowed: true}, WindowOrder{ByAmount, true}},
	} {
		q, o := c.q, c.o
		q.Lo, q.Hi = genLo, genHi
		for _, back := range []bool{false, true} {
			plan := planOf(t, l, q, o, back)
			if q.Windowed {
				if !strings.Contains(plan, "SEARCH contracts USING INDEX contracts_amount") || !strings.Contains(plan, "USING INDEX contracts_span_lo (span_lo<?)") ||
					!strings.Contains(plan, "USING INDEX contracts_span_hi (span_hi>?)") {
					t.Errorf("window amounts, %v back %v: %s", o, back, plan)
				}
				continue
			}
			if strings.Contains(plan, "TEMP B-TREE") || !strings.Contains(plan, "SEARCH contracts USING INDEX contracts_") {
				t.Errorf("%v back %v: %s", o, back, plan)
			}
		}
	}
}

// planOf is SQLite's plan of a keyset page of q in o.
func planOf(t *testing.T, l *Ledger, q WindowQuery, o WindowOrder, back bool) string {
	t.Helper()
	stmt, args := pageStmt(q, o, &WindowKey{Lead: 1, Start: genLo + 5000, ID: 3}, 10, back)
	return explain(t, l, stmt, args)
}

func benchFile(b *testing.B, n int) *Ledger {
	b.Helper()
	keep := os.Getenv("VASTDASH_BENCH_LEDGERS")
	if keep == "" {
		return genLedger(b, filepath.Join(b.TempDir(), "ledger.db"), n)
	}
	dir := filepath.Join(keep, "window-"+strconv.Itoa(n))
	p, done := filepath.Join(dir, "ledger.db"), filepath.Join(dir, "done")
	if _, err := os.Stat(done); err == nil {
		l, _, err := Open(p, me)
		if err != nil {
			b.Fatal(err)
		}
		return l
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	l := genLedger(b, p, n)
	if err := os.WriteFile(done, nil, 0o600); err != nil {
		_ = l.Close()
		b.Fatal(err)
	}
	return l
}

func benchWindow(b *testing.B, n int) {
	l := benchFile(b, n)
	defer l.Close()
	ctx := context.Background()
	for _, windowed := range []bool{false, true} {
		q := WindowQuery{Lo: genLo, Hi: genHi, Windowed: windowed}
		b.Run(fmt.Sprintf("totals/windowed=%v", windowed), func(b *testing.B) {
			for b.Loop() {
				if c, _, err := l.WindowTotals(ctx, q); err != nil || c != n {
					b.Fatal(c, err)
				}
			}
		})
	}
	for _, c := range []struct {
		o        WindowOrder
		windowed bool
	}{{WindowOrder{ByStart, false}, false}, {WindowOrder{ByAmount, false}, false}, {WindowOrder{ByDuration, true}, false}, {WindowOrder{ByAmount, true}, true}} {
		o, q := c.o, WindowQuery{Lo: genLo, Hi: genHi, Windowed: c.windowed}
		b.Run(fmt.Sprintf("page/by=%d/oldest=%v/windowed=%v/end", o.By, o.Oldest, c.windowed), func(b *testing.B) {
			for b.Loop() {
				// G: the last 100 rows, then the 100 before them.
				page, err := l.WindowPage(ctx, q, o, nil, 100, true)
				if err != nil || len(page) != 100 {
					b.Fatal(len(page), err)
				}
				if page, err = l.WindowPage(ctx, q, o, &page[0].Key, 100, true); err != nil || len(page) != 100 {
					b.Fatal(len(page), err)
				}
			}
		})
	}
}

// BenchmarkWindow10k … 1M: the count and total of a year, and G's pages
// in four orders, at each size (the file generated first, not timed).
// The million's file takes minutes and 600 MB to write: it runs only with
// VASTDASH_BENCH_LONG=1; the hundred thousand's (seconds) not with -short.
// VASTDASH_BENCH_LEDGERS keeps the files for the next run (benchFile).
func BenchmarkWindow10k(b *testing.B) { benchWindow(b, 10_000) }
func BenchmarkWindow100k(b *testing.B) {
	if testing.Short() {
		b.Skip("a hundred thousand contracts: not with -short")
	}
	benchWindow(b, 100_000)
}
func BenchmarkWindow1M(b *testing.B) {
	if testing.Short() || os.Getenv("VASTDASH_BENCH_LONG") != "1" {
		b.Skip("a million contracts: set VASTDASH_BENCH_LONG=1")
	}
	benchWindow(b, 1_000_000)
}

// TestOpenAddsTheWindowIndexes: a file made before the windowed reads'
// indexes gains them when opened, so its pages are walks too; and one
// made with the narrower contracts_window and daily_day loses them for
// contracts_range and daily_day_mills, which its aggregates walk instead
// of looking each contract or day up.
func TestOpenAddsTheWindowIndexes(t *testing.T) {
	p := path(t)
	l := openT(t, p)
	if _, err := l.conn().Exec(`DROP INDEX contracts_order; DROP INDEX contracts_range; DROP INDEX daily_day_mills;
		CREATE INDEX contracts_window ON contracts(span_lo, span_hi, start, "end", mills); CREATE INDEX daily_day ON daily(day)`); err != nil {
		t.Fatal(err)
	}
	_ = l.Close()
	l = openT(t, p)
	var n, old int
	if err := l.conn().QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN ` + windowIndexNames).Scan(&n); err != nil || n != windowIndexCount {
		t.Fatalf("%d of the %d indexes, %v", n, windowIndexCount, err)
	}
	if err := l.conn().QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name IN ('contracts_window', 'daily_day')`).Scan(&old); err != nil || old != 0 {
		t.Fatalf("%d of contracts_window and daily_day are still there, %v", old, err)
	}
}

// TestGenWindowLedger writes a generated ledger for measuring the built
// binary (docs/performance.md): VASTDASH_WINDOW_GEN names the ledgers'
// folder ($XDG_DATA_HOME/vastdash), VASTDASH_WINDOW_N the contracts
// (1,000,000 unless set); the account is the one of the key "key-one" at
// console.vast.ai. Skipped unless asked.
func TestGenWindowLedger(t *testing.T) {
	dir := os.Getenv("VASTDASH_WINDOW_GEN")
	if dir == "" {
		t.Skip("VASTDASH_WINDOW_GEN is not set")
	}
	n := 1_000_000
	if s := os.Getenv("VASTDASH_WINDOW_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 2 {
			t.Fatalf("VASTDASH_WINDOW_N=%q", s)
		}
	}
	l := genLedger(t, Path(dir, me), n)
	t.Log(l.Path())
	_ = l.Close()
}
