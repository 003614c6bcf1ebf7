// Package overview is the Overview screen of vastdash. It answers "how long
// will my credit last, and what is eating it?": the account's credit and
// low-balance threshold, the burn rate over the last 7 complete days and the
// last 24 hours, the runway that credit buys at that rate, a daily spend
// chart of the range stacked by contract type, the five most expensive
// contracts and the split by contract and charge type.
//
// The screen is a thin caller of the billing layer: it follows the charges
// feed of its range (shared with the Charges screen when both show the same
// range) and folds each page into small accumulators as it arrives instead
// of keeping the pages. When the range does not cover the burn window it
// follows that window's feed too, for the burn figures only. Paging, pacing,
// retries after a 429 and the restart after a refused page token are the
// feed's; the account arrives as a message (shared.UserMsg), the range is
// set by the root, which owns it (SetRange), and the runway leaves as a
// message (shared.RunwayMsg).
package overview

import (
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/access"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// topN is how many of the most expensive contracts the screen lists.
const topN = 5

// statusSource names the screen's status lines.
const statusSource = "overview"

// noteTTL is how long a note that needs nothing of the user stays.
const noteTTL = 5 * time.Second

// errNoService stands in for every load when the screen was built without
// a billing layer (a misconfigured test): a message rather than a panic.
var errNoService = shared.ErrNoService

// topEntry is one of the most expensive contracts: only what the list
// shows, so no page is kept for it.
type topEntry struct {
	source, label string // raw server text; sanitized when drawn
	kind          string // spend.ContractKind
	amount        money.Amount
}

// better orders the top list: larger amount first, then source.
func better(a, b topEntry) bool {
	if a.amount != b.amount {
		return a.amount > b.amount
	}
	return a.source < b.source
}

// insertTop keeps the topN best entries of top and e, in order.
func insertTop(top []topEntry, e topEntry) []topEntry {
	if len(top) == topN && !better(e, top[topN-1]) {
		return top
	}
	i := 0
	for i < len(top) && better(top[i], e) {
		i++
	}
	if len(top) < topN {
		top = append(top, topEntry{})
	}
	copy(top[i+1:], top[i:])
	top[i] = e
	return top
}

// burnFigures is a meter and the state of the feed that filled it: what
// the burn line and the runway are computed from.
type burnFigures struct {
	meter *billing.Meter
	st    billing.State
	own   bool // the burn window's own feed, not the range's
}

// Model is the Overview screen. It implements shared.Screen. Create it with
// New.
type Model struct {
	ctx           *shared.Context
	keys          KeyMap
	width, height int

	user    *api.User // from the last successful UserMsg
	userErr error     // why the account could not be read (no user yet)
	// rate is the last reading of what is billing now (rate.go), nil
	// before the first; rateErr why the latest reading failed (the last
	// good one stays on screen beside it).
	rate    *billing.CurrentRate
	rateErr error
	// audit is the last reading of the leaks (shared.AuditMsg), for the
	// one line that sends to the Audit screen; nil before the first.
	audit *leaks.Audit
	// access is what the key may do, probed at start; nil before.
	access *access.Access

	rng spend.Range
	// main follows the range's feed; nil before the first range. Its pages
	// are folded into totals, top and daily — unless held is set: then it
	// is the range's sync-only feed (billing.SyncFeed) and those figures
	// are read from the ledger after each sync (figures.go), no row of
	// the range held in memory.
	main   *shared.ChargesFollower
	held   bool
	fig    figRead
	totals spend.Totals
	labels *billing.Grouping // spend per label, the split users ask for by job
	top    []topEntry
	daily  *spend.Daily // bounded to the range's days (months, for a long range)
	cursor int          // index into top

	// meter measures the burn rate. It is fed from main when the range
	// covers the burn window, else from burn, the window's own feed.
	meter *billing.Meter
	burn  *shared.ChargesFollower
	// kept is the last complete measurement. It stands in while a new
	// range loads, as long as it measured the same day, so the figures do
	// not blank on every range change.
	kept *burnFigures

	// month is the month panel (month.go): its own feed and the outlook.
	month monthPanel

	// What was last said outside the screen's area, so each is said once
	// per change rather than on every message.
	sentRunway *shared.RunwayMsg
	sentStatus shared.StatusMsg

	// The last View, reused until something it shows changes: the root
	// redraws on every spinner tick.
	ver   int
	cache viewCache
}

var _ shared.Screen = (*Model)(nil)

// New returns the screen. Nothing is fetched until Init or SetRange.
func New(ctx *shared.Context) *Model {
	if ctx == nil {
		ctx = &shared.Context{}
	}
	m := &Model{
		ctx: ctx, keys: KeyMapOf(ctx.Keys),
		sentStatus: shared.StatusMsg{Source: statusSource}, // nothing to clear yet
	}
	return m
}

// Init starts loading the default range (ctx.DefaultRange, else 30d), the
// one the Charges screen starts with, unless the root set a range first
// (under the root it always has: this is the screen on its own).
func (m *Model) Init() tea.Cmd {
	if m.main != nil {
		return nil
	}
	preset := m.ctx.DefaultRange
	if preset == "" {
		preset = "30d"
	}
	r, err := billing.PresetRange(preset, m.ctx.Clock(), m.ctx.Loc())
	if err != nil {
		r, _ = billing.PresetRange("30d", m.ctx.Clock(), m.ctx.Loc())
	}
	return tea.Batch(m.setRange(r), m.announce())
}

// SetRange is the root setting the dashboard's range (the one the Charges
// screen shows): the screen loads it, and says what changed outside its
// area.
func (m *Model) SetRange(r spend.Range) tea.Cmd {
	return tea.Batch(m.setRange(r), m.announce())
}

// Shown does nothing: the screen loads from the start, shown or not.
func (m *Model) Shown(bool) tea.Cmd { return nil }

// setRange makes r the screen's range. A range of other days follows the
// feed of r (loading every page) and drops the old one; the same days (say
// "30d" relabelled) change only the title.
func (m *Model) setRange(r spend.Range) tea.Cmd {
	m.ver++
	if m.main != nil && r.From.Equal(m.rng.From) && r.To.Equal(m.rng.To) {
		m.rng = r
		return nil
	}
	m.rng = r
	if b := m.burnSource(); b != nil && b.st.Done && b.st.Err == nil {
		m.kept = b
	}
	return m.take(false)
}

// take follows the feeds of the range (and the burn window, when the range
// does not cover it) afresh: new accumulators, every page folded again.
// fresh asks the server again instead of sharing a loaded feed (r).
func (m *Model) take(fresh bool) tea.Cmd {
	svc := m.ctx.Billing
	old := m.main
	// A reload over the ledger keeps the figures shown until the ledger's
	// are read again, as a reload of a feed keeps its rows (stale).
	keep := fresh && m.held && m.fig.got && svc != nil && old != nil &&
		old.Feed().Query().Equal(billing.RangeQuery(m.rng.From, m.rng.To))
	m.main = nil
	if !keep {
		m.cursor = 0
		m.startFigures()
	}
	if svc == nil {
		m.stopFigures()
		m.held = false
		m.release(old)
		m.release(m.burn)
		m.burn, m.meter = nil, nil
		m.main = &shared.ChargesFollower{}
		m.main.Hold(nil) // stopped: no service to load with
		return nil
	}
	q := billing.RangeQuery(m.rng.From, m.rng.To)
	// The new feed is taken before the old is let go: a fresh one keeps
	// the old one's entries until the server answers (FreshFeed).
	synced := m.fig.synced
	m.stopFigures()
	m.held = svc.MayHold(q)
	if m.held {
		m.main = &shared.ChargesFollower{}
		m.main.Hold(svc.SyncFeed(q, fresh))
		if keep {
			m.fig.got, m.fig.gen, m.fig.synced = true, math.MaxUint64, synced // shown, and read again
		}
	} else {
		if keep {
			m.cursor = 0
			m.startFigures()
		}
		m.main = m.hold(q, fresh)
	}
	m.release(old)
	cmds := []tea.Cmd{m.want(m.main)}

	if svc.Covers(q) {
		m.release(m.burn)
		m.burn = nil
		if !keep || !m.held || m.meter == nil {
			m.meter = svc.NewMeter() // else the kept figures' until read again
		}
		return tea.Batch(cmds...)
	}
	bq := svc.BurnQuery()
	if m.burn != nil && !fresh && m.burn.Feed().Query().Equal(bq) {
		return tea.Batch(cmds...) // still the same window: keep what it measured
	}
	oldBurn := m.burn
	m.burn = m.hold(bq, fresh)
	m.release(oldBurn)
	m.meter = svc.NewMeter()
	return tea.Batch(append(cmds, m.want(m.burn))...)
}

// hold follows the feed of q.
func (m *Model) hold(q api.ChargesQuery, fresh bool) *shared.ChargesFollower {
	fl := &shared.ChargesFollower{}
	if fresh {
		fl.Hold(m.ctx.Billing.FreshFeed(q))
	} else {
		fl.Hold(m.ctx.Billing.Feed(q))
	}
	return fl
}

// release drops the screen's hold on fl's feed: its late messages are
// ignored from now on, since they no longer match a held feed.
func (m *Model) release(fl *shared.ChargesFollower) {
	if fl != nil {
		fl.Release()
	}
}

// want asks fl's feed for every page and listens for them.
func (m *Model) want(fl *shared.ChargesFollower) tea.Cmd {
	if fl == nil {
		return nil
	}
	fl.WantAll()
	return fl.Listen(m.ctx.Base) // a nil Base is the background
}

// follows lists the held feeds.
func (m *Model) follows() []*shared.ChargesFollower {
	var fs []*shared.ChargesFollower
	for _, fl := range []*shared.ChargesFollower{m.main, m.burn, m.month.fl} {
		if fl != nil {
			fs = append(fs, fl)
		}
	}
	return fs
}

// Update handles the account, the range, the feeds and the keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case shared.UserMsg:
		m.ver++
		if msg.Err != nil {
			m.userErr = msg.Err
		} else {
			u := msg.User
			m.user, m.userErr = &u, nil
		}
		cmd, _ = m.monthAgain()
	case shared.AccessMsg:
		m.ver++
		if msg.Err == nil {
			a := msg.Access
			m.access = &a
		}
	case shared.RateMsg:
		m.ver++
		m.rateErr = msg.Err
		if msg.Err == nil {
			r := msg.Rate
			m.rate = &r
		}
		cmd = m.rateForMonth()
	case shared.AuditMsg:
		if msg.Err == nil {
			m.ver++
			a := msg.Audit
			m.audit = &a
		}
	case shared.FeedMsg:
		cmd = m.onFeed(msg)
	case figuresMsg:
		cmd = m.onFigures(msg)
	case monthsMsg:
		cmd = m.onMonths(msg)
	case tea.KeyPressMsg:
		m.ver++
		cmd = m.onKey(msg)
	default:
		return nil // nothing the screen shows depends on it
	}
	return tea.Batch(cmd, m.announce())
}

// onFeed folds what a held feed has added since the last message, and
// listens again when the message answered this screen's own listener.
func (m *Model) onFeed(msg shared.FeedMsg) tea.Cmd {
	var cmds []tea.Cmd
	for _, fl := range m.follows() {
		if !fl.Heard(msg) {
			continue
		}
		pages, renewed, changed := fl.Next()
		switch {
		case fl == m.main && m.held:
			// Nothing to fold: the sync's state, and after it the
			// figures read from the ledger.
			m.ver++
			cmds = append(cmds, m.onSync())
		case fl == m.month.fl && m.month.held:
			m.ver++
			cmds = append(cmds, m.onMonthSync())
		case changed:
			m.ver++
			m.fold(fl, pages, renewed)
		}
		cmds = append(cmds, fl.Listen(m.ctx.Base))
	}
	return tea.Batch(append(cmds, m.startMonth())...)
}

// fold takes the pages fl took (Next) into the accumulators; renewed: the
// feed's entries were replaced, and pages start again from the first.
func (m *Model) fold(fl *shared.ChargesFollower, pages [][]api.Charge, renewed bool) {
	if renewed {
		m.refold(fl)
	}
	st := fl.State()
	meterFed := fl == m.burn || (fl == m.main && m.burn == nil)
	for _, p := range pages {
		sp := fl.Feed().Spreadable(p) // what the daily figures spread
		if fl == m.main {
			m.totals.Add(p)
			m.daily.Add(sp)
			m.labels.Add(p)
			for i := range p {
				e := &p[i]
				m.top = insertTop(m.top, topEntry{source: e.Source, label: e.Meta.Label, kind: spend.ContractKind(e), amount: e.Amount})
			}
		}
		if meterFed && m.meter != nil {
			m.meter.Add(sp)
		}
	}
	if meterFed && st.Whole() {
		m.kept = nil // the figures are this feed's now
	}
	if fl == m.month.fl {
		m.foldMonth(st)
	}
	m.cursor = min(m.cursor, max(len(m.top)-1, 0))
}

// startFigures empties what the range's feed is folded into: the totals,
// the top contracts, the chart and the split by label.
func (m *Model) startFigures() {
	m.totals, m.top = spend.Totals{}, nil
	// A range too long to chart by the day (a custom range reaching back
	// past ten years) is spread by the month, so no part of it is cut.
	m.daily = spend.NewPeriodWindow(m.ctx.Loc(), m.rng.From, m.rng.To, spend.PeriodFor(m.rng.From, m.rng.To, m.ctx.Loc()))
	m.labels = billing.NewGrouping(billing.ByLabel, m.ctx.Loc(), m.rng.From, m.rng.To)
}

// refold drops what was folded of fl's feed, whose entries were replaced
// as a whole (the ledger's rows read again after a sync brought something
// new): its pages are folded again from the first.
func (m *Model) refold(fl *shared.ChargesFollower) {
	if fl == m.main {
		m.startFigures()
	}
	if (fl == m.burn || (fl == m.main && m.burn == nil)) && m.ctx.Billing != nil {
		m.meter = m.ctx.Billing.NewMeter()
	}
}

// onKey moves the cursor among the top contracts, reveals one, or reloads.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(k, m.keys.Down):
		m.cursor = min(m.cursor+1, max(len(m.top)-1, 0))
	case key.Matches(k, m.keys.Top):
		m.cursor = 0
	case key.Matches(k, m.keys.Bottom):
		m.cursor = max(len(m.top)-1, 0)
	case key.Matches(k, m.keys.Find):
		// Five contracts need no finding: say where finding is, rather
		// than a key that does nothing.
		return shared.SetStatus(statusSource, shared.StatusInfo, "nothing to find on the Overview: "+m.ctx.Key("search")+" finds contracts on Charges ("+m.ctx.Key("charges")+") and payment records on the Statement ("+m.ctx.Key("statement")+")", noteTTL)
	case key.Matches(k, m.keys.Reveal):
		if m.cursor >= len(m.top) || m.top[m.cursor].source == "" {
			return nil
		}
		src := m.top[m.cursor].source
		return func() tea.Msg { return shared.RevealMsg{Source: src} }
	case key.Matches(k, m.keys.Reload):
		return m.reload()
	}
	return nil
}

// reload is r. After a failure it asks the failed feeds to go on, keeping
// what loaded. Otherwise, once nothing is loading, it loads everything
// afresh from the server.
func (m *Model) reload() tea.Cmd {
	var cmds []tea.Cmd
	failed := false
	for _, fl := range m.follows() {
		if fl.State().Err == nil || !fl.Held() {
			continue
		}
		failed = true
		fl.Retry()
		cmds = append(cmds, fl.Listen(m.ctx.Base))
	}
	if failed {
		return tea.Batch(cmds...)
	}
	if m.Loading() {
		return nil
	}
	if m.main == nil {
		return m.Init()
	}
	// The burn figures measured stay until the reload measures again (or
	// stay, stale, when it fails), as the rows loaded do.
	if b := m.burnSource(); b != nil && b.st.Done && b.st.Err == nil {
		m.kept = b
	}
	return tea.Batch(m.take(true), m.retakeMonth())
}

// burnSource is what the burn figures come from: the range's feed when it
// covers the window, else the window's own; until that one is complete,
// the last complete measurement of the same day. nil before any range.
func (m *Model) burnSource() *burnFigures {
	cur, own := m.main, false
	if m.burn != nil {
		cur, own = m.burn, true
	}
	if cur == nil || m.meter == nil {
		return nil
	}
	if !m.stateOf(cur).Whole() && m.kept != nil && sameDay(m.kept.meter.AsOf(), m.meter.AsOf()) {
		return m.kept
	}
	return &burnFigures{meter: m.meter, st: m.stateOf(cur), own: own}
}

// sameDay reports that two clocks fall on the same calendar day, so their
// burn windows are the same.
func sameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd && a.Location() == b.Location()
}

// estimate is the burn and runway figures of the account and the burn
// source (billing.EstimateFor, reasons included). b is nil before any
// range.
func (m *Model) estimate() (billing.Estimate, *burnFigures) {
	b := m.burnSource()
	if b == nil {
		return billing.EstimateFor(m.user, nil, billing.State{}, m.ctx.Clock()), nil
	}
	return billing.EstimateFor(m.user, b.meter, b.st, m.ctx.Clock()), b
}

// runway is how long the credit lasts; its Reason says why there is no
// estimate.
func (m *Model) runway() spend.Runway {
	e, _ := m.estimate()
	return e.Runway
}

// announce tells the root what changed outside the screen's area: the
// runway (which colours the header credit) and the status line, each only
// when it differs from what was last sent.
func (m *Model) announce() tea.Cmd {
	var cmds []tea.Cmd
	r := m.runway()
	rm := shared.RunwayMsg{Runway: r, OK: r.Reason == ""}
	if s := m.sentRunway; s == nil || !sameRunway(*s, rm) {
		m.sentRunway = &rm
		cmds = append(cmds, func() tea.Msg { return rm })
	}
	cmds = append(cmds, m.monthAlarm())
	if sm := m.status(); sm != m.sentStatus {
		m.sentStatus = sm
		cmds = append(cmds, shared.SetStatus(sm.Source, sm.Kind, sm.Text, sm.TTL))
	}
	return tea.Batch(cmds...)
}

func sameRunway(a, b shared.RunwayMsg) bool {
	return a.OK == b.OK && a.Runway.Tenths == b.Runway.Tenths && a.Runway.Until.Equal(b.Runway.Until) && a.Runway.Reason == b.Runway.Reason
}

// status is the screen's status line: why a load stopped (and that r goes
// on), a rate-limit wait, or what the feeds dropped. Text "" clears it.
func (m *Model) status() shared.StatusMsg {
	sm := shared.StatusMsg{Source: statusSource}
	var warns []string
	for _, fl := range m.follows() {
		st := m.stateOf(fl)
		switch {
		case st.Err != nil && sm.Kind != shared.StatusError:
			sm.Kind, sm.Text = shared.StatusError, m.errorText(st.Err)
		case st.Err == nil && st.Loading && !st.WaitUntil.IsZero() && sm.Text == "":
			sm.Kind, sm.Text = shared.StatusWarn, "rate limited: retrying shortly"
		}
		for _, w := range st.Warnings() {
			if !slices.Contains(warns, w) { // a shared cause, said once
				warns = append(warns, w)
			}
		}
	}
	if m.main != nil && !m.mainState().Overflow && m.totalsOverflow() {
		// A split overflowed though the feed's sum did not: say it in the
		// feed's words.
		warns = append(warns, billing.State{Overflow: true}.Warnings()...)
	}
	if len(warns) > 0 {
		if sm.Text == "" {
			sm.Kind, sm.Text = shared.StatusWarn, strings.Join(warns, "; ")
		} else {
			sm.Text += " · " + strings.Join(warns, "; ")
		}
	}
	return sm
}

// errorText says why charges stopped loading, sanitized, with how to go on
// (an unreachable server named with what to check).
func (m *Model) errorText(err error) string {
	if errors.Is(err, api.ErrPermission) {
		return billing.FailReason(err) + " · the credit still shows"
	}
	if errors.Is(err, errNoService) {
		return "charges: " + err.Error()
	}
	return m.ctx.RetryText("charges", err)
}

// totalsOverflow reports range totals that left what an amount can hold:
// they must read "too large to add up", never a wrapped figure.
func (m *Model) totalsOverflow() bool {
	return m.totals.Overflow || (m.main != nil && m.mainState().Overflow)
}

// SetSize sets the screen's area.
func (m *Model) SetSize(width, height int) { m.width, m.height = width, height }

// Help lists the screen's keys.
func (m *Model) Help() help.KeyMap { return m.keys }

// Capturing is false: the screen has no text field.
func (m *Model) Capturing() bool { return false }

// Loading reports a held feed loading: a request in flight or a rate-limit
// wait.
func (m *Model) Loading() bool {
	for _, fl := range m.follows() {
		if fl.Loading() {
			return true
		}
	}
	return m.fig.busy || m.month.read.busy
}

func (m *Model) styles() *theme.Styles {
	if m.ctx.Styles != nil {
		return m.ctx.Styles
	}
	return defaultStyles
}

var defaultStyles = theme.New(true)

// KeyMap holds the overview's bindings. It implements help.KeyMap; the
// root adds the global keys.
type KeyMap struct {
	Up, Down    key.Binding // move among the top contracts
	Top, Bottom key.Binding // the first / last of them
	Reveal      key.Binding // show the contract on the charges screen
	Reload      key.Binding // reload, or retry the failed page
	Find        key.Binding // says where finding is: nothing here to find
}

// KeyMapOf returns the overview's bindings as b binds them (nil: the
// defaults), from package keymap's one table; r is the root's reload key.
func KeyMapOf(b keymap.Bindings) KeyMap {
	return KeyMap{
		Up:     shared.Binding(b, "up"),
		Down:   shared.Binding(b, "down"),
		Top:    shared.BindingAs(b, "top", "first contract"),
		Bottom: shared.BindingAs(b, "bottom", "last contract"),
		Reveal: shared.Binding(b, "reveal"),
		Reload: shared.BindingAs(b, "reload", "reload"),
		Find:   shared.BindingAs(b, "search", "find: on Charges"),
	}
}

// ShortHelp lists every binding: there are few.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Up, k.Down, k.Reveal, k.Reload} }

// FullHelp lists every binding as one column.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom, k.Reveal, k.Reload, k.Find}}
}
