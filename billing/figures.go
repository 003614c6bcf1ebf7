package billing

import (
	"context"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

// RangeFigures are the Overview's figures of a range: the totals by
// contract and by charge type, the spend spread over the days, the split
// by label, the burn meter and the most expensive contracts. Fill reads
// them from the ledger in a few queries, holding no row of the range: the
// same figures a screen folds out of a feed's pages (Totals.Add,
// Daily.Add and Meter.Add of the feed's Spreadable entries, Grouping.Add),
// under either amount rule.
type RangeFigures struct {
	Totals spend.Totals
	// Daily, Labels (ByLabel) and Meter are the caller's, empty, to be
	// filled; Meter may be nil (the burn measured elsewhere).
	Daily  *spend.Daily
	Labels *Grouping
	Meter  *Meter
	// Top are the TopN contracts of the largest amounts, largest first,
	// ties by source; without their lines.
	Top  []api.Charge
	TopN int
}

// MayHold reports, without waiting or opening the ledger, that a ledger
// may hold q's range: a screen then follows SyncFeed(q) and reads what
// it shows from the ledger (ChargesWindow), taking Feed(q) only when the
// sync feed says LedgerUnavailable. False: no ledger (--no-ledger), or
// the tree format, whose wrappers are the server's to build.
func (s *Service) MayHold(q api.ChargesQuery) bool {
	return ledgerFor(s, q, false) != nil
}

// Fill reads the figures of the window's range (its find text aside)
// into f. An error leaves f part filled: the caller reads the feed.
func (w *ChargesWindow) Fill(ctx context.Context, f *RangeFigures) error {
	lo, hi, windowed := w.q.Lo, w.q.Hi, w.q.Windowed
	lf := ledger.Filter{Kinds: w.q.Types}
	kinds, err := w.led.SumBy(ctx, lo, hi, ledger.SumKind, windowed, lf)
	if err != nil {
		return ledgerErr(err)
	}
	items, err := w.led.SumItems(ctx, lo, hi, windowed, lf, spend.ItemTypes)
	if err != nil {
		return ledgerErr(err)
	}
	t := spend.Totals{ByType: map[string]money.Amount{}, ByItem: map[string]money.Amount{}}
	add := func(by map[string]money.Amount, k string, a money.Amount) {
		v, ok := by[k].AddSaturating(a)
		by[k] = v
		t.Overflow = t.Overflow || !ok
	}
	for _, k := range kinds {
		t.Contracts += k.Count
		add(t.ByType, k.Key, k.Mills)
		var ok bool
		if t.Total, ok = t.Total.AddSaturating(k.Mills); !ok {
			t.Overflow = true
		}
	}
	for _, it := range items {
		add(t.ByItem, it.Key, it.Mills)
	}
	f.Totals = t
	if f.Labels != nil {
		sums, err := w.led.SumBy(ctx, lo, hi, ledger.SumLabel, windowed, lf)
		if err != nil {
			return ledgerErr(err)
		}
		f.Labels.addSums(ByLabel, sums)
	}
	if f.Daily != nil || f.Meter != nil {
		var one [1]api.Charge
		err := w.led.EachAmount(ctx, lo, hi, windowed, lf, func(a ledger.Amounted) error {
			one[0] = api.Charge{Start: a.Start, End: a.End, Amount: a.Mills, Type: a.Kind} // the kind stacks the days
			if windowed && spans(&one[0], lo, hi) {
				one[0] = clip(one[0], lo, hi)
			}
			if f.Daily != nil {
				f.Daily.Add(one[:])
			}
			if f.Meter != nil {
				f.Meter.Add(one[:])
			}
			return nil
		})
		if err != nil {
			return ledgerErr(err)
		}
	}
	if f.TopN > 0 {
		if f.Top, err = w.led.Top(ctx, lo, hi, windowed, lf, f.TopN); err != nil {
			return ledgerErr(err)
		}
	}
	return nil
}
