package billing

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// maxRateRounds is how many times in a row a feed waits out a 429 that the
// client has already retried before it reports the failure (r in the
// dashboard asks again). The client waits and retries 5 times itself, so a
// feed gives up only after minutes of refusals.
const maxRateRounds = 3

// maxWait caps a single rate-limit wait, whatever threshold the server
// names: a broken server must not park the program.
const maxWait = api.MaxWait

// ErrNoClient is the failure of every call of a Service built without a
// client (a misconfigured test), rather than a panic.
var ErrNoClient = errors.New("no API client configured")

// State is what a feed has done so far. Listeners get a copy.
type State struct {
	// Version increases with every change; Wait blocks until it passes the
	// version a listener has seen.
	Version uint64
	// Pages counts the pages received (including those whose entries were
	// all dropped).
	Pages int
	// Entries counts the top-level entries kept; Contracts the contracts in
	// them (a tree-format wrapper counts the contracts inside).
	Entries, Contracts int
	// Total is the server's count of matching contracts, -1 until it says.
	Total int
	// Amount is the sum of the kept entries' amounts; Overflow is set when
	// that sum left the range money.Amount can hold (Amount is then
	// meaningless and must not be shown).
	Amount   money.Amount
	Overflow bool
	// Skipped counts entries dropped as malformed: fields of the wrong type
	// (the client's count) or values outside the bounds of CheckCharge.
	Skipped int
	// Duplicates counts contracts dropped because an earlier page already
	// held the same source: the server repeated itself.
	Duplicates int
	// Restarted is set once the feed paged again from the first page after
	// the server refused its page token; the rows it had stay, the repeats
	// are dropped silently.
	Restarted bool
	// Loading is set while a request is in flight or a rate-limit wait runs.
	Loading bool
	// WaitUntil is the end of a rate-limit wait in progress (zero when none).
	WaitUntil time.Time
	// Done is set once the last page has arrived.
	Done bool
	// Err is why loading stopped before the end; nil otherwise.
	Err error
	// Limit is the page size of the query (100 when the server default).
	Limit int
	// Closed is set when the feed was released by every holder or its
	// service closed: nothing will change any more.
	Closed bool
	// WindowAmounts is set once the feed knows its entries' amounts cover
	// only the query's window (the server's AmountRule): spread them
	// through Feed.Spreadable.
	WindowAmounts bool
	// Ledger is set when the entries come from the ledger (ledgerfeed.go);
	// Synced is when they were last confirmed with the server (zero: not
	// yet). Pages then counts the sync's requests for pages, and
	// SyncPagesTotal how many its window needs (-1 unknown).
	Ledger         bool
	Synced         time.Time
	SyncPagesTotal int
	// Generation changes when the entries were replaced as a whole (the
	// ledger's rows read again after a sync brought something new): a
	// listener then folds Pages(0) again.
	Generation uint64
	// LedgerNote is why the ledger was given up or started anew this run,
	// for the warnings ("" when all is well).
	LedgerNote string
	// Stale is set while the entries are those of the feed a reload
	// replaced (FreshFeed): they stay until the server's first page
	// answers, so a reload that fails (the server stopped) keeps what was
	// loaded rather than nothing. The first page replaces them as a whole
	// (Generation changes); Pages counts only the new feed's pages.
	Stale bool
	// records: the entries are payment records (for the warnings' words).
	records bool
}

// PagesTotal is ⌈Total/Limit⌉ (never fewer than received), or -1 before the
// server said how many contracts match.
func (s State) PagesTotal() int {
	if s.Ledger && s.SyncPagesTotal > 0 {
		return max(s.SyncPagesTotal, s.Pages)
	}
	if s.Total < 0 || s.Limit <= 0 {
		return -1
	}
	return max((s.Total+s.Limit-1)/s.Limit, s.Pages)
}

// Progress reads "page 3 of 12" (or "page 3" while the total is unknown).
func (s State) Progress() string {
	p := "page " + strconv.Itoa(s.Pages)
	if t := s.PagesTotal(); t >= 0 {
		p += " of " + strconv.Itoa(t)
	}
	return p
}

// Warnings lists, one short sentence each, what the feed dropped and why,
// for a status line or stderr.
func (s State) Warnings() []string {
	var w []string
	if s.Skipped > 0 {
		w = append(w, Plural(s.Skipped, "malformed entry", "malformed entries")+" skipped: the server sent fields of the wrong type, values out of bounds or items nested too deeply; the totals leave them out")
	}
	switch {
	case s.Duplicates > 0 && s.records:
		w = append(w, Plural(s.Duplicates, "repeated payment record", "repeated payment records")+" dropped: the server sent the same invoice_id twice")
	case s.Duplicates > 0:
		w = append(w, Plural(s.Duplicates, "repeated contract", "repeated contracts")+" dropped: the server sent the same contract on two pages")
	}
	if s.Overflow {
		w = append(w, "the total is too large to add up; it is not shown")
	}
	if s.LedgerNote != "" {
		w = append(w, s.LedgerNote)
	}
	return w
}

// Plural is "1 entry" / "2,345 entries", grouped.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return money.Group(int64(n)) + " " + many
}

// Feed loads the pages of one charges query, once, for every listener. It
// loads on demand (Want, WantAll), one page at a time through the
// client, whose pacer keeps all feeds of a key at one request per threshold.
// Pages are kept exactly as received after the bounds check: listeners read
// them with Pages and must treat them as read-only.
type Feed = feed[api.ChargesQuery, api.Charge]

// feed is the loader of every paged report (charges, payment records): one
// per query, shared, with the pager, the refused-token restart, the 429
// policy, progress, cancellation and the bounds of its entries (rules).
type feed[Q, E any] struct {
	s     *Service
	q     Q
	key   string
	rules *entryRules[Q, E]

	ctx    context.Context
	cancel context.CancelFunc

	mu         sync.Mutex
	refs       int
	pager      Source[E]
	ledger     ledgerSource[E] // nil: the feed pages the server
	running    bool
	want       int // top-level entries wanted; -1: every page
	pages      [][]E
	st         State
	seen       map[string]struct{} // identities of the entries kept (rules.id)
	rateRounds int
	changed    chan struct{} // closed and replaced on every change
}

// queryKey identifies the report a query asks for: queries with the same
// key share a feed (api.ChargesQuery.Key, the one identity).
func queryKey(q api.ChargesQuery) string { return q.Key() }

// Feed returns the feed of q, shared with every other holder of the same
// query, and counts the caller as a holder: call Release when done. Nothing
// is fetched until someone asks for entries.
func (s *Service) Feed(q api.ChargesQuery) *Feed {
	return shareFeed(s, chargeRules, q, false)
}

// FreshFeed is Feed for a reload: a new feed of q that starts from the
// server's first page, replacing the shared one for later callers (holders
// of the old one keep it until they release it). Until that first page
// answers, the new feed holds the old one's entries, marked State.Stale:
// call it before releasing the old feed.
func (s *Service) FreshFeed(q api.ChargesQuery) *Feed {
	return shareFeed(s, chargeRules, q, true)
}

// SyncFeed returns a feed of q that only syncs the ledger: its State says
// the sync's progress, its note and, by a new Generation once the sync
// ends, that the ledger's rows may have changed, but it reads none of the
// rows into memory (Pages is always empty, Entries 0). A holder that
// reads the range from the ledger itself (ChargesWindow) keeps the ledger
// synced with it at no cost of memory. Call Want or WantAll to start the
// sync. Without a ledger, or when the ledger fails, the feed stops with
// an error for which LedgerUnavailable is true, and never pages the
// server: the holder then falls back to the full feed (Feed). fresh asks
// the server even if a sync of the last seconds holds the range (a
// reload). It is shared by every holder of the same query, as Feed is.
func (s *Service) SyncFeed(q api.ChargesQuery, fresh bool) *Feed {
	return shareFeed(s, syncChargeRules, q, fresh)
}

// syncChargeRules are the charges rules of a sync-only feed, shared under
// keys of their own so that it never stands in for a full feed.
var syncChargeRules = func() *entryRules[api.ChargesQuery, api.Charge] {
	r := *chargeRules
	r.name, r.syncOnly = "charges-sync", true
	// It never pages the server, so it makes no pager: a holder that
	// tries it first and falls back to the full feed costs the page
	// source nothing.
	r.pager = func(*Service, api.ChargesQuery) Source[api.Charge] { return nil }
	return &r
}()

// LedgerUnavailable reports that err is a sync-only feed's failure for
// want of a ledger (none, or one that failed): the range is not held, and
// the holder reads the full feed instead.
func LedgerUnavailable(err error) bool {
	var le *ledgerError
	return errors.As(err, &le) || errors.Is(err, errNoLedger)
}

// entryRules are what a feed needs to know of its kind of entry.
type entryRules[Q, E any] struct {
	name string // the kind's prefix of the feeds' keys
	// key identifies the report a query asks for: queries with the same
	// key share a feed.
	key   func(Q) string
	limit func(Q) int // page size (the server default when the query sets none)
	pager func(*Service, Q) Source[E]
	check func(*E) error // the value bounds; an entry failing them is skipped
	// id is the identity by which a repeated entry is dropped ("": never).
	id      func(*E) string
	count   func(*E) int          // what the entry adds to State.Contracts
	amount  func(*E) money.Amount // what it adds to State.Amount
	records bool                  // warnings speak of payment records, not contracts
	// clip narrows entries to what their amounts cover under window
	// amounts (Spreadable); nil: amounts are never windowed.
	clip func(Q, []E) []E
	// ledger is the query's ledger source (nil: none); force asks the
	// server even if a sync of the last seconds holds the range (a reload).
	ledger func(s *Service, q Q, force bool) ledgerSource[E]
	// syncOnly: the feed syncs the ledger and reads none of its rows
	// (SyncFeed); without a ledger it fails rather than page the server.
	syncOnly bool
}

// Source hands out the pages of one query of one endpoint, one at a time:
// *api.Pager is one, which stops a server that would page forever; the
// tests substitute billingtest.Pager (WithPages). A source is used by one
// goroutine at a time.
type Source[E any] interface {
	// Next returns the next page, or api.ErrPagerDone after the last.
	Next(ctx context.Context) (api.Page[E], error)
	// Done reports that the last page has been handed out.
	Done() bool
	// Total is the server's count of matching entries, -1 while unknown.
	Total() int
}

// source is the page source of q: the tests' fake when one is set, else
// the client's pager; nil without either (a Service without a client).
func source[Q, E any](s *Service, fake func(Q) Source[E], pager func(*api.Client, Q) *api.Pager[E], q Q) Source[E] {
	switch {
	case fake != nil:
		return fake(q)
	case s.client != nil:
		return pager(s.client, q)
	}
	return nil
}

// ChargePages pages the charges of q as the server sends them, on the
// client's pacing (or the pages WithPages stands in); nil without a
// client. Nothing is shared or kept: the audit reads a few pages of disk
// items with it, not a feed.
func (s *Service) ChargePages(q api.ChargesQuery) Source[api.Charge] {
	return source(s, s.pages, (*api.Client).ChargePager, q)
}

// chargePages is a charges source that learns the amount rule before the
// first entry whose amount depends on it is handed out (see ruleFor).
type chargePages struct {
	Source[api.Charge]
	s      *Service
	lo, hi int64 // the query's window (windowOf)
	// held is a page answered whose rule could not be learnt (the request
	// failed): the next call tries again with it, without asking for the
	// page again.
	held   *api.ChargesPage
	window bool // the entries handed out are window amounts
	// listOnly: nobody spreads these entries over days (the rule does not
	// change a list of what the server sent), so nothing is asked to learn
	// the rule (Feed.ListOnly).
	listOnly *atomic.Bool
}

func (p *chargePages) Next(ctx context.Context) (api.ChargesPage, error) {
	pg := p.held
	if pg == nil {
		got, err := p.Source.Next(ctx)
		if err != nil {
			return got, err
		}
		pg = &got
	}
	r := p.s.AmountRule()
	var err error
	if !p.listOnly.Load() {
		r, err = p.s.ruleFor(ctx, pg.Results, p.lo, p.hi)
	}
	if err != nil {
		p.held = pg
		return api.ChargesPage{}, err
	}
	p.held = nil
	p.window = r == RuleWindow
	return *pg, nil
}

func (p *chargePages) windowAmounts() bool { return p.window }

var chargeRules = &entryRules[api.ChargesQuery, api.Charge]{
	name: "charges",
	key:  queryKey,
	limit: func(q api.ChargesQuery) int {
		if q.Limit <= 0 {
			return 100
		}
		return q.Limit
	},
	pager: func(s *Service, q api.ChargesQuery) Source[api.Charge] {
		if p := source(s, s.pages, (*api.Client).ChargePager, q); p != nil {
			lo, hi := windowOf(q)
			return &chargePages{Source: p, s: s, lo: lo, hi: hi, listOnly: new(atomic.Bool)}
		}
		return nil
	},
	check: CheckCharge,
	id: func(e *api.Charge) string {
		if IsWrapper(e) {
			return ""
		}
		return e.Source
	},
	count:  CountContracts,
	amount: func(e *api.Charge) money.Amount { return e.Amount },
	clip:   clipCharges,
	ledger: ledgerFor,
}

// shareFeed returns the feed of q, shared by key, counting the caller as a
// holder; fresh replaces the shared one with a new feed.
func shareFeed[Q, E any](s *Service, r *entryRules[Q, E], q Q, fresh bool) *feed[Q, E] {
	k := r.name + "|" + r.key(q)
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.feeds[k].(*feed[Q, E]); ok && !fresh {
		f.mu.Lock()
		f.refs++
		f.mu.Unlock()
		return f
	}
	ctx, cancel := context.WithCancel(s.ctx)
	f := &feed[Q, E]{
		s: s, q: q, key: k, rules: r, ctx: ctx, cancel: cancel,
		seen:    map[string]struct{}{},
		changed: make(chan struct{}),
		st:      State{Total: -1, Limit: r.limit(q), records: r.records, LedgerNote: s.lh.Note()},
		refs:    1,
	}
	f.pager = r.pager(s, q)
	if r.ledger != nil {
		f.ledger = r.ledger(s, q, fresh)
	}
	if old, ok := s.feeds[k].(*feed[Q, E]); ok && fresh && f.ledger == nil {
		f.carryFrom(old)
	}
	s.feeds[k] = f
	return f
}

// carryFrom gives a new feed the entries old loaded, marked Stale, until
// its own first page replaces them (dropCarriedLocked). A ledger feed
// carries nothing: its rows are read from the ledger, server or not.
func (f *feed[Q, E]) carryFrom(old *feed[Q, E]) {
	old.mu.Lock()
	defer old.mu.Unlock()
	if len(old.pages) == 0 {
		return
	}
	f.pages = slices.Clip(old.pages) // read-only, shared like every page
	o := old.st
	f.st.Stale = true
	f.st.Entries, f.st.Contracts, f.st.Amount, f.st.Overflow = o.Entries, o.Contracts, o.Amount, o.Overflow
	f.st.Skipped, f.st.Duplicates, f.st.Total, f.st.WindowAmounts = o.Skipped, o.Duplicates, o.Total, o.WindowAmounts
}

// dropCarriedLocked forgets the entries carried from the feed a reload
// replaced, once the server answered: listeners fold Pages(0) again.
func (f *feed[Q, E]) dropCarriedLocked() {
	if !f.st.Stale {
		return
	}
	f.pages = nil
	f.st.Stale = false
	f.st.Entries, f.st.Contracts, f.st.Amount, f.st.Overflow = 0, 0, 0, false
	f.st.Skipped, f.st.Duplicates, f.st.Total, f.st.WindowAmounts = 0, 0, -1, false
	f.st.Generation++
}

// Query returns the feed's query.
func (f *feed[Q, E]) Query() Q { return f.q }

// Release drops the caller's hold; the last holder's release stops the
// loader and forgets the feed.
func (f *feed[Q, E]) Release() {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.refs--
	last := f.refs <= 0
	f.mu.Unlock()
	if !last {
		return
	}
	f.s.mu.Lock()
	if g, ok := f.s.feeds[f.key].(*feed[Q, E]); ok && g == f {
		delete(f.s.feeds, f.key)
	}
	f.s.mu.Unlock()
	f.cancel()
	f.mu.Lock()
	if !f.running {
		f.closeLocked()
	}
	f.mu.Unlock()
}

// Want asks for at least n top-level entries (or every page, if fewer).
func (f *feed[Q, E]) Want(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.want >= 0 && n > f.want {
		f.want = n
	}
	f.startLocked()
}

// WantAll asks for every page.
func (f *feed[Q, E]) WantAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.want = -1
	f.startLocked()
}

// Retry resumes a feed that stopped on an error, asking for the failed page
// again (a refused page token pages again from the first page, keeping the
// rows already received).
func (f *feed[Q, E]) Retry() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.st.Err == nil {
		return
	}
	if errors.Is(f.st.Err, api.ErrInvalidToken) {
		f.restartLocked()
	}
	f.st.Err = nil
	f.rateRounds = 0
	f.publishLocked()
	f.startLocked()
}

// State returns a copy of the feed's state.
func (f *feed[Q, E]) State() State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.st
}

// Pages returns the pages from index from on (each page the entries kept of
// one server page). The slices are shared: read-only.
func (f *feed[Q, E]) Pages(from int) [][]E {
	f.mu.Lock()
	defer f.mu.Unlock()
	if from >= len(f.pages) {
		return nil
	}
	return slices.Clip(f.pages[from:])
}

// Wait blocks until the feed's version is past after, the feed is closed, or
// ctx ends, and returns the state then. It starts no timer: a listener of an
// idle feed costs nothing.
func (f *feed[Q, E]) Wait(ctx context.Context, after uint64) State {
	for {
		f.mu.Lock()
		if f.st.Version > after || f.st.Closed {
			st := f.st
			f.mu.Unlock()
			return st
		}
		ch := f.changed
		f.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return f.State()
		case <-f.ctx.Done():
			// Released or its service closed. A running loader publishes
			// the close itself as it stops; an idle feed is closed here.
			f.mu.Lock()
			if !f.running {
				f.closeLocked() // closes ch
			}
			f.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return f.State()
			}
		}
	}
}

// All loads every page and returns every top-level entry kept, in the
// server's order. progress, if not nil, is called with each new state. An
// error of the feed (or ctx's) is returned with the state reached.
func (f *feed[Q, E]) All(ctx context.Context, progress func(State)) ([]E, State, error) {
	f.WantAll()
	var ver uint64
	for {
		st := f.Wait(ctx, ver)
		ver = st.Version
		if progress != nil {
			progress(st)
		}
		switch {
		case ctx.Err() != nil:
			return nil, st, ctx.Err()
		case st.Err != nil:
			return nil, st, st.Err
		case st.Done:
			var out []E
			for _, p := range f.Pages(0) {
				out = append(out, p...)
			}
			return out, st, nil
		case st.Closed:
			return nil, st, context.Canceled
		}
	}
}

// needMoreLocked reports that the loader has work.
func (f *feed[Q, E]) needMoreLocked() bool {
	return !f.st.Done && f.st.Err == nil && !f.st.Closed && f.ctx.Err() == nil &&
		(f.want < 0 || f.st.Entries < f.want || f.st.Stale || f.ledger != nil) // a ledger's rows are all read at once; entries carried count for nothing
}

// startLocked starts the loader when there is work and none runs.
func (f *feed[Q, E]) startLocked() {
	if f.running || !f.needMoreLocked() {
		return
	}
	if f.rules.syncOnly && f.ledger == nil {
		f.st.Err = errNoLedger // a sync-only feed never pages the server
		f.publishLocked()
		return
	}
	if f.pager == nil && !f.rules.syncOnly {
		f.st.Err = ErrNoClient
		f.publishLocked()
		return
	}
	f.running = true
	f.st.Loading = true
	f.publishLocked()
	f.s.wg.Add(1)
	if f.ledger != nil {
		go f.ledgerLoop()
		return
	}
	go f.loop()
}

// loop fetches pages while there is demand, one at a time.
func (f *feed[Q, E]) loop() {
	defer f.s.wg.Done()
	for {
		f.mu.Lock()
		if !f.needMoreLocked() {
			f.running = false
			f.st.Loading = false
			if f.ctx.Err() != nil {
				f.closeLocked()
			}
			f.publishLocked()
			f.mu.Unlock()
			return
		}
		p := f.pager
		f.mu.Unlock()

		page, err := p.Next(f.ctx)

		f.mu.Lock()
		wait := time.Duration(0)
		if f.ctx.Err() == nil {
			wait = f.foldLocked(p, page, err)
			if wait == 0 && !f.needMoreLocked() {
				// The load ended (done, failed, or as much as was
				// wanted): say so in the same state that carries the
				// end, never "loading" beside it.
				f.running = false
				f.st.Loading = false
				f.publishLocked()
				f.mu.Unlock()
				return
			}
			f.publishLocked()
		}
		f.mu.Unlock()
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-f.ctx.Done():
				t.Stop()
			}
			f.mu.Lock()
			f.st.WaitUntil = time.Time{}
			f.publishLocked() // listeners stop saying "waiting"
			f.mu.Unlock()
		}
	}
}

// foldLocked takes one answer of pager p into the feed and returns how long
// to wait before the next request (a 429 being waited out).
func (f *feed[Q, E]) foldLocked(p Source[E], page api.Page[E], err error) time.Duration {
	if p != f.pager {
		return 0 // a restart replaced the pager while this request ran
	}
	switch {
	case err == nil:
		f.dropCarriedLocked()
	case errors.Is(err, api.ErrPagerDone):
		f.dropCarriedLocked()
		f.st.Done = true
		return 0
	case errors.Is(err, api.ErrRateLimited) && f.rateRounds < maxRateRounds:
		f.rateRounds++
		wait := f.s.rateWait
		var ae *api.Error
		if errors.As(err, &ae) && ae.Threshold > 0 {
			wait = ae.Threshold
		}
		wait = min(wait, maxWait)
		f.st.WaitUntil = f.s.now().Add(wait)
		return wait
	case errors.Is(err, api.ErrInvalidToken) && !f.st.Restarted:
		// The pager cannot resume: page again from the first page. The
		// entries already kept are known by identity, so their repeats
		// are dropped and nothing counts twice.
		f.restartLocked()
		return 0
	default:
		f.st.Err = err
		return 0
	}
	f.rateRounds = 0
	if w, ok := p.(interface{ windowAmounts() bool }); ok && w.windowAmounts() {
		f.st.WindowAmounts = true
	}
	f.st.Pages++
	f.st.Skipped += page.Skipped
	kept := make([]E, 0, len(page.Results))
	for i := range page.Results {
		e := &page.Results[i]
		if f.rules.check(e) != nil {
			f.st.Skipped++
			continue
		}
		if id := f.rules.id(e); id != "" {
			if _, dup := f.seen[id]; dup {
				if !f.st.Restarted {
					f.st.Duplicates++
				}
				continue
			}
			f.seen[id] = struct{}{}
		}
		kept = append(kept, *e)
	}
	if len(kept) > 0 {
		f.pages = append(f.pages, kept)
		f.st.Entries += len(kept)
		for i := range kept {
			f.st.tally(f.rules.count(&kept[i]), f.rules.amount(&kept[i]))
		}
	}
	f.st.Total = p.Total()
	f.st.Done = p.Done()
	// Total counts what the pages hold at the top level (in the tree
	// format, wrappers as well as contracts), so the bound is on entries.
	if f.st.Total >= 0 && f.st.Entries > f.st.Total+f.st.Limit {
		f.st.Err = fmt.Errorf("the server sent %s, more than the %s its total allows; stopped", Plural(f.st.Entries, "entry", "entries"), money.Group(int64(f.st.Total)))
	}
	return 0
}

// tally adds an entry of n contracts and amount a to the counts; once the
// sum has left money.Amount's range it stays marked Overflow and stops
// adding.
func (s *State) tally(n int, a money.Amount) {
	s.Contracts += n
	if !s.Overflow {
		sum, ok := s.Amount.Add(a)
		s.Amount, s.Overflow = sum, !ok
	}
}

// restartLocked replaces the pager by a new one from the first page.
func (f *feed[Q, E]) restartLocked() {
	f.pager = f.rules.pager(f.s, f.q)
	f.st.Restarted = true
	f.st.Done = false
}

func (f *feed[Q, E]) publishLocked() {
	f.st.Version++
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *feed[Q, E]) closeLocked() {
	if f.st.Closed {
		return
	}
	f.st.Closed = true
	f.st.Loading = false
	f.publishLocked()
}
