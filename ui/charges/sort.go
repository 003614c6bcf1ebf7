package charges

import (
	"cmp"
	"slices"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ui/shared"
)

// This file is s: the order of the top-level entries. The server's order
// (newest or oldest first, o) needs nothing loaded; amount and duration
// need the whole range — the largest contract may be on the last page — so
// the screen asks the feed for everything and sorts once it has it. Only
// the list of top-level entries is sorted and the rows laid out again from
// it (tree.Rebuild): the tree stays virtualized, open rows stay open.

// sortKind is an order of the top-level entries.
type sortKind int

const (
	sortServer   sortKind = iota // as the server sent them
	sortAmount                   // largest amount first
	sortDuration                 // longest first
	numSorts
)

// sortNames are the orders as the filter bar and status line name them.
var sortNames = [numSorts]string{"server order", "amount, largest first", "duration, longest first"}

// cycleSort is s: the next order. A sort needing the whole range asks for
// it (want keeps asking while the sort is on) and lands when it is loaded.
func (m *Model) cycleSort() {
	m.sort = (m.sort + 1) % numSorts
	m.sorted, m.quietSort = false, false
	if m.win != nil {
		// The ledger reads the range in any order: at once, from the top.
		m.sorted, m.winRequery = true, true
		if m.cursor > 0 {
			m.seek, m.seekQuiet = m.sourceOf(m.tree.Top(m.cursor)), true // its contract, in the new order
		}
		m.setNotice(shared.StatusOK, "sorted by "+sortNames[m.sort])
		return
	}
	if m.syncOnly {
		// No window yet: the one asked for reads the range in this order.
		m.sorted, m.winDue = true, true
		m.setNotice(shared.StatusOK, "sorted by "+sortNames[m.sort])
		return
	}
	if m.sort == sortServer || m.fl.State().Done {
		m.applySort()
	}
}

// applySort lays the rows out in the current order and says so. A
// cursor on a row other than the first follows its entry into the new
// order; on the first row nothing is chosen, and the new order shows from
// its top: following the newest contract put "amount, largest first" on a
// $0.61 row with the largest ones off screen.
func (m *Model) applySort() {
	top := m.cursor == 0
	m.sorted = true
	m.rebuild()
	if top {
		m.cursor, m.offset = 0, 0
	}
	if !m.quietSort {
		m.setNotice(shared.StatusOK, "sorted by "+sortNames[m.sort])
	}
}

// sortDue applies a sort that was waiting for the range once it is loaded.
func (m *Model) sortDue() {
	if m.sort != sortServer && !m.sorted && m.fl.State().Done {
		m.applySort()
	}
}

// sortStatus is the status line of a sort waiting for the range, "" when
// none waits.
func (m *Model) sortStatus() string {
	if m.sort == sortServer || m.sorted {
		return ""
	}
	return "sorting by " + sortNames[m.sort] + " once the range is loaded: " + m.pageText() + "…"
}

// sortTops orders tops by the current sort, stable so equal entries keep
// the server's order. Nothing happens before the range is loaded: the rows
// stay in the server's order until the sort can be right.
func (m *Model) sortTops(tops []*api.Charge) {
	if !m.sorted {
		return
	}
	switch m.sort {
	case sortAmount:
		slices.SortStableFunc(tops, func(a, b *api.Charge) int { return cmp.Compare(b.Amount, a.Amount) })
	case sortDuration:
		slices.SortStableFunc(tops, func(a, b *api.Charge) int { return cmp.Compare(span(b), span(a)) })
	}
}

// span is n's duration in seconds, 0 when a time is missing.
func span(n *api.Charge) int64 {
	if n.Start == 0 || n.End < n.Start {
		return 0
	}
	return n.End - n.Start
}
