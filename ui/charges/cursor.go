package charges

// This file keeps the cursor's contract for the next run of the dashboard
// on the same account (ctx.Cursor): an account switched away from and back
// to finds its Charges cursor where it was, by contract, not by row number
// (rows come and go as charges are added).

// resume seeks the contract kept for this account, quietly, as r puts the
// cursor back: pages are loaded up to it, and one that is gone says
// nothing.
func (m *Model) resume() {
	if m.ctx.Cursor == nil || *m.ctx.Cursor == "" {
		return
	}
	m.seek, m.seekQuiet = *m.ctx.Cursor, true
	m.seekWhat, m.seekEP = "", 0
}

// keepCursor writes the cursor's contract where ctx.Cursor points. Not
// while a search is under way (the kept one may be it), nor with no rows
// (a filter that shows none leaves the contract to seek next time).
func (m *Model) keepCursor() {
	if m.ctx.Cursor == nil || m.seek != "" || m.tree.Len() == 0 {
		return
	}
	*m.ctx.Cursor = m.sourceOf(min(m.cursor, m.tree.Len()-1))
}
