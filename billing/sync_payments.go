package billing

import (
	"context"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ledger"
)

// Payment records go through the same ledger by the same rules, the
// creation time in place of the day. A record is final once it was paid
// (the server sends its payment time; null while pending) more than the
// margin (paymentsMargin) before a sync, and created that long before it:
// so a sync reads again the records created in the days before the last
// one, and the UTC day of each record then pending or paid within those
// days — a crypto payment confirmed later, an amount settled later — until
// it is final; all from the oldest such on only when that costs no more
// pages. Their pacing is 3 s a request: the statement of a covered year
// then costs the records of those days (a page), a request per pending
// record's day, and one count.

// paymentsFinality: a record's amount is what was paid, whatever the
// window asked (totals).
var paymentsFinality = finality{rule: RuleTotals, margin: int64(paymentsMargin / time.Second)}

func (s *Service) paymentOps() syncOps {
	return syncOps{
		kind:     ledger.KindPayments,
		limit:    api.InvoicesLimit,
		finality: func() finality { return paymentsFinality },
		// Each unsettled record's UTC day, not every record since the
		// oldest: a crypto payment pending for weeks asks its day again.
		stale: func(ctx context.Context, led *ledger.Ledger, lo, hi int64) ([]window, error) {
			created, err := led.Unsettled(ctx, lo, hi, paymentsFinality.margin, maxStaleRecords)
			if len(created) > maxStaleRecords {
				return []window{{created[0], hi}}, err
			}
			var ws []window
			for _, c := range created {
				ws = append(ws, window{dayFloor(c), dayFloor(c) + day})
			}
			return ws, err
		},
		fetch: s.fetchPayments,
		// The invoices endpoint takes no page size: a count costs one page.
		count: func(ctx context.Context, lo, hi int64) (int, error) {
			pg, err := s.client.Invoices(ctx, paymentsOf(ledger.Window{Lo: lo, Hi: hi}), "")
			return pg.Total, err
		},
		local: func(ctx context.Context, led *ledger.Ledger, lo, hi int64) (int, int, error) {
			return localCount(ctx, led, ledger.KindPayments, lo, hi, led.CountPayments)
		},
	}
}

// maxStaleRecords bounds the unsettled records whose days a sync asks
// apart; past it, one window from the oldest on (no more than a fresh
// read of it).
const maxStaleRecords = 64

// syncPayments brings the ledger's records created in [lo, hi) up to date.
func (s *Service) syncPayments(ctx context.Context, lo, hi int64, force bool, report func(SyncState)) (SyncState, error) {
	return s.sync(ctx, s.paymentOps(), lo, hi, force, report)
}

func paymentsOf(w ledger.Window) api.InvoicesQuery {
	return api.InvoicesQuery{From: time.Unix(w.Lo, 0), To: time.Unix(w.Hi-1, 0)}
}

// fetchPayments fetches one window of records, 100 a page.
func (s *Service) fetchPayments(ctx context.Context, led *ledger.Ledger, w ledger.Window, st *SyncState, say func()) (int, error) {
	q := paymentsOf(w)
	seen := map[string]bool{}
	drop := newDrops()
	open := func(token string) windowPager[api.InvoicesPage] { return s.client.InvoicePager(q).From(token) }
	write := func(pg api.InvoicesPage, w *ledger.Window, done bool, merge func(ledger.Window) ledger.Merge) (int, int, int, error) {
		kept := pg.Results[:0:0]
		for _, r := range pg.Results {
			if seen[r.ID] {
				drop.add("repeat:"+r.ID, r.Created, r.Created)
				continue
			}
			seen[r.ID] = true
			kept = append(kept, r)
		}
		drop.undecoded(pg.Skipped, w)
		n, err := led.WritePayments(ctx, ledger.PaymentsPage{Window: *w, Records: kept, Dropped: drop.page(), Done: done, Merge: merge(*w)})
		return n, len(kept), pg.Skipped, ledgerErr(err)
	}
	return fetchWindow(ctx, led, paymentsFinality, api.InvoicesLimit, w, open, write, st, say)
}

// SyncPayments brings the ledger's payment records created in [from, to]
// up to date with the server (`vastdash sync`), whatever a recent sync did.
func (s *Service) SyncPayments(ctx context.Context, from, to time.Time, report func(SyncState)) (SyncState, error) {
	return s.syncExplicit(func() (SyncState, error) { return s.syncPayments(ctx, from.Unix(), to.Unix()+1, true, report) })
}
