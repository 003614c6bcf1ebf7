package overview

import (
	"context"
	"errors"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui/shared"
)

// The month panel: this month so far, last month by the same point with
// the change, the forecast with its basis and, with a budget in the
// settings, a gauge (billing.Outlook). It follows one feed of its own,
// billing's OutlookQuery (the month before and this month to the end of
// today), started once the range on screen has loaded and the first rate
// reading is in; the figures are built once the feed has ended and again
// with every new rate reading, never in View, and the live refresh reads
// the charges again every monthEvery (monthAgain). A budget crossing goes
// to the root as a shared.AlarmMsg, once.

// Priorities of the panel's lines: the month's spend stays with the leaks,
// the forecast and the gauge go with the other second lines.
const (
	prioMonthHead = prioGlance
	prioMonthMore = prioDetail
)

// Gauge widths: narrower says nothing the words do not; wider only
// stretches the eye.
const (
	gaugeMinW = 8
	gaugeMaxW = 30
)

// monthEvery is the least time between two readings of the month's
// charges on rate readings (the live refresh): through the ledger a
// reading asks only what changed, a few requests; without it, the month
// again. The exporter reads its month at the same pace.
const monthEvery = 5 * time.Minute

// monthPanel is the screen's part for the month. The zero value is ready.
type monthPanel struct {
	fl *shared.ChargesFollower // the feed of OutlookQuery; nil before Init
	// held: fl is the months' sync-only feed, and the charges are read
	// from the ledger once each sync ends (months), as the range's
	// figures are (figures.go); read is that read's state.
	held   bool
	months *billing.HeldMonths
	read   figRead
	// out is the outlook, nil until the feed ended; told is set once the
	// watch has seen it.
	out   *billing.Outlook
	told  bool
	watch billing.BudgetWatch
}

// rateForMonth takes a rate reading into the panel: the first one may
// start the month's feed (startMonth); later ones read the charges again
// when that is due (monthAgain), else rebuild the forecast on the same
// charges.
func (m *Model) rateForMonth() tea.Cmd {
	if m.month.fl == nil {
		return m.startMonth()
	}
	if cmd, due := m.monthAgain(); due {
		return cmd
	}
	m.buildOutlook()
	return nil
}

// monthAgain reads the month's charges again, on a reading of the live
// refresh (the rate's, or the credit's for a key whose rate is not read
// again), when that is due: on a new day (the query runs to the end of
// today), and monthEvery after they were read. The forecast is so far
// plus the rate over the hours left from when so far was read, so a so
// far hours old would count those hours at the rate rather than as
// charged. due is false when nothing is read.
func (m *Model) monthAgain() (cmd tea.Cmd, due bool) {
	fl, clock := m.month.fl, m.ctx.Clock()
	switch {
	case fl == nil || !fl.Held() || !fl.State().Whole():
		return nil, false
	case !fl.Feed().Query().Equal(m.ctx.Billing.OutlookQuery(clock)):
		return m.takeMonth(false), true
	case m.month.out != nil && clock.Sub(m.month.out.AsOf) >= monthEvery:
		// Afresh (through the ledger: only what changed), the last
		// figures shown until the new reading ends.
		last := m.month.out
		cmd = m.takeMonth(true)
		m.month.out = last
		return cmd, true
	}
	return nil, false
}

// startMonth starts the month's feed once the forecast has what it needs
// (a rate reading, or a failed one: the burn then) and the range on screen
// has ended loading (done or stopped), so the charges the user looks at
// first have the pacing to themselves; nil until then, and once started.
func (m *Model) startMonth() tea.Cmd {
	ended := func(fl *shared.ChargesFollower) bool { return fl == nil || m.stateOf(fl).Done || fl.State().Err != nil }
	if m.month.fl != nil || (m.rate == nil && m.rateErr == nil) || m.main == nil || !ended(m.main) || !ended(m.burn) {
		return nil
	}
	return m.takeMonth(false)
}

// retakeMonth is r for the panel: its feed afresh, once it has one.
func (m *Model) retakeMonth() tea.Cmd {
	if m.month.fl == nil {
		return nil
	}
	// The last figures stay until the new reading ends, as the range's do.
	last := m.month.out
	cmd := m.takeMonth(true)
	m.month.out = last
	return cmd
}

// takeMonth follows the month's feed (afresh on a reload) and drops the
// figures built from the last one.
func (m *Model) takeMonth(fresh bool) tea.Cmd {
	svc := m.ctx.Billing
	if svc == nil {
		return nil
	}
	m.release(m.month.fl)
	m.stopMonthRead()
	m.month.out, m.month.months = nil, nil
	q := svc.OutlookQuery(m.ctx.Clock())
	m.month.held = svc.MayHold(q)
	if m.month.held {
		m.month.fl = &shared.ChargesFollower{}
		m.month.fl.Hold(svc.SyncFeed(q, fresh))
	} else {
		m.month.fl = m.hold(q, fresh)
	}
	return m.want(m.month.fl)
}

// stopMonthRead drops the months' read in flight.
func (m *Model) stopMonthRead() {
	if m.month.read.cancel != nil {
		m.month.read.cancel()
	}
	m.month.read = figRead{ask: m.month.read.ask + 1}
}

// monthsMsg is a read of the months' charges from the ledger: ok false
// when the ledger does not hold them.
type monthsMsg struct {
	ask int
	gen uint64
	h   *billing.HeldMonths
	ok  bool
	err error
}

// onMonthSync takes a new state of the months' sync feed: the ledger
// missing after all makes the panel take the full feed; once a sync has
// ended (or failed over months the ledger holds) the months are read.
func (m *Model) onMonthSync() tea.Cmd {
	st := m.month.fl.State()
	if st.Err != nil && billing.LedgerUnavailable(st.Err) {
		return m.unholdMonth()
	}
	held := st.Ledger && !st.Synced.IsZero()
	switch {
	case !st.Done && !(st.Err != nil && held):
		return nil // the outlook reads whole months: after the sync
	case m.month.read.got && m.month.read.gen == st.Generation:
		return nil
	case m.month.read.busy:
		return nil // onMonths asks again for the newer generation
	}
	svc, q, asOf := m.ctx.Billing, m.month.fl.Feed().Query(), m.ctx.Clock()
	base := m.ctx.Base
	if base == nil {
		base = context.Background()
	}
	ctx, cancel := context.WithCancel(base)
	m.month.read.cancel, m.month.read.busy = cancel, true
	ask, gen := m.month.read.ask, st.Generation
	return func() tea.Msg {
		defer cancel()
		h, ok, err := svc.ReadMonths(ctx, q, asOf)
		if ctx.Err() != nil {
			err = ctx.Err() // SQLite says it was interrupted
		}
		return monthsMsg{ask: ask, gen: gen, h: h, ok: ok, err: err}
	}
}

// onMonths puts a read of the months in place and builds the outlook.
func (m *Model) onMonths(msg monthsMsg) tea.Cmd {
	if msg.ask != m.month.read.ask || !m.month.held || m.month.fl == nil {
		return nil
	}
	m.month.read.busy, m.month.read.cancel = false, nil
	m.ver++
	st := m.month.fl.State()
	switch {
	case errors.Is(msg.err, context.Canceled):
		return nil // the program is ending: nothing failed
	case msg.err != nil || (!msg.ok && st.Done):
		return m.unholdMonth()
	case !msg.ok:
		return nil
	}
	m.month.months = msg.h
	m.month.read.got, m.month.read.gen = true, msg.gen
	m.month.out = nil
	m.buildOutlook()
	if st.Generation != msg.gen {
		return m.onMonthSync()
	}
	return nil
}

// unholdMonth gives up the ledger's months for the full feed.
func (m *Model) unholdMonth() tea.Cmd {
	old := m.month.fl
	m.stopMonthRead()
	m.month.held, m.month.months = false, nil
	m.month.fl = m.hold(old.Feed().Query(), false)
	m.release(old)
	return m.want(m.month.fl)
}

// foldMonth builds the outlook each time the month's feed ends (complete,
// or stopped: then marked incomplete; again once r resumed it). The
// reading's instant is the clock's when it ended: the forecast counts the
// hours left from there.
func (m *Model) foldMonth(st billing.State) {
	if st.Done || st.Err != nil {
		m.month.out = nil
		m.buildOutlook()
	}
}

// buildOutlook (re)builds the outlook from the ended feed and the latest
// rate reading; nothing before the feed ended.
func (m *Model) buildOutlook() {
	fl := m.month.fl
	if m.month.held {
		if fl == nil || !fl.Held() || m.month.months == nil {
			return
		}
		var rateErr error
		if m.rate == nil {
			rateErr = m.rateErr
		}
		o := m.ctx.Billing.OutlookOfHeld(m.month.months, fl.State(), m.rate, rateErr, m.ctx.Budget)
		m.month.out, m.month.told = &o, false
		m.ver++
		return
	}
	if fl == nil || !fl.Held() || !(fl.State().Done || fl.State().Err != nil) {
		return
	}
	asOf := m.ctx.Clock()
	if m.month.out != nil {
		asOf = m.month.out.AsOf // a new rate: the same reading of the charges
	}
	var rateErr error
	if m.rate == nil {
		rateErr = m.rateErr
	}
	o := m.ctx.Billing.OutlookOf(fl.Feed(), m.rate, rateErr, asOf, asOf, m.ctx.Budget)
	m.month.out, m.month.told = &o, false
	m.ver++
}

// monthAlarm tells the root the first crossing of the budget's 80 % and
// 100 % in the month, once (billing.BudgetWatch).
func (m *Model) monthAlarm() tea.Cmd {
	o := m.month.out
	if o == nil || m.month.told {
		return nil
	}
	m.month.told = true
	a, ok := m.month.watch.Observe(*o)
	if !ok {
		return nil
	}
	return func() tea.Msg { return shared.AlarmMsg{Source: "budget", Text: a.Text, Ring: a.Ring} }
}

// monthLines is the panel, width w.
func (m *Model) monthLines(w int) []line {
	st := m.styles()
	label := st.Bold.Render(shared.PadRight("Month", labelW))
	pad := strings.Repeat(" ", labelW)
	fl := m.month.fl
	if fl == nil {
		return nil
	}
	muted := func(s string) []line { return []line{{text: label + st.Muted.Render(s), prio: prioMonthHead}} }
	o := m.month.out
	switch {
	case fl.State().Err != nil && errors.Is(fl.State().Err, api.ErrPermission):
		return muted("— " + billing.FailReason(fl.State().Err))
	case fl.State().Err != nil && ((!m.month.held && fl.State().Entries == 0) || (m.month.held && m.month.months == nil)):
		// Nothing read: no figure, not $0 (the status line says why).
		return muted("— charges unavailable (" + m.ctx.Key("reload") + " to reload)")
	case o == nil:
		s := "— loading this month and last"
		if fl.State().Pages > 0 {
			s += ": " + fl.State().Progress()
		}
		return muted(s)
	case o.TooLarge:
		return muted("— too large to add up")
	}
	ls := []line{{text: m.monthHead(label, *o, w), prio: prioMonthHead}}
	if f := m.forecastLine(pad, *o, w); f != "" {
		ls = append(ls, line{text: f, prio: prioMonthMore})
	}
	if o.Budget > 0 {
		ls = append(ls, line{text: m.budgetLine(*o, w), prio: prioMonthMore})
	}
	return ls
}

// monthHead is "Month  $2,619.999 so far · October to 26 Oct 10:56
// $1,866.949 (+40.3 %)", shorter as the width shrinks.
func (m *Model) monthHead(label string, o billing.Outlook, w int) string {
	st := m.styles()
	so := st.Amount.Render(o.SoFar.String())
	soFar := so + st.Muted.Render(" so far")
	if o.Incomplete {
		// Short by what did not load, and saying so.
		inc := " " + st.Warning.Render("(incomplete)")
		so, soFar = so+inc, soFar+inc
	}
	change := billing.ChangeText(o.Change, o.ChangeOK)
	prev := st.Amount.Render(o.PrevSoFar.String())
	short := o.Prev.Format("Jan")
	sep := st.Muted.Render(" · ")
	return shared.FirstFit(w,
		label+soFar+sep+st.Muted.Render(o.PrevText()+" ")+prev+st.Muted.Render(" ("+change+")"),
		label+soFar+sep+st.Muted.Render(short+" by now ")+prev+st.Muted.Render(" ("+change+")"),
		label+so+sep+st.Muted.Render(change+" on "+short),
		label+so,
	)
}

// forecastLine is "       forecast $4,142.278 to 30 Nov · current rate
// $13.821/h + bandwidth $0.137/h", shorter as the width shrinks; while the
// first rate reading is on its way it says so.
func (m *Model) forecastLine(pad string, o billing.Outlook, w int) string {
	st := m.styles()
	f := st.Muted.Render("forecast ") + st.Bold.Render(o.Forecast.String())
	if o.Incomplete {
		f += " " + st.Warning.Render("(incomplete)")
	}
	to := st.Muted.Render(" to " + o.EndText())
	basis := st.Muted.Render(" · " + o.BasisText())
	why := ""
	if o.Basis == billing.BasisBurn && m.rate != nil && m.rate.NeedsPermission != "" {
		why = st.Muted.Render(" (no " + m.rate.NeedsPermission + ")")
	}
	short := " · " + o.PerHour.String() + ": rate + bandwidth"
	if o.Basis == billing.BasisBurn {
		short = " · " + o.PerHour.String() + ": last 7 days"
	}
	return shared.FirstFit(w,
		pad+f+to+basis+why,
		pad+f+to+basis,
		pad+f+to+st.Muted.Render(short),
		pad+f+st.Muted.Render(" ("+o.Basis+")"),
		pad+f,
	)
}

// budgetLine is "Budget ███████▒▒▒░░░ 74.9 % of $3,500.00 · heading over ·
// forecast crosses it on 29 Nov": the gauge in the level's colour, and the
// level in a word, so NO_COLOR loses nothing.
func (m *Model) budgetLine(o billing.Outlook, w int) string {
	st := m.styles()
	label := st.Bold.Render(shared.PadRight("Budget", labelW))
	lvl := o.Level()
	style := st.OK
	switch lvl {
	case billing.BudgetNear, billing.BudgetAhead:
		style = st.Warning
	case billing.BudgetOver:
		style = st.Error
	}
	used := billing.UsedText(o.Used)
	word := style.Render(lvl.String())
	sep := st.Muted.Render(" · ")
	tails := []string{
		" " + used + st.Muted.Render(" of "+o.Budget.Credit()) + sep + word + st.Muted.Render(crossTail(o)),
		" " + used + st.Muted.Render(" of "+o.Budget.Credit()) + sep + word,
		" " + used + sep + word,
	}
	for _, tail := range tails {
		if gw := min(w-labelW-shared.Width(tail)-1, gaugeMaxW); gw >= gaugeMinW {
			return label + gauge(o, gw, style, st.Muted) + tail
		}
	}
	return shared.FirstFit(w, label+strings.TrimPrefix(tails[1], " "), label+strings.TrimPrefix(tails[2], " "), label+word)
}

// crossTail is " · crossed on 5 Nov" or " · forecast crosses it on 27 Nov",
// "" when neither happens this month.
func crossTail(o billing.Outlook) string {
	if c := o.CrossText(); c != "" {
		return " · " + c
	}
	return ""
}

// gauge draws the budget in w cells: the spend so far full (█), the rest
// of the forecast shaded (▒), what is left of the budget light (░). A
// forecast past the budget fills it and ends in "»".
func gauge(o billing.Outlook, w int, fill, rest lipgloss.Style) string {
	over := o.ForecastUsed > billing.BudgetFull
	if over {
		w-- // for the »
	}
	cells := func(pm int64) int { return int(min(max(pm, 0)*int64(w)/billing.BudgetFull, int64(w))) }
	spent, ahead := cells(o.Used), cells(o.ForecastUsed)
	if o.Used > 0 && spent == 0 {
		spent = 1 // a sliver shows there is spend
	}
	ahead = max(ahead, spent)
	g := fill.Render(strings.Repeat("█", spent)+strings.Repeat("▒", ahead-spent)) + rest.Render(strings.Repeat("░", w-ahead))
	if over {
		g += fill.Render("»")
	}
	return g
}
