// Package overview is the Overview screen of vastdash: the account's credit,
// balance and low-balance threshold, and the charges loaded for the current
// range split by contract type and by charge type.
//
// It fetches nothing itself: the account arrives as a shared.UserMsg and the
// charges through SetCharges, which the root calls whenever the charges
// screen's loaded data changes.
package overview

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// Model is the Overview screen. It implements shared.Screen.
type Model struct {
	ctx           *shared.Context
	width, height int

	user    *api.User // from the last successful UserMsg
	userErr error     // why the account could not be read (no user yet)

	haveCharges bool
	rng         spend.Range
	totals      spend.Totals
	complete    bool
	serverTotal int // contracts matching the filters per the server; -1 unknown
}

// New returns the screen.
func New(ctx *shared.Context) *Model {
	if ctx == nil {
		ctx = &shared.Context{}
	}
	return &Model{ctx: ctx, serverTotal: -1}
}

// SetCharges replaces the charges shown: the range they were loaded for, the
// totals of what is loaded so far, and whether that is every contract of
// the range. The root calls it whenever the charges screen's data changes.
func (m *Model) SetCharges(r spend.Range, t spend.Totals, complete bool) {
	if !m.haveCharges || !sameRange(m.rng, r) {
		// The server's count belongs to the old filters.
		m.serverTotal = -1
	}
	m.haveCharges, m.rng, m.totals, m.complete = true, r, t, complete
}

// SetServerTotal gives the number of contracts the server says match the
// range (api.Pager.Total), so a partial load reads "1,200 of 12,345"; a
// negative n means unknown. It applies to the range of the last SetCharges.
func (m *Model) SetServerTotal(n int) {
	if n < 0 {
		n = -1
	}
	m.serverTotal = n
}

func sameRange(a, b spend.Range) bool {
	return a.From.Equal(b.From) && a.To.Equal(b.To) && a.Preset == b.Preset
}

// Init starts nothing: the root fetches the account.
func (m *Model) Init() tea.Cmd { return nil }

// Update keeps the account record of shared.UserMsg.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(shared.UserMsg); ok {
		if msg.Err != nil {
			m.userErr = msg.Err
			return nil
		}
		u := msg.User
		m.user, m.userErr = &u, nil
	}
	return nil
}

// SetSize sets the screen's area.
func (m *Model) SetSize(width, height int) { m.width, m.height = width, height }

// Help has no bindings of its own: the overview only shows.
func (m *Model) Help() help.KeyMap { return keyMap{} }

// Capturing is false: the screen has no text field.
func (m *Model) Capturing() bool { return false }

// Loading is false: the screen makes no requests.
func (m *Model) Loading() bool { return false }

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

// keyMap is the screen's empty help.KeyMap; the root adds the global keys.
type keyMap struct{}

func (keyMap) ShortHelp() []key.Binding  { return nil }
func (keyMap) FullHelp() [][]key.Binding { return nil }
