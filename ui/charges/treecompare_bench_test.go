package charges

import (
	"fmt"
	"testing"
	"time"

	btree "charm.land/bubbles/v2/tree"
	tea "charm.land/bubbletea/v2"
)

// compareContracts × (1 contract + 4 items) = 2,000 nodes, every one
// visible: the size at which the two trees are compared.
const compareContracts = 400

// bubblesTree is the stock tree component (charm.land/bubbles/v2/tree)
// holding the same 400 contracts and their four items, all open, at
// 120×40, its help line off. Each label is the text of one of our rows
// (source, description, amount) so both draw lines of similar width.
func bubblesTree() btree.Model {
	root := btree.Root("charges")
	for _, c := range contracts(1, compareContracts) {
		n := btree.Root(fmt.Sprintf("%s  %s  %s", c.Source, c.Description, c.Amount))
		for _, it := range c.Items {
			n.Child(fmt.Sprintf("%s  %s  %s", it.Type, it.Description, it.Amount))
		}
		root.Child(n)
	}
	m := btree.New(root, 120, 40)
	m.SetShowHelp(false)
	return m
}

// BenchmarkBubblesTreeKeypress is BenchmarkKeypress's workload — one
// down-arrow Update plus one full View at 120×40 — on 2,000 visible nodes,
// once with bubbles/tree and once with this package's tree, in one run.
// bubbles/tree renders the whole tree into its viewport on every move
// (cost grows with the node count); ours formats only the rows on screen.
// The second run reports the ratio bubbles/ours as x-faster-than-bubbles;
// it is why the screen has its own tree.
func BenchmarkBubblesTreeKeypress(b *testing.B) {
	down := keyMsg("down")
	var bubbles time.Duration // ns/op of the bubbles run, for the ratio
	b.Run("nodes=2000/tree=bubbles", func(b *testing.B) {
		m := bubblesTree()
		last := m.Root().Size() - 1
		if last != 5*compareContracts { // the root line, then 2,000 nodes
			b.Fatalf("%d nodes under the root, want %d", last, 5*compareContracts)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if m.YOffset() == last {
				b.StopTimer()
				m.GoToTop()
				b.StartTimer()
			}
			m, _ = m.Update(tea.KeyPressMsg(down))
			_ = m.View()
		}
		bubbles = b.Elapsed() / time.Duration(b.N)
	})
	b.Run("nodes=2000/tree=vastdash", func(b *testing.B) {
		m := benchModel(b, compareContracts, true)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if m.cursor == m.tree.Len()-1 {
				b.StopTimer()
				m.cursor, m.offset = 0, 0
				b.StartTimer()
			}
			m.Update(down)
			_ = m.View()
		}
		ours := b.Elapsed() / time.Duration(b.N)
		if bubbles > 0 && ours > 0 {
			b.ReportMetric(float64(bubbles)/float64(ours), "x-faster-than-bubbles")
		}
	})
}
