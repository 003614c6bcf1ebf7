// Package ui is the root Bubble Tea model of vastdash: the header with the
// credit, the screen tabs, the status and help lines, and the routing of
// messages to the screens in ui/overview, ui/charges and ui/prefs.
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
	"github.com/vastdash/vastdash/spend"
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

// What the root asks of the screens beyond shared.Screen. They are
// interfaces so the root's tests can use fake screens.
type (
	// rangeShower is the charges screen: its filters decide the range.
	rangeShower interface{ Range() spend.Range }
	// rangeFollower is the overview: it loads whatever range the charges
	// screen shows, so both read the same pages (which the client's page
	// cache then fetches once).
	rangeFollower interface {
		Range() spend.Range
		SetRange(r spend.Range) tea.Cmd
	}
	// runwayTeller is the overview's estimate of how long the credit lasts.
	runwayTeller interface{ Runway() (spend.Runway, bool) }
	// revealer is the charges screen putting its cursor on a contract.
	revealer interface{ Reveal(source string) tea.Cmd }
)

// Model is the root model.
type Model struct {
	ctx     *shared.Context
	opts    Options
	screens []shared.Screen
	names   []string
	active  int

	width, height int
	keys          keyMap
	help          help.Model
	spin          spinner.Model

	userLoading bool
	userErr     error
	// waitUntil is when the last rate-limit wait the client reported ends;
	// until then the status line says so instead of looking stuck.
	waitUntil time.Time
	waitKind  api.EventKind
}

// screen indexes.
const (
	screenOverview = iota
	screenCharges
	screenPrefs
)

func newModel(ctx *shared.Context, opts Options, screens []shared.Screen, names []string) *Model {
	if ctx.Styles == nil {
		ctx.Styles = theme.New(opts.Dark)
	}
	m := &Model{
		ctx:         ctx,
		opts:        opts,
		screens:     screens,
		names:       names,
		active:      screenOverview,
		keys:        newKeyMap(),
		help:        help.New(),
		spin:        spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		userLoading: true,
	}
	m.applyStyles()
	return m
}

// Init requests the account, starts every screen's first load and asks the
// terminal for its background colour. Nothing waits on anything else: the
// credit shows as soon as the account arrives. The overview is given the
// charges screen's range first, so its first load is the charges screen's
// own first page rather than a range computed a moment apart.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.fetchUser(), m.spin.Tick, m.syncRange()}
	if m.opts.Theme == "" || m.opts.Theme == "auto" {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	for _, s := range m.screens {
		cmds = append(cmds, s.Init())
	}
	return tea.Batch(cmds...)
}

func (m *Model) fetchUser() tea.Cmd {
	client, base := m.ctx.Client, m.ctx.Base
	return func() tea.Msg {
		u, err := client.CurrentUser(base)
		return shared.UserMsg{User: u, Err: err}
	}
}

// waitMsg carries a pacing or retry event from the client's observer.
type waitMsg api.Event

// waitDoneMsg clears the rate-limit note once its wait is over.
type waitDoneMsg struct{ until time.Time }

// Update routes messages.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil

	case tea.BackgroundColorMsg:
		if m.opts.Theme == "" || m.opts.Theme == "auto" {
			m.opts.Dark = msg.IsDark()
			m.ctx.Styles = theme.New(m.opts.Dark)
			m.applyStyles()
		}
		return m, nil

	case tea.KeyPressMsg:
		return m, m.handleKey(msg)

	case tea.MouseMsg:
		return m, m.screens[m.active].Update(msg)

	case spinner.TickMsg:
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd

	case waitMsg:
		until := time.Now().Add(msg.Wait)
		if until.After(m.waitUntil) {
			m.waitUntil, m.waitKind = until, msg.Kind
		}
		return m, tea.Tick(msg.Wait, func(time.Time) tea.Msg { return waitDoneMsg{until: until} })

	case waitDoneMsg:
		if !msg.until.Before(m.waitUntil) {
			m.waitUntil = time.Time{}
		}
		return m, nil

	case shared.RevealMsg:
		// Only the charges screen can show a contract; the others need
		// not hear of it.
		m.switchTo(screenCharges)
		if r, ok := m.screens[screenCharges].(revealer); ok {
			return m, r.Reveal(msg.Source)
		}
		return m, nil

	case shared.UserMsg:
		m.userLoading = false
		m.userErr = msg.Err
		if msg.Err == nil {
			u := msg.User
			m.ctx.User = &u
		}
	}
	return m, m.broadcast(msg)
}

// broadcast hands a message to every screen, then makes the overview follow
// the charges screen's range.
func (m *Model) broadcast(msg tea.Msg) tea.Cmd {
	cmds := make([]tea.Cmd, 0, len(m.screens)+1)
	for _, s := range m.screens {
		cmds = append(cmds, s.Update(msg))
	}
	cmds = append(cmds, m.syncRange())
	return tea.Batch(cmds...)
}

// syncRange gives the overview the charges screen's range when it differs
// from the one the overview shows; the overview then loads it.
func (m *Model) syncRange() tea.Cmd {
	src, ok1 := m.screens[screenCharges].(rangeShower)
	dst, ok2 := m.screens[screenOverview].(rangeFollower)
	if !ok1 || !ok2 {
		return nil
	}
	r, cur := src.Range(), dst.Range()
	if r.From.Equal(cur.From) && r.To.Equal(cur.To) && r.Preset == cur.Preset {
		return nil
	}
	return dst.SetRange(r)
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.ForceQuit) {
		return tea.Quit
	}
	cur := m.screens[m.active]
	if cur.Capturing() {
		cmd := cur.Update(msg)
		return tea.Batch(cmd, m.syncRange())
	}
	switch {
	case key.Matches(msg, m.keys.Quit):
		return tea.Quit
	case key.Matches(msg, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.layout()
		return nil
	case key.Matches(msg, m.keys.Next):
		m.switchTo((m.active + 1) % len(m.screens))
		return nil
	case key.Matches(msg, m.keys.Prev):
		m.switchTo((m.active + len(m.screens) - 1) % len(m.screens))
		return nil
	case key.Matches(msg, m.keys.Screen):
		m.switchTo(int(msg.Text[0] - '1'))
		return nil
	case key.Matches(msg, m.keys.Reload):
		// A reload means "show me the server's figures now": no screen may
		// be answered from pages the client kept.
		if m.ctx.Client != nil {
			m.ctx.Client.ClearPageCache()
		}
		if m.active == screenOverview {
			m.userLoading = true
			return tea.Batch(m.fetchUser(), cur.Update(msg))
		}
	}
	cmd := cur.Update(msg)
	return tea.Batch(cmd, m.syncRange())
}

func (m *Model) switchTo(i int) {
	if i >= 0 && i < len(m.screens) {
		m.active = i
		m.layout()
	}
}

// loading reports whether anything is in flight, for the header spinner.
func (m *Model) loading() bool {
	if m.userLoading {
		return true
	}
	for _, s := range m.screens {
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
	return m.help.View(helpKeys{screen: m.screens[m.active].Help(), global: m.keys})
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
	h := m.height - m.chromeHeight()
	if h < 0 {
		h = 0
	}
	for _, s := range m.screens {
		s.SetSize(m.width, h)
	}
}
