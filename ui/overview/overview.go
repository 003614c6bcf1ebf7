// Package overview is the Overview screen of vastdash. It answers "how long
// will my credit last, and what is eating it?": the account's credit and
// low-balance threshold, the burn rate over the last 7 complete days and the
// last 24 hours, the runway that credit buys at that rate, a daily spend
// chart of the range stacked by contract type, the five most expensive
// contracts and the split by contract and charge type.
//
// The screen loads every page of its range itself, in the background, one
// page per tea.Cmd (the client paces them), folding each page into small
// accumulators as it arrives instead of keeping the pages. When the range
// does not cover the last 7 complete days it loads that window too, for the
// burn figures only. The account arrives as a shared.UserMsg.
package overview

import (
	"context"
	"errors"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// pageLimit is the page size of every query: the server's maximum, and the
// one the charges screen uses, so an api page cache serves both.
const pageLimit = 500

// topN is how many of the most expensive contracts the screen lists.
const topN = 5

// defaultRateWait is how long to wait after a 429 the client gave up on
// when the server named no threshold: the documented charges threshold.
const defaultRateWait = time.Second

// pageSource is what the screen needs of an *api.Pager.
type pageSource = shared.PageSource

// pageMsg is the answer to one Next call of the load with generation gen.
type pageMsg struct {
	gen   int
	page  api.ChargesPage
	err   error
	done  bool
	total int
}

// retryMsg fires when a rate-limit wait of the load gen is over.
type retryMsg struct{ gen int }

// topEntry is one of the most expensive contracts: only what the list
// shows, so no page is kept for it.
type topEntry struct {
	source, label string // raw server text; sanitized when drawn
	kind          string // spend.ContractKind
	amount        money.Amount
}

// load pages one query to the end and folds what arrives.
type load struct {
	gen    int
	q      api.ChargesQuery
	ctx    context.Context
	cancel context.CancelFunc
	pager  pageSource

	inflight bool
	done     bool
	waiting  bool // rate limited; a retryMsg is scheduled
	err      error

	pages     int // pages received
	total     int // the server's count of matching contracts, -1 unknown
	contracts int // contracts received
	skipped   int // malformed entries the client dropped
	// restarted marks a load that replaced one whose page token the server
	// refused; a second refusal stops it (r retries) instead of looping.
	restarted bool

	asOf  time.Time // the clock when the load started, in the screen's location
	daily *spend.Daily
	win   *spend.Window // the 24 hours before asOf

	// Range load only.
	totals spend.Totals
	top    []topEntry
}

// fold adds a page's entries to the accumulators.
func (l *load) fold(res []api.Charge, withTotals bool) {
	l.daily.Add(res)
	l.win.Add(res)
	if !withTotals {
		return
	}
	l.totals.Add(res)
	for i := range res {
		e := &res[i]
		l.top = insertTop(l.top, topEntry{source: e.Source, label: e.Meta.Label, kind: spend.ContractKind(e), amount: e.Amount})
	}
}

// pagesTotal is the number of pages the query has, once the server said
// how many contracts match: ⌈total/limit⌉ (never fewer than received).
func (l *load) pagesTotal() int {
	if l.total < 0 {
		return -1
	}
	return max((l.total+pageLimit-1)/pageLimit, l.pages)
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

// Model is the Overview screen. It implements shared.Screen. Create it with
// New.
type Model struct {
	ctx           *shared.Context
	keys          KeyMap
	width, height int

	user    *api.User // from the last successful UserMsg
	userErr error     // why the account could not be read (no user yet)

	rng  spend.Range
	main *load // the range; nil before the first SetRange
	burn *load // the burn window, when the range does not cover it
	// kept is the last complete load the burn figures came from. It
	// stands in while a new range loads, as long as it measured the same
	// window, so the figures do not blank on every range change.
	kept *load
	gen  int // last generation handed out

	cursor int // index into main.top

	// The last View, reused until something it shows changes: the root
	// redraws on every spinner tick.
	ver   int
	cache viewCache

	newPager func(api.ChargesQuery) pageSource
	// after schedules msg after d; tests replace it to see ticks without
	// waiting for them.
	after func(d time.Duration, msg tea.Msg) tea.Cmd
}

var _ shared.Screen = (*Model)(nil)

// New returns the screen. Nothing is fetched until Init or SetRange.
func New(ctx *shared.Context) *Model {
	if ctx == nil {
		ctx = &shared.Context{}
	}
	m := &Model{ctx: ctx, keys: DefaultKeyMap()}
	m.newPager = ctx.Pager
	m.after = func(d time.Duration, msg tea.Msg) tea.Cmd {
		return tea.Tick(d, func(time.Time) tea.Msg { return msg })
	}
	return m
}

// Init starts loading the default range (ctx.DefaultRange, else 30d), the
// one the charges screen starts with, unless SetRange came first.
func (m *Model) Init() tea.Cmd {
	if m.main != nil {
		return nil
	}
	preset := m.ctx.DefaultRange
	if preset == "" {
		preset = "30d"
	}
	r, err := spend.PresetRange(preset, m.ctx.Clock(), m.ctx.Loc())
	if err != nil {
		r, _ = spend.PresetRange("30d", m.ctx.Clock(), m.ctx.Loc())
	}
	return m.SetRange(r)
}

// SetRange makes r the screen's range; the root calls it whenever the
// charges screen's range changes. A range of other days starts a new load
// of every page of r: the old one's request is cancelled and its late
// answers are dropped. The same days (say "30d" relabelled) change only the
// title.
func (m *Model) SetRange(r spend.Range) tea.Cmd {
	m.ver++
	if m.main != nil && r.From.Equal(m.rng.From) && r.To.Equal(m.rng.To) {
		m.rng = r
		return nil
	}
	m.rng = r
	if src := m.burnSource(); src != nil && src.done && src.err == nil {
		m.kept = src
	}
	m.stop(m.main)
	m.main = m.start(rangeQuery(r.From, r.To))
	m.cursor = 0
	return tea.Batch(m.fetch(m.main), m.planBurn())
}

// Range returns the range the screen shows.
func (m *Model) Range() spend.Range { return m.rng }

func rangeQuery(from, to time.Time) api.ChargesQuery {
	return api.ChargesQuery{From: from, To: to, Format: api.FormatTable, Limit: pageLimit}
}

// burnWindow is what the burn figures need: the 7 complete days before
// today and today so far (the last 24 h), as a query range ending with
// today, so it stays the same query all day.
func burnWindow(now time.Time) (from, to time.Time) {
	y, mo, d := now.Date()
	today := time.Date(y, mo, d, 0, 0, 0, 0, now.Location())
	return today.AddDate(0, 0, -7), today.AddDate(0, 0, 1).Add(-time.Second)
}

// planBurn starts (or keeps, or drops) the burn window's own load: needed
// only when the range does not cover the window up to now.
func (m *Model) planBurn() tea.Cmd {
	now := m.main.asOf
	from, to := burnWindow(now)
	if !m.rng.From.After(from) && !m.rng.To.Before(now) {
		m.stop(m.burn)
		m.burn = nil
		return nil
	}
	q := rangeQuery(from, to)
	if m.burn != nil && m.burn.q.Equal(q) {
		return nil // still the same window: keep what it loaded
	}
	m.stop(m.burn)
	m.burn = m.start(q)
	return m.fetch(m.burn)
}

// start makes a load of q in a new generation.
func (m *Model) start(q api.ChargesQuery) *load {
	m.gen++
	base := m.ctx.Base
	if base == nil {
		base = context.Background()
	}
	ctx, cancel := context.WithCancel(base)
	now := m.ctx.Clock().In(m.ctx.Loc())
	return &load{
		gen: m.gen, q: q, ctx: ctx, cancel: cancel, pager: m.newPager(q),
		total: -1, asOf: now, daily: spend.NewDaily(m.ctx.Loc()), win: spend.Last24h(now),
	}
}

// stop cancels l's request; its answer will be dropped by generation.
func (m *Model) stop(l *load) {
	if l != nil && l.cancel != nil {
		l.cancel()
	}
}

// loads lists the live loads.
func (m *Model) loads() []*load {
	var ls []*load
	for _, l := range []*load{m.main, m.burn} {
		if l != nil {
			ls = append(ls, l)
		}
	}
	return ls
}

// fetch asks for l's next page unless one is in flight, none is left, or
// the last one failed (then r, or the rate-limit retry, asks again).
func (m *Model) fetch(l *load) tea.Cmd {
	if l == nil || l.inflight || l.done || l.err != nil || l.waiting {
		return nil
	}
	l.inflight = true
	p, ctx, gen := l.pager, l.ctx, l.gen
	return func() tea.Msg {
		page, err := p.Next(ctx)
		return pageMsg{gen: gen, page: page, err: err, done: p.Done(), total: p.Total()}
	}
}

// loadOf finds the live load of generation gen.
func (m *Model) loadOf(gen int) *load {
	for _, l := range m.loads() {
		if l.gen == gen {
			return l
		}
	}
	return nil
}

// Update handles the account, the pages and the keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg.(type) {
	case shared.UserMsg, pageMsg, retryMsg, tea.KeyPressMsg:
		m.ver++ // what View shows may change
	}
	switch msg := msg.(type) {
	case shared.UserMsg:
		if msg.Err != nil {
			m.userErr = msg.Err
			return nil
		}
		u := msg.User
		m.user, m.userErr = &u, nil
	case pageMsg:
		return m.onPage(msg)
	case retryMsg:
		if l := m.loadOf(msg.gen); l != nil && l.waiting {
			l.waiting, l.err = false, nil
			return m.fetch(l)
		}
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	return nil
}

// onPage folds an answer into its load and asks for the next page.
func (m *Model) onPage(msg pageMsg) tea.Cmd {
	l := m.loadOf(msg.gen)
	if l == nil {
		return nil // a range no longer shown
	}
	l.inflight = false
	if msg.err != nil {
		if errors.Is(msg.err, api.ErrPagerDone) {
			l.done = true
			return nil
		}
		if l.ctx.Err() != nil {
			return nil // cancelled: the program is quitting
		}
		l.err = msg.err
		if errors.Is(msg.err, api.ErrRateLimited) {
			// The client has already waited and retried; keep trying,
			// slowly, rather than give up on a busy server.
			wait := defaultRateWait
			var ae *api.Error
			if errors.As(msg.err, &ae) && ae.Threshold > 0 {
				wait = ae.Threshold
			}
			l.waiting = true
			return m.after(wait, retryMsg{gen: l.gen})
		}
		if errors.Is(msg.err, api.ErrInvalidToken) && !l.restarted {
			// The pager cannot resume: load the query again from the
			// first page with empty accumulators, so nothing counts twice.
			return m.restartLoad(l)
		}
		return nil
	}
	l.err = nil
	l.done = msg.done
	l.total = msg.total
	l.pages++
	l.skipped += msg.page.Skipped
	l.contracts += len(msg.page.Results)
	l.fold(msg.page.Results, l == m.main)
	if l.done && m.burnSource() == l {
		m.kept = nil // the figures are this load's now
	}
	m.cursor = min(m.cursor, max(len(m.main.top)-1, 0))
	return m.fetch(l)
}

// restartLoad replaces l by a fresh load of the same query, from the first
// page with empty accumulators.
func (m *Model) restartLoad(l *load) tea.Cmd {
	fresh := m.start(l.q)
	fresh.restarted = true
	m.stop(l)
	if l == m.main {
		m.main, m.cursor = fresh, 0
	} else {
		m.burn = fresh
	}
	return m.fetch(fresh)
}

// onKey moves the cursor among the top contracts, reveals one, or reloads.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(k, m.keys.Down):
		if m.main != nil {
			m.cursor = min(m.cursor+1, max(len(m.main.top)-1, 0))
		}
	case key.Matches(k, m.keys.Reveal):
		if m.main == nil || m.cursor >= len(m.main.top) || m.main.top[m.cursor].source == "" {
			return nil
		}
		src := m.main.top[m.cursor].source
		return func() tea.Msg { return shared.RevealMsg{Source: src} }
	case key.Matches(k, m.keys.Reload):
		return m.reload()
	}
	return nil
}

// reload is r. After a failure it asks for the failed page again, keeping
// what loaded (a stale token starts that query over). Otherwise, once
// nothing is loading, it loads everything afresh.
func (m *Model) reload() tea.Cmd {
	var cmds []tea.Cmd
	failed := false
	for _, l := range m.loads() {
		if l.err == nil {
			continue
		}
		failed = true
		if errors.Is(l.err, api.ErrInvalidToken) {
			cmds = append(cmds, m.restartLoad(l))
			continue
		}
		l.err, l.waiting = nil, false
		cmds = append(cmds, m.fetch(l))
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
	m.stop(m.main)
	m.stop(m.burn)
	m.main, m.burn, m.kept = nil, nil, nil
	return m.SetRange(m.rng)
}

// burnSource is the load the burn figures come from: the range when it
// covers the window, else the window's own load; until that one is
// complete, the last complete load of the same window.
func (m *Model) burnSource() *load {
	cur := m.main
	if m.burn != nil {
		cur = m.burn
	}
	if cur != nil && !cur.done && m.kept != nil && sameDay(m.kept.asOf, cur.asOf) {
		return m.kept
	}
	return cur
}

// sameDay reports that two clocks fall on the same calendar day, so their
// burn windows are the same.
func sameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd && a.Location() == b.Location()
}

// Runway is credit ÷ the 7-day burn rate (spend.RunwayFor). ok is false
// while there is no estimate (account or charges still loading, a failed
// load, no spend, no credit); the Runway's Reason then says why. The root
// colours the header credit by it.
func (m *Model) Runway() (spend.Runway, bool) {
	r := m.runway()
	return r, r.Reason == ""
}

func (m *Model) runway() spend.Runway {
	u := m.account()
	if u == nil {
		return spend.Runway{Reason: "account not loaded yet"}
	}
	src := m.burnSource()
	switch {
	case u.Credit <= 0:
		return spend.RunwayFor(u.Credit, spend.Burn{}, false, m.ctx.Clock())
	case src == nil:
		return spend.Runway{Reason: "charges still loading"}
	case src.err != nil && !src.done:
		return spend.Runway{Reason: failReason(src.err)}
	}
	return spend.RunwayFor(u.Credit, spend.BurnWeek(src.daily, src.asOf), src.done, src.asOf)
}

// failReason says briefly why charges are missing.
func failReason(err error) string {
	if errors.Is(err, api.ErrPermission) {
		return "this API key lacks the billing_read permission"
	}
	return "charges could not be loaded"
}

// SetSize sets the screen's area.
func (m *Model) SetSize(width, height int) { m.width, m.height = width, height }

// Help lists the screen's keys.
func (m *Model) Help() help.KeyMap { return m.keys }

// Capturing is false: the screen has no text field.
func (m *Model) Capturing() bool { return false }

// Loading reports a page in flight, or a rate-limit retry waiting.
func (m *Model) Loading() bool {
	for _, l := range m.loads() {
		if l.inflight || l.waiting {
			return true
		}
	}
	return false
}

// account is the record to show: the root's copy in the context first,
// else the one this screen received.
func (m *Model) account() *api.User {
	if m.ctx.User != nil {
		return m.ctx.User
	}
	return m.user
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
	Up, Down key.Binding // move among the top contracts
	Reveal   key.Binding // show the contract on the charges screen
	Reload   key.Binding // reload, or retry the failed page
}

// DefaultKeyMap returns the overview's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:     key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("↓/j", "down")),
		Reveal: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "show in charges")),
		Reload: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload/retry")),
	}
}

// ShortHelp lists every binding: there are few.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Up, k.Down, k.Reveal, k.Reload} }

// FullHelp lists every binding as one column.
func (k KeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }
