package billing

import (
	"context"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
)

// ChargesWindow reads a range of charges the ledger holds whole a window
// at a time, for a screen that shows any number of contracts: the count
// and total first, from one aggregate query, then the rows around the
// cursor as keyset pages in the screen's order. Its rows and figures are
// those a feed of the same query reads from the ledger (Feed), under
// either amount rule; the feed still syncs the ledger, and a window made
// again after the feed's new generation reads what it brought.
type ChargesWindow struct {
	s      *Service
	led    *ledger.Ledger
	q      ledger.WindowQuery
	synced time.Time
}

// ChargesWindow returns the windowed reader of q when the ledger holds
// its range whole (as Feed's coverage says) and its amounts are sure
// under the rule known; ok is false otherwise (no ledger, the tree
// format, a range not synced yet, or one written before the rule was
// learnt and due again), and the caller reads the feed as it always has.
func (s *Service) ChargesWindow(ctx context.Context, q api.ChargesQuery) (w *ChargesWindow, ok bool) {
	if !s.lh.MayUse() || s.client == nil || q.Format == api.FormatTree {
		return nil, false
	}
	led := s.Ledger()
	if led == nil {
		return nil, false
	}
	lo, hi := windowOf(q)
	synced := coveredAt(ctx, s, ledger.KindCharges, lo, min(hi, s.now().Unix()+1))
	if synced.IsZero() {
		return nil, false
	}
	rule := s.AmountRule()
	if rule == RuleWindow && unsureIn(ctx, led, lo, hi) {
		return nil, false
	}
	lq := ledger.WindowQuery{Lo: lo, Hi: hi, Windowed: rule == RuleWindow}
	for _, t := range q.Types {
		lq.Types = append(lq.Types, string(t))
	}
	return &ChargesWindow{s: s, led: led, q: lq, synced: synced}, true
}

// unsureIn reports that a span of [lo, hi) was written while the amount
// rule was unknown: under window amounts its sync fetches it again, and
// until then its amounts may be totals.
func unsureIn(ctx context.Context, led *ledger.Ledger, lo, hi int64) bool {
	spans, err := led.Spans(ctx, ledger.KindCharges)
	if err != nil {
		return true
	}
	for _, sp := range spans {
		if sp.Unsure && sp.Lo < hi && lo < sp.Hi {
			return true
		}
	}
	return false
}

// Synced is when the ledger last synced the whole range.
func (w *ChargesWindow) Synced() time.Time { return w.synced }

// WindowAmounts reports that the amounts are what fell inside the range.
func (w *ChargesWindow) WindowAmounts() bool { return w.q.Windowed }

// Find returns the window narrowed to the contracts whose label,
// description or source holds text (letters in either case); "" is the
// whole range again.
func (w *ChargesWindow) Find(text string) *ChargesWindow {
	c := *w
	c.q.Find = text
	return &c
}

// Totals is the number of contracts in the window and their amount.
func (w *ChargesWindow) Totals(ctx context.Context) (count int, total money.Amount, err error) {
	count, total, err = w.led.WindowTotals(ctx, w.q)
	if err != nil {
		return 0, 0, ledgerErr(err)
	}
	return count, total, nil
}

// Page reads up to n rows in order o after the row at key (from the top
// when nil), or with back the n before it (the last n when nil), in the
// order either way, each as the feed would hand it out: under window
// amounts the contract's amount and its lines' are the range's.
func (w *ChargesWindow) Page(ctx context.Context, o ledger.WindowOrder, key *ledger.WindowKey, n int, back bool) ([]ledger.WindowRow, error) {
	rows, err := w.led.WindowPage(ctx, w.q, o, key, n, back)
	if err != nil {
		return nil, ledgerErr(err)
	}
	if !w.q.Windowed || len(rows) == 0 {
		return rows, nil
	}
	days, err := w.led.DaysOf(ctx, rows, w.q.Lo, w.q.Hi)
	if err != nil {
		return nil, ledgerErr(err)
	}
	for i := range rows {
		windowAmounts(&rows[i].Charge, days[rows[i].Charge.Source], w.q.Lo, w.q.Hi)
	}
	return rows, nil
}

// Position is how many rows come before the row at key in order o.
func (w *ChargesWindow) Position(ctx context.Context, o ledger.WindowOrder, key ledger.WindowKey) (int, error) {
	n, err := w.led.WindowPosition(ctx, w.q, o, key)
	if err != nil {
		return 0, ledgerErr(err)
	}
	return n, nil
}

// eachPage is how many rows Each reads at a time.
const eachPage = 500

// Each hands every row of the window to fn in order o, a page at a time,
// so that an export or a copy of any range holds one page: the rows as
// Page reads them. An error of fn ends the walk and is returned.
func (w *ChargesWindow) Each(ctx context.Context, o ledger.WindowOrder, fn func(*api.Charge) error) error {
	var key *ledger.WindowKey
	for {
		rows, err := w.Page(ctx, o, key, eachPage, false)
		if err != nil {
			return err
		}
		for i := range rows {
			if err := fn(&rows[i].Charge); err != nil {
				return err
			}
		}
		if len(rows) < eachPage {
			return nil
		}
		key = &rows[len(rows)-1].Key
	}
}
