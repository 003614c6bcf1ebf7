package ledger

// A contract's amount in a range [?1, ?2) (?3 the UTC midnight at or
// before ?1), in SQL, written once for every query that reads it: the
// Charges screen's count, total and pages (window.go) and the commands'
// sums, groupings and rows (aggregate.go). Under totals it is the
// contract's stored amount. Under window amounts it is what the
// contract's days hold inside the range, each day cut by ?1 or ?2
// prorated by the seconds of it the contract ran, rounded half up —
// billing's windowAmounts, to the thousandth — but a contract lying
// wholly inside the range has every day it holds inside and whole, and
// what the ledger stores as its amount is their sum (writeDays): its days
// are read only for the few contracts reaching past the range's edges,
// and a range of a million contracts sums as fast as under totals.

// kindOf is spend.ContractKind of the contracts row c (the table's name
// or its alias) in SQL: serverless for a worker of an endpoint or a
// worker group whatever its type, "other" for a type not sent, else the
// type. (ledger sits beside spend, below it in nothing: the rule is
// written again in Go there, and billing's equality tests hold the two
// together.)
func kindOf(c string) string {
	return `(CASE WHEN ` + c + `.type = 'serverless' OR coalesce(` + c + `.endpoint_id, 0) != 0 OR coalesce(` + c + `.workergroup_id, 0) != 0
	THEN 'serverless' WHEN ` + c + `.type = '' THEN 'other' ELSE ` + c + `.type END)`
}

// insideOf holds for a contracts row c whose span lies inside [?1, ?2):
// every day the ledger holds of it is inside the range and whole, so its
// stored amount is its amount in the range. The span, not the contract's
// start and end, says so: a running contract sent without an end spans
// to its sync, and its days after the range's end (a range in the past)
// are in its stored amount. The unary + keeps SQLite from choosing an
// index by these terms: the range's own (span_lo < ?2 AND span_hi >= ?1)
// or an order's index choose it.
func insideOf(c string) string {
	return `+` + c + `.span_lo >= ?1 AND +` + c + `.span_hi < ?2`
}

// amountIn is the amount in [?1, ?2) of the contracts row c: windowed,
// under window amounts (see above); else its stored amount.
func amountIn(c string, windowed bool) string {
	if !windowed {
		return c + `.mills`
	}
	return `(CASE WHEN ` + insideOf(c) + ` THEN ` + c + `.mills ELSE ` + daysIn(c, `daily`, ``) + ` END)`
}

// lineAmountIn is a line's amount in [?1, ?2): the items row i of the
// contracts row c, as amountIn (its part of each day is daily_items').
func lineAmountIn(c, i string, windowed bool) string {
	if !windowed {
		return i + `.mills`
	}
	return `(CASE WHEN ` + insideOf(c) + ` THEN ` + i + `.mills ELSE ` +
		daysIn(c, `daily_items`, ` AND d.idx = `+i+`.idx`) + ` END)`
}

// daysIn sums the days from ?3 to ?2 of the contracts row c held in the
// table days (daily, or daily_items narrowed by match to a line), each
// day's part inside [?1, ?2): the part of the day's stretch of the
// contract's time (its start, its end when none was sent, to its end, its
// start when the end is before it or was not sent) that lies inside,
// rounded half up; a day whose stretch is a point counts whole when the
// point is inside. A day wholly inside the range counts whole whatever
// the contract's seconds in it: the first branch says so without the
// arithmetic.
func daysIn(c, days, match string) string {
	start, end := c+`.start`, c+`."end"`
	s := `(CASE WHEN ` + start + ` = 0 THEN ` + end + ` ELSE ` + start + ` END)`
	a := `max(` + s + `, d.day)`
	b := `min(max(` + end + `, ` + s + `), d.day + 86400)`
	num := `max(0, min(` + b + `, ?2) - max(` + a + `, ?1))`
	den := `(` + b + ` - ` + a + `)`
	part := `CASE WHEN d.day >= ?1 AND d.day + 86400 <= ?2 THEN d.mills
		WHEN ` + b + ` > ` + a + ` THEN (CASE WHEN ` + num + ` >= ` + den + ` THEN d.mills ELSE (d.mills * ` + num + ` * 2 + ` + den + `) / (2 * ` + den + `) END)
		WHEN ` + a + ` < ?1 OR ` + a + ` >= ?2 THEN 0 ELSE d.mills END`
	return `(SELECT coalesce(sum(` + part + `), 0) FROM ` + days + ` d WHERE d.contract_id = ` + c + `.id` + match + ` AND d.day >= ?3 AND d.day < ?2)`
}
