package ledger

// Version is the schema version this build reads and writes. A file of a
// newer version is left alone (ErrNewer); an older one is migrated in the
// transaction that opens it (migrations).
const Version = 2

// schema creates the tables of Version. Times are unix seconds (UTC);
// amounts are dollars as REAL (as the server sent them) beside exact
// integer thousandths (mills), which every sum the program makes uses.
// docs/ledger.md documents it ("Schema"): users write SQL against it.
const schema = `
CREATE TABLE IF NOT EXISTS meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

-- One row per contract (table format: instances, volumes, serverless
-- workers). start and end are as sent (0: not sent); span_lo and span_hi
-- are the times the day filter matches them by (a missing one taken from
-- the other, a running contract's missing end its synced_at).
CREATE TABLE IF NOT EXISTS contracts (
	id             INTEGER PRIMARY KEY,
	source         TEXT NOT NULL UNIQUE,
	type           TEXT NOT NULL,
	start          INTEGER NOT NULL,
	"end"          INTEGER NOT NULL,
	amount         REAL NOT NULL,
	mills          INTEGER NOT NULL,
	label          TEXT,
	description    TEXT NOT NULL,
	template_id    INTEGER,
	endpoint_id    INTEGER,
	workergroup_id INTEGER,
	synced_at      INTEGER NOT NULL,
	span_lo        INTEGER NOT NULL,
	span_hi        INTEGER NOT NULL,
	fp             INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS contracts_span_lo ON contracts(span_lo);
CREATE INDEX IF NOT EXISTS contracts_span_hi ON contracts(span_hi);

-- The contract's lines: gpu, disk, bwd, bwu.
CREATE TABLE IF NOT EXISTS items (
	contract_id INTEGER NOT NULL REFERENCES contracts(id) ON DELETE CASCADE,
	idx         INTEGER NOT NULL,
	type        TEXT NOT NULL,
	source      TEXT,
	description TEXT NOT NULL,
	start       INTEGER NOT NULL,
	"end"       INTEGER NOT NULL,
	amount      REAL NOT NULL,
	mills       INTEGER NOT NULL,
	PRIMARY KEY (contract_id, idx)
) WITHOUT ROWID;

-- What each contract was charged on each UTC day (day: its midnight), for
-- the days the ledger has covered: under window amounts as the server
-- answered day by day, under totals the total spread over the contract's
-- seconds.
CREATE TABLE IF NOT EXISTS daily (
	contract_id INTEGER NOT NULL REFERENCES contracts(id) ON DELETE CASCADE,
	day         INTEGER NOT NULL,
	amount      REAL NOT NULL,
	mills       INTEGER NOT NULL,
	PRIMARY KEY (contract_id, day)
) WITHOUT ROWID;

-- Each line's part of a day (the program's): under window amounts, and
-- while the rule is not known yet, so that lines read right whichever it
-- turns out to be.
CREATE TABLE IF NOT EXISTS daily_items (
	contract_id INTEGER NOT NULL REFERENCES contracts(id) ON DELETE CASCADE,
	idx         INTEGER NOT NULL,
	day         INTEGER NOT NULL,
	mills       INTEGER NOT NULL,
	PRIMARY KEY (contract_id, day, idx)
) WITHOUT ROWID;

-- The payment records. amount is in the payer's view, as sent (a $25
-- top-up is -25.0); paid is NULL while pending.
CREATE TABLE IF NOT EXISTS payments (
	invoice_id  TEXT PRIMARY KEY,
	created     INTEGER NOT NULL,
	paid        INTEGER,
	type        TEXT NOT NULL,
	service     TEXT,
	source      TEXT NOT NULL,
	description TEXT NOT NULL,
	amount      REAL NOT NULL,
	mills       INTEGER NOT NULL,
	synced_at   INTEGER NOT NULL,
	fp          INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS payments_created ON payments(created);

-- The spans of time the ledger holds whole: every contract (kind
-- 'charges') overlapping [lo, hi), or every record (kind 'payments')
-- created in it, as the server had them at synced_at. unsure marks a span
-- where an amount that may have been a window's was read as a total (the
-- rule was not known): under window amounts it is fetched again.
CREATE TABLE IF NOT EXISTS spans (
	kind      TEXT NOT NULL,
	lo        INTEGER NOT NULL,
	hi        INTEGER NOT NULL,
	synced_at INTEGER NOT NULL,
	unsure    INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (kind, lo, hi)
) WITHOUT ROWID;

-- The entries the server counted in a window that the sync did not keep
-- (out of bounds, no source, a wrapper, a repeat, undecodable), so that the
-- count check agrees with the server's. span_lo and span_hi are as a
-- contract's (payments: both the creation time); of one that did not
-- decode (somewhere = 1) only the window it was met in is known.
CREATE TABLE IF NOT EXISTS dropped (
	kind      TEXT NOT NULL,
	key       TEXT NOT NULL,
	span_lo   INTEGER NOT NULL,
	span_hi   INTEGER NOT NULL,
	somewhere INTEGER NOT NULL,
	synced_at INTEGER NOT NULL,
	PRIMARY KEY (kind, key)
) WITHOUT ROWID;

-- The windows being fetched, page by page: where each goes on after an
-- interruption.
CREATE TABLE IF NOT EXISTS progress (
	kind       TEXT NOT NULL,
	lo         INTEGER NOT NULL,
	hi         INTEGER NOT NULL,
	token      TEXT NOT NULL,
	started_at INTEGER NOT NULL,
	pages      INTEGER NOT NULL,
	unsure     INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (kind, lo, hi)
) WITHOUT ROWID;
`

// migrations bring a file of an older version to Version, each from the
// version it is keyed by to the next, in the transaction that opens it;
// the tables a version added come from schema (IF NOT EXISTS).
var migrations = map[int][]string{
	// Version 1 kept no rule with a span: every one may have been written
	// while the rule was unknown (and without its lines' days), so each is
	// unsure, fetched again once should the rule be window amounts.
	1: {
		`ALTER TABLE spans ADD COLUMN unsure INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE progress ADD COLUMN unsure INTEGER NOT NULL DEFAULT 0`,
		`UPDATE spans SET unsure = 1`,
		`UPDATE progress SET unsure = 1`,
	},
}

// windowIndexes serve the Charges screen's windowed reads (window.go) and
// the commands' aggregates (aggregate.go). contracts_range holds all that
// an aggregate over a range reads of a contract — its span, times and
// amount, and what it is grouped and filtered by (its type, endpoint,
// worker group, template and label): the range's count and total, SumBy
// and EachAmount walk it from the range's start and never read the wide
// rows. Without it a grouping read each contract's label or type from
// the table, one random lookup per contract, and at a million contracts
// those lookups were nearly all of its time (docs/performance.md,
// "Reading a large ledger"). It replaces contracts_window, which held
// the span, times and amount only. daily_day_mills is the days' by day
// with their amounts (the contract is in every index of the table), so
// that a sum by day — SELECT day, sum(mills) FROM daily GROUP BY day, the
// first thing one asks of the ledger in SQL — walks it; it replaces
// daily_day, whose every entry sent SQLite to the table for the amount:
// 22 s for that sum at a million contracts, under a second now.
//
// The others hold, one per order the screen shows, the whole key of a
// keyset page so that a page is a walk of the index, never a sort of the
// range. The server's order is by start, then the number in the source
// (sourceNum), then span_lo and the row id; amount and duration sorts put
// their key first, and its negation serves the same sort oldest first
// (largest first, ties in the server's order ascending). They are created
// with the schema and, for a file made before them, when it is opened for
// writing: on a file of a million contracts that takes seconds, once.
const windowIndexes = `
CREATE INDEX IF NOT EXISTS contracts_range ON contracts(span_lo, span_hi, start, "end", mills, type, endpoint_id, workergroup_id, template_id, label);
DROP INDEX IF EXISTS contracts_window;
CREATE INDEX IF NOT EXISTS daily_day_mills ON daily(day, mills);
DROP INDEX IF EXISTS daily_day;
CREATE INDEX IF NOT EXISTS contracts_order ON contracts(start, ` + sourceNum + `, span_lo);
CREATE INDEX IF NOT EXISTS contracts_amount ON contracts(mills, start, ` + sourceNum + `, span_lo);
CREATE INDEX IF NOT EXISTS contracts_amount_old ON contracts(-mills, start, ` + sourceNum + `, span_lo);
CREATE INDEX IF NOT EXISTS contracts_duration ON contracts(` + duration + `, start, ` + sourceNum + `, span_lo);
CREATE INDEX IF NOT EXISTS contracts_duration_old ON contracts(-` + duration + `, start, ` + sourceNum + `, span_lo);
`

// windowIndexNames are the indexes windowIndexes makes (an SQL list), and
// windowIndexCount how many.
const (
	windowIndexNames = `('contracts_range', 'contracts_order', 'contracts_amount', 'contracts_amount_old', 'contracts_duration', 'contracts_duration_old', 'daily_day_mills')`
	windowIndexCount = 7
)
