package ledger

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// The Charges screen reads a range of any size a window at a time: the
// range's count and total from one aggregate query, and the rows around
// the cursor as keyset pages over an index in the screen's order, so that
// neither the time to the first figure nor the memory grows with the range.

// sourceNum is the number after the last '-' of a contract's source
// ("instance-123": 123, 0 when there is none): the server's order among
// contracts of one start (billing's sourceID). SQLite has no last-index
// function; the trailing digits, when what precedes them ends in '-' (or
// is nothing), are the same number (but for a sign after the '-', or a
// number past int64, which Go reads as 0 and SQLite does not: a source
// the server does not send). It is deterministic, so an index holds it
// (windowIndexes), and the queries must spell it exactly so.
const sourceNum = `(CASE WHEN length(rtrim(source, '0123456789')) < length(source) AND (rtrim(source, '0123456789') = '' OR substr(rtrim(source, '0123456789'), -1) = '-') THEN CAST(substr(source, length(rtrim(source, '0123456789')) + 1) AS INTEGER) ELSE 0 END)`

// duration is the screen's duration of a contract: end less start, 0 when
// a time is missing or the end is before the start.
const duration = `(CASE WHEN start = 0 OR "end" < start THEN 0 ELSE "end" - start END)`

// WindowQuery is a range of contracts as the Charges screen shows it.
type WindowQuery struct {
	// Lo and Hi are the range [Lo, Hi) in unix seconds: the contracts
	// overlapping it, as the server's day filter matches them.
	Lo, Hi int64
	// Types are the kinds shown ("instance", "volume", "serverless");
	// none: every one.
	Types []string
	// Find keeps the contracts whose label, description or source holds
	// it (ASCII letters in either case); "": every one.
	Find string
	// Windowed: amounts are what fell inside the range (the daily
	// table's), not the contracts' totals.
	Windowed bool
}

// SortBy is what a window's rows are ordered by.
type SortBy int

// The orders of the Charges screen.
const (
	ByStart    SortBy = iota // the server's order: by start, then the source's number
	ByAmount                 // largest first, ties in the server's order
	ByDuration               // longest first, ties in the server's order
)

// WindowOrder is an order of the rows: by what, and whether the server's
// order (and so the ties') is oldest first rather than newest first.
type WindowOrder struct {
	By     SortBy
	Oldest bool
}

// WindowKey is where a row stands in its order: a page goes on after (or
// before) it. It means nothing in another order or query.
type WindowKey struct {
	Lead, Start, Num, SpanLo, ID int64
}

// WindowRow is a contract of a window and its key.
type WindowRow struct {
	Charge api.Charge
	Key    WindowKey
}

// overlaps holds for a contract overlapping the range [?1, ?2).
const overlaps = `span_lo < ?2 AND span_hi >= ?1`

// where is the query's filter and its arguments after ?1, ?2, ?3: the
// range (overlaps) and the types and find asked for.
func (q WindowQuery) where() (string, []any) {
	w, args := q.filter()
	return overlaps + w, args
}

// filter is the query's filter but the range, each term after an AND.
func (q WindowQuery) filter() (string, []any) {
	w := ``
	args := []any{q.Lo, q.Hi, dayFloor(q.Lo)}
	if len(q.Types) > 0 {
		marks := make([]string, len(q.Types))
		for i, t := range q.Types {
			args = append(args, t)
			marks[i] = "?" + strconv.Itoa(len(args))
		}
		w += ` AND ` + kindOf(`contracts`) + ` IN (` + strings.Join(marks, ", ") + `)`
	}
	if q.Find != "" {
		args = append(args, "%"+likeEscaper.Replace(q.Find)+"%")
		m := "?" + strconv.Itoa(len(args))
		w += ` AND (coalesce(label, '') LIKE ` + m + ` ESCAPE '\' OR description LIKE ` + m + ` ESCAPE '\' OR source LIKE ` + m + ` ESCAPE '\')`
	}
	return w, args
}

var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// amount is the query's amount of a contract (amountIn): under window
// amounts its days read only for a contract reaching out of the range (a
// few: those running at its edges).
func (q WindowQuery) amount() string { return amountIn(`contracts`, q.Windowed) }

// WindowTotals is the number of contracts of q and their amount, in one
// aggregate query: what the status line says before any row is read.
func (l *Ledger) WindowTotals(ctx context.Context, q WindowQuery) (count int, total money.Amount, err error) {
	w, args := q.where()
	var sum int64
	err = l.conn().QueryRowContext(ctx, `SELECT count(*), coalesce(sum(`+q.amount()+`), 0) FROM contracts WHERE `+w, args...).Scan(&count, &sum)
	return count, money.Amount(sum), err
}

// lead is the first part of an order's key: nothing for the server's
// order; the amount or the duration, negated oldest first so that every
// order is one ascending or descending walk of its index.
func (o WindowOrder) lead(q WindowQuery) string {
	var k string
	switch o.By {
	case ByAmount:
		k = q.amount()
	case ByDuration:
		k = duration
	default:
		return `0`
	}
	if o.Oldest {
		return `-` + k
	}
	return k
}

// WindowPage reads up to n rows of q in order o after the row at key
// (from the first row when key is nil), or, with back, the n rows before
// it (the last n rows when key is nil), in the order either way. Each row
// comes with its lines; under Windowed its amount is the range's (its
// lines' are as stored: billing spreads them).
func (l *Ledger) WindowPage(ctx context.Context, q WindowQuery, o WindowOrder, key *WindowKey, n int, back bool) ([]WindowRow, error) {
	if n <= 0 {
		// (pageStmt reads a limit below 0 as none: WindowPosition's.)
		return nil, nil
	}
	stmt, args := pageStmt(q, o, key, n, back)
	tx, err := l.conn().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	rows, err := tx.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, err
	}
	var out []WindowRow
	index := map[int64]int{}
	for rows.Next() {
		var r WindowRow
		c := &r.Charge
		var mills int64
		if err := rows.Scan(&r.Key.ID, &c.Source, &c.Type, &c.Start, &c.End, &mills, &c.Meta.Label, &c.Description,
			&c.Meta.TemplateID, &c.Meta.EndpointID, &c.Meta.WorkergroupID, &r.Key.Lead, &r.Key.Num, &r.Key.SpanLo); err != nil {
			rows.Close()
			return nil, err
		}
		c.Amount = money.Amount(mills)
		r.Key.Start = c.Start
		index[r.Key.ID] = len(out)
		out = append(out, r)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	ids := make([]string, len(out))
	for i := range out {
		ids[i] = strconv.FormatInt(out[i].Key.ID, 10)
	}
	items, err := tx.QueryContext(ctx, `SELECT contract_id, type, coalesce(source, ''), description, start, "end", mills
		FROM items WHERE contract_id IN (`+strings.Join(ids, ",")+`) ORDER BY contract_id, idx`)
	if err != nil {
		return nil, err
	}
	defer items.Close()
	if err := scanItems(items, index, func(k int) *api.Charge { return &out[k].Charge }); err != nil {
		return nil, err
	}
	if back {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out, nil
}

// WindowPosition is how many rows of q come before the row at key in
// order o: where a row found (a find, a contract asked for) stands, for
// the cursor and the scroll bar. It counts along the order's index.
func (l *Ledger) WindowPosition(ctx context.Context, q WindowQuery, o WindowOrder, key WindowKey) (int, error) {
	stmt, args := pageStmt(q, o, &key, -1, true) // LIMIT -1: no limit
	var n int
	err := l.conn().QueryRowContext(ctx, `SELECT count(*) FROM (`+stmt+`)`, args...).Scan(&n)
	return n, err
}

// pageStmt is WindowPage's statement and its arguments.
func pageStmt(q WindowQuery, o WindowOrder, key *WindowKey, n int, back bool) (string, []any) {
	w, args := q.filter()
	// Ascending: the server's order oldest first, or a sort oldest first
	// (its lead negated); newest first everything is descending.
	op, dir := `<`, ` DESC`
	if o.Oldest != back {
		op, dir = `>`, ``
	}
	var marks []string
	if key != nil {
		for _, v := range []any{key.Lead, key.Start, key.Num, key.SpanLo, key.ID} {
			args = append(args, v)
			marks = append(marks, "?"+strconv.Itoa(len(args)))
		}
	}
	// arm is the rows of the query that match extra, after key, with
	// amount and lead their expressions.
	arm := func(amount, lead, from, span string) string {
		cond := span + w
		switch {
		case key == nil:
		case o.By == ByStart:
			cond += ` AND (start, ` + sourceNum + `, span_lo, id) ` + op + ` (` + strings.Join(marks[1:], ", ") + `)`
		default:
			cond += ` AND (` + lead + `, start, ` + sourceNum + `, span_lo, id) ` + op + ` (` + strings.Join(marks, ", ") + `)` +
				// Said again alone: SQLite seeks an index by an
				// expression's range, not by a row value that begins
				// with one, and would walk the index from its start.
				` AND ` + lead + ` ` + op + `= ` + marks[0]
		}
		return `SELECT id, source, type, start, "end", ` + amount + ` AS k_amount, coalesce(label, '') AS k_label, description,
			coalesce(template_id, 0) AS k_t, coalesce(endpoint_id, 0) AS k_e, coalesce(workergroup_id, 0) AS k_w,
			` + lead + ` AS k_lead, ` + sourceNum + ` AS k_num, span_lo FROM ` + from + ` WHERE ` + cond
	}
	order := `start` + dir + `, k_num` + dir + `, span_lo` + dir + `, id` + dir
	if o.By != ByStart {
		order = `k_lead` + dir + `, ` + order
	}
	var stmt string
	if q.Windowed && o.By == ByAmount {
		// Under window amounts a contract inside the range is its stored
		// amount, in the amount's index; the few reaching out of it
		// have theirs read from their days, sorted, and merged in: those
		// from before the range, and those on past its end (named
		// indexes: SQLite, knowing nothing of how few they are, would
		// walk the whole range by span_hi >= ?1, which the last arm
		// leaves out as span_hi >= ?2 says it).
		sign, edge := ``, daysIn(`contracts`, `daily`, ``)
		if o.Oldest {
			sign = `-`
		}
		stmt = arm(`mills`, sign+`mills`, `contracts`, overlaps+` AND `+insideOf(`contracts`)) +
			` UNION ALL ` + arm(edge, sign+edge, `contracts INDEXED BY contracts_span_lo`, `span_lo < ?1 AND span_hi >= ?1`) +
			` UNION ALL ` + arm(edge, sign+edge, `contracts INDEXED BY contracts_span_hi`,
			`span_hi >= ?2 AND span_lo >= ?1 AND span_lo < ?2`)
	} else {
		stmt = arm(q.amount(), o.lead(q), `contracts`, overlaps)
	}
	args = append(args, n)
	return stmt + ` ORDER BY ` + order + ` LIMIT ?` + strconv.Itoa(len(args)), args
}

// DaysOf reads the days in [dayFloor(lo), hi) of the contracts of rows,
// with their lines' parts, as Days does for a whole range, by source:
// what a window's rows need to read their lines' amounts in the range.
func (l *Ledger) DaysOf(ctx context.Context, rows []WindowRow, lo, hi int64) (map[string][]Day, error) {
	if len(rows) == 0 {
		return map[string][]Day{}, nil
	}
	ids := make([]string, len(rows))
	for i := range rows {
		ids[i] = strconv.FormatInt(rows[i].Key.ID, 10)
	}
	// By row id: SQLite reads each contract's days by the primary key,
	// where by source it could walk every day of the range instead.
	return l.days(ctx, `c.id IN (`+strings.Join(ids, ",")+`)`, hi, lo, dayFloor(lo))
}
