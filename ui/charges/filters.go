package charges

import (
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
)

// filters are the charges filters the screen shows and pages through.
type filters struct {
	preset string // a billing.Presets name, or "" for a custom range
	rng    spend.Range
	types  [3]bool // indexed like api.AllContractTypes; none or all means every type
	format api.Format
	oldest bool
}

// query is the api form of the filters. It starts from billing.RangeQuery,
// the one shape every part of the program asks a range in, so that with the
// default filters (every type, table format, newest first) the screen reads
// the very feed the Overview loads its range with: one set of requests, and
// whatever either screen loaded shows on both.
func (f filters) query() api.ChargesQuery {
	q := billing.RangeQuery(f.rng.From, f.rng.To)
	if f.format != "" {
		q.Format = f.format
	}
	q.OldestFirst = f.oldest
	if !allOrNone(f.types) {
		for i, on := range f.types {
			if on {
				q.Types = append(q.Types, api.AllContractTypes[i])
			}
		}
	}
	return q
}

func allOrNone(t [3]bool) bool { return t == [3]bool{} || t == [3]bool{true, true, true} }

// typesText names the selected types: "all" or "instance+volume".
func typesText(t [3]bool) string {
	if allOrNone(t) {
		return "all"
	}
	var parts []string
	for i, on := range t {
		if on {
			parts = append(parts, string(api.AllContractTypes[i]))
		}
	}
	return strings.Join(parts, "+")
}

// summary is the filter bar: "range 30d (23 Oct – 21 Nov) · types all ·
// format table · newest first", or the order of the sort named by sorted
// ("sort amount, largest first") when the rows are in that instead.
func (f filters) summary(sorted string) string {
	order := "newest first"
	if f.oldest {
		order = "oldest first"
	}
	if sorted != "" {
		// The rows are in the sort's order, not the server's.
		order = "sort " + sorted
	}
	format := f.format
	if format == "" {
		format = api.FormatTable
	}
	return "range " + f.rng.String() + " · types " + typesText(f.types) +
		" · format " + string(format) + " · " + order
}

// presetIndex is the position of name in billing.Presets, or -1.
func presetIndex(name string) int { return slices.Index(billing.Presets, name) }

// cycleRange moves to the next (dir 1) or previous (dir -1) preset. From a
// custom range it returns to the default preset.
func (m *Model) cycleRange(dir int) tea.Cmd {
	name := m.defaultPreset()
	if i := presetIndex(m.f.preset); i >= 0 {
		n := len(billing.Presets)
		name = billing.Presets[((i+dir)%n+n)%n]
	}
	r, err := billing.PresetRange(name, m.ctx.Clock(), m.ctx.Loc())
	if err != nil {
		return nil
	}
	f := m.f
	f.preset, f.rng = name, r
	m.setFilters(f)
	return nil
}

// defaultPreset is ctx.DefaultRange when it names a preset, else "30d".
func (m *Model) defaultPreset() string {
	if presetIndex(m.ctx.DefaultRange) >= 0 {
		return m.ctx.DefaultRange
	}
	return "30d"
}

// --- custom range input ---------------------------------------------------

// openInput shows the custom range input holding the current range,
// selected: typing replaces it.
func (m *Model) openInput() tea.Cmd {
	v := m.f.rng.String() // a custom range as typed, an open end too
	if m.f.preset != "" {
		v = m.f.rng.From.Format(time.DateOnly) + ".." + m.f.rng.To.Format(time.DateOnly)
	}
	var cmd tea.Cmd
	m.input, cmd = shared.NewField(v, m.keys.FieldClear)
	m.input.Prompt = ""
	m.input.CharLimit = 64 // a range needs 22 characters
	m.input.SetWidth(24)
	m.inputErr = ""
	m.mode = modeInput
	return cmd
}

// updateInput handles a message while the custom range input has the
// keyboard: enter applies a valid range, esc cancels, the rest is typing.
func (m *Model) updateInput(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, m.keys.Cancel):
			m.closeModal()
			return nil
		case key.Matches(k, m.keys.Apply):
			r, err := m.parseRange(m.input.Value())
			if err != nil {
				m.inputErr = err.Error()
				return nil
			}
			m.closeModal()
			f := m.f
			f.preset, f.rng = "", r
			m.setFilters(f)
			return nil
		}
	}
	cmd := m.input.Update(msg)
	// Validate in place while typing; an empty field is not an error yet.
	m.inputErr = ""
	if v := strings.TrimSpace(m.input.Value()); v != "" {
		if _, err := m.parseRange(v); err != nil {
			m.inputErr = err.Error()
		}
	}
	return cmd
}

// parseRange reads a typed range as the commands do (billing.ParseRange:
// one reaching outside the days billing believes is refused). An open end
// runs to the screen's today.
func (m *Model) parseRange(s string) (spend.Range, error) {
	return billing.ParseRange(s, m.ctx.Clock(), m.ctx.Loc())
}

// fieldHint is a field's hint: its keys, then the clear key, so a user
// who wants the value gone finds how.
func (m *Model) fieldHint(bs ...key.Binding) string {
	return shared.Hint(append(bs, m.keys.FieldClear)...)
}

// --- type picker ----------------------------------------------------------

// openPicker shows the type picker with the current selection.
func (m *Model) openPicker() {
	m.pick = m.f.types
	m.pickFocus = 0
	m.mode = modePicker
}

// updatePicker handles a key while the type picker is open.
func (m *Model) updatePicker(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, m.keys.Cancel):
		m.closeModal()
	case key.Matches(k, m.keys.Apply):
		m.closeModal()
		f := m.f
		f.types = m.pick
		if allOrNone(f.types) {
			f.types = [3]bool{} // one spelling of "every type"
		}
		m.setFilters(f)
		return nil
	case key.Matches(k, m.keys.PickInstance):
		m.pick[0], m.pickFocus = !m.pick[0], 0
	case key.Matches(k, m.keys.PickVolume):
		m.pick[1], m.pickFocus = !m.pick[1], 1
	case key.Matches(k, m.keys.PickServerless):
		m.pick[2], m.pickFocus = !m.pick[2], 2
	case key.Matches(k, m.keys.PickToggle):
		m.pick[m.pickFocus] = !m.pick[m.pickFocus]
	case key.Matches(k, m.keys.PickLeft):
		m.pickFocus = (m.pickFocus + 2) % 3
	case key.Matches(k, m.keys.PickRight):
		m.pickFocus = (m.pickFocus + 1) % 3
	}
	return nil
}

func (m *Model) closeModal() {
	m.mode = modeTree
	m.inputErr = ""
}

// modalLine renders the open input or picker as one line.
func (m *Model) modalLine() string {
	st := m.styles()
	switch m.mode {
	case modeInput:
		s := "custom range: " + m.input.View()
		if m.inputErr != "" {
			s += "  " + st.Error.Render(shared.Safe(m.inputErr))
		} else {
			s += "  " + st.Muted.Render(m.fieldHint(m.keys.Apply, m.keys.Cancel))
		}
		return s
	case modeDetail:
		title := m.detailSrc
		if m.detailN != nil && m.detailN.Source == "" {
			title = m.detailN.Type + " of " + m.detailSrc
		}
		return "details: " + shared.Safe(title) + "  " + st.Muted.Render(shared.Hint(m.keys.Close, m.keys.Copy))
	case modeFind:
		return "find: " + m.findInput.View() + "  " + st.Muted.Render(m.fieldHint(m.keys.FindKeep, m.keys.FindClear))
	case modePicker:
		var b strings.Builder
		b.WriteString("types:")
		for i, t := range api.AllContractTypes {
			mark := " "
			if i == m.pickFocus {
				mark = "›"
			}
			box := "[ ]"
			if m.pick[i] {
				box = "[x]"
			}
			b.WriteString(" " + mark + box + " " + string(t))
		}
		if allOrNone(m.pick) {
			b.WriteString("  (all types)")
		}
		b.WriteString("  " + st.Muted.Render(m.pickHint()))
		return b.String()
	}
	return ""
}

// pickHint is the type picker's inline help, with the keys as bound:
// "i/v/s/space toggle · enter apply · esc cancel".
func (m *Model) pickHint() string {
	toggle := shared.Joined("toggle", m.keys.PickInstance, m.keys.PickVolume, m.keys.PickServerless, m.keys.PickToggle)
	return shared.Hint(toggle, m.keys.Apply, m.keys.Cancel)
}
