package charges

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ui/shared"
)

// Reveal puts the cursor on the entry whose source is source (the overview's
// top contracts ask for it on enter) and scrolls it into view. An entry
// nested in a wrapper (the tree format keeps serverless contracts under
// their endpoint) is revealed by opening its ancestors.
//
// When it is not loaded yet and more pages exist, the screen keeps asking
// the feed for pages, the cursor following the end as with G, until the
// entry arrives; when everything is loaded and it is not there, the status
// line says so. A filter change or any key on the rows but r cancels the
// search; after a failed page, r asks for it again and the search goes on.
func (m *Model) Reveal(source string) tea.Cmd {
	return m.RevealOf(shared.RevealMsg{Source: source})
}

// RevealOf is Reveal for what msg asks: its source, or for an endpoint any
// of its workers' rows; when none is in the filters, the status line names
// what the user chose (msg.What) and the keys that change the range.
func (m *Model) RevealOf(msg shared.RevealMsg) tea.Cmd {
	source := msg.Source
	if m.mode != modeTree {
		m.closeModal()
	}
	// The entry asked for must be able to show: a find filter that might
	// hide it goes, and a type filter that hides its type widens to every
	// type (and says so).
	m.setFind("")
	widened := false
	if source != "" && !m.typeShown(source) {
		f := m.f
		f.types = [3]bool{}
		m.setFilters(f)
		widened = true
	}
	if (m.win != nil || m.syncOnly) && (msg.Endpoint != 0 || source == "") {
		// An endpoint's workers are found by walking the feed's pages.
		m.leaveWindow("")
	}
	m.seek, m.notice = "", ""
	m.seekWhat, m.seekEP = msg.What, msg.Endpoint
	if m.win != nil {
		// The ledger finds the contract and reads the rows around it.
		m.seek, m.seekQuiet, m.winRequery = source, false, true
		return m.settle()
	}
	if m.syncOnly {
		// The window asked for reads the rows around it, once the ledger
		// holds the range.
		m.seek, m.seekQuiet, m.winDue = source, false, true
		return m.settle()
	}
	switch {
	case source == "" || m.revealLoaded(source):
	case m.fl.State().Done:
		m.notFound(source)
	default:
		m.seek = source
		if n := m.tree.Len(); n > 0 {
			m.cursor = n - 1
		}
		m.follow = true
	}
	if m.seek == "" {
		m.seekWhat, m.seekEP = "", 0
	}
	if widened {
		m.setNotice(shared.StatusInfo, "types widened to all to show "+shared.Safe(source))
	}
	return m.settle()
}

// typeShown reports whether the type filter shows source's type, read from
// its prefix ("instance-5" is an instance). A source of no known type is
// shown only when every type is.
func (m *Model) typeShown(source string) bool {
	if allOrNone(m.f.types) {
		return true
	}
	for i, t := range api.AllContractTypes {
		if m.f.types[i] && strings.HasPrefix(source, string(t)+"-") {
			return true
		}
	}
	return false
}

// ServerTotal is the server's count of the entries matching the current
// filters, -1 while unknown.
func (m *Model) ServerTotal() int { return m.fl.State().Total }

// notFound ends a search that loaded everything without finding source.
// After r (a quiet search) the row has simply gone: nothing to say.
func (m *Model) notFound(source string) {
	m.seek, m.follow = "", false
	if m.seekQuiet {
		m.seekQuiet = false
		return
	}
	what, ep := m.seekWhat, m.seekEP
	m.seekWhat, m.seekEP = "", 0
	if what == "" {
		m.setNotice(shared.StatusInfo, shared.Safe(source)+" is not in the current filters")
		return
	}
	// What the user chose, not a worker never shown, and the way on: the
	// range is the filter that hides a contract that ran before it.
	text := shared.Safe(what) + " has no charges in range " + m.f.rng.String()
	if ep != 0 {
		text = shared.Safe(what) + ": none of its workers has charges in range " + m.f.rng.String()
	}
	if !allOrNone(m.f.types) {
		text += " · types " + typesText(m.f.types)
	}
	m.setNotice(shared.StatusInfo, text+" — "+m.ctx.Key("range-next")+"/"+m.ctx.Key("range-prev")+" change the range")
}

// revealLoaded looks for source in every loaded page and, when found, moves
// the cursor onto it.
func (m *Model) revealLoaded(source string) bool {
	for _, page := range m.pages {
		k, path := m.findSought(page, source)
		if k < 0 {
			continue
		}
		top := -1
		m.tree.rows.Each(0, m.tree.Len(), func(i int, r *row) bool {
			if r.depth == 0 && r.node == path[0] {
				top = i
				return false
			}
			return true
		})
		if top < 0 {
			return false // cannot happen: every loaded entry has a row
		}
		m.revealAt(top, path)
		return true
	}
	return false
}

// revealNew looks for the sought source in a page just appended (its
// entries are the last rows, collapsed) and ends the search when found.
func (m *Model) revealNew(res []api.Charge) bool {
	k, path := m.findSought(res, m.seek)
	if k < 0 {
		return false
	}
	// Its row is among the last (rows opened again after r, or a find
	// filter, mean not simply at len-len(res)+k): look from the end.
	top := -1
	m.tree.rows.EachBack(m.tree.Len()-1, func(i int, r *row) bool {
		if r.node == path[0] {
			top = i
			return false
		}
		return true
	})
	if top < 0 {
		return false // hidden by the find filter: keep looking in vain until the end
	}
	m.seek, m.seekQuiet = "", false
	m.seekWhat, m.seekEP = "", 0
	m.revealAt(top, path)
	return true
}

// revealAt opens the rows along path, whose first node is the top-level row
// top, and puts the cursor on its last node.
func (m *Model) revealAt(top int, path []*api.Charge) {
	at := top
	for _, next := range path[1:] {
		m.tree.Expand(at) // no-op when already open
		depth := m.tree.At(at).depth
		found := -1
		m.tree.rows.Each(at+1, m.tree.Len(), func(i int, r *row) bool {
			if r.depth <= depth {
				return false // left the subtree
			}
			if r.node == next {
				found = i
				return false
			}
			return true
		})
		if found < 0 {
			break // cannot happen: an open node shows its children
		}
		at = found
	}
	m.cursor, m.follow = at, false
	m.scrollToCursor()
}

// findSought is findSource, then, when a reveal asks for an endpoint, the
// first top-level entry of one of its workers.
func (m *Model) findSought(entries []api.Charge, source string) (int, []*api.Charge) {
	if k, path := findSource(entries, source); k >= 0 || m.seekEP == 0 {
		return k, path
	}
	for k := range entries {
		if entries[k].Meta.EndpointID == m.seekEP {
			return k, []*api.Charge{&entries[k]}
		}
	}
	return -1, nil
}

// findSource returns the index of the first entry holding a node with
// source (itself or a descendant), and the path of nodes from that entry
// down to it; -1 when there is none.
func findSource(entries []api.Charge, source string) (int, []*api.Charge) {
	for k := range entries {
		if path := pathTo(&entries[k], source, nil); path != nil {
			return k, path
		}
	}
	return -1, nil
}

func pathTo(n *api.Charge, source string, path []*api.Charge) []*api.Charge {
	path = append(path, n)
	if n.Source == source {
		return path
	}
	for i := range n.Items {
		if p := pathTo(&n.Items[i], source, path); p != nil {
			return p
		}
	}
	return nil
}
