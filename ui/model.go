// Package ui is the root Bubble Tea model of vastdash: the header with the
// credit, the screen tabs, the one status line and the help line, and the
// routing of messages to the screens in ui/overview, ui/charges,
// ui/notifications and ui/statement.
//
// The root holds each screen as a typed field and owns what they share: the
// dashboard's range (the Charges screen's range picker chooses it; the root
// reads the choice after the key it routed there, keeps it and sets it on
// each screen that follows it, by its SetRange) and which screen is active
// (a screen hears of a switch, and only of a switch, by its Shown). Otherwise it talks to
// them with messages: the account (shared.UserMsg), the runway the Overview
// estimates (shared.RunwayMsg, which colours the header), feed changes
// (shared.FeedMsg) and status lines (shared.StatusMsg). Nothing is polled
// in View, and nothing ticks when nothing loads.
package ui

import (
	"context"
	"errors"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/access"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/accounts"
	"github.com/vastdash/vastdash/ui/audit"
	"github.com/vastdash/vastdash/ui/charges"
	"github.com/vastdash/vastdash/ui/notifications"
	"github.com/vastdash/vastdash/ui/overview"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/statement"
	"github.com/vastdash/vastdash/ui/theme"
)

// Options describe the session for the header.
type Options struct {
	// Host is shown in the header when it is not the default API host.
	Host string
	// Demo marks the embedded demo server: the header says DEMO.
	Demo bool
	// Theme is "auto" (follow the terminal's background), "dark" or "light".
	Theme string
	// Dark is the guess used until the terminal reports its background.
	Dark bool
	// NoMouse leaves the mouse to the terminal (the settings' mouse =
	// false), so its own text selection works; the zero value captures it.
	NoMouse bool
	// Refresh is how often the credit and the current rate are read again;
	// 0 reads them once (no timer at all).
	Refresh time.Duration
	// NoBell keeps the terminal bell quiet on an alarm (the settings' bell
	// = false); the status line still says it.
	NoBell bool
	// Notice is said on the status line at start (the sign-in's "signed
	// in; the key is saved to …").
	Notice string
	// Warning is said on the status line at start as a warning, until
	// another word replaces it (an account the Accounts screen chose that
	// could not be opened).
	Warning string
	// Access is what the key may do when the sign-in has just verified
	// it: the dashboard does not probe it again.
	Access *access.Access
	// Accounts, with two accounts or more in the settings, adds the
	// Accounts screen (key 0, the first tab): the roll-up, where enter
	// ends Run with a SwitchAccount for the caller to open. nil: none.
	Accounts *accounts.Options
}

// screenID names a screen; the tabs list them in this order.
type screenID int

const (
	screenOverview screenID = iota
	screenCharges
	screenPrefs
	screenStatement
	screenAudit
	numScreens
)

var screenNames = [numScreens]string{"Overview", "Charges", "Notifications", "Statement", "Audit"}

// screenAccounts is the Accounts screen, drawn only with Options.Accounts:
// first in the tabs, as its key 0 is, but after the others in the
// arrays indexed by the five.
const screenAccounts = numScreens

// screenName is the screen's name in its tab and the help.
func screenName(id screenID) string {
	if id == screenAccounts {
		return "Accounts"
	}
	return screenNames[id]
}

// Model is the root model.
type Model struct {
	ctx  *shared.Context
	opts Options

	overview      *overview.Model
	charges       *charges.Model
	notifications *notifications.Model
	stmt          *statement.Model
	audit         *audit.Model
	// accounts is the Accounts screen, nil without Options.Accounts;
	// switchTo the account its enter chose, which ends the program.
	accounts      *accounts.Model
	switchAccount string
	adding        bool // its + asked to add an account, which ends the program
	active        screenID
	// rng is the dashboard's range: the Charges screen's filters and the
	// Overview's figures show it, the Notifications' suggestion reads it.
	// It starts as the Charges filters were restored (the state file
	// remembers it per account, with the other filters).
	rng spend.Range

	width, height int
	// termW, termH is the terminal's real size when Run reports it
	// (terminalSizeMsg); above the bounds (tooLarge) width and height are
	// the one line drawn.
	termW, termH int
	keys         keyMap
	chrome       chromeCache
	spin         spinner.Model
	// helpOpen shows every key of the active screen in place of its body;
	// helpTop is the first line of the pane shown when it must scroll.
	helpOpen bool
	helpTop  int
	// spinning is set while a spinner tick is scheduled: the spinner runs
	// only while something loads, so an idle dashboard wakes for nothing.
	spinning bool

	user        *api.User // the last account record read
	userLoading bool
	userErr     error
	runway      shared.RunwayMsg

	// The one status line: the last StatusMsg, cleared by its TTL (the
	// sequence number tells a stale expiry from the current one).
	status    shared.StatusMsg
	statusSeq int
	// statusH is the lines the status line takes as the screens were last
	// laid out: a message longer than the line wraps (statusLineCount),
	// and the screens get the rest of the height.
	statusH int

	// waitUntil is when the last rate-limit wait the client reported ends;
	// until then the status line says so instead of looking stuck.
	waitUntil time.Time
	waitKind  api.EventKind

	// live is the current rate, the refresh and the alarms (live.go).
	live liveState
	// early is the account request Run sent before the terminal was set
	// up; Init waits for its answer instead of asking again.
	early *earlyAccount
	// accessAsked is set once the key's access was probed.
	accessAsked bool
	// stateNote says a state file that could not be read, as settings
	// errors are said (file:line: what is wrong); it stays on the status
	// line, before any passing word, until the next key.
	stateNote string
}

// New builds the dashboard with its three screens: Overview, Charges and
// Notifications.
func New(ctx *shared.Context, opts Options) *Model {
	if ctx.Styles == nil {
		ctx.Styles = theme.New(opts.Dark)
	}
	m := &Model{
		ctx:           ctx,
		opts:          opts,
		overview:      overview.New(ctx),
		charges:       charges.New(ctx),
		notifications: notifications.New(ctx),
		stmt:          statement.New(ctx),
		audit:         audit.New(ctx),
		active:        screenOverview,
		keys:          newKeyMap(ctx.Keys),
		spin:          spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		userLoading:   true,
	}
	if opts.Accounts != nil {
		m.accounts = accounts.New(ctx, *opts.Accounts)
	} else {
		m.keys.Accounts.SetEnabled(false) // no screen: 0 is nothing, not in the help
	}
	m.applyStyles()
	if ctx.StateErr != nil {
		m.stateNote = "state file ignored: " + ctx.StateErr.Error()
	}
	return m
}

// screen returns the screen id as the interface the root drives.
func (m *Model) screen(id screenID) shared.Screen {
	switch id {
	case screenCharges:
		return m.charges
	case screenPrefs:
		return m.notifications
	case screenStatement:
		return m.stmt
	case screenAudit:
		return m.audit
	case screenAccounts:
		if m.accounts != nil {
			return m.accounts
		}
	}
	return m.overview
}

// screens lists every screen, in tab order.
func (m *Model) screens() []shared.Screen {
	all := []shared.Screen{m.overview, m.charges, m.notifications, m.stmt, m.audit}
	if m.accounts != nil {
		all = append([]shared.Screen{m.accounts}, all...)
	}
	return all
}

// tabOrder lists the screens' ids in tab order: Accounts first when it is
// drawn.
func (m *Model) tabOrder() []screenID {
	ids := []screenID{screenOverview, screenCharges, screenPrefs, screenStatement, screenAudit}
	if m.accounts != nil {
		ids = append([]screenID{screenAccounts}, ids...)
	}
	return ids
}

// step is the screen n tabs from the active one, round the ends.
func (m *Model) step(n int) screenID {
	ids := m.tabOrder()
	at := 0
	for i, id := range ids {
		if id == m.active {
			at = i
		}
	}
	return ids[((at+n)%len(ids)+len(ids))%len(ids)]
}

// SwitchAccount is Run's answer when the user chose another account on
// the Accounts screen: the caller opens it and runs the dashboard again.
type SwitchAccount struct{ Name string }

func (s SwitchAccount) Error() string { return "switch to the account " + s.Name }

// SwitchTo is the account the Accounts screen's enter chose, which ended
// the program; "" when it ended otherwise.
func (m *Model) SwitchTo() string { return m.switchAccount }

// Adding reports that the Accounts screen asked to add an account, which
// ended the program: Run's answer is an AddAccount.
func (m *Model) Adding() bool { return m.adding }

// AddAccount is Run's answer when the user asked on the Accounts screen
// to add an account: the caller runs the sign-in screen for it, then the
// dashboard again.
type AddAccount struct{}

func (AddAccount) Error() string { return "add an account" }

// Init requests the account (under Run: hands over the answer of the
// request Run already sent), starts every screen's first load and asks the
// terminal for its background colour. Nothing waits on anything else: the
// credit shows as soon as the account arrives. The range is set on the
// screens that follow it before they start, so the Overview loads the
// Charges screen's range: both read one shared feed.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.fetchUser(), m.fetchRate(), m.fetchAudit(), m.setRange(m.charges.Range())}
	if m.early != nil {
		cmds[0] = m.early.cmd()
	}
	if m.opts.Notice != "" {
		cmds = append(cmds, shared.SetStatus("root", shared.StatusOK, m.opts.Notice, noticeTTL))
	}
	if m.opts.Warning != "" {
		cmds = append(cmds, shared.SetStatus("root", shared.StatusWarn, m.opts.Warning, 0))
	}
	if m.opts.Theme == "" || m.opts.Theme == "auto" {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	for _, s := range m.screens() {
		cmds = append(cmds, s.Init())
	}
	cmds = append(cmds, m.screen(m.active).Shown(true), m.spinCmd())
	return tea.Batch(cmds...)
}

// setRange makes r the dashboard's range and sets it on every screen that
// follows it; the same range again changes nothing.
func (m *Model) setRange(r spend.Range) tea.Cmd {
	if r.From.Equal(m.rng.From) && r.To.Equal(m.rng.To) && r.Preset == m.rng.Preset && r.Open == m.rng.Open {
		return nil
	}
	m.rng = r
	return tea.Batch(m.charges.SetRange(r), m.overview.SetRange(r), m.notifications.SetRange(r))
}

func (m *Model) fetchUser() tea.Cmd {
	svc, base := m.ctx.Billing, m.ctx.Base
	return func() tea.Msg { return accountMsg(base, svc) }
}

// accountMsg reads the account with svc: a shared.UserMsg.
func accountMsg(base context.Context, svc *billing.Service) tea.Msg {
	if svc == nil {
		return shared.UserMsg{Err: errors.New("no API client configured")}
	}
	u, err := svc.Account(base)
	return shared.UserMsg{User: u, Err: err}
}

// noticeTTL is how long the start's notice stays on the status line.
const noticeTTL = 10 * time.Second

// checkAccess probes what the key may do, once, around the first account
// read (u), for the Overview's up-front word on a lacking permission
// (shared.AccessMsg).
func (m *Model) checkAccess(u shared.UserMsg) tea.Cmd {
	svc, base := m.ctx.Billing, m.ctx.Base
	if svc == nil || m.accessAsked {
		return nil
	}
	m.accessAsked = true
	if known := m.opts.Access; known != nil {
		return func() tea.Msg { return shared.AccessMsg{Access: *known} }
	}
	return func() tea.Msg {
		a, err := access.ProbeWith(base, svc, u.User, u.Err)
		return shared.AccessMsg{Access: a, Err: err}
	}
}

// waitMsg carries a pacing or retry event from the client's observer.
type waitMsg api.Event

// waitDoneMsg clears the rate-limit note once its wait is over.
type waitDoneMsg struct{ until time.Time }

// statusExpiredMsg ends the status line of sequence seq.
type statusExpiredMsg struct{ seq int }

// Update routes messages, then starts the spinner if something began
// loading.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	cmd = tea.Batch(cmd, m.liveUpdate(msg), m.spinCmd())
	if m.statusLineCount() != m.statusH && !m.tooLarge() {
		m.layout() // a long message came or went: the screens get the rest
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case terminalSizeMsg:
		m.termW, m.termH = msg.Width, msg.Height
		return nil

	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		if m.tooLarge() {
			// One line is drawn: the screens keep the size they had
			// rather than lay out (and allocate for) a screen nobody sees.
			return nil
		}
		m.layout()
		return m.broadcast(msg)

	case tea.BackgroundColorMsg:
		if m.opts.Theme == "" || m.opts.Theme == "auto" {
			m.opts.Dark = msg.IsDark()
			m.ctx.Styles = theme.New(m.opts.Dark)
			m.applyStyles()
		}
		return nil

	case tea.KeyPressMsg:
		m.stateNote = ""
		return m.handleKey(msg)

	case tea.MouseMsg:
		return m.mouse(msg)

	case spinner.TickMsg:
		if !m.loading() {
			m.spinning = false // nothing loads: let the ticks stop
			return nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return cmd

	case waitMsg:
		if msg.Kind == api.EventPacing {
			// Regular pacing is how every multi-page load goes: the
			// spinner says it is loading, and a note read as a problem.
			return nil
		}
		until := time.Now().Add(msg.Wait)
		if until.After(m.waitUntil) {
			m.waitUntil, m.waitKind = until, msg.Kind
		}
		return shared.After(m.ctx.Base, msg.Wait, waitDoneMsg{until: until})

	case waitDoneMsg:
		if !msg.until.Before(m.waitUntil) {
			m.waitUntil = time.Time{}
		}
		return nil

	case shared.StatusMsg:
		return m.setStatus(msg)

	case shared.AlarmMsg:
		return m.alarm(msg)

	case statusExpiredMsg:
		if msg.seq == m.statusSeq {
			m.status = shared.StatusMsg{}
		}
		return nil

	case shared.RunwayMsg:
		m.runway = msg
		return nil

	case accounts.SwitchMsg:
		if msg.Name == m.opts.Accounts.Current {
			return m.switchTo(screenOverview) // already open: its figures are here
		}
		m.switchAccount = msg.Name
		return tea.Quit

	case accounts.AddMsg:
		m.adding = true
		return tea.Quit

	case shared.RevealMsg:
		// Only the charges screen can show a contract; the others need
		// not hear of it.
		return tea.Batch(m.switchTo(screenCharges), m.charges.RevealOf(msg))

	case shared.UserMsg:
		m.userLoading = false
		m.userErr = msg.Err
		if msg.Err == nil {
			u := msg.User
			m.user = &u
		}
		return tea.Batch(m.broadcast(msg), m.checkAccess(msg))
	}
	return m.broadcast(msg)
}

// setStatus shows msg on the status line. An empty text clears the line
// only if it still holds a message of the same source, so one screen's
// "all good" cannot hide another's error.
func (m *Model) setStatus(msg shared.StatusMsg) tea.Cmd {
	if msg.Text == "" {
		if m.status.Source == msg.Source {
			m.status = shared.StatusMsg{}
			m.statusSeq++
		}
		return nil
	}
	m.status = msg
	m.statusSeq++
	if msg.TTL <= 0 {
		return nil
	}
	seq := m.statusSeq
	return shared.After(m.ctx.Base, msg.TTL, statusExpiredMsg{seq: seq})
}

// broadcast hands a message to every screen.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	screens := m.screens()
	cmds := make([]tea.Cmd, len(screens))
	for i, s := range screens {
		cmds[i] = s.Update(msg)
	}
	return tea.Batch(cmds...)
}

// spinCmd starts the spinner when something loads and it is not running.
func (m *Model) spinCmd() tea.Cmd {
	if m.spinning || !m.loading() {
		return nil
	}
	m.spinning = true
	return m.spin.Tick
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.ForceQuit) {
		return tea.Quit
	}
	if m.tooLarge() {
		// Nothing else is drawn: a key would act where nobody sees it
		// (a toggle saves at once).
		if key.Matches(msg, m.keys.Quit) {
			return tea.Quit
		}
		return nil
	}
	cur := m.screen(m.active)
	if cur.Capturing() {
		return m.route(msg)
	}
	if m.helpOpen {
		return m.helpKey(msg)
	}
	switch {
	case key.Matches(msg, m.keys.Quit):
		return tea.Quit
	case key.Matches(msg, m.keys.Help):
		m.helpOpen, m.helpTop = true, 0
		return nil
	case key.Matches(msg, m.keys.Next):
		return m.switchTo(m.step(1))
	case key.Matches(msg, m.keys.Prev):
		return m.switchTo(m.step(-1))
	case m.accounts != nil && key.Matches(msg, m.keys.Accounts):
		return m.switchTo(screenAccounts)
	case key.Matches(msg, m.keys.Screens[:]...):
		id, _ := m.keys.screenKey(msg)
		return m.switchTo(id)
	case key.Matches(msg, m.keys.Reload):
		// The credit is in the header of every screen, so r re-reads it
		// wherever it is pressed, and the screen still reloads its own.
		return tea.Batch(m.reloadUser(), m.reloadRate(), m.reloadAudit(), m.route(msg))
	}
	return m.route(msg)
}

// route hands a key or a click to the active screen. On the Charges screen
// it may be the range picker's: the range it chose becomes the dashboard's
// at once, read in the same update, so a quick second choice cannot be
// overtaken by the first.
func (m *Model) route(msg tea.Msg) tea.Cmd {
	cmd := m.screen(m.active).Update(msg)
	if m.active == screenCharges {
		cmd = tea.Batch(cmd, m.setRange(m.charges.Range()))
	}
	return cmd
}

// mouse handles a mouse message: a click on a tab switches to it; the
// wheel scrolls the help pane while it is open; the rest goes to the active
// screen with Y counted from the top of its area, so a screen finds the row
// under a click without knowing the chrome above it. Clicks, releases and
// motion outside the screen's area are dropped; the wheel goes to the
// screen wherever it turns.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.tooLarge() {
		return nil
	}
	ev := msg.Mouse()
	if click, ok := msg.(tea.MouseClickMsg); ok && click.Button == tea.MouseLeft && m.height >= minHeightTabs && ev.Y == 1 {
		if id, ok := m.tabAt(ev.X); ok {
			return m.switchTo(id)
		}
		return nil
	}
	if wheel, ok := msg.(tea.MouseWheelMsg); ok && m.helpOpen {
		switch wheel.Button {
		case tea.MouseWheelUp:
			m.scrollHelp(-3)
		case tea.MouseWheelDown:
			m.scrollHelp(3)
		}
		return nil
	}
	if m.helpOpen {
		return nil // the help covers the screen
	}
	if out, ok := m.bodyMouse(msg); ok {
		return m.route(out)
	}
	return nil
}

// bodyMouse is msg as the active screen gets it, Y counted from the top of
// its area; false for a click, release or motion outside that area.
func (m *Model) bodyMouse(msg tea.MouseMsg) (tea.Msg, bool) {
	ev := msg.Mouse()
	ev.Y -= m.topHeight()
	inside := ev.Y >= 0 && ev.Y < m.bodyHeight()
	switch msg.(type) {
	case tea.MouseWheelMsg:
		return tea.MouseWheelMsg(ev), true
	case tea.MouseClickMsg:
		return tea.MouseClickMsg(ev), inside
	case tea.MouseReleaseMsg:
		return tea.MouseReleaseMsg(ev), inside
	case tea.MouseMotionMsg:
		return tea.MouseMotionMsg(ev), inside
	}
	return nil, false
}

// reloadUser reads the account again unless a read is already in flight.
func (m *Model) reloadUser() tea.Cmd {
	if m.userLoading {
		return nil
	}
	m.userLoading = true
	return m.fetchUser()
}

// helpKey handles a key while the help pane is open: it takes the keyboard
// (a key meant for the hidden screen would act where the user cannot see),
// except that the screen keys switch screens and the pane follows.
func (m *Model) helpKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.HelpClose):
		m.helpOpen = false
	case key.Matches(msg, m.keys.Quit):
		return tea.Quit
	case key.Matches(msg, m.keys.HelpUp):
		m.scrollHelp(-1)
	case key.Matches(msg, m.keys.HelpDown):
		m.scrollHelp(1)
	case key.Matches(msg, m.keys.HelpPageUp):
		m.scrollHelp(-max(m.bodyHeight()-2, 1))
	case key.Matches(msg, m.keys.HelpPageDn):
		m.scrollHelp(max(m.bodyHeight()-2, 1))
	case key.Matches(msg, m.keys.HelpTop):
		m.helpTop = 0
	case key.Matches(msg, m.keys.HelpBottom):
		m.scrollHelp(1 << 20)
	case key.Matches(msg, m.keys.Next):
		return m.switchTo(m.step(1))
	case key.Matches(msg, m.keys.Prev):
		return m.switchTo(m.step(-1))
	case m.accounts != nil && key.Matches(msg, m.keys.Accounts):
		return m.switchTo(screenAccounts)
	case key.Matches(msg, m.keys.Screens[:]...):
		id, _ := m.keys.screenKey(msg)
		return m.switchTo(id)
	}
	return nil
}

// scrollHelp moves the help pane by n lines, within its content.
func (m *Model) scrollHelp(n int) {
	m.helpTop = min(max(m.helpTop+n, 0), m.helpMaxTop())
}

// switchTo makes id the active screen and tells the screens of the switch
// (Shown): the one left, then the one shown, which may start loading.
func (m *Model) switchTo(id screenID) tea.Cmd {
	if !(id >= 0 && id < numScreens || id == screenAccounts && m.accounts != nil) {
		return nil
	}
	m.helpTop = 0
	if id == m.active {
		m.layout()
		return nil
	}
	left := m.screen(m.active)
	m.active = id
	m.layout()
	return tea.Batch(left.Shown(false), m.screen(id).Shown(true))
}

// loading reports whether anything is in flight, for the header spinner.
func (m *Model) loading() bool {
	if m.liveLoading() {
		return true
	}
	for _, s := range m.screens() {
		if s.Loading() {
			return true
		}
	}
	return false
}

// userRejected reports that the key itself was refused: the status line
// says so, once, with what to do (the header too when there is no status
// line), and no screen repeats it or offers a retry.
func (m *Model) userRejected() bool { return shared.Refused(m.userErr) }

func (m *Model) applyStyles() {
	m.spin.Style = m.ctx.Styles.Accent
}

// topHeight is the lines above the screen: the header, and the tabs when
// the terminal is tall enough for them.
func (m *Model) topHeight() int {
	if m.height >= minHeightTabs {
		return 2
	}
	return 1
}

// chromeHeight is the lines taken by header, tabs, status and help; on
// short terminals the tabs, then status and help, give way to the screen.
// The help line is always one line (the full help opens in the body), so
// opening it never resizes the screens.
func (m *Model) chromeHeight() int {
	h := m.topHeight()
	if m.height >= minHeightFooter {
		h += max(m.statusH, 1) + 1
	}
	return h
}

// bodyHeight is the height of the screen's area.
func (m *Model) bodyHeight() int { return max(m.height-m.chromeHeight(), 0) }

func (m *Model) layout() {
	m.statusH = m.statusLineCount()
	h := m.bodyHeight()
	for _, s := range m.screens() {
		s.SetSize(m.width, h)
	}
}

// tooLarge reports a terminal above the bounds the dashboard draws in,
// whether Run reported it or a WindowSizeMsg gave it.
func (m *Model) tooLarge() bool {
	return tooLarge(m.termW, m.termH) || tooLarge(m.width, m.height)
}

// runwayShort reports a runway estimate under billing's low mark.
func (m *Model) runwayShort() bool {
	return m.runway.OK && m.runway.Runway.Tenths < billing.LowRunwayTenths
}
