// Package accounts is the dashboard's Accounts screen, shown with two
// accounts or more in the settings: the roll-up of `vastdash accounts`, a
// row per account and the total, where enter opens the whole dashboard on
// the account under the cursor. The figures come from internal/cli as a
// function (Options.Read), already in the command's words, so the screen
// and the command cannot disagree and the screen does no I/O of its own.
// Opening an account is the root's business: the screen asks with a
// SwitchMsg.
package accounts

import (
	"context"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
)

// source names the screen's status lines.
const source = "accounts"

// Row is one account of the roll-up, each figure as `vastdash accounts`
// writes it in its text table ("$822.54", "$3.649/h", "9.3 d", "—").
type Row struct {
	Name  string
	Email string
	// The figures; empty when the account could not be read.
	Credit, Now, Runway, Month, Forecast, Budget, Leaks string
	// SameAs names the row before it of the same account (another key to
	// it), not counted again in the total.
	SameAs string
	// Err says why the account could not be read; "" when it was.
	Err string
}

// Table is the roll-up: the rows in the settings' order and the total,
// whose Name is its label ("total (2 accounts)").
type Table struct {
	Rows  []Row
	Total Row
	// AsOf is when the figures were read.
	AsOf time.Time
}

// Options are what the screen is given: the account the dashboard shows
// and the roll-up's reader.
type Options struct {
	// Current is the account the dashboard shows now.
	Current string
	// Read reads every account (fresh: again, not the last reading kept
	// for this run); it returns when ctx ends.
	Read func(ctx context.Context, fresh bool) Table
}

// SwitchMsg asks the root to open the whole dashboard on the account
// Name.
type SwitchMsg struct{ Name string }

// AddMsg asks the root to add an account (the sign-in screen, naming it
// first), then open the dashboard on it.
type AddMsg struct{}

// readMsg is a reading of the roll-up.
type readMsg struct{ table Table }

// KeyMap lists the screen's bindings, from package keymap's table.
type KeyMap struct {
	Up, Down, Top, Bottom, Open, Add, Reload key.Binding
}

func newKeyMap(b keymap.Bindings) KeyMap {
	k := func(name string) key.Binding { return shared.Binding(b, name) }
	return KeyMap{Up: k("up"), Down: k("down"), Top: k("top"), Bottom: shared.BindingAs(b, "bottom", "last row"),
		Open: k("account-open"), Add: k("account-add"), Reload: shared.BindingAs(b, "reload", "read every account again")}
}

// ShortHelp is the one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Open, k.Add, k.Reload}
}

// FullHelp groups the bindings.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom}, {k.Open, k.Add, k.Reload}}
}

// Model is the Accounts screen.
type Model struct {
	ctx  *shared.Context
	opts Options
	keys KeyMap

	table   *Table // the last reading; nil before one
	reading bool
	cursor  int
	top     int // the first row shown when they do not all fit
	width   int
	height  int
}

// New returns the screen; it reads nothing until it is first shown.
func New(ctx *shared.Context, opts Options) *Model {
	return &Model{ctx: ctx, opts: opts, keys: newKeyMap(ctx.Keys)}
}

// Init does nothing: the accounts are read when the screen is first shown
// (each is requests at its key's pace, for someone looking).
func (m *Model) Init() tea.Cmd { return nil }

// SetSize gives the screen its area.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.scroll()
}

// Help lists the keys.
func (m *Model) Help() help.KeyMap { return m.keys }

// Capturing: the screen has no text field.
func (m *Model) Capturing() bool { return false }

// Loading reports the roll-up being read.
func (m *Model) Loading() bool { return m.reading }

// Shown is called by the root when the screen becomes the active one or
// stops being it: the first time it is shown, the accounts are read.
func (m *Model) Shown(on bool) tea.Cmd {
	if !on || m.table != nil || m.reading {
		return nil
	}
	return m.read(false)
}

// read starts a reading of the roll-up.
func (m *Model) read(fresh bool) tea.Cmd {
	if m.opts.Read == nil || m.reading {
		return nil
	}
	m.reading = true
	read, base := m.opts.Read, m.ctx.Base
	if base == nil {
		base = context.Background()
	}
	return func() tea.Msg { return readMsg{read(base, fresh)} }
}

// Update handles the readings and the keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case readMsg:
		first := m.table == nil
		m.reading = false
		t := msg.table
		m.table = &t
		if first {
			m.cursor = m.current()
		}
		m.cursor = max(min(m.cursor, len(t.Rows)-1), 0)
		m.scroll()
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return nil
}

// current is the row of the account the dashboard shows, 0 when none.
func (m *Model) current() int {
	if m.table == nil {
		return 0
	}
	for i, r := range m.table.Rows {
		if r.Name == m.opts.Current {
			return i
		}
	}
	return 0
}

func (m *Model) rows() int {
	if m.table == nil {
		return 0
	}
	return len(m.table.Rows)
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(msg, m.keys.Down):
		m.cursor = max(min(m.cursor+1, m.rows()-1), 0)
	case key.Matches(msg, m.keys.Top):
		m.cursor = 0
	case key.Matches(msg, m.keys.Bottom):
		m.cursor = max(m.rows()-1, 0)
	case key.Matches(msg, m.keys.Reload):
		return m.read(true)
	case key.Matches(msg, m.keys.Open):
		return m.open()
	case key.Matches(msg, m.keys.Add):
		return func() tea.Msg { return AddMsg{} }
	}
	m.scroll()
	return nil
}

// open asks the root for the account under the cursor; one that could not
// be read is not opened (a dashboard of errors), and the status line says
// why.
func (m *Model) open() tea.Cmd {
	if m.rows() == 0 {
		return nil
	}
	r := m.table.Rows[m.cursor]
	if r.Err != "" {
		return shared.SetStatus(source, shared.StatusWarn, "not opened: "+shared.Safe(r.Name)+" could not be read ("+shared.Safe(r.Err)+"); "+
			m.ctx.Key("reload")+" reads every account again", 8*time.Second)
	}
	name := r.Name
	return func() tea.Msg { return SwitchMsg{Name: name} }
}
