package ledger

import (
	"context"
	"database/sql"
	"errors"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// The kinds of rows a span or a window covers.
const (
	KindCharges  = "charges"
	KindPayments = "payments"
)

// Span is a stretch of time [Lo, Hi) (unix seconds) the ledger holds
// whole, as the server had it at SyncedAt.
type Span struct {
	Lo, Hi, SyncedAt int64
	// Unsure marks a span where an amount that may have been a window's
	// was read as a total (the amount rule was not known then): under
	// window amounts it is fetched again.
	Unsure bool
}

// Window is a stretch of time [Lo, Hi) being fetched page by page, and
// where its paging stands.
type Window struct {
	Lo, Hi int64
	// Started is when its first page was asked: the sync time of every
	// row it writes, by which the rows it did not return are found.
	Started int64
	// Token is the after_token of the next page ("" before the first).
	Token string
	Pages int
	// Unsure: a page of it was written as Span.Unsure says; its span will
	// be.
	Unsure bool
	// Gen is the generation of the file (Ledger.Gen) the window began in,
	// 0 for any: a page of a window begun in a file since moved aside
	// (Reset) is refused with ErrMoved, as its first pages are not in the
	// new file and its span would claim what the new file does not hold.
	Gen int64
}

// ErrMoved refuses a page of a window begun in a file since moved aside
// and started anew (Reset): the sync begins the window again.
var ErrMoved = errors.New("the ledger was started anew while a window was fetched")

// Day is what a contract was charged on one UTC day.
type Day struct {
	Day   int64 // the day's midnight, unix seconds
	Mills money.Amount
	// Items are the lines' parts of the day, in the contract's item order
	// (under window amounts, and while the rule is not known; nil under
	// totals, where the lines are read whole).
	Items []money.Amount
}

// ChargeRow is a contract to store and what it was charged on each UTC day
// of the window being written.
type ChargeRow struct {
	Charge api.Charge
	Days   []Day
}

// Dropped is an entry the server counted in a window but the sync did not
// keep: out of bounds, without a source, a wrapper, a repeat, or one that
// did not decode. It counts with the rows held (CountCharges,
// CountPayments), so that the count check agrees with the server's
// instead of fetching the window again on every run.
type Dropped struct {
	// Key names it within its kind: what it is and where it was met. A
	// key met again replaces its row.
	Key string
	// Start and End are its times as a contract's (a payment record's
	// creation time in both).
	Start, End int64
	// Somewhere: it did not decode, so nothing of it is known but that it
	// lies somewhere in [Start, End), the window it was met in. It is not
	// counted but allowed for (Undecoded).
	Somewhere bool
}

// ChargesPage is one page of a window, written in one transaction with the
// window's progress, and on its last page (Done) with the spans: a run cut
// anywhere leaves the ledger consistent, and the next one goes on from
// the last page written.
type ChargesPage struct {
	Window  Window
	Rows    []ChargeRow
	Dropped []Dropped
	// Windowed says the amounts are what fell inside the window (the
	// server's rule): a contract's days in the window are replaced by
	// Days, and its amount is the sum of every day held. Otherwise the
	// amount is the contract's total and Days its spread.
	Windowed bool
	// Done marks the window's last page: the contracts overlapping the
	// window that it did not return are deleted (the server no longer
	// has them), its progress is dropped and the kind's spans become
	// what Merge makes of those held (see Merge).
	Done  bool
	Merge Merge
}

// Merge makes the spans of a kind once a window is done from those the
// ledger holds, read in the transaction that writes the window's last
// page: a span another process (a dashboard, a cron sync) wrote while
// this window was fetched is merged with, never written over.
type Merge func(held []Span) []Span

// WriteCharges writes one page. changed counts the contracts added,
// changed or deleted (0: the page only confirmed what the ledger held).
func (l *Ledger) WriteCharges(ctx context.Context, p ChargesPage) (changed int, err error) {
	err = l.write(ctx, counted(&changed, func(tx *txn) error {
		if err := l.current(p.Window); err != nil {
			return err
		}
		n, err := writeContracts(ctx, tx, p)
		if err != nil {
			return err
		}
		changed = n
		if err := writeDropped(tx, KindCharges, p.Window.Started, p.Dropped); err != nil {
			return err
		}
		if !p.Done {
			return saveProgress(ctx, tx, KindCharges, p.Window)
		}
		res, err := tx.exec(`DELETE FROM contracts WHERE span_lo < ? AND span_hi >= ? AND synced_at < ?`,
			p.Window.Hi, p.Window.Lo, p.Window.Started)
		if err != nil {
			return err
		}
		if err := forgetDropped(tx, KindCharges, `span_lo < ?2 AND span_hi >= ?1`, p.Window); err != nil {
			return err
		}
		gone, _ := res.RowsAffected()
		changed += int(gone)
		return finish(tx, KindCharges, p.Window, p.Merge)
	}))
	return changed, err
}

// counted runs fn, a page's write, and then adds the rows it changed to
// the file's count of changes (Changes), in the same transaction.
func counted(changed *int, fn func(*txn) error) func(*txn) error {
	return func(tx *txn) error {
		if err := fn(tx); err != nil || *changed == 0 {
			return err
		}
		_, err := tx.exec(`INSERT INTO meta(key, value) VALUES ('changes', ?)
			ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER)`, strconv.Itoa(*changed))
		return err
	}
}

// Changes counts the rows every write to the file changed (added, changed
// or deleted), by any process: a reader that saw it move by more than its
// own sync changed knows another wrote meanwhile, and reads again.
func (l *Ledger) Changes(ctx context.Context) int64 {
	var v sql.NullInt64
	if err := l.conn().QueryRowContext(ctx, `SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'changes'`).Scan(&v); err != nil {
		return 0
	}
	return v.Int64
}

// existing is what the ledger holds of a contract before a page.
type existing struct {
	id     int64
	fp     int64
	synced int64 // the sync that last wrote it
	// sum and days are its days inside the window (window amounts).
	sum  money.Amount
	days int
}

func writeContracts(ctx context.Context, tx *txn, p ChargesPage) (int, error) {
	if len(p.Rows) == 0 {
		return 0, nil
	}
	have, err := lookup(ctx, tx, p)
	if err != nil {
		return 0, err
	}
	changed := 0
	for i := range p.Rows {
		r := &p.Rows[i]
		c := &r.Charge
		fp := fingerprint(c, p.Windowed)
		old, ok := have[c.Source]
		if ok && old.synced > p.Window.Started {
			// A newer sync (another process's window overlapping this
			// one) wrote it since this page was asked: what it holds is
			// newer, and lowering its mark would let that sync's end of
			// window delete it as gone.
			continue
		}
		id := old.id
		lo, hi := spanOf(c, p.Window.Started)
		switch {
		case !ok:
			id, err = insertContract(ctx, tx, c, fp, lo, hi, p.Window.Started)
			changed++
		case old.fp != fp:
			_, err = tx.exec(`UPDATE contracts SET type=?, start=?, "end"=?, amount=?, mills=?, label=?, description=?,
				template_id=?, endpoint_id=?, workergroup_id=?, synced_at=?, span_lo=?, span_hi=?, fp=? WHERE id=?`,
				c.Type, c.Start, c.End, dollars(c.Amount), int64(c.Amount), nullText(c.Meta.Label), c.Description,
				nullInt(c.Meta.TemplateID), nullInt(c.Meta.EndpointID), nullInt(c.Meta.WorkergroupID),
				p.Window.Started, lo, hi, fp, id)
			if err == nil {
				_, err = tx.exec(`DELETE FROM items WHERE contract_id = ?`, id)
			}
			if err == nil {
				err = insertItems(ctx, tx, id, c)
			}
			changed++
		default:
			// Unchanged, but a running one (no end sent) runs on to this
			// sync: its span grows with it.
			_, err = tx.exec(`UPDATE contracts SET synced_at = ?, span_lo = ?, span_hi = ? WHERE id = ?`, p.Window.Started, lo, hi, id)
		}
		if err != nil {
			return 0, err
		}
		dayChanged, err := writeDays(ctx, tx, id, r.Days, p, !ok || old.fp != fp, old)
		if err != nil {
			return 0, err
		}
		if dayChanged && ok && old.fp == fp {
			changed++
		}
	}
	return changed, nil
}

// lookup reads what the ledger holds of the page's contracts.
func lookup(ctx context.Context, tx *txn, p ChargesPage) (map[string]existing, error) {
	args := make([]any, 0, len(p.Rows)+2)
	marks := make([]string, 0, len(p.Rows))
	for i := range p.Rows {
		args = append(args, p.Rows[i].Charge.Source)
		marks = append(marks, "?")
	}
	q := `SELECT id, source, fp, synced_at FROM contracts WHERE source IN (` + strings.Join(marks, ",") + `)`
	rows, err := tx.query(q, args...)
	if err != nil {
		return nil, err
	}
	have := map[string]existing{}
	for rows.Next() {
		var e existing
		var src string
		if err := rows.Scan(&e.id, &src, &e.fp, &e.synced); err != nil {
			rows.Close()
			return nil, err
		}
		have[src] = e
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if !p.Windowed || len(have) == 0 {
		return have, nil
	}
	// The days each holds inside the window, to tell a changed day from
	// one read again unchanged.
	rows, err = tx.query(`SELECT c.source, sum(d.mills), count(*) FROM daily d JOIN contracts c ON c.id = d.contract_id
		WHERE c.source IN (`+strings.Join(marks, ",")+`) AND d.day >= ? AND d.day < ? GROUP BY c.source`,
		append(args, dayFloor(p.Window.Lo), p.Window.Hi)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var src string
		var sum int64
		var n int
		if err := rows.Scan(&src, &sum, &n); err != nil {
			return nil, err
		}
		e := have[src]
		e.sum, e.days = money.Amount(sum), n
		have[src] = e
	}
	return have, rows.Err()
}

func insertContract(ctx context.Context, tx *txn, c *api.Charge, fp, lo, hi, synced int64) (int64, error) {
	res, err := tx.exec(`INSERT INTO contracts(source, type, start, "end", amount, mills, label, description,
		template_id, endpoint_id, workergroup_id, synced_at, span_lo, span_hi, fp) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		c.Source, c.Type, c.Start, c.End, dollars(c.Amount), int64(c.Amount), nullText(c.Meta.Label), c.Description,
		nullInt(c.Meta.TemplateID), nullInt(c.Meta.EndpointID), nullInt(c.Meta.WorkergroupID), synced, lo, hi, fp)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	return id, insertItems(ctx, tx, id, c)
}

func insertItems(ctx context.Context, tx *txn, id int64, c *api.Charge) error {
	for i := range c.Items {
		it := &c.Items[i]
		if _, err := tx.exec(`INSERT INTO items(contract_id, idx, type, source, description, start, "end", amount, mills)
			VALUES (?,?,?,?,?,?,?,?,?)`, id, i, it.Type, nullText(it.Source), it.Description, it.Start, it.End,
			dollars(it.Amount), int64(it.Amount)); err != nil {
			return err
		}
	}
	return nil
}

// writeDays stores a contract's days. Under totals they are the spread of
// its total: every day of the window, and every day it already has (its
// total may have grown), are written again when the contract changed;
// otherwise the window's days it lacks are added. Under window amounts its
// days inside the window are replaced, and its amount (and its lines') is
// the sum of every day held. The lines' days go with the days they are
// part of. It reports a change of the days in the window.
func writeDays(ctx context.Context, tx *txn, id int64, days []Day, p ChargesPage, rowChanged bool, old existing) (bool, error) {
	lo, hi := dayFloor(p.Window.Lo), p.Window.Hi
	if !p.Windowed {
		if !rowChanged {
			for _, d := range days {
				if d.Day >= lo && d.Day < hi {
					if err := insertDay(tx, `INSERT OR IGNORE`, id, d); err != nil {
						return false, err
					}
				}
			}
			return false, nil
		}
		held := map[int64]bool{}
		rows, err := tx.query(`SELECT day FROM daily WHERE contract_id = ?`, id)
		if err != nil {
			return false, err
		}
		for rows.Next() {
			var d int64
			if err := rows.Scan(&d); err != nil {
				rows.Close()
				return false, err
			}
			held[d] = true
		}
		if err := rows.Close(); err != nil {
			return false, err
		}
		for _, table := range []string{"daily", "daily_items"} {
			if _, err := tx.exec(`DELETE FROM `+table+` WHERE contract_id = ?`, id); err != nil {
				return false, err
			}
		}
		for _, d := range days {
			if (d.Day >= lo && d.Day < hi) || held[d.Day] {
				if err := insertDay(tx, `INSERT`, id, d); err != nil {
					return false, err
				}
			}
		}
		return true, nil
	}
	for _, table := range []string{"daily", "daily_items"} {
		if _, err := tx.exec(`DELETE FROM `+table+` WHERE contract_id = ? AND day >= ? AND day < ?`, id, lo, hi); err != nil {
			return false, err
		}
	}
	var sum money.Amount
	for _, d := range days {
		sum += d.Mills
		if err := insertDay(tx, `INSERT`, id, d); err != nil {
			return false, err
		}
	}
	if _, err := tx.exec(`UPDATE contracts SET mills = (SELECT coalesce(sum(mills), 0) FROM daily WHERE contract_id = ?1),
		amount = (SELECT coalesce(sum(mills), 0) FROM daily WHERE contract_id = ?1) / 1000.0 WHERE id = ?1`, id); err != nil {
		return false, err
	}
	if _, err := tx.exec(`UPDATE items SET mills = (SELECT coalesce(sum(mills), 0) FROM daily_items d
		WHERE d.contract_id = items.contract_id AND d.idx = items.idx) WHERE contract_id = ?`, id); err != nil {
		return false, err
	}
	if _, err := tx.exec(`UPDATE items SET amount = mills / 1000.0 WHERE contract_id = ?`, id); err != nil {
		return false, err
	}
	return sum != old.sum || len(days) != old.days, nil
}

// writeDropped records the entries of a page the sync did not keep.
func writeDropped(tx *txn, kind string, synced int64, ds []Dropped) error {
	for _, d := range ds {
		lo, hi := d.Start, d.End
		if kind == KindCharges && !d.Somewhere {
			lo, hi = spanOf(&api.Charge{Start: d.Start, End: d.End}, synced)
		}
		// A newer sync's mark is kept (as a contract's, writeContracts).
		if _, err := tx.exec(`INSERT INTO dropped(kind, key, span_lo, span_hi, somewhere, synced_at) VALUES (?,?,?,?,?,?)
			ON CONFLICT(kind, key) DO UPDATE SET span_lo = excluded.span_lo, span_hi = excluded.span_hi,
			somewhere = excluded.somewhere, synced_at = max(synced_at, excluded.synced_at)`,
			kind, d.Key, lo, hi, d.Somewhere, synced); err != nil {
			return err
		}
	}
	return nil
}

// forgetDropped deletes, at the end of window w, the dropped entries it
// did not meet again: those placed where w would have returned them (in,
// a condition on span_lo and span_hi with w's ?1 lo and ?2 hi), and those
// known only to lie in a window inside w.
func forgetDropped(tx *txn, kind, in string, w Window) error {
	_, err := tx.exec(`DELETE FROM dropped WHERE kind = ?3 AND synced_at < ?4 AND
		((somewhere = 0 AND `+in+`) OR (somewhere = 1 AND span_lo >= ?1 AND span_hi <= ?2))`, w.Lo, w.Hi, kind, w.Started)
	return err
}

// Undecoded counts the entries of a kind that did not decode and may lie
// in [lo, hi): the server's count of the range may exceed the ledger's by
// as many.
func (l *Ledger) Undecoded(ctx context.Context, kind string, lo, hi int64) (int, error) {
	var n int
	err := l.conn().QueryRowContext(ctx, `SELECT count(*) FROM dropped WHERE kind = ? AND somewhere = 1 AND span_lo < ? AND span_hi > ?`,
		kind, hi, lo).Scan(&n)
	return n, err
}

// insertDay writes one day of a contract and its lines' parts; verb is
// INSERT, or INSERT OR IGNORE to keep a day held.
func insertDay(tx *txn, verb string, id int64, d Day) error {
	res, err := tx.exec(verb+` INTO daily(contract_id, day, amount, mills) VALUES (?,?,?,?)`,
		id, d.Day, dollars(d.Mills), int64(d.Mills))
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return err // held already: its lines' parts are too
	}
	for k, m := range d.Items {
		if _, err := tx.exec(`INSERT OR REPLACE INTO daily_items(contract_id, idx, day, mills) VALUES (?,?,?,?)`,
			id, k, d.Day, int64(m)); err != nil {
			return err
		}
	}
	return nil
}

// saveProgress records where a window's paging stands.
func saveProgress(ctx context.Context, tx *txn, kind string, w Window) error {
	_, err := tx.exec(`INSERT OR REPLACE INTO progress(kind, lo, hi, token, started_at, pages, unsure) VALUES (?,?,?,?,?,?,?)`,
		kind, w.Lo, w.Hi, w.Token, w.Started, w.Pages, w.Unsure)
	return err
}

// finish drops a finished window's progress and makes the kind's spans
// what merge makes of those held now.
func finish(tx *txn, kind string, w Window, merge Merge) error {
	if _, err := tx.exec(`DELETE FROM progress WHERE kind = ? AND lo = ? AND hi = ?`, kind, w.Lo, w.Hi); err != nil {
		return err
	}
	if merge == nil {
		return nil
	}
	rows, err := tx.query(spansQuery, kind)
	if err != nil {
		return err
	}
	held, err := scanSpans(rows)
	if err != nil {
		return err
	}
	if _, err := tx.exec(`DELETE FROM spans WHERE kind = ?`, kind); err != nil {
		return err
	}
	for _, s := range merge(held) {
		if _, err := tx.exec(`INSERT OR REPLACE INTO spans(kind, lo, hi, synced_at, unsure) VALUES (?,?,?,?,?)`,
			kind, s.Lo, s.Hi, s.SyncedAt, s.Unsure); err != nil {
			return err
		}
	}
	return nil
}

// spansQuery reads the spans of a kind, in order of their start.
const spansQuery = `SELECT lo, hi, synced_at, unsure FROM spans WHERE kind = ? ORDER BY lo, hi`

// Spans reads the spans of a kind, in order of their start.
func (l *Ledger) Spans(ctx context.Context, kind string) ([]Span, error) {
	rows, err := l.conn().QueryContext(ctx, spansQuery, kind)
	if err != nil {
		return nil, err
	}
	return scanSpans(rows)
}

// scanSpans reads the rows of spansQuery and closes them.
func scanSpans(rows *sql.Rows) ([]Span, error) {
	defer rows.Close()
	var out []Span
	for rows.Next() {
		var s Span
		if err := rows.Scan(&s.Lo, &s.Hi, &s.SyncedAt, &s.Unsure); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Progress reads a window of a kind left unfinished that overlaps [lo,
// hi), if any (the latest begun).
func (l *Ledger) Progress(ctx context.Context, kind string, lo, hi int64) (Window, bool, error) {
	var w Window
	w.Gen = l.Gen()
	err := l.conn().QueryRowContext(ctx, `SELECT lo, hi, token, started_at, pages, unsure FROM progress
		WHERE kind = ? AND lo < ? AND hi > ? ORDER BY started_at DESC LIMIT 1`, kind, hi, lo).
		Scan(&w.Lo, &w.Hi, &w.Token, &w.Started, &w.Pages, &w.Unsure)
	if err == sql.ErrNoRows {
		return Window{}, false, nil
	}
	return w, err == nil, err
}

// Charges reads the contracts overlapping [lo, hi) (the server's day
// filter: start before hi, end at or after lo), with their lines, in
// order of start: one read transaction, so a writer in another process
// cannot slip between the contracts and their lines.
func (l *Ledger) Charges(ctx context.Context, lo, hi int64) ([]api.Charge, error) {
	tx, err := l.conn().BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	out, index, err := contractRows(ctx, tx, lo, hi)
	if err != nil || len(out) == 0 {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT i.contract_id, i.type, coalesce(i.source, ''), i.description, i.start, i."end", i.mills
		FROM items i JOIN contracts c ON c.id = i.contract_id WHERE c.span_lo < ? AND c.span_hi >= ? ORDER BY i.contract_id, i.idx`, hi, lo)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if err := scanItems(rows, index, func(k int) *api.Charge { return &out[k] }); err != nil {
		return nil, err
	}
	return out, nil
}

// scanItems hands each line of rows (contract_id, type, source,
// description, start, end, mills) to its contract: at(index[id]).
func scanItems(rows *sql.Rows, index map[int64]int, at func(int) *api.Charge) error {
	for rows.Next() {
		var id, mills int64
		var it api.Charge
		if err := rows.Scan(&id, &it.Type, &it.Source, &it.Description, &it.Start, &it.End, &mills); err != nil {
			return err
		}
		it.Amount = money.Amount(mills)
		if k, ok := index[id]; ok {
			c := at(k)
			if c.Items == nil {
				c.Items = make([]api.Charge, 0, 4) // gpu, disk, bwd, bwu
			}
			c.Items = append(c.Items, it)
		}
	}
	return rows.Err()
}

// contractRows reads the contracts overlapping [lo, hi) and where each is
// in the answer by its row id.
func contractRows(ctx context.Context, tx *sql.Tx, lo, hi int64) ([]api.Charge, map[int64]int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, source, type, start, "end", mills, coalesce(label, ''), description,
		coalesce(template_id, 0), coalesce(endpoint_id, 0), coalesce(workergroup_id, 0)
		FROM contracts WHERE span_lo < ? AND span_hi >= ? ORDER BY span_lo, id`, hi, lo)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []api.Charge
	index := map[int64]int{}
	for rows.Next() {
		var c api.Charge
		var id, mills int64
		if err := rows.Scan(&id, &c.Source, &c.Type, &c.Start, &c.End, &mills, &c.Meta.Label, &c.Description,
			&c.Meta.TemplateID, &c.Meta.EndpointID, &c.Meta.WorkergroupID); err != nil {
			return nil, nil, err
		}
		c.Amount = money.Amount(mills)
		index[id] = len(out)
		out = append(out, c)
	}
	return out, index, rows.Err()
}

// Days reads the days in [dayFloor(lo), hi) of the contracts overlapping
// [lo, hi), by source, with their lines' parts (window amounts).
func (l *Ledger) Days(ctx context.Context, lo, hi int64) (map[string][]Day, error) {
	return l.days(ctx, `c.span_lo < ?1 AND c.span_hi >= ?2`, hi, lo, dayFloor(lo))
}

// days reads the days in [?3, ?1) of the contracts that match, args being
// hi, lo, dayFloor(lo) and any match names after them.
func (l *Ledger) days(ctx context.Context, match string, args ...any) (map[string][]Day, error) {
	db := l.conn()
	rows, err := db.QueryContext(ctx, `SELECT c.source, d.day, d.mills FROM daily d JOIN contracts c ON c.id = d.contract_id
		WHERE `+match+` AND d.day >= ?3 AND d.day < ?1 ORDER BY c.source, d.day`, args...)
	if err != nil {
		return nil, err
	}
	out := map[string][]Day{}
	type key struct {
		src string
		day int64
	}
	at := map[key]int{}
	for rows.Next() {
		var src string
		var d Day
		var mills int64
		if err := rows.Scan(&src, &d.Day, &mills); err != nil {
			rows.Close()
			return nil, err
		}
		d.Mills = money.Amount(mills)
		at[key{src, d.Day}] = len(out[src])
		out[src] = append(out[src], d)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	rows, err = db.QueryContext(ctx, `SELECT c.source, d.day, d.idx, d.mills FROM daily_items d JOIN contracts c ON c.id = d.contract_id
		WHERE `+match+` AND d.day >= ?3 AND d.day < ?1 ORDER BY c.source, d.day, d.idx`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var src string
		var day, idx, mills int64
		if err := rows.Scan(&src, &day, &idx, &mills); err != nil {
			return nil, err
		}
		k, ok := at[key{src, day}]
		if !ok || idx < 0 || idx > 64 {
			continue
		}
		d := &out[src][k]
		for int64(len(d.Items)) <= idx {
			d.Items = append(d.Items, 0)
		}
		d.Items[idx] = money.Amount(mills)
	}
	return out, rows.Err()
}

// CountCharges counts the entries the server holds overlapping [lo, hi),
// as far as the ledger knows: the contracts, and those it dropped (but
// the Undecoded).
func (l *Ledger) CountCharges(ctx context.Context, lo, hi int64) (int, error) {
	var n int
	err := l.conn().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM contracts WHERE span_lo < ?1 AND span_hi >= ?2) +
		(SELECT count(*) FROM dropped WHERE kind = 'charges' AND somewhere = 0 AND span_lo < ?1 AND span_hi >= ?2)`, hi, lo).Scan(&n)
	return n, err
}

// maxSkew bounds how far behind this machine's clock the server's is
// believed to be (RunningSince).
const maxSkew = 86400

// RunningSince is the earliest end of the contracts overlapping [lo, hi)
// that were still running (ending within margin seconds of their sync)
// when last synced: their totals may have grown since. ok is false when
// there is none.
//
// "Their sync" is the server's clock then, not this machine's: a running
// contract's end is the server's now, so a local clock ahead of it by more
// than the margin made every running contract look ended, never asked
// again. The server's clock at a sync is read from what it reported then:
// the newest end among the contracts that sync wrote (synced_at marks
// them), when that is before the local time by less than a day (a window
// of old days holds no running contract to tell the clock by). An account
// where nothing ran at the sync asks again the contracts that ended last
// within the day before it: a page.
func (l *Ledger) RunningSince(ctx context.Context, lo, hi, margin int64) (end int64, ok bool, err error) {
	var v sql.NullInt64
	err = l.conn().QueryRowContext(ctx, `SELECT min(c.span_hi) FROM contracts c
		JOIN (SELECT synced_at, max(span_hi) AS newest FROM contracts GROUP BY synced_at) n ON n.synced_at = c.synced_at
		WHERE c.span_lo < ? AND c.span_hi >= ? AND c.span_hi >= min(c.synced_at, max(n.newest, c.synced_at - ?)) - ?`,
		hi, lo, maxSkew, margin).Scan(&v)
	return v.Int64, v.Valid, err
}

// spanOf is the span the day filter matches a contract by: a missing
// start is its end, a missing end (running) the time of its sync, and an
// end before the start a point at the start.
func spanOf(c *api.Charge, synced int64) (lo, hi int64) {
	lo, hi = c.Start, c.End
	switch {
	case lo == 0:
		lo = hi
	case hi == 0:
		hi = max(synced, lo)
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

// fingerprint sums up everything stored of a contract, to tell a changed
// one from one read again unchanged. Under window amounts the amounts are
// left out: they are the days', compared apart.
func fingerprint(c *api.Charge, windowed bool) int64 {
	h := fnv.New64a()
	w := func(s string) { _, _ = h.Write([]byte(s)); _, _ = h.Write([]byte{0}) }
	n := func(v int64) { w(strconv.FormatInt(v, 36)) }
	one := func(c *api.Charge) {
		n(c.Start)
		n(c.End)
		w(c.Type)
		w(c.Source)
		w(c.Description)
		if !windowed {
			n(int64(c.Amount))
		}
	}
	one(c)
	w(c.Meta.Label)
	n(c.Meta.TemplateID)
	n(c.Meta.EndpointID)
	n(c.Meta.WorkergroupID)
	for i := range c.Items {
		one(&c.Items[i])
	}
	return int64(h.Sum64())
}

// dayFloor is the UTC midnight at or before t.
func dayFloor(t int64) int64 {
	d := t - t%86400
	if t%86400 < 0 {
		d -= 86400
	}
	return d
}

func dollars(a money.Amount) float64 { return float64(a) / 1000 }

func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

// Held is what the ledger holds of a contract: its times, amount and when
// it was synced, and what its days hold of a window asked.
type Held struct {
	Start, End int64
	Mills      money.Amount
	SyncedAt   int64
	// InWindow is the sum of its days in [dayFloor(lo), hi) of HeldOf's
	// window, and Days how many they are.
	InWindow money.Amount
	Days     int
}

// HeldOf reads what the ledger holds of the contracts named, and of their
// days in [dayFloor(lo), hi).
func (l *Ledger) HeldOf(ctx context.Context, sources []string, lo, hi int64) (map[string]Held, error) {
	out := map[string]Held{}
	if len(sources) == 0 {
		return out, nil
	}
	args := make([]any, 0, len(sources)+2)
	args = append(args, dayFloor(lo), hi)
	marks := make([]string, len(sources))
	for i, s := range sources {
		args = append(args, s)
		marks[i] = "?"
	}
	rows, err := l.conn().QueryContext(ctx, `SELECT c.source, c.start, c."end", c.mills, c.synced_at,
		coalesce(sum(d.mills), 0), count(d.day) FROM contracts c
		LEFT JOIN daily d ON d.contract_id = c.id AND d.day >= ?1 AND d.day < ?2
		WHERE c.source IN (`+strings.Join(marks, ",")+`) GROUP BY c.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var src string
		var h Held
		var mills, in int64
		if err := rows.Scan(&src, &h.Start, &h.End, &mills, &h.SyncedAt, &in, &h.Days); err != nil {
			return nil, err
		}
		h.Mills, h.InWindow = money.Amount(mills), money.Amount(in)
		out[src] = h
	}
	return out, rows.Err()
}
