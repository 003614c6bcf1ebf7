package charges

import "github.com/vastdash/vastdash/api"

// This file is the UI-free heart of the screen: the list of visible rows of
// the charges tree, kept up to date incrementally. Nothing here formats or
// draws; it only knows nodes, depths and which nodes are open.

// row is one visible line of the tree. node points into a loaded page (or
// into a node's Items), which is never copied or appended to after it
// arrives, so the pointer stays valid for as long as the page is kept.
type row struct {
	node     *api.Charge
	depth    int32
	expanded bool
}

// hasChildren reports whether the node can be expanded.
func (r *row) hasChildren() bool { return len(r.node.Items) > 0 }

// chunkMax is the size rowList cuts its rows into. A flat slice of the
// visible rows would make expanding a contract near the top of 100,000
// expanded contracts (500,000 rows) move megabytes of memory — about half a
// millisecond per insert on a laptop. With chunks an insert moves at most one
// chunk and recomputes one start offset per chunk: a few microseconds.
const chunkMax = 512

// rowList is the sequence of visible rows, stored as consecutive chunks.
// Logically it is one flat list indexed 0..Len()-1; the chunks only bound the
// cost of inserting and deleting in the middle.
type rowList struct {
	chunks [][]row
	// starts[i] is the index of chunks[i][0]; entries from dirty on are stale.
	starts []int
	dirty  int
	n      int
}

// Len is the number of visible rows.
func (l *rowList) Len() int { return l.n }

// fix recomputes stale chunk start offsets.
func (l *rowList) fix() {
	if l.dirty >= len(l.chunks) {
		return
	}
	if cap(l.starts) < len(l.chunks) {
		s := make([]int, len(l.chunks), 2*len(l.chunks))
		copy(s, l.starts[:l.dirty])
		l.starts = s
	}
	l.starts = l.starts[:len(l.chunks)]
	pos := 0
	if l.dirty > 0 {
		pos = l.starts[l.dirty-1] + len(l.chunks[l.dirty-1])
	}
	for i := l.dirty; i < len(l.chunks); i++ {
		l.starts[i] = pos
		pos += len(l.chunks[i])
	}
	l.dirty = len(l.chunks)
}

// stale marks the start offsets of chunk ci and after as outdated.
func (l *rowList) stale(ci int) {
	if ci < l.dirty {
		l.dirty = ci
	}
}

// locate returns the chunk holding row i and i's offset in it. i must be in
// 0..Len()-1.
func (l *rowList) locate(i int) (ci, off int) {
	l.fix()
	// Binary search for the last chunk whose start is <= i.
	lo, hi := 0, len(l.starts)
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if l.starts[mid] <= i {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, i - l.starts[lo]
}

// At returns row i (0 <= i < Len()). The pointer is valid until the next
// change to the list.
func (l *rowList) At(i int) *row {
	ci, off := l.locate(i)
	return &l.chunks[ci][off]
}

// Each calls f for rows from..to-1 in order, stopping early when f returns
// false. It locates the first row once and then walks the chunks, so a
// window of rows costs one search, not one per row.
func (l *rowList) Each(from, to int, f func(i int, r *row) bool) {
	if from < 0 {
		from = 0
	}
	if to > l.n {
		to = l.n
	}
	if from >= to {
		return
	}
	ci, off := l.locate(from)
	for i := from; i < to; {
		c := l.chunks[ci]
		for ; off < len(c) && i < to; off++ {
			if !f(i, &c[off]) {
				return
			}
			i++
		}
		ci, off = ci+1, 0
	}
}

// EachBack calls f for rows from, from-1, …, 0, stopping early when f
// returns false.
func (l *rowList) EachBack(from int, f func(i int, r *row) bool) {
	from = min(from, l.n-1)
	if from < 0 {
		return
	}
	ci, off := l.locate(from)
	for i := from; ci >= 0; ci-- {
		c := l.chunks[ci]
		if off < 0 {
			off = len(c) - 1
		}
		for ; off >= 0; off-- {
			if !f(i, &c[off]) {
				return
			}
			i--
		}
	}
}

// Append adds rows at the end, filling the last chunk first.
func (l *rowList) Append(rs ...row) {
	for len(rs) > 0 {
		last := len(l.chunks) - 1
		if last < 0 || len(l.chunks[last]) >= chunkMax {
			l.chunks = append(l.chunks, make([]row, 0, chunkMax))
			last++
		}
		room := chunkMax - len(l.chunks[last])
		k := min(room, len(rs))
		l.chunks[last] = append(l.chunks[last], rs[:k]...)
		l.stale(last)
		l.n += k
		rs = rs[k:]
	}
}

// Insert puts rs before row i (i == Len() appends).
func (l *rowList) Insert(i int, rs []row) {
	if len(rs) == 0 {
		return
	}
	if i >= l.n {
		l.Append(rs...)
		return
	}
	ci, off := l.locate(i)
	c := l.chunks[ci]
	if len(c)+len(rs) <= chunkMax {
		c = append(c, rs...)           // grow (within the chunk's capacity when possible)
		copy(c[off+len(rs):], c[off:]) // shift the tail right
		copy(c[off:], rs)
		l.chunks[ci] = c
		l.stale(ci)
		l.n += len(rs)
		return
	}
	// Too big for the chunk: rebuild head + rs + tail as several chunks of
	// equal size. Equal halves (not one full chunk and a sliver) leave room
	// for the next inserts, so repeated expands do not shred the list into
	// tiny chunks.
	merged := make([]row, 0, len(c)+len(rs))
	merged = append(merged, c[:off]...)
	merged = append(merged, rs...)
	merged = append(merged, c[off:]...)
	k := (len(merged) + chunkMax - 1) / chunkMax
	parts := make([][]row, 0, k)
	for p := 0; p < k; p++ {
		lo, hi := p*len(merged)/k, (p+1)*len(merged)/k
		part := make([]row, hi-lo, chunkMax)
		copy(part, merged[lo:hi])
		parts = append(parts, part)
	}
	l.chunks = append(l.chunks[:ci], append(parts, l.chunks[ci+1:]...)...)
	l.stale(ci)
	l.n += len(rs)
}

// Delete removes k rows starting at row i.
func (l *rowList) Delete(i, k int) {
	if k <= 0 || i < 0 || i >= l.n {
		return
	}
	k = min(k, l.n-i)
	ci, off := l.locate(i)
	first := ci
	l.n -= k
	for k > 0 {
		c := l.chunks[ci]
		d := min(k, len(c)-off)
		l.chunks[ci] = append(c[:off], c[off+d:]...)
		k -= d
		ci, off = ci+1, 0
	}
	// Drop emptied chunks and merge a small chunk into its neighbour so that
	// many collapses do not leave thousands of tiny chunks behind.
	end := ci
	kept := l.chunks[:first]
	for j := first; j < end; j++ {
		if c := l.chunks[j]; len(c) > 0 {
			kept = append(kept, c)
		}
	}
	if end < len(l.chunks) {
		kept = append(kept, l.chunks[end:]...)
	}
	for j := len(kept); j < len(l.chunks); j++ {
		l.chunks[j] = nil
	}
	l.chunks = kept
	if first < len(l.chunks) && first+1 < len(l.chunks) &&
		len(l.chunks[first])+len(l.chunks[first+1]) <= chunkMax/2 {
		l.chunks[first] = append(l.chunks[first], l.chunks[first+1]...)
		l.chunks = append(l.chunks[:first+1], l.chunks[first+2:]...)
	}
	l.stale(first)
	if len(l.chunks) == 0 {
		l.starts, l.dirty = l.starts[:0], 0
	}
}

// Reset empties the list.
func (l *rowList) Reset() { *l = rowList{} }

// tree is the visible rows plus the memory of which nodes are open, so that
// collapsing a contract's parent and expanding it again shows the contract
// expanded as before.
type tree struct {
	rows rowList
	open map[*api.Charge]bool
}

func newTree() *tree { return &tree{open: map[*api.Charge]bool{}} }

// Len is the number of visible rows.
func (t *tree) Len() int { return t.rows.Len() }

// At returns visible row i.
func (t *tree) At(i int) *row { return t.rows.At(i) }

// Reset drops every row and the open-node memory (the nodes they pointed to
// are being dropped too).
func (t *tree) Reset() {
	t.rows.Reset()
	t.open = map[*api.Charge]bool{}
}

// AppendTop adds the top-level entries of a page, collapsed. entries must not
// be appended to or copied afterwards: rows point into it.
func (t *tree) AppendTop(entries []api.Charge) {
	rs := make([]row, len(entries))
	for i := range entries {
		rs[i] = row{node: &entries[i]}
	}
	t.rows.Append(rs...)
}

// Expand opens row i: its children's rows are inserted after it, and
// recursively those of descendants that were open before. It reports whether
// anything changed (false for leaves and rows already open).
func (t *tree) Expand(i int) bool {
	if i < 0 || i >= t.Len() {
		return false
	}
	r := t.At(i)
	if r.expanded || !r.hasChildren() {
		return false
	}
	r.expanded = true
	t.open[r.node] = true
	kids := t.visibleChildren(r.node, r.depth+1, nil)
	t.rows.Insert(i+1, kids)
	return true
}

// visibleChildren appends the rows n's open subtree shows under it.
func (t *tree) visibleChildren(n *api.Charge, depth int32, out []row) []row {
	for k := range n.Items {
		c := &n.Items[k]
		open := len(c.Items) > 0 && t.open[c]
		out = append(out, row{node: c, depth: depth, expanded: open})
		if open {
			out = t.visibleChildren(c, depth+1, out)
		}
	}
	return out
}

// Collapse closes row i and removes its subtree's rows. Descendants keep
// their open state for the next Expand. It reports whether anything changed.
func (t *tree) Collapse(i int) bool {
	if i < 0 || i >= t.Len() {
		return false
	}
	r := t.At(i)
	if !r.expanded {
		return false
	}
	r.expanded = false
	delete(t.open, r.node)
	t.rows.Delete(i+1, t.subtreeSize(i))
	return true
}

// subtreeSize counts the visible rows below row i that belong to it: the
// following rows deeper than it.
func (t *tree) subtreeSize(i int) int {
	d := t.At(i).depth
	n := 0
	t.rows.Each(i+1, t.Len(), func(_ int, r *row) bool {
		if r.depth <= d {
			return false
		}
		n++
		return true
	})
	return n
}

// Parent returns the index of row i's parent row, or -1 for a top-level row.
func (t *tree) Parent(i int) int {
	if i <= 0 || i >= t.Len() {
		return -1
	}
	d := t.At(i).depth
	p := -1
	if d > 0 {
		t.rows.EachBack(i-1, func(j int, r *row) bool {
			if r.depth < d {
				p = j
				return false
			}
			return true
		})
	}
	return p
}

// Rebuild replaces the rows by the top-level entries tops, in that order,
// each shown as it was left: an entry that was open shows its open
// subtree again. The find filter and the sort use it; the open-node memory
// is kept, so clearing a filter gives back the rows as they were.
func (t *tree) Rebuild(tops []*api.Charge) {
	t.rows.Reset()
	var rs []row
	for _, n := range tops {
		open := len(n.Items) > 0 && t.open[n]
		rs = append(rs, row{node: n, expanded: open})
		if open {
			rs = t.visibleChildren(n, 1, rs)
		}
	}
	t.rows.Append(rs...)
}

// AppendNodes adds top-level entries at the end, collapsed (the entries of
// a new page that a find filter keeps).
func (t *tree) AppendNodes(ns []*api.Charge) {
	rs := make([]row, len(ns))
	for i, n := range ns {
		rs[i] = row{node: n}
	}
	t.rows.Append(rs...)
}

// Top returns the index of the top-level row holding row i (i itself for a
// top-level row), or -1 when i is out of range.
func (t *tree) Top(i int) int {
	if i < 0 || i >= t.Len() {
		return -1
	}
	top := i
	t.rows.EachBack(i, func(j int, r *row) bool {
		if r.depth == 0 {
			top = j
			return false
		}
		return true
	})
	return top
}

// Index returns the row showing node n, or -1.
func (t *tree) Index(n *api.Charge) int {
	at := -1
	t.rows.Each(0, t.Len(), func(i int, r *row) bool {
		if r.node == n {
			at = i
			return false
		}
		return true
	})
	return at
}
