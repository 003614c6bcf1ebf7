package notifications

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/ui/shared"
)

// Finding a switch: / opens the find field every list screen has; as the
// text is typed the cursor goes to the first row from where it was whose
// name (or group; a webhook's name or URL) holds it, ↑/↓ go to the previous or next such row,
// enter keeps the cursor there and esc takes it back. Nothing is hidden:
// a switch's neighbours are its other channels, worth seeing.

// finder is the find field's state.
type finder struct {
	on   bool
	in   shared.Field
	from int    // the cursor when the field opened: esc goes back there
	text string // the text last typed, lower-cased; the field opens on it
}

// openFind opens the find field on the last text, selected.
func (m *Model) openFind() tea.Cmd {
	if !m.haveUser {
		return nil
	}
	var cmd tea.Cmd
	m.find.in, cmd = shared.NewFindInput(m.find.text, m.keys.Clear)
	m.find.on, m.find.from = true, m.cursor
	return cmd
}

// findKey handles a message while the find field has the keyboard.
func (m *Model) findKey(msg tea.Msg) tea.Cmd {
	out, text, cmd := shared.UpdateFind(&m.find.in, msg, m.keys.FindKeep, m.keys.FindClear, m.moveOverMatches)
	switch out {
	case shared.FindCleared:
		m.find.on, m.cursor = false, m.find.from
	case shared.FindKept:
		m.find.on = false
	case shared.FindTyped:
		if low := strings.ToLower(text); low != m.find.text {
			m.find.text = low
			m.cursor = m.find.from
			m.seek(m.find.from, 1, true)
		}
	}
	return cmd
}

// moveOverMatches is the find field's ↑/↓: the previous or next match.
func (m *Model) moveOverMatches(k tea.KeyPressMsg) bool {
	switch {
	case key.Matches(k, m.keys.MatchUp):
		m.seek(m.cursor-1, -1, false)
	case key.Matches(k, m.keys.MatchDown):
		m.seek(m.cursor+1, 1, false)
	default:
		return false
	}
	return true
}

// seek puts the cursor on the first row from row from, going dir and
// wrapping around, whose name holds the text; typed says the text changed,
// and a text no row holds is said on the status line then.
func (m *Model) seek(from, dir int, typed bool) {
	n := m.rowCount()
	if m.find.text == "" || n == 0 {
		return
	}
	for i := range n {
		r := ((from+dir*i)%n + n) % n
		if m.rowHolds(r, m.find.text) {
			m.cursor = r
			if typed {
				m.say(shared.StatusInfo, "", 0)
			}
			return
		}
	}
	if typed {
		m.say(shared.StatusInfo, "no switch holds “"+shared.Safe(m.find.text)+"”", noteTTL)
	}
}

// rowHolds reports that row r's name, or its group's, holds low: a
// webhook's row by its name or URL.
func (m *Model) rowHolds(r int, low string) bool {
	if h, ok := m.hookAt(r); ok {
		if h < len(m.hooks.list.Webhooks) {
			w := m.hooks.list.Webhooks[h]
			return shared.Holds(low, w.Name, w.URL)
		}
		return false // the add row
	}
	i, ok := m.switchAt(r)
	if !ok {
		return shared.Holds(low, "low-balance threshold")
	}
	sw := m.switches[i]
	return shared.Holds(low, sw.Label, m.alerts.Groups[sw.Group].Name)
}

// findLine is the find field with its keys, in place of the title.
func (m *Model) findLine() string {
	k := m.keys
	return "find: " + m.find.in.View() + "  " + m.styles().Muted.Render(shared.Hint(k.FindKeep, k.FindClear, k.Clear))
}

// findHelp is the help while the find field has the keyboard.
type findHelp struct{ k KeyMap }

func (h findHelp) ShortHelp() []key.Binding {
	return []key.Binding{h.k.FindKeep, h.k.FindClear, h.k.MatchUp, h.k.MatchDown, h.k.Clear}
}

func (h findHelp) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }

var _ help.KeyMap = findHelp{}
