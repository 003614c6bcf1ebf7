package billing

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ledger"
)

// The rules of the ledger: what to ask the server so that a range of the
// ledger is whole and current, and nothing more.
//
// Under totals a contract that ended before the last sync cannot change;
// under window amounts a day that ended before it cannot — but for a late
// correction of what was charged, or a record settled late. So a span the
// ledger holds, synced at S, is final before S less a margin (a day for
// charges, three for payment records; under window amounts, the UTC
// midnight at or before that), and only what overlaps [that, now] is asked
// again, with the parts of the range never covered. Then one request with limit=1 over the whole range gives the
// count the server holds; a local count that differs is found by halving
// and those windows alone are fetched again. Every window is fetched whole
// UTC days at a time, newest first, each page written in one transaction
// with the token of the next (an interrupted sync goes on from there).

const (
	// chargesMargin is how far behind the last sync the next one asks the
	// charges again: a contract recorded late is found, and the amount of
	// one that ended shortly before the sync, which the server may still
	// settle, is read again. Under totals that is the contracts that ended
	// in the margin before the last sync, beside the running and the new
	// ones. Two hours, not a day: a day would read again every contract of
	// the last day on every open (3 pages of a dense account where the
	// issue allows a reopen 3 requests in all). An amount the server
	// corrects later than that is not seen (the count check finds rows
	// added and deleted, not changed) until the ledger is forgotten.
	chargesMargin = 2 * time.Hour
	// paymentsMargin is the same for the payment records, by their
	// creation: a record's payment may be confirmed and its amount settled
	// days after it was made, and a page of 100 records holds many days.
	paymentsMargin = 3 * 24 * time.Hour
	// syncFresh is how recent a sync stands for now: the Overview's two
	// feeds and the Charges screen opening together sync once.
	syncFresh = 30 * time.Second
	// maxHalvings bounds the count requests of one verification.
	maxHalvings = 12
	day         = 86400
)

// WithLedger makes the service keep its history in the ledger h owns:
// feeds read it first and ask the server only what changed; the amount
// rule is kept in it. h's maker opens it (or lets the first reader of the
// ledger or of the amount rule open it), and closes it after the service;
// the service reads and writes through it, gives it up on a failure, and
// says its note in every feed's warnings.
func WithLedger(h *ledger.Handle) Option {
	return func(s *Service) { s.lh = h }
}

// awaitLedger waits until the ledger is open (or known to be unavailable),
// opening it if nobody has, and takes the amount rule it keeps for the
// account: what reads the ledger or the rule reads it whole. Later writes
// of the rule go to the ledger opened, given up since or not. Once the
// rule is taken it takes no lock: the rule's detection, under ruleMu,
// reads the ledger (it awaited it first).
func (s *Service) awaitLedger() {
	l := s.lh.Wait()
	if l == nil || s.ruleTaken.Load() {
		return
	}
	s.ruleMu.Lock()
	defer s.ruleMu.Unlock()
	if s.ruleTaken.Load() {
		return
	}
	s.ruleTaken.Store(true)
	if r := ParseAmountRule(l.Meta("amount_rule")); r != RuleUnknown {
		s.rule = r
	}
	s.onRule = func(r AmountRule) { _ = l.SetMeta(context.Background(), "amount_rule", r.String()) }
}

// ruleFromMeta takes the amount rule another process learnt for the
// account since this one opened the ledger (a cron sync under a dashboard
// open for hours), while this one knows none: its syncs then write, and
// its feeds read, by the rule the ledger's rows follow.
func (s *Service) ruleFromMeta(led *ledger.Ledger) {
	if s.AmountRule() != RuleUnknown {
		return
	}
	r := ParseAmountRule(led.Meta("amount_rule"))
	if r == RuleUnknown {
		return
	}
	s.ruleMu.Lock()
	defer s.ruleMu.Unlock()
	if s.rule == RuleUnknown {
		s.rule = r
	}
}

// Ledger is the service's ledger (nil without one, or once it failed). A
// ledger still being opened is waited for.
func (s *Service) Ledger() *ledger.Ledger {
	s.awaitLedger()
	return s.lh.Ledger()
}

// ledgerError is a failure of the ledger itself (not of the network): the
// run goes on without it, or with a new file when it was corrupt.
type ledgerError struct{ err error }

func (e *ledgerError) Error() string { return "ledger: " + e.err.Error() }
func (e *ledgerError) Unwrap() error { return e.err }

func ledgerErr(err error) error {
	if err == nil {
		return nil
	}
	return &ledgerError{err}
}

// SyncState is where a sync stands: pages asked, of how many the window
// being fetched needs (-1 while unknown), and what changed.
type SyncState struct {
	Kind       string // ledger.KindCharges or ledger.KindPayments
	Pages      int
	PagesTotal int
	Entries    int // entries received
	Changed    int // rows added, changed or deleted
	Skipped    int // entries dropped as malformed
	Requests   int // every request, counts included
	// RuleLearnt is set when the sync learnt the amount rule: the rows
	// read before it may have been read by the wrong one.
	RuleLearnt bool
	// Note is what became of the ledger during a sync asked by name: a
	// corrupt file moved aside and started anew ("" when nothing did).
	Note string
	// again are the windows found stale while fetching others (a
	// correction of a contract's whole life): fetched before the sync ends.
	again []window
	// lo and hi are the sync's range: a window asked again for a
	// contract's other days reaches no further.
	lo, hi int64
}

// window is a stretch [lo, hi) of unix seconds.
type window struct{ lo, hi int64 }

func dayFloor(t int64) int64 {
	d := t - t%day
	if t%day < 0 {
		d -= day
	}
	return d
}

func dayCeil(t int64) int64 {
	if f := dayFloor(t); f != t {
		return f + day
	}
	return t
}

// finality is when a kind's rows can no longer change: margin (seconds)
// before their sync, and under window amounts (rule) on a UTC midnight.
type finality struct {
	rule   AmountRule
	margin int64
}

// finalBefore is the time before which a span's rows cannot change any
// more: its sync less the margin, a UTC midnight under window amounts.
// Under window amounts nothing of an unsure span is final: amounts in it
// may have been read by the wrong rule.
func finalBefore(sp ledger.Span, f finality) int64 {
	if f.rule == RuleWindow && sp.Unsure {
		return sp.Lo
	}
	c := sp.SyncedAt - f.margin
	if f.rule == RuleWindow {
		c = dayFloor(c)
	}
	return min(c, sp.Hi)
}

// planWindows returns the windows to fetch so that [lo, hi) is whole and
// current: every part no span holds as final, in order, merged; under
// window amounts widened to whole UTC days (the last one ending at most at
// hi), as the ledger keeps them by day. Under totals a window is as narrow
// as the rule allows: the contracts running at the last sync and the new
// ones, not a whole day of contracts that cannot have changed.
func planWindows(spans []ledger.Span, lo, hi int64, f finality) []window {
	var fin []window
	for _, sp := range spans {
		// Under window amounts the ledger keeps days: a span begun inside
		// a UTC day (synced while the rule was not known, or from a local
		// midnight) holds that day's part after its start only, so the
		// day is asked again whole.
		slo := sp.Lo
		if f.rule == RuleWindow {
			slo = dayCeil(sp.Lo)
		}
		if b := finalBefore(sp, f); slo < b {
			fin = append(fin, window{slo, b})
		}
	}
	slices.SortFunc(fin, func(a, b window) int { return int(a.lo - b.lo) })
	var gaps []window
	cur := lo
	for _, f := range fin {
		if f.hi <= cur {
			continue
		}
		if f.lo >= hi {
			break
		}
		if f.lo > cur {
			gaps = append(gaps, window{cur, f.lo})
		}
		cur = max(cur, f.hi)
	}
	if cur < hi {
		gaps = append(gaps, window{cur, hi})
	}
	return widen(gaps, hi, f.rule)
}

// widen stretches windows to whole UTC days under window amounts (never
// past limit) and merges those that then touch.
func widen(ws []window, limit int64, rule AmountRule) []window {
	var out []window
	for _, w := range ws {
		if rule == RuleWindow {
			w = window{dayFloor(w.lo), min(dayCeil(w.hi), max(limit, w.hi))}
		}
		if n := len(out); n > 0 && w.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, w.hi)
			continue
		}
		out = append(out, w)
	}
	return out
}

// covers reports that ws hold [lo, hi).
func covers(ws []window, lo, hi int64) bool {
	for _, w := range ws {
		if w.lo <= lo && lo < w.hi {
			lo = w.hi
		}
	}
	return lo >= hi
}

// fresh reports that spans synced within syncFresh of now hold [lo, hi):
// a sync that recent stands for now. Only this service's own syncs count
// (Service.synced): another run's may be minutes old on a clock that did
// not move, and a new run verifies what it reads.
func fresh(spans []ledger.Span, lo, hi, now int64) bool {
	var ws []window
	for _, sp := range spans {
		if now-sp.SyncedAt <= int64(syncFresh/time.Second) {
			ws = append(ws, window{sp.Lo, sp.Hi})
		}
	}
	slices.SortFunc(ws, func(a, b window) int { return int(a.lo - b.lo) })
	return covers(ws, lo, hi)
}

// mergeSpans adds a span just fetched and merges what may be merged: a
// span whose not-yet-final tail the newer one holds becomes part of it (all
// of it is then as current as the newer), one inside a newer is dropped,
// and spans of one sync that touch are joined. A join is unsure when a
// part of it the newer span does not hold was.
func mergeSpans(spans []ledger.Span, add ledger.Span, f finality) []ledger.Span {
	out := append(slices.Clone(spans), add)
	for changed := true; changed; {
		changed = false
	scan:
		for i := range out {
			for j := range out {
				if i == j {
					continue
				}
				old, nw := out[i], out[j]
				if old.SyncedAt > nw.SyncedAt {
					continue
				}
				tail := max(old.Lo, finalBefore(old, f))
				switch {
				case nw.Lo <= tail && nw.Hi >= old.Hi,
					old.SyncedAt == nw.SyncedAt && nw.Lo <= old.Hi && old.Lo <= nw.Hi:
					out[j] = ledger.Span{Lo: min(old.Lo, nw.Lo), Hi: max(old.Hi, nw.Hi), SyncedAt: nw.SyncedAt,
						Unsure: nw.Unsure || (old.Unsure && (old.Lo < nw.Lo || old.Hi > nw.Hi))}
				case nw.Lo <= old.Lo && nw.Hi >= old.Hi:
				default:
					continue
				}
				out = slices.Delete(out, i, i+1)
				changed = true
				break scan
			}
		}
	}
	slices.SortFunc(out, func(a, b ledger.Span) int { return int(a.Lo - b.Lo) })
	return out
}

// mergeWindows sorts windows and joins those that overlap or touch.
func mergeWindows(ws []window) []window {
	slices.SortFunc(ws, func(a, b window) int { return int(a.lo - b.lo) })
	var out []window
	for _, w := range ws {
		if n := len(out); n > 0 && w.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, w.hi)
			continue
		}
		out = append(out, w)
	}
	return out
}

// errNoLedger is a sync asked of a service without a ledger.
var errNoLedger = errors.New("no ledger in use")

// syncOps is what differs between the kinds of rows the ledger syncs.
type syncOps struct {
	kind  string
	limit int // the page size a count may not exceed to be fetched outright
	// finality is when a span's rows are final: the amount rule known and
	// the kind's margin.
	finality func() finality
	// stale is the windows in [lo, hi) of rows held that may have changed
	// though their span is final (the contracts running at their sync
	// under totals, from the earliest on; the days of the pending
	// records), oldest first; none when there is none.
	stale func(ctx context.Context, led *ledger.Ledger, lo, hi int64) ([]window, error)
	// fetch pages one window whole and writes it; it returns the window's
	// count by the server (-1 unknown).
	fetch func(ctx context.Context, led *ledger.Ledger, w ledger.Window, st *SyncState, say func()) (int, error)
	// count asks the server how many rows [lo, hi) holds (one request).
	count func(ctx context.Context, lo, hi int64) (int, error)
	// local counts the rows the ledger holds in [lo, hi) (and those it
	// dropped), and how many more the server may count there: entries
	// that did not decode, of which only the window is known.
	local func(ctx context.Context, led *ledger.Ledger, lo, hi int64) (n, slack int, err error)
	// after runs at the end of a sync that asked something.
	after func(ctx context.Context, led *ledger.Ledger, lo, hi int64) error
}

// sync brings the ledger's rows of [lo, hi) up to date with the server by
// the rules above. force ignores a sync of the last seconds (r, `vastdash
// sync`).
func (s *Service) sync(ctx context.Context, ops syncOps, lo, hi int64, force bool, report func(SyncState)) (st SyncState, err error) {
	st = SyncState{Kind: ops.kind, PagesTotal: -1}
	led := s.Ledger()
	if led == nil || s.client == nil {
		return st, errNoLedger
	}
	ks := s.syncs[ops.kind]
	ks.mu.Lock()
	defer ks.mu.Unlock()
	now := s.now().Unix()
	hi = min(hi, now+1)
	if hi <= lo {
		return st, nil
	}
	st.lo, st.hi = lo, hi
	say := func() {
		if report != nil {
			report(st)
		}
	}
	ruleBefore := s.AmountRule()
	defer func() { st.RuleLearnt = s.AmountRule() != ruleBefore }()
	s.ruleFromMeta(led)
	// A window left unfinished goes on first, from its last page: for a
	// sync asked by name (`vastdash sync` again, whose year began a few
	// seconds later) any that overlaps what is asked, otherwise only one
	// lying inside it. A `sync` cut short waits for its own next run, not
	// a feed's last day, which would pay its pages to show one day.
	if w, ok, err := led.Progress(ctx, ops.kind, lo, hi); err != nil {
		return st, ledgerErr(err)
	} else if ok && (force || (w.Lo >= lo && w.Hi <= hi)) {
		if _, err := ops.fetch(ctx, led, w, &st, say); err != nil {
			return st, err
		}
	}
	if !force && fresh(ks.synced, lo, hi, now) {
		return st, nil
	}
	spans, err := led.Spans(ctx, ops.kind)
	if err != nil {
		return st, ledgerErr(err)
	}
	fin := ops.finality()
	plan := planWindows(spans, lo, hi, fin)
	stale, err := ops.stale(ctx, led, lo, hi)
	if err != nil {
		return st, ledgerErr(err)
	}
	if plan, err = s.withStale(ctx, ops, led, plan, stale, lo, hi, fin); err != nil {
		return st, err
	}
	verified := false
	fetched := slices.Clone(plan)
	for i := 0; i < len(plan); i++ {
		w := plan[i]
		total, err := ops.fetch(ctx, led, ledger.Window{Lo: w.lo, Hi: w.hi, Started: now}, &st, say)
		if err != nil {
			return st, err
		}
		if w.lo <= lo && w.hi >= hi && total >= 0 {
			// This window is the whole range: its total is the count.
			n, slack, err := ops.local(ctx, led, lo, hi)
			if err != nil {
				return st, ledgerErr(err)
			}
			verified = agrees(total, n, slack)
		}
		if i == len(plan)-1 && fin.rule != RuleWindow && ops.finality().rule == RuleWindow {
			// Window amounts learnt in this sync: what was written before
			// (unsure spans) and the windows not of whole UTC days are
			// asked again, by days, as the rule now says — once.
			fin = ops.finality()
			if spans, err = led.Spans(ctx, ops.kind); err != nil {
				return st, ledgerErr(err)
			}
			more := planWindows(spans, lo, hi, fin)
			plan = append(plan, more...)
			fetched = mergeWindows(append(fetched, more...))
			verified = false
		}
	}
	if err := s.fetchAgain(ctx, ops, led, now, fetched, &st, say); err != nil {
		return st, err
	}
	if !verified {
		if err := s.verify(ctx, ops, led, lo, hi, now, 0, &st, say); err != nil {
			return st, err
		}
		if err := s.fetchAgain(ctx, ops, led, now, fetched, &st, say); err != nil {
			return st, err
		}
	}
	ks.synced = append(ks.synced, ledger.Span{Lo: lo, Hi: hi, SyncedAt: now})
	if ops.after != nil {
		return st, ops.after(ctx, led, lo, hi)
	}
	return st, nil
}

// withStale adds to plan the windows of rows that may have changed though
// final (stale), each alone — a record pending since August asks its day
// again, not every record since — unless one window from the oldest of
// them to hi costs no more pages (by the rows held there) than they do
// apart. It never asks more than a fresh read of [oldest, hi) would.
func (s *Service) withStale(ctx context.Context, ops syncOps, led *ledger.Ledger, plan, stale []window, lo, hi int64, fin finality) ([]window, error) {
	var extra []window
	for _, w := range stale {
		w = window{min(max(lo, w.lo), hi-1), min(max(w.hi, w.lo+1), hi)}
		if w.lo < w.hi && !covers(plan, w.lo, w.hi) {
			extra = append(extra, w)
		}
	}
	if len(extra) == 0 {
		return plan, nil
	}
	extra = mergeWindows(extra)
	oldest := extra[0].lo
	if len(extra) > 1 {
		n, _, err := ops.local(ctx, led, oldest, hi)
		if err != nil {
			return nil, ledgerErr(err)
		}
		if pages := max(1, (n+ops.limit-1)/ops.limit); len(extra) < pages {
			return widen(mergeWindows(append(plan, extra...)), hi, fin.rule), nil
		}
	}
	return widen(mergeWindows(append(plan, window{oldest, hi})), hi, fin.rule), nil
}

// fetchAgain fetches the windows the sync found stale (SyncState.again),
// each time once: those a window fetched again finds are fetched too,
// but never what this sync fetched already (fetched, its plan's windows,
// and those fetched here).
func (s *Service) fetchAgain(ctx context.Context, ops syncOps, led *ledger.Ledger, now int64, fetched []window, st *SyncState, say func()) error {
	done := slices.Clone(fetched)
	for len(st.again) > 0 {
		ws := widen(mergeWindows(st.again), now+1, ops.finality().rule)
		st.again = nil
		for _, w := range ws {
			for _, p := range widen(subtract(w, done), now+1, ops.finality().rule) {
				if covers(done, p.lo, p.hi) {
					continue
				}
				if _, err := ops.fetch(ctx, led, ledger.Window{Lo: p.lo, Hi: p.hi, Started: now}, st, say); err != nil {
					return err
				}
				done = mergeWindows(append(done, p))
			}
		}
	}
	return nil
}

// subtract is the parts of w that ws (sorted, merged) do not hold.
func subtract(w window, ws []window) []window {
	var out []window
	cur := w.lo
	for _, d := range ws {
		if d.hi <= cur || d.lo >= w.hi {
			continue
		}
		if d.lo > cur {
			out = append(out, window{cur, d.lo})
		}
		cur = max(cur, d.hi)
	}
	if cur < w.hi {
		out = append(out, window{cur, w.hi})
	}
	return out
}

// verify compares the server's count of [lo, hi) with the ledger's and,
// where they differ, halves the range (on UTC days) until the windows are
// small enough to fetch again.
func (s *Service) verify(ctx context.Context, ops syncOps, led *ledger.Ledger, lo, hi, now int64, depth int, st *SyncState, say func()) error {
	total, err := ops.count(ctx, lo, hi)
	if err != nil {
		return err
	}
	st.Requests++
	local, slack, err := ops.local(ctx, led, lo, hi)
	if err != nil {
		return ledgerErr(err)
	}
	if total < 0 || agrees(total, local, slack) {
		return nil
	}
	mid := dayFloor(lo + (hi-lo)/2)
	if depth >= maxHalvings || total <= ops.limit || mid <= lo || hi-lo <= day {
		w := widen([]window{{lo, hi}}, hi, ops.finality().rule)[0]
		_, err := ops.fetch(ctx, led, ledger.Window{Lo: w.lo, Hi: w.hi, Started: now}, st, say)
		return err
	}
	if err := s.verify(ctx, ops, led, lo, mid, now, depth+1, st, say); err != nil {
		return err
	}
	return s.verify(ctx, ops, led, mid, hi, now, depth+1, st, say)
}

// drops collects the entries of a window's pages that the sync does not
// keep, for the ledger to count them with its rows: the server's count
// holds them, and without them the count check would disagree and fetch
// the window again on every run.
type drops struct {
	met  map[string]int // keys met in the window, for repeats
	list []ledger.Dropped
}

func newDrops() *drops { return &drops{met: map[string]int{}} }

// add records one entry under key (a second one met in the window gets
// its own).
func (d *drops) add(key string, start, end int64) {
	d.met[key]++
	if n := d.met[key]; n > 1 {
		key += "#" + strconv.Itoa(n)
	}
	d.list = append(d.list, ledger.Dropped{Key: key, Start: start, End: end})
}

// undecoded records n entries of w's page that did not decode: nothing
// of them is known but that the server counted them in w.
func (d *drops) undecoded(n int, w *ledger.Window) {
	for k := range n {
		key := "undecoded:" + strconv.FormatInt(w.Lo, 10) + ":" + strconv.FormatInt(w.Hi, 10) + ":" + strconv.Itoa(w.Pages) + ":" + strconv.Itoa(k)
		d.list = append(d.list, ledger.Dropped{Key: key, Start: w.Lo, End: w.Hi, Somewhere: true})
	}
}

// page hands over what was collected for the page being written.
func (d *drops) page() []ledger.Dropped {
	out := d.list
	d.list = nil
	return out
}

// localCount is a kind's local count by count, and the undecoded entries
// that may lie in [lo, hi).
func localCount(ctx context.Context, led *ledger.Ledger, kind string, lo, hi int64,
	count func(ctx context.Context, lo, hi int64) (int, error)) (int, int, error) {
	n, err := count(ctx, lo, hi)
	if err != nil {
		return 0, 0, err
	}
	slack, err := led.Undecoded(ctx, kind, lo, hi)
	return n, slack, err
}

// agrees reports that the server's count of a range matches the ledger's:
// n rows held or dropped, and up to slack more that did not decode.
func agrees(total, n, slack int) bool { return total >= n && total-n <= slack }

// windowPager is what fetchWindow needs of the api's pagers.
type windowPager[P any] interface {
	Next(ctx context.Context) (P, error)
	Token() string
	Done() bool
	Total() int
}

// fetchWindow pages one window whole, from its token on when resumed
// (again from its first page if the server no longer takes the token: the
// rows are upserts, nothing counts twice), writing each page in one
// transaction with the token of the next and, on the last, the window's
// span merged into the kind's. write turns a page into the ledger's and
// returns the rows changed, the entries kept and those skipped; it may mark
// the window Unsure, and on the last page hands the ledger merge's Merge
// of the window's span.
func fetchWindow[P any](ctx context.Context, led *ledger.Ledger, fin finality, limit int, w ledger.Window,
	open func(token string) windowPager[P],
	write func(pg P, w *ledger.Window, done bool, merge func(ledger.Window) ledger.Merge) (changed, kept, skipped int, err error),
	st *SyncState, say func()) (int, error) {
	if w.Gen == 0 {
		w.Gen = led.Gen() // its pages all go to this file, or none
	}
	// The spans are merged in the page's transaction, with those held
	// then: another process's sync may have written its own meanwhile.
	merge := func(w ledger.Window) ledger.Merge {
		return func(held []ledger.Span) []ledger.Span {
			return mergeSpans(held, ledger.Span{Lo: w.Lo, Hi: w.Hi, SyncedAt: w.Started, Unsure: w.Unsure}, fin)
		}
	}
	p := open(w.Token)
	restarted := false
	for {
		pg, err := p.Next(ctx)
		switch {
		case errors.Is(err, api.ErrPagerDone):
			return p.Total(), nil
		case errors.Is(err, api.ErrInvalidToken) && w.Token != "" && !restarted:
			restarted = true
			w.Token, w.Pages, w.Unsure = "", 0, false
			p = open("")
			continue
		case err != nil:
			return -1, err
		}
		st.Requests++
		w.Token, w.Pages = p.Token(), w.Pages+1
		done := p.Done()
		changed, kept, skipped, err := write(pg, &w, done, merge)
		if err != nil {
			return -1, err
		}
		st.Pages++
		st.Entries += kept
		st.Changed += changed
		st.Skipped += skipped
		if t := p.Total(); t >= 0 {
			st.PagesTotal = max((t+limit-1)/limit, w.Pages)
		}
		say()
		if done {
			return p.Total(), nil
		}
	}
}
