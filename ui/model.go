// Package ui is the root Bubble Tea model of vastdash: the header with the
// credit, the screen tabs, the one status line and the help line, and the
// routing of messages to the screens in ui/overview, ui/charges and
// ui/prefs.
//
// The root holds each screen as a typed field and talks to them only with
// messages: the account (shared.UserMsg), the range the Charges screen shows
// (shared.RangeMsg, which the Overview follows), the runway the Overview
// estimates (shared.RunwayMsg, which colours the header), feed changes
// (shared.FeedMsg) and status lines (shared.StatusMsg). Nothing is polled in
// View, and nothing ticks when nothing loads.
package ui

import (
	"errors"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui/charges"
	"github.com/vastdash/vastdash/ui/overview"
	"github.com/vastdash/vastdash/ui/prefs"
	"github.com/vastdash/vastdash/ui/shared"
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
}

// screenID names a screen; the tabs list them in this order.
type screenID int

const (
	screenOverview screenID = iota
	screenCharges
	screenPrefs
	numScreens
)

var screenNames = [numScreens]string{"Overview", "Charges", "Notifications"}

// Model is the root model.
type Model struct {
	ctx  *shared.Context
	opts Options

	overview *overview.Model
	charges  *charges.Model
	prefs    *prefs.Model
	active   screenID

	width, height int
	keys          keyMap
	help          help.Model
	spin          spinner.Model
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

	// waitUntil is when the last rate-limit wait the client reported ends;
	// until then the status line says so instead of looking stuck.
	waitUntil time.Time
	waitKind  api.EventKind
}

// New builds the dashboard with its three screens: Overview, Charges and
// Notifications.
func New(ctx *shared.Context, opts Options) *Model {
	if ctx.Styles == nil {
		ctx.Styles = theme.New(opts.Dark)
	}
	m := &Model{
		ctx:         ctx,
		opts:        opts,
		overview:    overview.New(ctx),
		charges:     charges.New(ctx),
		prefs:       prefs.New(ctx),
		active:      screenOverview,
		keys:        newKeyMap(),
		help:        help.New(),
		spin:        spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		userLoading: true,
	}
	m.applyStyles()
	return m
}

// screen returns the screen id as the interface the root drives.
func (m *Model) screen(id screenID) shared.Screen {
	switch id {
	case screenCharges:
		return m.charges
	case screenPrefs:
		return m.prefs
	}
	return m.overview
}

// screens lists every screen, in tab order.
func (m *Model) screens() [numScreens]shared.Screen {
	return [numScreens]shared.Screen{m.overview, m.charges, m.prefs}
}

// Init requests the account, starts every screen's first load and asks the
// terminal for its background colour. Nothing waits on anything else: the
// credit shows as soon as the account arrives. The Charges screen's Init
// announces its range (a RangeMsg), which the Overview then loads: both read
// one shared feed.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.fetchUser()}
	if m.opts.Theme == "" || m.opts.Theme == "auto" {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	for _, s := range m.screens() {
		cmds = append(cmds, s.Init())
	}
	cmds = append(cmds, m.spinCmd())
	return tea.Batch(cmds...)
}

func (m *Model) fetchUser() tea.Cmd {
	svc, base := m.ctx.Billing, m.ctx.Base
	return func() tea.Msg {
		if svc == nil {
			return shared.UserMsg{Err: errors.New("no API client configured")}
		}
		u, err := svc.Account(base)
		return shared.UserMsg{User: u, Err: err}
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
	return m, tea.Batch(cmd, m.spinCmd())
}

func (m *Model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
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
		return m.handleKey(msg)

	case tea.MouseMsg:
		return m.screen(m.active).Update(msg)

	case spinner.TickMsg:
		if !m.loading() {
			m.spinning = false // nothing loads: let the ticks stop
			return nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return cmd

	case waitMsg:
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

	case statusExpiredMsg:
		if msg.seq == m.statusSeq {
			m.status = shared.StatusMsg{}
		}
		return nil

	case shared.RunwayMsg:
		m.runway = msg
		return nil

	case shared.RevealMsg:
		// Only the charges screen can show a contract; the others need
		// not hear of it.
		m.switchTo(screenCharges)
		return m.charges.Reveal(msg.Source)

	case shared.UserMsg:
		m.userLoading = false
		m.userErr = msg.Err
		if msg.Err == nil {
			u := msg.User
			m.user = &u
		}
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
	var cmds [numScreens]tea.Cmd
	for i, s := range m.screens() {
		cmds[i] = s.Update(msg)
	}
	return tea.Batch(cmds[:]...)
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
	cur := m.screen(m.active)
	if cur.Capturing() {
		return cur.Update(msg)
	}
	switch {
	case key.Matches(msg, m.keys.Quit):
		return tea.Quit
	case key.Matches(msg, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.layout()
		return nil
	case key.Matches(msg, m.keys.Next):
		m.switchTo((m.active + 1) % numScreens)
		return nil
	case key.Matches(msg, m.keys.Prev):
		m.switchTo((m.active + numScreens - 1) % numScreens)
		return nil
	case key.Matches(msg, m.keys.Screen):
		m.switchTo(screenID(msg.Text[0] - '1'))
		return nil
	case key.Matches(msg, m.keys.Reload) && m.active == screenOverview:
		// The Overview is where the credit is: r there reads it again too.
		m.userLoading = true
		return tea.Batch(m.fetchUser(), cur.Update(msg))
	}
	return cur.Update(msg)
}

func (m *Model) switchTo(id screenID) {
	if id >= 0 && id < numScreens {
		m.active = id
		m.layout()
	}
}

// loading reports whether anything is in flight, for the header spinner.
func (m *Model) loading() bool {
	if m.userLoading {
		return true
	}
	for _, s := range m.screens() {
		if s.Loading() {
			return true
		}
	}
	return false
}

// userRejected reports that the key itself was refused, which the header
// says in place of the credit.
func (m *Model) userRejected() bool {
	return errors.Is(m.userErr, api.ErrInvalidKey) || errors.Is(m.userErr, api.ErrNotLoggedIn)
}

func (m *Model) applyStyles() {
	m.help.Styles = m.ctx.Styles.Help
	m.spin.Style = m.ctx.Styles.Accent
}

// helpKeys merges the screen's bindings with the global ones.
type helpKeys struct {
	screen help.KeyMap
	global keyMap
}

func (h helpKeys) ShortHelp() []key.Binding {
	return append(h.screen.ShortHelp(), h.global.ShortHelp()...)
}

func (h helpKeys) FullHelp() [][]key.Binding {
	return append(h.screen.FullHelp(), h.global.FullHelp()...)
}

func (m *Model) helpView() string {
	return m.help.View(helpKeys{screen: m.screen(m.active).Help(), global: m.keys})
}

// chromeHeight is the lines taken by header, tabs, status and help; on
// short terminals the tabs, then status and help, give way to the screen.
func (m *Model) chromeHeight() int {
	h := 1
	if m.height >= minHeightTabs {
		h++
	}
	if m.height >= minHeightFooter {
		h += 2 + strings.Count(m.helpView(), "\n")
	}
	return h
}

func (m *Model) layout() {
	m.help.SetWidth(m.width)
	h := max(m.height-m.chromeHeight(), 0)
	for _, s := range m.screens() {
		s.SetSize(m.width, h)
	}
}

// runwayShort reports a runway estimate under billing's low mark.
func (m *Model) runwayShort() bool {
	return m.runway.OK && m.runway.Runway.Tenths < billing.LowRunwayTenths
}
