package ledger

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// The aggregates answer a question over the contracts overlapping [lo, hi)
// (Charges' day filter) in SQL, without bringing the rows into memory:
// each contract's amount is amountIn's (its total, or under window
// amounts what fell inside [lo, hi), exactly as billing makes it of the
// rows Charges and Days read), summed in integer thousandths.

// Filter narrows an aggregate to some contracts.
type Filter struct {
	// Kinds keeps the contracts of these kinds (spend.ContractKind's:
	// serverless for a worker of an endpoint or workergroup whatever its
	// type, "other" for a type not sent, else the type); none: all.
	Kinds []string
	// Labels keeps the contracts labelled one of these, exactly; a
	// contract without a label never matches. None: all.
	Labels []string
}

// GroupTotal is one group of SumBy: its key as the ledger holds it, how
// many contracts fall in it and their amount.
type GroupTotal struct {
	// Key is the label ("" for none), the id in decimal ("0" for none),
	// or the kind.
	Key   string
	Count int
	Mills money.Amount
}

// The keys SumBy groups by.
const (
	SumLabel       = "label"
	SumTemplate    = "template"
	SumEndpoint    = "endpoint"
	SumWorkergroup = "workergroup"
	SumKind        = "type"
)

// groupExprs are the keys of SumBy's groups, of a contracts row c: a
// label or kind as text, an id as the integer (SumBy makes it text once
// per group, not once per contract).
var groupExprs = map[string]string{
	SumLabel:       `coalesce(c.label, '')`,
	SumTemplate:    `coalesce(c.template_id, 0)`,
	SumEndpoint:    `coalesce(c.endpoint_id, 0)`,
	SumWorkergroup: `coalesce(c.workergroup_id, 0)`,
	SumKind:        kindOf(`c`),
}

// selectFrom is the FROM and WHERE of an aggregate over [lo, hi) (?1, ?2)
// narrowed by f, and the arguments after the first three.
func selectFrom(f Filter) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString(` FROM contracts c WHERE c.span_lo < ?2 AND c.span_hi >= ?1`)
	in := func(expr string, vals []string) {
		b.WriteString(` AND ` + expr + ` IN (`)
		for i, v := range vals {
			if i > 0 {
				b.WriteByte(',')
			}
			args = append(args, v)
			b.WriteString(`?` + strconv.Itoa(3+len(args)))
		}
		b.WriteByte(')')
	}
	if len(f.Kinds) > 0 {
		in(kindOf(`c`), f.Kinds)
	}
	if len(f.Labels) > 0 {
		in(`c.label`, f.Labels)
	}
	return b.String(), args
}

// SumBy totals the contracts overlapping [lo, hi) that f keeps by by (one
// of SumLabel, SumTemplate, SumEndpoint, SumWorkergroup, SumKind): their
// count and amount per group, in no order. windowed says the amounts are
// window amounts (see the package's aggregates).
func (l *Ledger) SumBy(ctx context.Context, lo, hi int64, by string, windowed bool, f Filter) ([]GroupTotal, error) {
	q, args, err := sumByStmt(lo, hi, by, windowed, f)
	if err != nil {
		return nil, err
	}
	rows, err := l.conn().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GroupTotal
	for rows.Next() {
		var g GroupTotal
		var m int64
		if err := rows.Scan(&g.Key, &g.Count, &m); err != nil {
			return nil, err
		}
		g.Mills = money.Amount(m)
		out = append(out, g)
	}
	return out, rows.Err()
}

// sumByStmt is SumBy's statement and its arguments. Each contract's key
// and amount are made in a subquery that the LIMIT keeps SQLite from
// flattening into the GROUP BY: flattened, the grouping's sorter holds
// for every contract each column its amount is made of (the span, the
// times, the id the days are looked up by) and makes the amount after
// the sort; this way it holds the key and the amount, and at a million
// contracts the grouping takes the time of a plain one (under a second,
// where it took half as long again).
func sumByStmt(lo, hi int64, by string, windowed bool, f Filter) (string, []any, error) {
	key, ok := groupExprs[by]
	if !ok {
		return "", nil, errUnknownGroup(by)
	}
	from, extra := selectFrom(f)
	return `SELECT CAST(k AS TEXT), count(*), sum(a) FROM (SELECT ` + key + ` AS k, ` + amountIn(`c`, windowed) + ` AS a` + from + ` LIMIT -1) GROUP BY k`,
		append([]any{lo, hi, dayFloor(lo)}, extra...), nil
}

type errUnknownGroup string

func (e errUnknownGroup) Error() string { return "ledger: no grouping by " + strconv.Quote(string(e)) }

// Amounted is a contract of EachAmount: its times as sent (0: not sent)
// and its amount.
type Amounted struct {
	Start, End int64
	Mills      money.Amount
	// Kind is spend.ContractKind's (see Filter.Kinds): what a chart
	// stacks its days by. EachKindAmount's only.
	Kind string
}

// EachAmount calls fn with every contract overlapping [lo, hi) that f
// keeps and its amount (windowed: see the package's aggregates), one row
// at a time in no order, in one read transaction: what needs a contract's
// times (a spreading over local days) folds the range in flat memory. An
// error of fn stops the reading and is returned.
func (l *Ledger) EachAmount(ctx context.Context, lo, hi int64, windowed bool, f Filter, fn func(Amounted) error) error {
	return l.eachAmount(ctx, lo, hi, windowed, false, f, fn)
}

// EachKindAmount is EachAmount with each contract's Kind.
func (l *Ledger) EachKindAmount(ctx context.Context, lo, hi int64, windowed bool, f Filter, fn func(Amounted) error) error {
	return l.eachAmount(ctx, lo, hi, windowed, true, f, fn)
}

func (l *Ledger) eachAmount(ctx context.Context, lo, hi int64, windowed, kind bool, f Filter, fn func(Amounted) error) error {
	tx, err := l.conn().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	q, args := eachAmountStmt(lo, hi, windowed, f)
	if kind {
		q, args = eachKindAmountStmt(lo, hi, windowed, f)
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var raw sql.RawBytes
	for rows.Next() {
		var a Amounted
		var m int64
		dest := []any{&a.Start, &a.End, &m}
		if kind {
			dest = append(dest, &raw)
		}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if kind {
			a.Kind = kindName(raw)
		}
		a.Mills = money.Amount(m)
		if err := fn(a); err != nil {
			return err
		}
	}
	return rows.Err()
}

// eachAmountStmt is EachAmount's statement and its arguments.
func eachAmountStmt(lo, hi int64, windowed bool, f Filter) (string, []any) {
	from, extra := selectFrom(f)
	return `SELECT c.start, c."end", ` + amountIn(`c`, windowed) + from, append([]any{lo, hi, dayFloor(lo)}, extra...)
}

// eachKindAmountStmt is EachKindAmount's.
func eachKindAmountStmt(lo, hi int64, windowed bool, f Filter) (string, []any) {
	from, extra := selectFrom(f)
	return `SELECT c.start, c."end", ` + amountIn(`c`, windowed) + `, ` + kindOf(`c`) + from, append([]any{lo, hi, dayFloor(lo)}, extra...)
}

// kindName is a kind read as bytes, as a string: the usual ones without
// an allocation each (a million contracts read in a row).
func kindName(b []byte) string {
	switch string(b) {
	case "instance":
		return "instance"
	case "volume":
		return "volume"
	case "serverless":
		return "serverless"
	case "other":
		return "other"
	}
	return string(b)
}

// EachCharge calls fn with every contract overlapping [lo, hi) that f
// keeps, with its lines, as Charges reads them — amounts the totals, or
// under window amounts (windowed) what the contract's days, and each
// line's parts of them, hold inside [lo, hi), prorated as billing's
// windowAmounts — in order of start (newest first: the reverse), ties
// by span_lo and row id as Charges orders them. One row at a time, in one
// read transaction: memory stays flat whatever the range holds. An error
// of fn stops the reading and is returned.
func (l *Ledger) EachCharge(ctx context.Context, lo, hi int64, windowed, newestFirst bool, f Filter, fn func(*api.Charge) error) error {
	tx, err := l.conn().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	from, extra := selectFrom(f)
	dir := ``
	if newestFirst {
		dir = ` DESC`
	}
	// Each contract's amount once (not once per line), then its lines.
	rows, err := tx.QueryContext(ctx, `WITH w AS MATERIALIZED (SELECT c.id, c.start, c.span_lo, `+amountIn(`c`, windowed)+` AS amt`+from+`)
		SELECT c.id, c.source, c.type, c.start, c."end", w.amt,
		coalesce(c.label, ''), c.description, coalesce(c.template_id, 0), coalesce(c.endpoint_id, 0), coalesce(c.workergroup_id, 0),
		i.idx, coalesce(i.type, ''), coalesce(i.source, ''), coalesce(i.description, ''), coalesce(i.start, 0), coalesce(i."end", 0),
		coalesce(`+lineAmountIn(`c`, `i`, windowed)+`, 0) FROM w JOIN contracts c ON c.id = w.id LEFT JOIN items i ON i.contract_id = c.id
		ORDER BY w.start`+dir+`, w.span_lo`+dir+`, w.id`+dir+`, i.idx`,
		append([]any{lo, hi, dayFloor(lo)}, extra...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var c api.Charge
	id := int64(-1)
	for rows.Next() {
		var rid, mills, imills int64
		var idx sql.NullInt64
		var it api.Charge
		var cur api.Charge
		if err := rows.Scan(&rid, &cur.Source, &cur.Type, &cur.Start, &cur.End, &mills, &cur.Meta.Label, &cur.Description,
			&cur.Meta.TemplateID, &cur.Meta.EndpointID, &cur.Meta.WorkergroupID,
			&idx, &it.Type, &it.Source, &it.Description, &it.Start, &it.End, &imills); err != nil {
			return err
		}
		if rid != id {
			if id >= 0 {
				if err := fn(&c); err != nil {
					return err
				}
			}
			id = rid
			c = cur
			c.Amount = money.Amount(mills)
		}
		if idx.Valid {
			it.Amount = money.Amount(imills)
			if c.Items == nil {
				c.Items = make([]api.Charge, 0, 4) // gpu, disk, bwd, bwu
			}
			c.Items = append(c.Items, it)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if id >= 0 {
		return fn(&c)
	}
	return nil
}
