package ledger

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// The Overview's figures of a range beside the aggregates: the split by
// charge type (each line's amount summed by its type) and the most
// expensive contracts, each one query over the range, so that a screen
// of a million contracts holds a handful of sums.

// OtherItem is the charge type SumItems gives a contract without lines
// and a line of a type not asked for (spend's "other", so the split adds
// up to the total).
const OtherItem = "other"

// SumItems totals the lines of the contracts overlapping [lo, hi) that f
// keeps by their type, for the types asked for; a line of another type
// and a contract without lines count under OtherItem, the contract's
// amount. Amounts are as SumBy's (windowed: see the package's
// aggregates); each group's Count is its lines (contracts, for
// OtherItem's lineless ones). In no order.
func (l *Ledger) SumItems(ctx context.Context, lo, hi int64, windowed bool, f Filter, types []string) ([]GroupTotal, error) {
	from, extra := selectFrom(f)
	var in strings.Builder
	for i, t := range types {
		if i > 0 {
			in.WriteByte(',')
		}
		in.WriteString(quoteText(t))
	}
	kind := `'` + OtherItem + `'`
	if len(types) > 0 {
		kind = `(CASE WHEN i.type IN (` + in.String() + `) THEN i.type ELSE '` + OtherItem + `' END)`
	}
	// Lines and lineless contracts apart: a LEFT JOIN would make SQLite
	// judge the range's terms after the join.
	q := `SELECT k, sum(n), sum(m) FROM (
		SELECT ` + kind + ` AS k, count(*) AS n, sum(` + lineAmountIn(`c`, `i`, windowed) + `) AS m` +
		strings.Replace(from, ` FROM contracts c WHERE`, ` FROM contracts c JOIN items i ON i.contract_id = c.id WHERE`, 1) + ` GROUP BY 1
		UNION ALL
		SELECT '` + OtherItem + `', count(*), sum(` + amountIn(`c`, windowed) + `)` + from + ` AND NOT EXISTS (SELECT 1 FROM items x WHERE x.contract_id = c.id)
	) GROUP BY k`
	rows, err := l.conn().QueryContext(ctx, q, append([]any{lo, hi, dayFloor(lo)}, extra...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GroupTotal
	for rows.Next() {
		var g GroupTotal
		var m *int64 // NULL: no row in that half
		if err := rows.Scan(&g.Key, &g.Count, &m); err != nil {
			return nil, err
		}
		if g.Count == 0 {
			continue
		}
		if m != nil {
			g.Mills = money.Amount(*m)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// quoteText is s as an SQL string literal (the types are the program's
// own words; quoted all the same).
func quoteText(s string) string {
	return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
}

// Top returns the n contracts overlapping [lo, hi) that f keeps with the
// largest amounts (windowed: see the package's aggregates), largest
// first, those of one amount by their source (bytewise, as Go orders
// strings), without their lines: what a list of the most expensive
// contracts shows.
func (l *Ledger) Top(ctx context.Context, lo, hi int64, windowed bool, f Filter, n int) ([]api.Charge, error) {
	if n <= 0 {
		return nil, nil
	}
	from, extra := selectFrom(f)
	q := `SELECT c.source, c.type, coalesce(c.label, ''), coalesce(c.endpoint_id, 0), coalesce(c.workergroup_id, 0), c.start, c."end", ` +
		amountIn(`c`, windowed) + ` AS amt` + from + ` ORDER BY amt DESC, c.source LIMIT ` + strconv.Itoa(n)
	rows, err := l.conn().QueryContext(ctx, q, append([]any{lo, hi, dayFloor(lo)}, extra...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []api.Charge
	for rows.Next() {
		var c api.Charge
		var m int64
		if err := rows.Scan(&c.Source, &c.Type, &c.Meta.Label, &c.Meta.EndpointID, &c.Meta.WorkergroupID, &c.Start, &c.End, &m); err != nil {
			return nil, err
		}
		c.Amount = money.Amount(m)
		out = append(out, c)
	}
	return out, rows.Err()
}

// Line is a line of EachLine: its contract's times and its own as sent
// (0: not sent), its type, and its amount in the range.
type Line struct {
	Type               string
	Start, End         int64 // the contract's
	LineStart, LineEnd int64
	Mills              money.Amount
}

// EachLine calls fn with every line of one of types of the contracts
// overlapping [lo, hi) that f keeps, its amount as EachCharge gives a
// line's (windowed: see the package's aggregates), one row at a time in
// no order, in one read transaction: what needs some lines (a forecast's
// bandwidth) without every contract's whole. An error of fn stops the
// reading and is returned.
func (l *Ledger) EachLine(ctx context.Context, lo, hi int64, windowed bool, f Filter, types []string, fn func(Line) error) error {
	if len(types) == 0 {
		return nil
	}
	tx, err := l.conn().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	from, extra := selectFrom(f)
	var in strings.Builder
	for i, t := range types {
		if i > 0 {
			in.WriteByte(',')
		}
		in.WriteString(quoteText(t))
	}
	q := `SELECT i.type, c.start, c."end", i.start, i."end", ` + lineAmountIn(`c`, `i`, windowed) +
		strings.Replace(from, ` FROM contracts c WHERE`, ` FROM contracts c JOIN items i ON i.contract_id = c.id WHERE`, 1) +
		` AND i.type IN (` + in.String() + `)`
	rows, err := tx.QueryContext(ctx, q, append([]any{lo, hi, dayFloor(lo)}, extra...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var ln Line
		var m int64
		if err := rows.Scan(&ln.Type, &ln.Start, &ln.End, &ln.LineStart, &ln.LineEnd, &m); err != nil {
			return err
		}
		ln.Mills = money.Amount(m)
		if err := fn(ln); err != nil {
			return err
		}
	}
	return rows.Err()
}
