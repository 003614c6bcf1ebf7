package billing

import (
	"context"
	"slices"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
)

// AmountRule is what the amount of a charge entry means on the account's
// server. The specification says the contract's total; clients that ran
// against the live API report that with day.gte/lte it is only what fell
// inside the queried window. The program bets on neither: it asks (see
// detectRule) and spreads amounts by the answer.
type AmountRule uint8

// The amount rules.
const (
	// RuleUnknown: not asked yet, or the account holds no contract that
	// tells the rules apart. Amounts are read as totals, the
	// specification's rule, until the answer comes.
	RuleUnknown AmountRule = iota
	// RuleTotals: an entry's amount is the contract's total, whatever the
	// window asked.
	RuleTotals
	// RuleWindow: an entry's amount (and each item's) is what fell inside
	// the window asked.
	RuleWindow
)

// String is "unknown", "totals" or "window", as the ledger stores it.
func (r AmountRule) String() string {
	switch r {
	case RuleTotals:
		return "totals"
	case RuleWindow:
		return "window"
	}
	return "unknown"
}

// ParseAmountRule reads String's words back; anything else is RuleUnknown.
func ParseAmountRule(s string) AmountRule {
	switch s {
	case "totals":
		return RuleTotals
	case "window":
		return RuleWindow
	}
	return RuleUnknown
}

// WithAmountRule fixes the amount rule instead of asking the server (the
// tests of fixed pages, which have no server to ask).
func WithAmountRule(r AmountRule) Option {
	return func(s *Service) { s.rule = r }
}

// AmountRule is the rule known for the account so far.
func (s *Service) AmountRule() AmountRule {
	s.awaitLedger() // the ledger keeps the rule learnt in an earlier run
	s.ruleMu.Lock()
	defer s.ruleMu.Unlock()
	return s.rule
}

// setRule records a rule learnt, for the session and, when the service
// keeps a ledger, for the account.
func (s *Service) setRuleLocked(r AmountRule) {
	s.rule = r
	if s.onRule != nil {
		s.onRule(r)
	}
}

// Detection bounds.
const (
	// ruleCandidates is how many contracts, the largest, are considered:
	// the day asked is the one most of them share, and every one of them
	// it holds is compared (one smaller amount settles it; a single equal
	// one could be a contract charged all on one day).
	ruleCandidates = 64
	// ruleProbes bounds the requests one detection makes.
	ruleProbes = 3
	// ruleMinAmount is the least amount of a candidate: a day of a
	// cheaper contract may round to its whole.
	ruleMinAmount = money.Amount(100)
	// ruleRecent is how far back a probe looks for candidates when the
	// entries at hand hold none.
	ruleRecent = 30 * 24 * time.Hour
	// ruleSettled is how long before now a candidate must have ended: a
	// contract still running grows between the two requests.
	ruleSettled = time.Hour
)

// spans reports whether a contract reaches outside [lo, hi) (unix seconds,
// hi exclusive): only then can the two rules give it different amounts.
// For a wrapper, whether any contract inside does.
func spans(e *api.Charge, lo, hi int64) bool {
	if IsWrapper(e) {
		return slices.ContainsFunc(e.Items, func(c api.Charge) bool { return spans(&c, lo, hi) })
	}
	start, end := span(e)
	return start < lo || end > hi
}

// span is a contract's [start, end) with a missing time taken from the
// other and an end before the start read as a point.
func span(e *api.Charge) (start, end int64) {
	start, end = e.Start, e.End
	if start == 0 {
		start = end
	}
	if end < start {
		end = start
	}
	return start, end
}

// windowOf is the half-open span of unix seconds a query's amounts may
// cover under the window rule: day.lte is inclusive to the second.
func windowOf(q api.ChargesQuery) (lo, hi int64) {
	return q.From.Unix(), q.To.Unix() + 1
}

// ruleFor returns the rule for entries of the window [lo, hi): the one
// known, else, when some entry reaches outside the window (where the rules
// differ), the one detected now. A failed request is returned; a detection
// that finds nothing to compare leaves RuleUnknown and is not tried again
// in this session.
func (s *Service) ruleFor(ctx context.Context, entries []api.Charge, lo, hi int64) (AmountRule, error) {
	// An entry out of bounds is skipped by the feed: it asks nothing.
	if !slices.ContainsFunc(entries, func(e api.Charge) bool { return CheckCharge(&e) == nil && spans(&e, lo, hi) }) {
		return s.AmountRule(), nil
	}
	return s.learnRule(ctx, entries, lo, hi)
}

// learnRule detects the rule once per session (or account, with a ledger);
// concurrent callers wait for the one detection.
func (s *Service) learnRule(ctx context.Context, seen []api.Charge, lo, hi int64) (AmountRule, error) {
	s.awaitLedger()
	s.ruleMu.Lock()
	defer s.ruleMu.Unlock()
	if s.rule != RuleUnknown || s.ruleTried || s.client == nil {
		return s.rule, nil
	}
	r, err := s.detectRule(ctx, seen, lo, hi)
	if err != nil {
		return RuleUnknown, err
	}
	s.ruleTried = true
	if r != RuleUnknown {
		s.setRuleLocked(r)
	}
	return r, nil
}

// candidate is an ended contract whose amount over a window asked is
// known, and whose life inside that window holds a whole UTC day with
// time on both sides: asked over that day alone, its amount shows the
// rule — the same under totals, smaller under window amounts, whose
// amount covered more than the day. The contract may reach outside the
// window: under totals its amount is its total still.
type candidate struct {
	source     string
	amount     money.Amount
	start, end int64
	lines      int
	days       []int64 // the UTC midnights of its inner whole days (at most a few)
	// held: its amount is the ledger's, read in an earlier run (it may
	// have been corrected since).
	held bool
}

// candidatesIn picks, largest amount first, the ended contracts of entries
// with a whole UTC day inside both their lives and [lo, hi), with their
// time on both sides of it inside [lo, hi) too. Those reaching outside
// count: in a dense account the newest page of a range holds none lying
// wholly inside it (they began in its last hours), and the oldest page of
// a range holds the long contracts running at its start.
func candidatesIn(entries []api.Charge, lo, hi, settled int64) []candidate {
	var out []candidate
	var walk func(es []api.Charge)
	walk = func(es []api.Charge) {
		for i := range es {
			e := &es[i]
			if IsWrapper(e) {
				walk(e.Items)
				continue
			}
			start, end := span(e)
			if e.Amount < ruleMinAmount || end > settled || e.Source == "" || CheckCharge(e) != nil {
				continue
			}
			// Whole UTC days strictly inside its time in the window: time
			// before the first and after the last, so the day holds a
			// part of what its amount covers, never the whole.
			from, to := max(start, lo), min(end, hi)
			var days []int64
			for d := (from/86400 + 1) * 86400; d+86400 < to && len(days) < 8; d += 86400 {
				days = append(days, d)
			}
			if len(days) > 0 {
				out = append(out, candidate{source: e.Source, amount: e.Amount, start: start, end: end, lines: len(e.Items), days: days})
			}
		}
	}
	walk(entries)
	slices.SortStableFunc(out, func(a, b candidate) int {
		switch {
		case a.amount > b.amount:
			return -1
		case a.amount < b.amount:
			return 1
		}
		return 0
	})
	return out[:min(len(out), ruleCandidates)]
}

// detectRule compares contracts known by their totals with their amounts
// over one UTC day inside their lives: equal amounts mean totals, a smaller
// one window amounts. It asks the last 30 days for candidates when seen
// holds none, then the day most candidates share, and another only when
// none of them was on that day's first page: one request when seen has
// candidates, never more than ruleProbes. RuleUnknown when nothing could be
// compared.
func (s *Service) detectRule(ctx context.Context, seen []api.Charge, lo, hi int64) (AmountRule, error) {
	now := s.now()
	settled := now.Add(-ruleSettled).Unix()
	cands := candidatesIn(seen, lo, hi, settled)
	// The day is asked in the order of the page its candidates came from:
	// a contract among the newest (oldest) 500 of a window is among the
	// newest (oldest) of any day inside it, whatever ran longer around it.
	oldest := !newestFirst(seen)
	if len(cands) == 0 {
		cands, oldest = s.ledgerCandidates(ctx, settled), true
	}
	probes := 0
	if len(cands) == 0 {
		from := now.Add(-ruleRecent)
		// Oldest first: the contracts running at its start, long ones
		// among them; the newest of a busy month are minutes old.
		pg, err := s.client.Charges(ctx, api.ChargesQuery{From: from, To: now, OldestFirst: true, Limit: api.MaxLimit}, "")
		if err != nil {
			return RuleUnknown, err
		}
		probes++
		cands = candidatesIn(pg.Results, from.Unix(), now.Unix()+1, settled)
	}
	for len(cands) > 0 && probes < ruleProbes {
		day := busiestDay(cands)
		q := api.ChargesQuery{From: time.Unix(day, 0), To: time.Unix(day+86400-1, 0), OldestFirst: oldest, Limit: api.MaxLimit}
		pg, err := s.client.Charges(ctx, q, "")
		if err != nil {
			return RuleUnknown, err
		}
		probes++
		got := map[string]money.Amount{}
		for _, e := range pg.Results {
			got[e.Source] = e.Amount
		}
		rest, equal := cands[:0], 0
		for _, c := range cands {
			if !slices.Contains(c.days, day) {
				rest = append(rest, c)
				continue
			}
			a, ok := got[c.source]
			if !ok {
				continue // not on the first page of a busy day: not compared
			}
			switch ruleOf(a, c.amount, c.start, c.end, day, day+86400, c.lines, !c.held) {
			case RuleWindow:
				return RuleWindow, nil
			case RuleTotals:
				equal++
			}
		}
		if equal > 0 {
			return RuleTotals, nil
		}
		cands = rest
	}
	return RuleUnknown, nil
}

// newestFirst reports whether a page lists its contracts newest first
// (the later start first), as the server does unless asked otherwise.
func newestFirst(page []api.Charge) bool {
	if len(page) < 2 {
		return false
	}
	first, _ := span(&page[0])
	last, _ := span(&page[len(page)-1])
	return first > last
}

// busiestDay is the inner day shared by the most candidates (the earliest
// on a tie), so one request compares as many as it can.
func busiestDay(cands []candidate) int64 {
	count := map[int64]int{}
	best, n := int64(0), 0
	for _, c := range cands {
		for _, d := range c.days {
			count[d]++
			if k := count[d]; k > n || (k == n && d < best) {
				best, n = d, k
			}
		}
	}
	return best
}

// clipped returns entries as their amounts are to be spread over days: an
// amount covering only [lo, hi) (the window rule) is spread over the part
// of the contract inside the window, not over its whole life, which would
// put a share of it on days it was never charged for and leave the days
// inside short. Entries already inside are returned as they are; the
// others are copies (items shared), so the caller's pages are never
// changed.
func clipped(entries []api.Charge, lo, hi int64) []api.Charge {
	var out []api.Charge
	for i := range entries {
		e := &entries[i]
		if !spans(e, lo, hi) {
			continue
		}
		if out == nil {
			out = slices.Clone(entries)
		}
		out[i] = clip(*e, lo, hi)
	}
	if out == nil {
		return entries
	}
	return out
}

// clip narrows one entry's times (a wrapper's contracts') to [lo, hi).
func clip(e api.Charge, lo, hi int64) api.Charge {
	if IsWrapper(&e) {
		e.Items = clipped(e.Items, lo, hi)
		return e
	}
	start, end := span(&e)
	if end <= lo || start >= hi {
		// Outside the window altogether: a point at its edge, carrying
		// whatever amount the server gave it.
		p := min(max(start, lo), hi-1)
		e.Start, e.End = p, p
		return e
	}
	e.Start, e.End = max(start, lo), min(end, hi)
	if len(e.Items) > 0 {
		// Its lines' amounts cover the window too: a spreading of a line
		// (bandwidth, for a forecast) sees the same narrowed time.
		items := slices.Clone(e.Items)
		for k := range items {
			if items[k].Start != 0 || items[k].End != 0 {
				items[k].Start, items[k].End = e.Start, e.End
			}
		}
		e.Items = items
	}
	return e
}

// Spreadable returns entries of the feed as the daily spreading must see
// them: under window amounts, each contract's time narrowed to the query's
// window, which is all its amount covers; otherwise the entries
// themselves. Every accumulator that spreads amounts over days (the daily
// chart, burn, the statement's months, a grouping by day) takes this, never
// the raw entries; the rows shown keep the contract's real times.
func (f *feed[Q, E]) Spreadable(entries []E) []E {
	if f.rules.clip == nil || !f.State().WindowAmounts {
		return entries
	}
	return f.rules.clip(f.q, entries)
}

// clipCharges is the charges feeds' clip: to the query's window.
func clipCharges(q api.ChargesQuery, entries []api.Charge) []api.Charge {
	lo, hi := windowOf(q)
	return clipped(entries, lo, hi)
}

// ledgerCandidates picks candidates among the contracts the ledger holds
// whole: inside a span, ended before its sync less the margin. While the
// rule is unknown an entry reaching outside its window was written only
// into an unsure span (it would have been asked first, and the asking
// found nothing), so in the others their amounts are their totals. The
// last 60 days of the newest sure span are enough.
func (s *Service) ledgerCandidates(ctx context.Context, settled int64) []candidate {
	led := s.Ledger()
	if led == nil {
		return nil
	}
	spans, err := led.Spans(ctx, ledger.KindCharges)
	spans = slices.DeleteFunc(spans, func(sp ledger.Span) bool { return sp.Unsure })
	if err != nil || len(spans) == 0 {
		return nil
	}
	sp := slices.MaxFunc(spans, func(a, b ledger.Span) int { return int(a.SyncedAt - b.SyncedAt) })
	lo := max(sp.Lo, sp.Hi-60*86400)
	rows, err := led.Charges(ctx, lo, sp.Hi)
	if err != nil {
		return nil
	}
	cands := candidatesIn(rows, sp.Lo, sp.Hi, min(settled, sp.SyncedAt-int64(chargesMargin/time.Second)))
	for i := range cands {
		cands[i].held = true
	}
	return cands
}

// ListOnly tells the feed that its entries are listed as the server sent
// them and never spread over days (`vastdash charges` without a grouping by
// day): the amount rule changes nothing then, so nothing is asked to learn
// it. Call it before the feed loads; a feed shared with a screen that
// spreads must not be told.
func (f *feed[Q, E]) ListOnly() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := any(f.pager).(*chargePages); ok {
		p.listOnly.Store(true)
	}
}

// ruleFromLedger learns the rule without a request, when it can, from a
// page of a window [lo, hi) and what the ledger holds: a contract that had
// ended when the ledger took it whole (its amount then final) and that
// reaches back before the window now asked shows the rule by its amount
// alone — the same under totals, smaller under window amounts. A refresh
// of the last hours finds such contracts in any active account. It
// records and returns what it learnt; RuleUnknown when nothing compared.
func (s *Service) ruleFromLedger(ctx context.Context, led *ledger.Ledger, page []api.Charge, lo, hi int64) AmountRule {
	var srcs []string
	for i := range page {
		e := &page[i]
		start, end := span(e)
		// A tenth of its time before the window at least: a smaller part
		// could round to the whole.
		if start < lo && end < hi && e.End != 0 && (lo-start)*10 >= end-start && e.Amount >= ruleMinAmount && !IsWrapper(e) {
			srcs = append(srcs, e.Source)
		}
	}
	if len(srcs) == 0 {
		return RuleUnknown
	}
	held, err := led.HeldOf(ctx, srcs, lo, hi)
	if err != nil {
		return RuleUnknown
	}
	votes := map[AmountRule]int{}
	for i := range page {
		e := &page[i]
		h, ok := held[e.Source]
		if !ok || !slices.Contains(srcs, e.Source) || h.Start != e.Start || h.End != e.End || h.SyncedAt <= h.End {
			continue // not held, changed since, or still running when taken
		}
		start, end := span(e)
		votes[ruleOf(e.Amount, h.Mills, start, end, lo, hi, len(e.Items), false)]++
	}
	switch w, t := votes[RuleWindow], votes[RuleTotals]; {
	case w > t:
		return s.learnt(RuleWindow)
	case t > w:
		return s.learnt(RuleTotals)
	}
	return RuleUnknown
}

// ruleOf tells the rule by one ended contract of life [start, end) whose
// total is known, and whose amount over [lo, hi) — a part of its life — is
// asked: the total again means totals, a smaller amount window amounts.
// A total read in an earlier run (not fresh, from the ledger) may have
// been corrected since, by more or less: a smaller amount then means
// window amounts only if it is the total's part inside the window (in
// proportion to its seconds there, to the rounding of its lines), and
// anything else tells nothing.
func ruleOf(asked, total money.Amount, start, end, lo, hi int64, lines int, fresh bool) AmountRule {
	in := min(end, hi) - max(start, lo)
	switch {
	case end <= start || in <= 0 || in >= end-start:
		return RuleUnknown // wholly inside or outside: the rules agree
	case asked == total:
		return RuleTotals
	case asked > total:
		return RuleUnknown
	case fresh:
		return RuleWindow
	}
	if d, tol := asked-part(total, in, end-start), money.Amount(lines+1); d <= tol && -d <= tol {
		return RuleWindow
	}
	return RuleUnknown
}

// learnt records a rule learnt, unless one is known already, and returns
// the rule known.
func (s *Service) learnt(r AmountRule) AmountRule {
	s.awaitLedger()
	s.ruleMu.Lock()
	defer s.ruleMu.Unlock()
	if s.rule == RuleUnknown {
		s.setRuleLocked(r)
	}
	return s.rule
}
