package ledger

import (
	"strings"
	"testing"
)

// TestAggregatesReadOnlyTheirIndex: every aggregate over a range — SumBy
// by each key, EachAmount, and the Charges screen's count and total
// narrowed to some types — walks the one index that holds all it reads
// (contracts_range) and never looks a contract up in its table: at a
// million contracts those lookups, one at random per contract, were
// nearly all of the 7–16 s a grouping of the year took (the plain
// scan's SQL answered in under one).
func TestAggregatesReadOnlyTheirIndex(t *testing.T) {
	l := genLedger(t, path(t), 50)
	defer l.Close()
	const covering = "SEARCH c USING COVERING INDEX contracts_range (span_lo<?)"
	filters := []Filter{{}, {Kinds: []string{"serverless", "volume"}}, {Labels: []string{"job-1"}}}
	for _, windowed := range []bool{false, true} {
		for _, f := range filters {
			for by := range groupExprs {
				q, args, err := sumByStmt(genLo, genHi, by, windowed, f)
				if err != nil {
					t.Fatal(err)
				}
				if plan := explain(t, l, q, args); !strings.Contains(plan, covering) {
					t.Errorf("SumBy %s, windowed %v, %+v: %s", by, windowed, f, plan)
				}
			}
			q, args := eachAmountStmt(genLo, genHi, windowed, f)
			if plan := explain(t, l, q, args); !strings.Contains(plan, covering) {
				t.Errorf("EachAmount, windowed %v, %+v: %s", windowed, f, plan)
			}
		}
		q := WindowQuery{Lo: genLo, Hi: genHi, Windowed: windowed, Types: []string{"instance"}}
		w, args := q.where()
		plan := explain(t, l, `SELECT count(*), coalesce(sum(`+q.amount()+`), 0) FROM contracts WHERE `+w, args)
		if !strings.Contains(plan, "SEARCH contracts USING COVERING INDEX contracts_range (span_lo<?)") {
			t.Errorf("WindowTotals of a type, windowed %v: %s", windowed, plan)
		}
	}
}

// TestDaysByDayReadOnlyTheirIndex: the sum of the days by day, the
// first question one asks of the ledger in SQL (vastdash sql, the floor
// the commands are measured against), walks daily_day_mills and never
// looks a day up in its table for its amount: at a million contracts
// (four million days) those lookups took 22 s.
func TestDaysByDayReadOnlyTheirIndex(t *testing.T) {
	l := genLedger(t, path(t), 50)
	defer l.Close()
	for _, q := range []string{
		`SELECT day, sum(mills) FROM daily GROUP BY day`,
		`SELECT day, sum(mills) FROM daily WHERE day >= ?3 AND day < ?2 GROUP BY day`,
	} {
		if plan := explain(t, l, q, []any{genLo, genHi, dayFloor(genLo)}); !strings.Contains(plan, "COVERING INDEX daily_day_mills") {
			t.Errorf("%s: %s", q, plan)
		}
	}
}

// explain is SQLite's plan of the statement q, its steps joined by "; ".
func explain(t *testing.T, l *Ledger, q string, args []any) string {
	t.Helper()
	rows, err := l.conn().Query(`EXPLAIN QUERY PLAN `+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}
