package overview

import (
	"context"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
)

// The screen over a range a ledger may hold: it follows the range's
// sync-only feed (billing.SyncFeed, shared with the Charges screen's
// window when both show the range), which keeps the ledger synced and
// reads no row, and once the ledger holds the range — at once when an
// earlier run synced it, else when the first sync ends — and again after
// every sync, it reads the figures from the ledger (billing.RangeFigures:
// a few queries, off the UI goroutine) and puts them in place of the last
// ones in one step. Nothing of the range's rows is held: a year of a
// million contracts costs the screen a handful of sums. When there is no
// ledger to use after all (LedgerUnavailable), or the ledger cannot
// answer for a range whose sync has ended, the screen takes the range's
// full feed and folds its pages, as without a ledger.

// figRead is the state of the figures read from the ledger.
type figRead struct {
	ask    int                // the latest read asked; older answers are dropped
	busy   bool               // a read is in flight
	got    bool               // the figures shown are the ledger's
	gen    uint64             // the feed's generation they were read after
	synced time.Time          // how old the ledger's rows were when read
	cancel context.CancelFunc // stops the read in flight
}

// figuresMsg is a read of the figures: ok false when the ledger does not
// hold the range (yet).
type figuresMsg struct {
	ask int
	gen uint64
	fig *billing.RangeFigures
	ok  bool
	err error
}

// stopFigures drops the figures' read in flight: a new range, or the
// feed again.
func (m *Model) stopFigures() {
	if m.fig.cancel != nil {
		m.fig.cancel()
	}
	m.fig = figRead{ask: m.fig.ask + 1}
}

// onSync takes a new state of the sync feed: the ledger missing after all
// makes the screen take the full feed; a range the ledger holds as of a
// generation not read yet is read.
func (m *Model) onSync() tea.Cmd {
	st := m.main.State()
	if st.Err != nil && billing.LedgerUnavailable(st.Err) {
		return m.unhold()
	}
	held := st.Ledger && !st.Synced.IsZero()
	if !held && !st.Done {
		return nil // the first sync is running: nothing to read yet
	}
	if m.fig.got && m.fig.gen == st.Generation {
		return nil
	}
	if m.fig.busy {
		return nil // figuresMsg asks again for the newer generation
	}
	return m.readFigures(st.Generation)
}

// readFigures reads the range's figures from the ledger, off the UI
// goroutine, into accumulators of its own.
func (m *Model) readFigures(gen uint64) tea.Cmd {
	svc := m.ctx.Billing
	base := m.ctx.Base
	if base == nil {
		base = context.Background()
	}
	ctx, cancel := context.WithCancel(base)
	m.fig.cancel, m.fig.busy = cancel, true
	ask, q := m.fig.ask, m.main.Feed().Query()
	loc, from, to := m.ctx.Loc(), m.rng.From, m.rng.To
	var meter *billing.Meter
	if m.burn == nil {
		meter = svc.NewMeter() // the range covers the burn window
	}
	return func() tea.Msg {
		defer cancel()
		w, ok := svc.ChargesWindow(ctx, q)
		if !ok {
			return figuresMsg{ask: ask, gen: gen}
		}
		f := &billing.RangeFigures{
			Daily:  spend.NewPeriodWindow(loc, from, to, spend.PeriodFor(from, to, loc)),
			Labels: billing.NewGrouping(billing.ByLabel, loc, from, to),
			Meter:  meter,
			TopN:   topN,
		}
		err := w.Fill(ctx, f)
		if ctx.Err() != nil {
			err = ctx.Err() // SQLite says it was interrupted
		}
		return figuresMsg{ask: ask, gen: gen, fig: f, ok: true, err: err}
	}
}

// onFigures puts a read's figures in place, or takes the full feed when
// the ledger cannot answer for a range whose sync has ended.
func (m *Model) onFigures(msg figuresMsg) tea.Cmd {
	if msg.ask != m.fig.ask || !m.held || m.main == nil {
		return nil // a read for another range, or before the feed was taken
	}
	m.fig.busy, m.fig.cancel = false, nil
	m.ver++
	st := m.main.State()
	switch {
	case errors.Is(msg.err, context.Canceled):
		return nil // the program is ending: nothing failed
	case msg.err != nil || (!msg.ok && st.Done):
		return m.unhold()
	case !msg.ok:
		return nil // the sync ends with a new generation: read then
	}
	f := msg.fig
	m.totals, m.daily, m.labels = f.Totals, f.Daily, f.Labels
	m.top = m.top[:0]
	for i := range f.Top {
		e := &f.Top[i]
		m.top = append(m.top, topEntry{source: e.Source, label: e.Meta.Label, kind: spend.ContractKind(e), amount: e.Amount})
	}
	m.cursor = min(m.cursor, max(len(m.top)-1, 0))
	if f.Meter != nil && m.burn == nil {
		m.meter = f.Meter
		m.kept = nil // the figures are this range's now
	}
	m.fig.got, m.fig.gen, m.fig.synced = true, msg.gen, st.Synced
	if st.Generation != msg.gen {
		return m.onSync() // a sync ended while reading
	}
	return m.startMonth()
}

// unhold gives up the ledger's figures for the range's full feed, whose
// pages are folded as without a ledger.
func (m *Model) unhold() tea.Cmd {
	old := m.main
	m.stopFigures()
	m.held = false
	m.startFigures()
	m.main = m.hold(old.Feed().Query(), false)
	m.release(old)
	if m.burn == nil && m.ctx.Billing != nil {
		m.meter = m.ctx.Billing.NewMeter()
	}
	return m.want(m.main)
}

// mainState is the range's feed's state as the figures shown stand: over
// the ledger, the sync's progress, note and errors with the counts of the
// figures read, whole only once figures are read, and done only when
// they were read after the sync's last generation.
func (m *Model) mainState() billing.State {
	st := m.main.State()
	if !m.held {
		return st
	}
	st.Contracts, st.Entries, st.Amount = m.totals.Contracts, m.totals.Contracts, m.totals.Total
	st.Overflow = m.totals.Overflow
	switch {
	case !m.fig.got:
		st.Ledger, st.Synced = false, time.Time{} // nothing shown is the ledger's yet
	case st.Synced.IsZero():
		// A reload's new sync has not said yet how old the ledger is:
		// the figures kept are as old as when they were read.
		st.Ledger, st.Synced = true, m.fig.synced
	}
	if st.Done && (!m.fig.got || m.fig.gen != st.Generation) {
		st.Done, st.Loading = false, st.Err == nil
	}
	return st
}

// stateOf is the state of a held feed as the screen shows it (mainState
// for the range's).
func (m *Model) stateOf(fl *shared.ChargesFollower) billing.State {
	if fl == m.main {
		return m.mainState()
	}
	return fl.State()
}
