package ledger

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// literal is stmt with its arguments ?1 … ?N written in, as a user would
// type it into `vastdash sql`.
func literal(stmt string, args []any) string {
	for j := len(args); j >= 1; j-- {
		v := fmt.Sprint(args[j-1])
		if s, ok := args[j-1].(string); ok {
			v = "'" + strings.ReplaceAll(s, "'", "''") + "'"
		}
		stmt = strings.ReplaceAll(stmt, fmt.Sprintf("?%d", j), v)
	}
	return stmt
}

// TestWindowStatementsRunInSQL: every statement the Charges screen's
// window reads — the count and total, a page in each order from either
// end and from a key (by amount under window amounts: the merge of the
// inside and edge arms, which a session's notes said `vastdash sql`
// refused), a row's position — runs typed into `vastdash sql`, on the
// ledger opened read-only behind its authorizer. What that authorizer
// refuses is the transaction (BEGIN) WindowPage reads its page and lines
// in, which only the dashboard's own ledger, opened for writing, runs.
func TestWindowStatementsRunInSQL(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ledger.db")
	l := genLedger(t, p, 300)
	ctx := context.Background()
	var stmts []string
	for _, windowed := range []bool{false, true} {
		q := WindowQuery{Lo: genLo + 86400, Hi: genHi - 86400, Windowed: windowed, Find: "job-1"}
		w, args := q.where()
		stmts = append(stmts, literal(`SELECT count(*), coalesce(sum(`+q.amount()+`), 0) FROM contracts WHERE `+w, args))
		for _, by := range []SortBy{ByStart, ByAmount, ByDuration} {
			for _, oldest := range []bool{false, true} {
				o := WindowOrder{By: by, Oldest: oldest}
				rows, err := l.WindowPage(ctx, q, o, nil, 5, false)
				if err != nil || len(rows) != 5 {
					t.Fatalf("windowed %v, %+v: %d rows, %v", windowed, o, len(rows), err)
				}
				for _, back := range []bool{false, true} {
					stmt, args := pageStmt(q, o, nil, 5, back)
					stmts = append(stmts, literal(stmt, args))
					stmt, args = pageStmt(q, o, &rows[2].Key, 5, back)
					stmts = append(stmts, literal(stmt, args))
				}
				stmt, args := pageStmt(q, o, &rows[3].Key, -1, true)
				stmts = append(stmts, literal(`SELECT count(*) FROM (`+stmt+`)`, args))
			}
		}
	}
	_ = l.Close()
	ro, err := OpenReadOnly(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	for _, stmt := range stmts {
		if res, err := ro.Query(ctx, stmt); err != nil || len(res.Rows) == 0 {
			t.Errorf("%d rows, %v:\n%s", len(res.Rows), err, stmt)
		}
	}
}
