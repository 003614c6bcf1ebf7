package billing

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

// The commands' answers from the ledger: when it holds a query's whole
// range, a grouping is summed by SQLite (ledger.SumBy) or folded a row at
// a time (ledger.EachAmount), never by loading the range into memory; the
// figures are those the feed's rows give, to the thousandth, under either
// amount rule. When it does not hold the range (no ledger, the tree
// format, a range never synced, a sync that failed) the caller reads the
// feed as before, paged from the server.

// errNotHeld says the ledger cannot answer: the caller reads the feed.
var errNotHeld = errors.New("the ledger does not hold the range")

// heldRange syncs the ledger's range of q as a feed would (the few
// requests of what changed) and reports the rule its amounts follow and
// the state a feed would have ended in (the sync's skipped entries, the
// ledger's note). It returns errNotHeld when the ledger cannot answer for
// the range; ctx's error when cancelled.
func (s *Service) heldRange(ctx context.Context, q api.ChargesQuery, progress func(State)) (rule AmountRule, st State, err error) {
	src := ledgerFor(s, q, false)
	if src == nil {
		return 0, State{}, errNotHeld
	}
	report := func(p SyncState) {
		if progress != nil {
			progress(State{Pages: p.Pages, SyncPagesTotal: p.PagesTotal, Skipped: p.Skipped, Total: -1, Ledger: true, Loading: true})
		}
	}
	report(SyncState{})
	ss, err := src.sync(ctx, report)
	if ctx.Err() != nil {
		return 0, State{}, ctx.Err()
	}
	var le *ledgerError
	if errors.As(err, &le) || errors.Is(err, errNoLedger) {
		// The feed meets the ledger's failure again and handles it as it
		// always has: a corrupt file moved aside and synced anew, or the
		// server paged without it.
		return 0, State{}, errNotHeld
	}
	if err != nil {
		return 0, State{}, err // the server's: the feed would stop on it too
	}
	synced := src.covered(ctx)
	if synced.IsZero() {
		return 0, State{}, errNotHeld
	}
	st = State{Ledger: true, Done: true, Synced: s.now(), Skipped: ss.Skipped, LedgerNote: s.lh.Note(), Total: -1}
	return s.AmountRule(), st, nil
}

// filterOf is the ledger's filter of a query's types and a command's
// labels.
func filterOf(q api.ChargesQuery, labels []string) ledger.Filter {
	f := ledger.Filter{Labels: labels}
	for _, t := range q.Types {
		f.Kinds = append(f.Kinds, string(t))
	}
	return f
}

// LedgerGrouping is the grouping of q's range by by (see NewGrouping:
// loc, from and to are its days' zone and window) with the ledger's
// answer, and the state a feed of q would have ended in, for its
// warnings; labels keeps only the contracts labelled one of them
// (KeepLabels). ok is false when the ledger cannot answer (see
// heldRange): the caller groups the feed's rows. The figures equal those
// of the feed's rows (through Spreadable by day), under either amount
// rule. progress sees the sync.
func (s *Service) LedgerGrouping(ctx context.Context, q api.ChargesQuery, by GroupKey, labels []string, loc *time.Location,
	from, to time.Time, progress func(State)) (g *Grouping, st State, ok bool, err error) {
	rule, st, err := s.heldRange(ctx, q, progress)
	if errors.Is(err, errNotHeld) {
		return nil, State{}, false, nil
	}
	if err != nil {
		return nil, State{}, false, err
	}
	led := s.Ledger()
	if led == nil {
		return nil, State{}, false, nil
	}
	g, err = groupHeld(ctx, led, q, by, labels, loc, from, to, rule == RuleWindow)
	if err != nil {
		if ctx.Err() != nil {
			return nil, State{}, false, ctx.Err()
		}
		return nil, State{}, false, nil // read the feed, which says what failed
	}
	return g, st, true, nil
}

// groupHeld groups the ledger's contracts of q's range. By day, each
// contract's amount (summed in SQL) is spread over the days of the zone
// as the feed's rows are (clipped to the window under window amounts):
// a day of a zone other than UTC cuts the ledger's UTC days, so the
// spreading stays Go's, one contract at a time. Every other key is one
// GROUP BY.
func groupHeld(ctx context.Context, led *ledger.Ledger, q api.ChargesQuery, by GroupKey, labels []string, loc *time.Location,
	from, to time.Time, windowed bool) (*Grouping, error) {
	lo, hi := windowOf(q)
	f := filterOf(q, labels)
	g := NewGrouping(by, loc, from, to)
	if by == ByDay {
		err := led.EachAmount(ctx, lo, hi, windowed, f, func(a ledger.Amounted) error {
			c := api.Charge{Start: a.Start, End: a.End, Amount: a.Mills}
			if windowed && spans(&c, lo, hi) {
				c = clip(c, lo, hi)
			}
			g.addEntry(&c)
			return nil
		})
		return g, err
	}
	sums, err := led.SumBy(ctx, lo, hi, string(by), windowed, f)
	if err != nil {
		return nil, err
	}
	g.addSums(by, sums)
	return g, nil
}

// addSums folds in the groups the ledger summed by by, under the keys
// the rows' grouping gives them (NoLabel, NoID for none).
func (g *Grouping) addSums(by GroupKey, sums []ledger.GroupTotal) {
	for _, t := range sums {
		key := t.Key
		switch {
		case by == ByLabel && key == "":
			key = NoLabel
		case by != ByLabel && by != ByType && key == "0":
			key = NoID
		}
		g.addGroup(key, t.Count, t.Mills)
	}
}

// addGroup folds in a group summed elsewhere: count contracts of amount
// a in all.
func (g *Grouping) addGroup(key string, count int, a money.Amount) {
	g.contracts += count
	gr := g.groups[key]
	if gr == nil {
		gr = &Group{Key: key}
		g.groups[key] = gr
	}
	gr.Count += count
	var ok bool
	if gr.Amount, ok = gr.Amount.AddSaturating(a); !ok {
		g.overflow = true
	}
	if g.total, ok = g.total.AddSaturating(a); !ok {
		g.overflow = true
	}
}

// LedgerRows calls fn with every entry of q's range, in the feed's order
// (the server's: by start, then the number in the source; newest first
// unless q.OldestFirst), with the amounts the feed's rows would have, as
// the ledger reads them: a range of any size is written out in flat
// memory. labels keeps only the contracts labelled one of them
// (KeepLabels). st is the state a feed would have ended in, counted over
// what fn was given (Recount). ok is false, and fn never called, when the
// ledger cannot answer (see heldRange): the caller reads the feed. An
// error of fn, or of the ledger partway, is returned with ok set.
func (s *Service) LedgerRows(ctx context.Context, q api.ChargesQuery, labels []string, progress func(State),
	fn func(*api.Charge) error) (st State, ok bool, err error) {
	if q.Format == api.FormatTree {
		return State{}, false, nil
	}
	rule, st, err := s.heldRange(ctx, q, progress)
	if errors.Is(err, errNotHeld) {
		return State{}, false, nil
	}
	led := s.Ledger()
	if err != nil || led == nil {
		return State{}, false, err
	}
	more, err := eachHeld(ctx, led, q, labels, rule == RuleWindow, fn)
	more.Skipped, more.LedgerNote, more.Ledger, more.Done, more.Synced, more.Total = st.Skipped, st.LedgerNote, true, true, st.Synced, -1
	return more, true, err
}

// eachHeld is LedgerRows on the ledger's rows, the sync done: the state
// it returns counts the contracts handed to fn and their amount.
func eachHeld(ctx context.Context, led *ledger.Ledger, q api.ChargesQuery, labels []string, windowed bool,
	fn func(*api.Charge) error) (st State, err error) {
	lo, hi := windowOf(q)
	newest := !q.OldestFirst
	// The ledger orders by start; the server orders contracts of one start
	// by their number, which SQL cannot read out of the source: each run
	// of one start is held and sorted before it is handed on.
	var run []api.Charge
	var fnErr error // fn's: the writer's, said as it is
	flush := func() error {
		slices.SortStableFunc(run, func(a, b api.Charge) int {
			if newest {
				return cmp.Compare(sourceID(b.Source), sourceID(a.Source))
			}
			return cmp.Compare(sourceID(a.Source), sourceID(b.Source))
		})
		for i := range run {
			st.tally(chargeRules.count(&run[i]), chargeRules.amount(&run[i]))
			if fnErr = fn(&run[i]); fnErr != nil {
				return fnErr
			}
		}
		clear(run)
		run = run[:0]
		return nil
	}
	err = led.EachCharge(ctx, lo, hi, windowed, newest, filterOf(q, labels), func(c *api.Charge) error {
		if len(run) > 0 && run[0].Start != c.Start {
			if err := flush(); err != nil {
				return err
			}
		}
		run = append(run, *c)
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil && fnErr == nil && ctx.Err() == nil {
		err = ledgerErr(err) // the ledger failed partway
	}
	st.Entries = st.Contracts
	return st, err
}

// heldSpend is ledgerSpent's answer: the charges spread over the days of
// the range's first month to now, when the ledger holds the range (ok).
type heldSpend struct {
	daily *spend.Daily
	now   time.Time
	st    State
	ok    bool
}

// ledgerSpent spreads the charges of cq's range (a statement's: from its
// first month's start to now) over the days in the service's zone, folded
// a contract at a time from the ledger's amounts (clipped to the range
// under window amounts, as Spreadable does), when the ledger holds the
// range; ok is false otherwise and the caller reads the feed.
func (s *Service) ledgerSpent(ctx context.Context, cq api.ChargesQuery, progress func(State)) (heldSpend, error) {
	rule, st, err := s.heldRange(ctx, cq, progress)
	led := s.Ledger()
	if errors.Is(err, errNotHeld) || (err == nil && led == nil) {
		return heldSpend{}, nil
	}
	if err != nil {
		return heldSpend{}, err
	}
	now := s.Now()
	d := spend.NewDailyWindow(s.loc, MonthStart(cq.From, s.loc), now)
	err = foldSpent(ctx, led, cq, rule == RuleWindow, d)
	if err != nil {
		if ctx.Err() != nil {
			return heldSpend{}, ctx.Err()
		}
		return heldSpend{}, nil // the feed reads it, and says what failed
	}
	return heldSpend{daily: d, now: now, st: st, ok: true}, nil
}

// foldSpent adds the ledger's contracts of q's range to d one at a time,
// as Spreadable's entries (clipped to the range under window amounts).
func foldSpent(ctx context.Context, led *ledger.Ledger, q api.ChargesQuery, windowed bool, d *spend.Daily) error {
	lo, hi := windowOf(q)
	var one [1]api.Charge
	return led.EachAmount(ctx, lo, hi, windowed, ledger.Filter{}, func(a ledger.Amounted) error {
		one[0] = api.Charge{Start: a.Start, End: a.End, Amount: a.Mills}
		if windowed && spans(&one[0], lo, hi) {
			one[0] = clip(one[0], lo, hi)
		}
		d.Add(one[:])
		return nil
	})
}

// ledgerOutlook folds the charges of q (OutlookQuery's) into the days an
// outlook of in's month reads (in without charges: its frame), a
// contract at a time from the ledger with its lines (clipped to the range
// under window amounts, as Spreadable does), when the ledger holds the
// range; ok is false otherwise and the caller reads the feed. st is the
// state a feed would have ended in, for its warnings.
func (s *Service) ledgerOutlook(ctx context.Context, q api.ChargesQuery, in OutlookInput, progress func(State)) (days *outlookDays, st State, ok bool, err error) {
	if q.Format == api.FormatTree {
		return nil, State{}, false, nil
	}
	rule, st, err := s.heldRange(ctx, q, progress)
	led := s.Ledger()
	if errors.Is(err, errNotHeld) || (err == nil && led == nil) {
		return nil, State{}, false, nil
	}
	if err != nil {
		return nil, State{}, false, err
	}
	o, loc, last := in.frame()
	days = newOutlookDays(loc, o, last)
	if err := foldOutlook(ctx, led, q, rule == RuleWindow, days); err != nil {
		if ctx.Err() != nil {
			return nil, State{}, false, ctx.Err()
		}
		return nil, State{}, false, nil // the feed reads it, and says what failed
	}
	return days, st, true, nil
}

// foldOutlook adds the ledger's contracts of q's range to days one at a
// time, as Spreadable's entries (clipped to the range under window
// amounts): each contract's amount to the days and the days before the
// point, and its bandwidth lines — read apart, the other lines never —
// to the bandwidth's, each as the contract with that line alone would
// give it (outlookDays.add).
func foldOutlook(ctx context.Context, led *ledger.Ledger, q api.ChargesQuery, windowed bool, days *outlookDays) error {
	lo, hi := windowOf(q)
	f := filterOf(q, nil)
	var one [1]api.Charge
	err := led.EachAmount(ctx, lo, hi, windowed, f, func(a ledger.Amounted) error {
		one[0] = api.Charge{Start: a.Start, End: a.End, Amount: a.Mills}
		if windowed && spans(&one[0], lo, hi) {
			one[0] = clip(one[0], lo, hi)
		}
		days.all.Add(one[:])
		days.before.Add(clipBefore(one[:], days.prevPoint))
		return nil
	})
	if err != nil {
		return err
	}
	var line [1]api.Charge
	return led.EachLine(ctx, lo, hi, windowed, f, []string{"bwd", "bwu"}, func(l ledger.Line) error {
		line[0] = api.Charge{Type: l.Type, Start: l.LineStart, End: l.LineEnd, Amount: l.Mills}
		one[0] = api.Charge{Start: l.Start, End: l.End, Items: line[:]}
		if windowed && spans(&one[0], lo, hi) {
			one[0] = clip(one[0], lo, hi)
		}
		days.bandwidth.Add(bandwidthOf(one[:]))
		return nil
	})
}
