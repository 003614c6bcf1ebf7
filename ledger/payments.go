package ledger

import (
	"context"
	"database/sql"
	"hash/fnv"
	"strconv"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// PaymentsPage is one page of payment records of a window, written in one
// transaction like a ChargesPage.
type PaymentsPage struct {
	Window  Window
	Records []api.Invoice
	Dropped []Dropped
	// Done marks the window's last page: the records created in the window
	// that it did not return are deleted, and the kind's spans become what
	// Merge makes of those held.
	Done  bool
	Merge Merge
}

// WritePayments writes one page; changed counts the records added, changed
// or deleted.
func (l *Ledger) WritePayments(ctx context.Context, p PaymentsPage) (changed int, err error) {
	err = l.write(ctx, counted(&changed, func(tx *txn) error {
		if err := l.current(p.Window); err != nil {
			return err
		}
		for i := range p.Records {
			r := &p.Records[i]
			fp := paymentPrint(r)
			var old, synced int64
			switch err := tx.queryRow(`SELECT fp, synced_at FROM payments WHERE invoice_id = ?`, r.ID).Scan(&old, &synced); {
			case err == sql.ErrNoRows:
			case err != nil:
				return err
			case synced > p.Window.Started:
				continue // a newer sync wrote it since (see writeContracts)
			case old == fp:
				if _, err := tx.exec(`UPDATE payments SET synced_at = ? WHERE invoice_id = ?`, p.Window.Started, r.ID); err != nil {
					return err
				}
				continue
			}
			var paid any
			if !r.Pending() {
				paid = r.Paid
			}
			if _, err := tx.exec(`INSERT OR REPLACE INTO payments(invoice_id, created, paid, type, service, source,
				description, amount, mills, synced_at, fp) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
				r.ID, r.Created, paid, r.Type, nullText(r.Service), r.Source, r.Description, dollars(r.Amount), int64(r.Amount),
				p.Window.Started, fp); err != nil {
				return err
			}
			changed++
		}
		if err := writeDropped(tx, KindPayments, p.Window.Started, p.Dropped); err != nil {
			return err
		}
		if !p.Done {
			return saveProgress(ctx, tx, KindPayments, p.Window)
		}
		res, err := tx.exec(`DELETE FROM payments WHERE created >= ? AND created < ? AND synced_at < ?`,
			p.Window.Lo, p.Window.Hi, p.Window.Started)
		if err != nil {
			return err
		}
		if err := forgetDropped(tx, KindPayments, `span_lo >= ?1 AND span_lo < ?2`, p.Window); err != nil {
			return err
		}
		gone, _ := res.RowsAffected()
		changed += int(gone)
		return finish(tx, KindPayments, p.Window, p.Merge)
	}))
	return changed, err
}

// Payments reads the records created in [lo, hi), oldest first.
func (l *Ledger) Payments(ctx context.Context, lo, hi int64) ([]api.Invoice, error) {
	rows, err := l.conn().QueryContext(ctx, `SELECT invoice_id, created, coalesce(paid, 0), type, coalesce(service, ''), source,
		description, mills FROM payments WHERE created >= ? AND created < ? ORDER BY created, invoice_id`, lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []api.Invoice
	for rows.Next() {
		var r api.Invoice
		var mills int64
		if err := rows.Scan(&r.ID, &r.Created, &r.Paid, &r.Type, &r.Service, &r.Source, &r.Description, &mills); err != nil {
			return nil, err
		}
		r.Amount = money.Amount(mills)
		out = append(out, r)
	}
	return out, rows.Err()
}

// CountPayments counts the records the server holds created in [lo, hi),
// as far as the ledger knows: those held, and those it dropped (but the
// Undecoded).
func (l *Ledger) CountPayments(ctx context.Context, lo, hi int64) (int, error) {
	var n int
	err := l.conn().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM payments WHERE created >= ?1 AND created < ?2) +
		(SELECT count(*) FROM dropped WHERE kind = 'payments' AND somewhere = 0 AND span_lo >= ?1 AND span_lo < ?2)`, lo, hi).Scan(&n)
	return n, err
}

// Unsettled is the creation times of the records in [lo, hi) that were
// not settled when last synced: pending then, or paid within margin
// seconds before that sync (its payment may have been confirmed and its
// amount settled since), oldest first, at most
// limit and one more: more than limit says there are more.
func (l *Ledger) Unsettled(ctx context.Context, lo, hi, margin int64, limit int) ([]int64, error) {
	rows, err := l.conn().QueryContext(ctx, `SELECT DISTINCT created FROM payments WHERE created >= ? AND created < ?
		AND (paid IS NULL OR paid >= synced_at - ?) ORDER BY created LIMIT ?`, lo, hi, margin, limit+1)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var c int64
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// paymentPrint sums up a record, to tell a changed one (a pending record
// paid) from one read again unchanged.
func paymentPrint(r *api.Invoice) int64 {
	h := fnv.New64a()
	for _, s := range []string{r.ID, strconv.FormatInt(r.Created, 36), strconv.FormatInt(r.Paid, 36), r.Type, r.Service,
		r.Source, r.Description, strconv.FormatInt(int64(r.Amount), 36)} {
		_, _ = h.Write([]byte(s))
		_, _ = h.Write([]byte{0})
	}
	return int64(h.Sum64())
}
