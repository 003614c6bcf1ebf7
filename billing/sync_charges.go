package billing

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

// chargeOps are the charges' side of the ledger's sync: contracts by the
// day filter, finality by the amount rule, and under totals the contracts
// still running at their sync asked again.
func (s *Service) chargeOps() syncOps {
	return syncOps{
		kind:     ledger.KindCharges,
		limit:    api.MaxLimit,
		finality: s.chargesFinality,
		stale: func(ctx context.Context, led *ledger.Ledger, lo, hi int64) ([]window, error) {
			if s.AmountRule() == RuleWindow {
				return nil, nil // a past day cannot change, whatever ran on
			}
			t, ok, err := led.RunningSince(ctx, lo, hi, int64(chargesMargin/time.Second))
			if !ok || err != nil {
				return nil, err
			}
			return []window{{t, hi}}, nil
		},
		fetch: s.fetchCharges,
		count: func(ctx context.Context, lo, hi int64) (int, error) {
			pg, err := s.client.Charges(ctx, chargesOf(ledger.Window{Lo: lo, Hi: hi}, 1), "")
			return pg.Total, err
		},
		local: func(ctx context.Context, led *ledger.Ledger, lo, hi int64) (int, int, error) {
			return localCount(ctx, led, ledger.KindCharges, lo, hi, led.CountCharges)
		},
		after: s.learnFromLedger,
	}
}

// chargesFinality: by the amount rule known, a day's margin.
func (s *Service) chargesFinality() finality {
	return finality{rule: s.AmountRule(), margin: int64(chargesMargin / time.Second)}
}

// syncCharges brings the ledger's contracts overlapping [lo, hi) up to
// date with the server.
func (s *Service) syncCharges(ctx context.Context, lo, hi int64, force bool, report func(SyncState)) (SyncState, error) {
	return s.sync(ctx, s.chargeOps(), lo, hi, force, report)
}

// learnFromLedger learns the amount rule, if it is not known yet, from the
// contracts the ledger now holds for [lo, hi): it answers any range inside
// what it holds, where contracts reach across the range's edges and their
// amounts depend on the rule (asked once per account).
func (s *Service) learnFromLedger(ctx context.Context, led *ledger.Ledger, lo, hi int64) error {
	if s.AmountRule() != RuleUnknown {
		return nil
	}
	rows, err := led.Charges(ctx, lo, hi)
	if err != nil {
		return ledgerErr(err)
	}
	_, err = s.ruleFor(ctx, rows, lo, hi)
	return err
}

// chargesOf is the query of a window: table format, newest first.
func chargesOf(w ledger.Window, limit int) api.ChargesQuery {
	return api.ChargesQuery{From: time.Unix(w.Lo, 0), To: time.Unix(w.Hi-1, 0), Format: api.FormatTable, Limit: limit}
}

// fetchCharges fetches one window of contracts, 500 a page, checking each
// entry's bounds and learning the amount rule before a page that needs it
// is written.
func (s *Service) fetchCharges(ctx context.Context, led *ledger.Ledger, w ledger.Window, st *SyncState, say func()) (int, error) {
	q := chargesOf(w, api.MaxLimit)
	seen := map[string]bool{}
	drop := newDrops()
	open := func(token string) windowPager[api.ChargesPage] { return s.client.ChargePager(q).From(token) }
	write := func(pg api.ChargesPage, w *ledger.Window, done bool, merge func(ledger.Window) ledger.Merge) (int, int, int, error) {
		kept := make([]api.Charge, 0, len(pg.Results))
		skipped := pg.Skipped
		for i := range pg.Results {
			e := &pg.Results[i]
			what := ""
			switch {
			case CheckCharge(e) != nil:
				what = "bounds"
			case e.Source == "":
				what = "nosource"
			case IsWrapper(e):
				what = "wrapper"
			case seen[e.Source]:
				drop.add("repeat:"+e.Source, e.Start, e.End)
				continue
			default:
				seen[e.Source] = true
				kept = append(kept, *e)
				continue
			}
			skipped++
			drop.add(what+":"+e.Source+":"+strconv.FormatInt(e.Start, 10)+":"+strconv.FormatInt(e.End, 10), e.Start, e.End)
		}
		drop.undecoded(pg.Skipped, w)
		if s.AmountRule() == RuleUnknown {
			s.ruleFromLedger(ctx, led, kept, w.Lo, w.Hi)
		}
		rule, err := s.ruleFor(ctx, kept, w.Lo, w.Hi)
		if err != nil {
			return 0, 0, 0, err
		}
		// Still unknown with a contract reaching outside the window: its
		// amount, read as a total, may be the window's. The window's span
		// says so, to be fetched again should window amounts be learnt.
		if rule == RuleUnknown && slices.ContainsFunc(kept, func(e api.Charge) bool { return spans(&e, w.Lo, w.Hi) }) {
			w.Unsure = true
		}
		if rule == RuleWindow {
			again, err := revisedBefore(ctx, led, kept, *w, st.lo, st.hi)
			if err != nil {
				return 0, 0, 0, ledgerErr(err)
			}
			st.again = append(st.again, again...)
		}
		n, err := led.WriteCharges(ctx, ledger.ChargesPage{Window: *w, Rows: dayRows(kept, *w, rule), Dropped: drop.page(),
			Windowed: rule == RuleWindow, Done: done, Merge: merge(*w)})
		return n, len(kept), skipped, ledgerErr(err)
	}
	return fetchWindow(ctx, led, s.chargesFinality(), api.MaxLimit, w, open, write, st, say)
}

// revisedBefore finds, under window amounts, the contracts of a page of
// window w that had ended when the ledger last took them and that reach
// back before w, whose amount in w is not what their days there hold
// (beyond the rounding of a thousandth a day and a line): the server
// corrected what they were charged, on every day of their lives, so their
// days before w are stale too. It returns the windows that hold those
// days, from each one's first, to be fetched again. So are the days
// outside w (within the sync's range [lo, hi)) of a contract the ledger
// does not hold at all though it reaches beyond w: a contract the count
// check found missing, fetched again with one halving window, came back
// with that window's days only, its amount a fraction of the truth.
func revisedBefore(ctx context.Context, led *ledger.Ledger, kept []api.Charge, w ledger.Window, lo, hi int64) ([]window, error) {
	var srcs []string
	for i := range kept {
		if e := &kept[i]; e.Start < dayFloor(w.Lo) || reach(e, hi) > w.Hi {
			srcs = append(srcs, e.Source)
		}
	}
	if len(srcs) == 0 {
		return nil, nil
	}
	held, err := led.HeldOf(ctx, srcs, w.Lo, w.Hi)
	if err != nil {
		return nil, err
	}
	var again []window
	for i := range kept {
		e := &kept[i]
		h, ok := held[e.Source]
		if !ok {
			if from := max(e.Start, lo); from < dayFloor(w.Lo) {
				again = append(again, window{dayFloor(from), dayFloor(w.Lo)})
			}
			if end := reach(e, hi); end > w.Hi {
				again = append(again, window{w.Hi, end})
			}
			continue
		}
		if !ok || e.End == 0 || h.Start != e.Start || h.End != e.End || h.End >= h.SyncedAt || h.Days == 0 || e.Start >= dayFloor(w.Lo) {
			continue // new, changed in its times, running when taken, or all inside
		}
		if d, tol := e.Amount-h.InWindow, money.Amount(h.Days+len(e.Items)+1); d > tol || -d > tol {
			again = append(again, window{dayFloor(e.Start), dayFloor(w.Lo)})
		}
	}
	return again, nil
}

// reach is where a contract's time ends within a sync's range ending at
// hi: a running one (no end sent) to hi.
func reach(e *api.Charge, hi int64) int64 {
	if e.End == 0 {
		return hi
	}
	return min(max(e.End, e.Start), hi)
}

// dayRows gives each contract its charge on each UTC day: under window
// amounts what fell in the window spread over its part inside it, under
// totals its total spread over its whole life. Each line is spread the
// same way, but under totals, where the lines are read whole: while the
// rule is unknown the lines' days are kept, so that they read right should
// the rule turn out to be window amounts.
func dayRows(es []api.Charge, w ledger.Window, rule AmountRule) []ledger.ChargeRow {
	rows := make([]ledger.ChargeRow, len(es))
	for i := range es {
		e := &es[i]
		rows[i].Charge = *e
		if rule == RuleTotals {
			for _, sh := range spend.Spread(e.Amount, e.Start, e.End, time.UTC) {
				rows[i].Days = append(rows[i].Days, ledger.Day{Day: sh.Day.Unix(), Mills: sh.Amount})
			}
			continue
		}
		c := *e
		if rule == RuleWindow {
			c = clip(*e, w.Lo, w.Hi)
		}
		shares := spend.Spread(e.Amount, c.Start, c.End, time.UTC)
		items := make([][]spend.DayShare, len(e.Items))
		for k := range e.Items {
			items[k] = spend.Spread(e.Items[k].Amount, c.Start, c.End, time.UTC)
		}
		for d, sh := range shares {
			day := ledger.Day{Day: sh.Day.Unix(), Mills: sh.Amount}
			for k := range items {
				var m money.Amount
				if d < len(items[k]) {
					m = items[k][d].Amount
				}
				day.Items = append(day.Items, m)
			}
			rows[i].Days = append(rows[i].Days, day)
		}
	}
	return rows
}

// ledgerCharges reads the contracts of q from the ledger as the server
// would answer q: its types, its order, and under window amounts each
// contract's amount (and its lines') in q's window, summed from its days
// (a day cut by the window taken in proportion to the contract's seconds
// in it).
func (s *Service) ledgerCharges(ctx context.Context, led *ledger.Ledger, q api.ChargesQuery, rule AmountRule) ([]api.Charge, error) {
	lo, hi := windowOf(q)
	rows, err := led.Charges(ctx, lo, hi)
	if err != nil {
		return nil, ledgerErr(err)
	}
	if len(q.Types) > 0 {
		rows = slices.DeleteFunc(rows, func(c api.Charge) bool {
			return !slices.Contains(q.Types, api.ContractType(spend.ContractKind(&c)))
		})
	}
	if rule == RuleWindow {
		days, err := led.Days(ctx, lo, hi)
		if err != nil {
			return nil, ledgerErr(err)
		}
		for i := range rows {
			windowAmounts(&rows[i], days[rows[i].Source], lo, hi)
		}
	}
	sortLikeServer(rows)
	if !q.OldestFirst {
		slices.Reverse(rows)
	}
	return rows, nil
}

// sortLikeServer orders contracts as the server does, by start and then
// by the number in the source; the numbers are read once each.
func sortLikeServer(rows []api.Charge) {
	type key struct {
		start int64
		id, i int
	}
	keys := make([]key, len(rows))
	for i := range rows {
		keys[i] = key{rows[i].Start, sourceID(rows[i].Source), i}
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		switch {
		case a.start != b.start:
			return cmp.Compare(a.start, b.start)
		}
		return cmp.Compare(a.id, b.id)
	})
	sorted := make([]api.Charge, len(rows))
	for n, k := range keys {
		sorted[n] = rows[k.i]
	}
	copy(rows, sorted)
}

// sourceID is the number of "instance-123" (0 when none), the server's
// order among contracts of one start.
func sourceID(src string) int {
	n, _ := strconv.Atoi(src[strings.LastIndexByte(src, '-')+1:])
	return n
}

// windowAmounts sets a contract's amount and its lines' to what its days
// hold inside [lo, hi).
func windowAmounts(c *api.Charge, days []ledger.Day, lo, hi int64) {
	start, end := span(c)
	c.Amount = 0
	for k := range c.Items {
		c.Items[k].Amount = 0
	}
	for _, d := range days {
		segLo, segHi := max(start, d.Day), min(end, d.Day+day)
		num, den := int64(1), int64(1)
		if segHi > segLo {
			num, den = max(0, min(segHi, hi)-max(segLo, lo)), segHi-segLo
		} else if segLo < lo || segLo >= hi {
			num = 0
		}
		c.Amount += part(d.Mills, num, den)
		for k := range c.Items {
			if k < len(d.Items) {
				c.Items[k].Amount += part(d.Items[k], num, den)
			}
		}
	}
}

// part is a×num/den rounded half up (num ≤ den, both small: seconds of a
// day).
func part(a money.Amount, num, den int64) money.Amount {
	if num >= den {
		return a
	}
	return money.Amount((int64(a)*num*2 + den) / (2 * den))
}

// SyncCharges brings the ledger's charges of [from, to] up to date with
// the server (`vastdash sync`), whatever a recent sync did.
func (s *Service) SyncCharges(ctx context.Context, from, to time.Time, report func(SyncState)) (SyncState, error) {
	return s.syncExplicit(func() (SyncState, error) { return s.syncCharges(ctx, from.Unix(), to.Unix()+1, true, report) })
}

// syncExplicit runs a sync asked for by name. A corrupt ledger is moved
// aside and a new one started, and the sync runs again on it (the state's
// Note says so); any other failure of the ledger itself — or its loss to
// the other kind's sync — fails the sync in words: "cannot sync the ledger
// PATH: the disk is full". What the file held is left as it is.
func (s *Service) syncExplicit(run func() (SyncState, error)) (SyncState, error) {
	path := ""
	if led := s.Ledger(); led != nil {
		path = led.Path()
	}
	st, err := run()
	var le *ledgerError
	if errors.As(err, &le) && s.lh.GiveUp(le.err) {
		st, err = run()
	}
	switch {
	case errors.As(err, &le) && ledger.IsInterrupted(le.err):
		return st, le.err // interrupted (ctrl+c, --deadline): the ledger is as it was
	case errors.As(err, &le):
		s.lh.GiveUp(le.err)
		return st, s.syncFailed(path, le.err)
	case errors.Is(err, errNoLedger) && path != "":
		return st, s.syncFailed(path, err)
	}
	st.Note = s.lh.Note()
	return st, err
}

// syncFailed is the error of a sync asked by name whose ledger was given
// up: why, in words.
func (s *Service) syncFailed(path string, err error) error {
	why := s.lh.Failure()
	if why == "" {
		why = ledger.Describe(err)
	}
	return errors.New("cannot sync the ledger " + path + ": " + why)
}
