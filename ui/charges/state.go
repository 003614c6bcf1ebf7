package charges

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/ui/shared"
)

// This file remembers the filters and the sort between runs, in the state
// file the root's context holds (config.StateStore): restored in New,
// written from settle whenever they differ from what was last written or
// read, so every change is saved once and nothing is written on a timer or
// when nothing changed.

// stateSavedMsg reports a failed write of the state file.
type stateSavedMsg struct{ err error }

// sortKeys are the sorts as the state file names them.
var sortKeys = [numSorts]string{"server", "amount", "duration"}

// remembered is the state of the current filters and sort.
func (m *Model) remembered() config.State {
	st := config.State{Range: m.f.preset, Format: string(m.f.format), Order: "newest", Sort: sortKeys[m.sort]}
	if st.Range == "" {
		st.Range = m.f.rng.String() // a custom range as typed: "2026-11-01.."
	}
	if st.Format == "" {
		st.Format = string(api.FormatTable)
	}
	if m.f.oldest {
		st.Order = "oldest"
	}
	if !allOrNone(m.f.types) {
		for i, on := range m.f.types {
			if on {
				st.Types = append(st.Types, string(api.AllContractTypes[i]))
			}
		}
	}
	return st
}

func sameState(a, b config.State) bool {
	return a.Range == b.Range && a.Format == b.Format && a.Order == b.Order && a.Sort == b.Sort && slices.Equal(a.Types, b.Types)
}

// restore applies the state read at start (ctx.Remembered), each part on
// its own: a value the screen does not know is skipped and said, the rest
// applies. A state file that could not be read at all (ctx.StateErr) is
// the root's to say, until the next key; neither stops the dashboard.
func (m *Model) restore() {
	st := m.ctx.Remembered
	var bad []string
	if st.Range != "" {
		if presetIndex(st.Range) >= 0 {
			if r, err := billing.PresetRange(st.Range, m.ctx.Clock(), m.ctx.Loc()); err == nil {
				m.f.preset, m.f.rng = st.Range, r
			}
		} else if r, err := m.parseRange(st.Range); err == nil && r.Preset == "" {
			m.f.preset, m.f.rng = "", r
		} else {
			bad = append(bad, "range "+fmt.Sprintf("%q", st.Range))
		}
	}
	if len(st.Types) > 0 {
		var t [3]bool
		ok := true
		for _, name := range st.Types {
			i := slices.Index(api.AllContractTypes, api.ContractType(name))
			if i < 0 {
				ok = false
				break
			}
			t[i] = true
		}
		if ok {
			if allOrNone(t) {
				t = [3]bool{}
			}
			m.f.types = t
		} else {
			bad = append(bad, fmt.Sprintf("types %q", st.Types))
		}
	}
	switch st.Format {
	case "":
	case string(api.FormatTable), string(api.FormatTree):
		m.f.format = api.Format(st.Format)
	default:
		bad = append(bad, fmt.Sprintf("format %q", st.Format))
	}
	switch st.Order {
	case "", "newest":
	case "oldest":
		m.f.oldest = true
	default:
		bad = append(bad, fmt.Sprintf("order %q", st.Order))
	}
	if st.Sort != "" {
		if i := slices.Index(sortKeys[:], st.Sort); i >= 0 {
			m.sort, m.quietSort = sortKind(i), true
		} else {
			bad = append(bad, fmt.Sprintf("sort %q", st.Sort))
		}
	}
	if len(bad) > 0 {
		m.setNotice(shared.StatusWarn, "state file: ignored "+strings.Join(bad, ", "))
	}
	m.saved = m.remembered()
}

// remember returns a command writing the state when the filters or the
// sort differ from the state last written or read; nil otherwise.
func (m *Model) remember() tea.Cmd {
	if m.ctx.State == nil {
		return nil
	}
	st := m.remembered()
	if sameState(st, m.saved) {
		return nil
	}
	m.saved = st
	save := m.ctx.State.Saver(st)
	return func() tea.Msg {
		if err := save(); err != nil {
			return stateSavedMsg{err: err}
		}
		return nil
	}
}
