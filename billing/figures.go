package billing

import (
	"context"
	"time"

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

// FillMeter folds the window's range into m, as Fill does: the burn of
// a range the ledger holds, with no other figure.
func (w *ChargesWindow) FillMeter(ctx context.Context, m *Meter) error {
	return w.spread(ctx, nil, m)
}

// spread folds each contract of the window's range, as a feed's
// Spreadable entry (its amount, its kind, clipped to the range under
// window amounts), into d and m (either may be nil), a contract at a
// time.
func (w *ChargesWindow) spread(ctx context.Context, d *spend.Daily, m *Meter) error {
	if d == nil && m == nil {
		return nil
	}
	lo, hi, windowed := w.q.Lo, w.q.Hi, w.q.Windowed
	var one [1]api.Charge
	err := w.led.EachKindAmount(ctx, lo, hi, windowed, ledger.Filter{Kinds: w.q.Types}, func(a ledger.Amounted) error {
		one[0] = api.Charge{Start: a.Start, End: a.End, Amount: a.Mills, Type: a.Kind} // the kind stacks the days
		if windowed && spans(&one[0], lo, hi) {
			one[0] = clip(one[0], lo, hi)
		}
		if d != nil {
			d.Add(one[:])
		}
		if m != nil {
			m.Add(one[:])
		}
		return nil
	})
	return ledgerErr(err)
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
	if err := w.spread(ctx, f.Daily, f.Meter); err != nil {
		return err
	}
	if f.TopN > 0 {
		if f.Top, err = w.led.Top(ctx, lo, hi, windowed, lf, f.TopN); err != nil {
			return ledgerErr(err)
		}
	}
	return nil
}

// HeldMonths are the charges of an outlook's months (OutlookQuery's) as
// the ledger holds them, spread over the outlook's days as of a reading:
// what OutlookOf builds from a feed's rows, without holding them (two
// months of a busy account are a sixth of its year).
type HeldMonths struct {
	days *outlookDays
	asOf time.Time
}

// AsOf is the instant of the reading.
func (h *HeldMonths) AsOf() time.Time { return h.asOf }

// ReadMonths reads the charges of q (OutlookQuery's) from the ledger as
// of asOf, a contract at a time, when the ledger holds the range whole
// (ChargesWindow's coverage; nothing is synced); ok is false otherwise.
// An error is the ledger's: the caller reads the feed.
func (s *Service) ReadMonths(ctx context.Context, q api.ChargesQuery, asOf time.Time) (h *HeldMonths, ok bool, err error) {
	w, ok := s.ChargesWindow(ctx, q)
	if !ok {
		return nil, false, nil
	}
	o, loc, last := OutlookInput{Loc: s.loc, Now: asOf, Month: asOf}.frame()
	days := newOutlookDays(loc, o, last)
	if err := foldOutlook(ctx, w.led, q, w.q.Windowed, days); err != nil {
		return nil, true, ledgerErr(err)
	}
	return &HeldMonths{days: days, asOf: asOf}, true, nil
}

// OutlookOfHeld is OutlookOf on months read from the ledger: st is the
// state of the feed that synced them (its warnings, and whether the
// months are whole), rate the current rate (nil when unknown, rateErr
// why).
func (s *Service) OutlookOfHeld(h *HeldMonths, st State, rate *CurrentRate, rateErr error, budget money.Amount) Outlook {
	in := OutlookInput{Loc: s.loc, Now: h.asOf, Month: h.asOf, Rate: rate, RateErr: rateErr, Budget: budget, days: h.days}
	in.Stopped = !st.Whole()
	o := BuildOutlook(in)
	o.Warnings = st.Warnings()
	return o
}

// HeldSpent is a statement's charges (StatementQueries') as the ledger
// holds them, spread over the days from the first month to the reading:
// what StatementOf builds from a feed's rows, without holding them.
type HeldSpent struct {
	daily *spend.Daily
	now   time.Time
}

// ReadSpent reads the charges of cq (StatementQueries') from the ledger
// a contract at a time, when it holds the range whole (ChargesWindow's
// coverage; nothing is synced); ok is false otherwise. An error is the
// ledger's: the caller reads the feed.
func (s *Service) ReadSpent(ctx context.Context, cq api.ChargesQuery) (h *HeldSpent, ok bool, err error) {
	w, ok := s.ChargesWindow(ctx, cq)
	if !ok {
		return nil, false, nil
	}
	now := s.Now()
	d := spend.NewDailyWindow(s.loc, MonthStart(cq.From, s.loc), now)
	if err := foldSpent(ctx, w.led, cq, w.q.Windowed, d); err != nil {
		return nil, true, ledgerErr(err)
	}
	return &HeldSpent{daily: d, now: now}, true, nil
}

// StatementOfHeld is StatementOf with the charges read from the ledger:
// cst is the state of the feed that synced them (its warnings, and
// whether they are whole).
func (s *Service) StatementOfHeld(pf *PaymentsFeed, h *HeldSpent, cst State, credit money.Amount, from, to time.Time) Statement {
	in := StatementInput{Loc: s.loc, Now: h.now, From: from, To: to, Credit: credit, Spent: h.daily}
	for _, p := range pf.Pages(0) {
		in.Payments = append(in.Payments, p...)
	}
	pst := pf.State()
	in.PaymentsStopped, in.ChargesStopped = !pst.Whole(), !cst.Whole()
	st := BuildStatement(in)
	st.Warnings = joinWarnings(pst.Warnings(), cst.Warnings())
	return st
}
