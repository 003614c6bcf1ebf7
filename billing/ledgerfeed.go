package billing

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/spend"
)

// A feed with a ledger reads it first: the rows it holds for the query are
// handed out the moment the feed starts (State.Ledger, State.Synced), then
// the ledger is synced with the server, and only when the sync brought
// something new are the rows read again and handed out anew (a new
// State.Generation: listeners fold Pages(0) again). The feed is Done once
// the sync is, so a command that waits for Done never prints stale
// figures. A ledger that fails (disk full, a read-only folder) is given up
// with one warning and the feed pages the server as it would without one;
// a corrupt one is moved aside and rebuilt.

// ledgerSource is what a feed needs of the ledger for its query.
type ledgerSource[E any] interface {
	// read returns the ledger's rows for the query, and whether their
	// amounts cover only its window.
	read(ctx context.Context) (rows []E, windowed bool, err error)
	// covered is when the ledger last synced all of the query's range
	// (zero: it does not hold it all).
	covered(ctx context.Context) time.Time
	// sync brings the ledger's range up to date.
	sync(ctx context.Context, report func(SyncState)) (SyncState, error)
}

// ledgerFor is the ledger source of a charges query, or nil when the feed
// pages the server: no ledger, or the tree format, whose wrappers are the
// server's to build.
func ledgerFor(s *Service, q api.ChargesQuery, force bool) ledgerSource[api.Charge] {
	if !s.lh.MayUse() || s.client == nil || q.Format == api.FormatTree {
		return nil
	}
	return &chargesLedger{s: s, q: q, force: force}
}

type chargesLedger struct {
	s     *Service
	q     api.ChargesQuery
	force bool
}

func (c *chargesLedger) read(ctx context.Context) ([]api.Charge, bool, error) {
	led := c.s.Ledger()
	if led == nil {
		return nil, false, errNoLedger
	}
	rule := c.s.AmountRule()
	rows, err := c.s.ledgerCharges(ctx, led, c.q, rule)
	return rows, rule == RuleWindow, err
}

func (c *chargesLedger) covered(ctx context.Context) time.Time {
	lo, hi := windowOf(c.q)
	return coveredAt(ctx, c.s, ledger.KindCharges, lo, min(hi, c.s.now().Unix()+1))
}

func (c *chargesLedger) sync(ctx context.Context, report func(SyncState)) (SyncState, error) {
	lo, hi := windowOf(c.q)
	return c.s.syncCharges(ctx, lo, hi, c.force, report)
}

// paymentsLedgerFor is the ledger source of a payments query.
func paymentsLedgerFor(s *Service, q api.InvoicesQuery, force bool) ledgerSource[api.Invoice] {
	if !s.lh.MayUse() || s.client == nil {
		return nil
	}
	return &paymentsLedger{s: s, q: q, force: force}
}

type paymentsLedger struct {
	s     *Service
	q     api.InvoicesQuery
	force bool
}

func (p *paymentsLedger) bounds() (lo, hi int64) { return p.q.From.Unix(), p.q.To.Unix() + 1 }

func (p *paymentsLedger) read(ctx context.Context) ([]api.Invoice, bool, error) {
	led := p.s.Ledger()
	if led == nil {
		return nil, false, errNoLedger
	}
	lo, hi := p.bounds()
	recs, err := led.Payments(ctx, lo, hi)
	if err != nil {
		return nil, false, ledgerErr(err)
	}
	if len(p.q.Services) > 0 {
		recs = slices.DeleteFunc(recs, func(r api.Invoice) bool { return !slices.Contains(p.q.Services, r.Service) })
	}
	if !p.q.OldestFirst {
		slices.Reverse(recs)
	}
	return recs, false, nil
}

func (p *paymentsLedger) covered(ctx context.Context) time.Time {
	lo, hi := p.bounds()
	return coveredAt(ctx, p.s, ledger.KindPayments, lo, min(hi, p.s.now().Unix()+1))
}

func (p *paymentsLedger) sync(ctx context.Context, report func(SyncState)) (SyncState, error) {
	lo, hi := p.bounds()
	return p.s.syncPayments(ctx, lo, hi, p.force, report)
}

// coveredAt is the oldest sync of the spans holding [lo, hi), or zero when
// they do not hold it all. A span reaching the time of its sync holds
// what lies after it too, as of then (nothing later was there to hold);
// any other ends where it ends: a month synced long ago says nothing of
// the months since.
func coveredAt(ctx context.Context, s *Service, kind string, lo, hi int64) time.Time {
	led := s.Ledger()
	if led == nil {
		return time.Time{}
	}
	spans, err := led.Spans(ctx, kind)
	if err != nil || len(spans) == 0 {
		return time.Time{}
	}
	oldest := int64(0)
	for lo < hi {
		i := slices.IndexFunc(spans, func(sp ledger.Span) bool { return sp.Lo <= lo && (lo < sp.Hi || sp.Hi >= sp.SyncedAt) })
		if i < 0 {
			return time.Time{}
		}
		sp := spans[i]
		if oldest == 0 || sp.SyncedAt < oldest {
			oldest = sp.SyncedAt
		}
		if sp.Hi >= sp.SyncedAt {
			break
		}
		lo = sp.Hi
	}
	if oldest == 0 {
		return time.Time{}
	}
	return time.Unix(oldest, 0)
}

// ledgerLoop is the loader of a feed with a ledger: the rows it holds,
// then the sync, then the rows again if the sync changed any.
func (f *feed[Q, E]) ledgerLoop() {
	defer f.s.wg.Done()
	ctx := f.ctx
	src := f.ledger
	shown := false
	// What the file's writers changed before the first read: another
	// vastdash writing it meanwhile (a cron sync) may have filled what
	// this feed's own sync then only confirms.
	changes := int64(-1)
	if led := f.s.Ledger(); led != nil {
		changes = led.Changes(ctx)
	}
	read := src.read
	if f.rules.syncOnly {
		// Nothing is read: the holder reads the ledger itself. The empty
		// "rows" still make a new generation where the rows would have
		// been read again, which tells the holder to.
		read = func(context.Context) ([]E, bool, error) { return nil, f.s.AmountRule() == RuleWindow, nil }
		if synced := src.covered(ctx); !synced.IsZero() {
			f.mu.Lock()
			f.st.Ledger, f.st.Synced = true, synced
			f.publishLocked()
			f.mu.Unlock()
		}
	}
	if rows, windowed, err := read(ctx); err == nil && len(rows) > 0 {
		synced := src.covered(ctx)
		f.mu.Lock()
		f.replaceLocked(rows, windowed)
		f.st.Ledger, f.st.Synced = true, synced
		f.publishLocked()
		f.mu.Unlock()
		shown = true
	} else if err != nil && ctx.Err() == nil && f.dropLedger(err) {
		return
	}
	st, err := src.sync(ctx, func(p SyncState) {
		f.mu.Lock()
		f.st.Pages, f.st.SyncPagesTotal, f.st.Skipped = p.Pages, p.PagesTotal, p.Skipped
		f.publishLocked()
		f.mu.Unlock()
	})
	var le *ledgerError
	if errors.As(err, &le) && ctx.Err() == nil && f.s.lh.GiveUp(le.err) {
		// A corrupt file moved aside: sync the new one from the server.
		st, err = src.sync(ctx, nil)
	}
	if err == nil && (st.Changed > 0 || st.RuleLearnt || !shown || f.st.Generation == 0 || f.changedElsewhere(ctx, changes, st.Changed)) {
		var rows []E
		var windowed bool
		if rows, windowed, err = read(ctx); err == nil {
			f.mu.Lock()
			f.replaceLocked(rows, windowed)
			f.mu.Unlock()
		}
	}
	if err != nil && ctx.Err() == nil && f.dropLedger(err) {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.running = false
	f.st.Loading = false
	switch {
	case ctx.Err() != nil:
		f.closeLocked()
	case err != nil:
		f.st.Err = err
	default:
		f.st.Ledger, f.st.Done, f.st.Synced = true, true, f.s.now()
		f.st.Skipped = st.Skipped
		f.st.Total = f.st.Entries
	}
	f.st.LedgerNote = f.s.lh.Note()
	f.publishLocked()
}

// changedElsewhere reports that the ledger's rows changed since before
// changes was read by more than this feed's own sync changed: another
// process wrote them, and the rows shown may be a fraction of the range.
func (f *feed[Q, E]) changedElsewhere(ctx context.Context, before int64, own int) bool {
	led := f.s.Ledger()
	return before < 0 || led == nil || led.Changes(ctx)-before != int64(own)
}

// dropLedger handles a failure of the ledger (not of the network): the
// feed forgets its ledger rows and pages the server as a feed without a
// ledger does, with the warning. It reports that it took over the loader.
func (f *feed[Q, E]) dropLedger(err error) bool {
	var le *ledgerError
	if !errors.As(err, &le) && !errors.Is(err, errNoLedger) {
		return false
	}
	if f.ctx.Err() != nil || (le != nil && ledger.IsInterrupted(le.err)) {
		return false // the feed was replaced or released: nothing failed
	}
	if f.rules.syncOnly {
		return false // it stops on err: its holder reads the full feed
	}
	if le != nil {
		f.s.lh.GiveUp(le.err)
	}
	f.mu.Lock()
	f.ledger = nil
	f.pages, f.seen = nil, map[string]struct{}{}
	f.st = State{Version: f.st.Version, Generation: f.st.Generation + 1, Total: -1, Limit: f.st.Limit,
		records: f.st.records, Loading: true, LedgerNote: f.s.lh.Note()}
	f.pager = f.rules.pager(f.s, f.q)
	f.publishLocked()
	f.mu.Unlock()
	f.s.wg.Add(1) // the loader's; ledgerLoop's own ends as it returns
	go f.loop()
	return true
}

// joinWarnings is the warnings of two feeds, each said once: both carry
// the ledger's note, which is one thing to say.
func joinWarnings(a, b []string) []string {
	out := slices.Clone(a)
	for _, w := range b {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// replaceLocked makes rows the feed's entries, in pages of the query's
// size, as a new generation.
func (f *feed[Q, E]) replaceLocked(rows []E, windowed bool) {
	f.pages = nil
	f.st.Entries, f.st.Contracts, f.st.Amount, f.st.Overflow = 0, 0, 0, false
	for i := 0; i < len(rows); i += f.st.Limit {
		p := rows[i:min(i+f.st.Limit, len(rows))]
		f.pages = append(f.pages, p)
		f.st.Entries += len(p)
		for k := range p {
			f.st.tally(f.rules.count(&p[k]), f.rules.amount(&p[k]))
		}
	}
	f.st.WindowAmounts = windowed
	f.st.Generation++
}

// Whole reports that the feed holds every entry of its query: all its
// pages loaded, or the ledger's rows of a range it holds whole, as of
// Synced, while the sync runs. A statement or a total built from it is
// then complete, if perhaps minutes old (SyncedText says how old).
func (s State) Whole() bool {
	return s.Done || (s.Ledger && !s.Synced.IsZero())
}

// SyncedText reads "synced 2 min ago" (or "synced just now", "synced 3 h
// ago", "synced on 21 Nov", "synced on 30 Dec 2025" in another year) for
// a status line: how old the ledger rows on screen are.
func (s State) SyncedText(now time.Time) string {
	if s.Synced.IsZero() {
		return ""
	}
	d := now.Sub(s.Synced)
	switch {
	case d < time.Minute:
		return "synced just now"
	case d < time.Hour:
		return "synced " + strconv.Itoa(int(d/time.Minute)) + " min ago"
	case d < 48*time.Hour:
		return "synced " + strconv.Itoa(int(d/time.Hour)) + " h ago"
	}
	return "synced on " + spend.ShortDay(s.Synced.In(now.Location()), now)
}
