package charges

import (
	"fmt"
	"testing"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/ui/theme"
)

// Budgets (see the package's design notes): at 120×40 with 100,000
// contracts all expanded, one Update(down) plus one View ≤ 0.5 ms and ≤ 1.2×
// the 1,000-contract figure; expanding or collapsing one contract ≤ 0.5 ms;
// folding a 500-row page into 100,000 rows ≤ 2 ms.

// benchModel loads n contracts, in pages of 500, through the billing
// layer's feed and the screen's own folding, with the real (coloured)
// styles, sized 120×40.
func benchModel(b *testing.B, n int, expandAll bool) *Model {
	b.Helper()
	all := contracts(1, n)
	ctx := testContext(theme.New(true))
	ctx.Billing = testService(b, ctx.Base, func(api.ChargesQuery) billing.Source[api.Charge] {
		return billingtest.Paged(all, 500)
	})
	m := New(ctx)
	m.SetSize(120, 40)
	m.Init() // its listener is never run: the loop below waits instead
	m.fl.Feed().WantAll()
	for st := m.fl.Feed().State(); !st.Done || st.Loading; st = m.fl.Feed().Wait(ctx.Base, st.Version) {
		if st.Err != nil {
			b.Fatal(st.Err)
		}
	}
	m.sync()
	if m.tree.Len() != n {
		b.Fatalf("loaded %d rows, want %d", m.tree.Len(), n)
	}
	if expandAll {
		// From the end backwards, so the top-level rows not yet expanded
		// keep their index.
		for i := n - 1; i >= 0; i-- {
			m.tree.Expand(i)
		}
		if m.tree.Len() != 5*n {
			b.Fatalf("expanded to %d rows, want %d", m.tree.Len(), 5*n)
		}
	}
	return m
}

func BenchmarkKeypress(b *testing.B) {
	for _, n := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("contracts=%d", n), func(b *testing.B) {
			m := benchModel(b, n, true)
			down := keyMsg("down")
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
		})
	}
}

func BenchmarkToggle(b *testing.B) {
	for _, all := range []bool{true, false} {
		name := "contracts=100000/others=collapsed"
		if all {
			name = "contracts=100000/others=expanded"
		}
		b.Run(name, func(b *testing.B) {
			m := benchModel(b, 100000, all)
			m.cursor = 5 // near the top: the most rows after it
			if all {
				m.cursor = 25
			}
			enter := keyMsg("enter")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Update(enter) // alternately collapses and expands contract 6
			}
		})
	}
}

// BenchmarkAppendPage is the screen's part of a page's arrival: folding
// 500 entries into 100,000 rows (the feed's part is billing's).
func BenchmarkAppendPage(b *testing.B) {
	const base = 100000
	m := benchModel(b, base, false)
	basePages := len(m.pages)
	// Fresh pages prepared outside the timer, used in turn.
	pool := make([][]api.Charge, 8)
	for i := range pool {
		pool[i] = contracts(base+1+i*500, 500)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if m.tree.Len() >= base+50*500 {
			b.StopTimer()
			m.tree.rows.Delete(base, m.tree.Len()-base)
			m.pages = m.pages[:basePages]
			b.StartTimer()
		}
		m.fold(pool[i%len(pool)])
	}
}

// BenchmarkPageDown is the cache-miss path: every row on screen is new and
// formatted from scratch.
func BenchmarkPageDown(b *testing.B) {
	m := benchModel(b, 100000, true)
	pgdown := keyMsg("pgdown")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if m.cursor == m.tree.Len()-1 {
			b.StopTimer()
			m.cursor, m.offset = 0, 0
			b.StartTimer()
		}
		m.Update(pgdown)
		_ = m.View()
	}
}

// BenchmarkFindKeystroke is one key typed into the find field over 100,000
// loaded contracts: every entry is matched again and the rows rebuilt.
func BenchmarkFindKeystroke(b *testing.B) {
	m := benchModel(b, 100000, false)
	texts := []string{"job-12", "job-1"}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		m.setFind(texts[i%2])
	}
}

// BenchmarkSort100k sorts 100,000 loaded contracts by amount.
func BenchmarkSort100k(b *testing.B) {
	m := benchModel(b, 100000, false)
	b.ResetTimer()
	for b.Loop() {
		m.sort, m.sorted = sortAmount, true
		m.rebuild()
	}
}
