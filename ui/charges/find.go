package charges

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/shared"
)

// This file is the find filter (/): the rows narrowed to the top-level
// entries whose source, label or description holds the text typed. It
// works over the pages loaded; pages that arrive later are filtered as they
// are folded, so the footer's count grows while the feed loads.

// matches reports whether entry n is kept by the find text low (already
// lower-cased; "" keeps everything). Only the top-level entry is looked at:
// the rows of the tree are its entries, and an entry kept shows all of its
// items when opened.
func matches(n *api.Charge, low string) bool {
	return shared.Holds(low, n.Source, n.Meta.Label, n.Description)
}

// openFind gives the keyboard to the find field, holding the filter in use
// so it can be refined.
func (m *Model) openFind() tea.Cmd {
	var cmd tea.Cmd
	m.findInput, cmd = shared.NewFindInput(m.find, m.keys.FieldClear)
	m.mode = modeFind
	return cmd
}

// updateFind handles a message while the find field has the keyboard: enter
// keeps the filter, esc clears it, ↑/↓ move the cursor over the matches,
// everything else is typed and filters at once.
func (m *Model) updateFind(msg tea.Msg) tea.Cmd {
	out, text, cmd := shared.UpdateFind(&m.findInput, msg, m.keys.FindKeep, m.keys.FindClear, m.moveOverMatches)
	switch out {
	case shared.FindCleared:
		m.mode = modeTree
		m.setFind("")
	case shared.FindKept:
		m.mode = modeTree
	case shared.FindTyped:
		m.setFind(text)
	}
	return cmd
}

// moveOverMatches moves the cursor on ↑/↓ while the find field is open.
func (m *Model) moveOverMatches(k tea.KeyPressMsg) bool {
	switch {
	case key.Matches(k, m.keys.MatchUp):
		m.move(-1)
	case key.Matches(k, m.keys.MatchDown):
		m.move(1)
	default:
		return false
	}
	return true
}

// setFind filters the rows by text (trimmed; "" shows every entry) when it
// changed.
func (m *Model) setFind(text string) {
	text = strings.TrimSpace(text)
	if text == m.find {
		return
	}
	m.find, m.findLow = text, strings.ToLower(text)
	if m.win != nil {
		if windowFindable(text) {
			m.winRequery = true // the ledger counts and reads what it keeps
			return
		}
		m.leaveWindow("") // text the ledger's find does not match as the feed's does
		return
	}
	if m.syncOnly {
		// No window yet: the one asked for reads the find, or the feed
		// does when the ledger's cannot match it.
		if !windowFindable(text) {
			m.leaveWindow("")
			return
		}
		m.winDue = true
	}
	m.rebuild()
}

// rebuild lays out the rows again from every loaded entry, filtered by the
// find text and in the order of the sort, keeping the cursor on the entry it
// was on when that entry is still shown (else on the first row), and the
// open rows open.
func (m *Model) rebuild() {
	var at *api.Charge
	if m.tree.Len() > 0 {
		at = m.tree.At(m.cursor).node
	}
	tops := m.orderedTops()
	m.matchN, m.matchAmt, m.matchOver = 0, 0, false
	m.countMatches(tops)
	m.tree.Rebuild(tops)
	m.cursor, m.offset = 0, 0
	if at != nil {
		if i := m.tree.Index(at); i >= 0 {
			m.cursor = i
		}
	}
	m.scrollToCursor()
}

// countMatches adds tops to the footer's count and sum of the entries the
// find filter keeps.
func (m *Model) countMatches(tops []*api.Charge) {
	for _, n := range tops {
		m.matchN++
		var ok bool
		if m.matchAmt, ok = money.SumChecked(m.matchAmt, n.Amount); !ok {
			m.matchOver = true
		}
	}
}

// keptOf returns the entries of a page the find filter keeps, as pointers
// into the page.
func (m *Model) keptOf(page []api.Charge) []*api.Charge {
	var out []*api.Charge
	for i := range page {
		if matches(&page[i], m.findLow) {
			out = append(out, &page[i])
		}
	}
	return out
}

// findFooter is the footer while a find filter is in use: `/gpu: 12 of
// 1,200 loaded · $123.000 · more still loading`.
func (m *Model) findFooter() string {
	var b strings.Builder
	b.WriteString("/")
	b.WriteString(shared.Safe(m.find))
	b.WriteString(": ")
	b.WriteString(money.Group(int64(m.matchN)))
	b.WriteString(" of ")
	b.WriteString(money.Group(int64(m.fl.Entries())))
	if m.fl.State().Done {
		b.WriteString(" match · ")
	} else {
		b.WriteString(" loaded match · ")
	}
	if m.matchOver {
		b.WriteString("total too large")
	} else {
		b.WriteString(m.matchAmt.String())
	}
	switch {
	case m.fl.State().Err != nil:
		b.WriteString(" · stopped")
	case !m.fl.State().Done:
		b.WriteString(" · more still loading")
	}
	return b.String()
}

// orderedTops lists the loaded top-level entries the find filter keeps, in
// the order of the sort.
func (m *Model) orderedTops() []*api.Charge {
	tops := make([]*api.Charge, 0, m.fl.Entries())
	for _, p := range m.pages {
		for i := range p {
			if matches(&p[i], m.findLow) {
				tops = append(tops, &p[i])
			}
		}
	}
	m.sortTops(tops)
	return tops
}
