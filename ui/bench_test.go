package ui

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// Budget: one keypress through the whole root model — Update routed to the
// Charges screen, then the frame with header, tabs, the screen and the
// status and help lines — at 100,000 contracts ≤ 1 ms.

// benchContracts are n contracts with four items each.
func benchContracts(n int) []api.Charge {
	res := make([]api.Charge, 0, n)
	stop := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC).Unix()
	for i := range n {
		s := stop - int64(i)*60
		c := api.Charge{Type: "instance", Source: "instance-" + strconv.Itoa(1_000_000+i), Start: s - 3600, End: s,
			Description: "Instance " + strconv.Itoa(1_000_000+i) + ": 1x RTX 4090", Amount: money.Amount(1000 + i%5000)}
		for _, it := range []string{"gpu", "disk", "bwd", "bwu"} {
			c.Items = append(c.Items, api.Charge{Type: it, Start: s - 3600, End: s, Description: it + " 1h", Amount: c.Amount / 4})
		}
		res = append(res, c)
	}
	return res
}

// loadedRoot is the root model at w×h with n contracts loaded on the
// Charges screen (the Overview reads the same feed), the cursor on the
// first row.
func loadedRoot(b *testing.B, n, w, h int) *Model {
	b.Helper()
	all := benchContracts(n)
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	base, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	svc := billing.New(base, nil,
		billing.WithPages(func(api.ChargesQuery) billing.Source[api.Charge] { return billingtest.Paged(all, api.MaxLimit) }),
		billing.WithClock(func() time.Time { return now }), billing.WithLocation(time.UTC))
	b.Cleanup(svc.Close)
	ctx := screentest.Context(base, svc, screentest.Styles(theme.New(true)))
	m := New(ctx, Options{Dark: true, Theme: "dark"})
	loop := newCmdLoop()
	b.Cleanup(loop.close)
	loop.run(m.Init())
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(shared.UserMsg{User: api.User{ID: 1, Email: "bench@example.com", Credit: 1234567}})
	for _, k := range []string{"2", "G"} {
		_, cmd := m.Update(press(k))
		loop.run(cmd)
	}
	want := money.Group(int64(n)) + " of " + money.Group(int64(n)) + " contracts"
	deadline := time.After(2 * time.Minute)
	for !strings.Contains(ansi.Strip(m.View().Content), want) {
		select {
		case msg := <-loop.msgs:
			_, cmd := m.Update(msg)
			loop.run(cmd)
		case <-deadline:
			b.Fatalf("not every contract loaded:\n%s", ansi.Strip(m.View().Content))
		}
	}
	m.Update(press("g"))
	return m
}

func BenchmarkRootKeypress(b *testing.B) {
	m := loadedRoot(b, 100_000, 120, 40)
	down, up := tea.KeyPressMsg{Code: tea.KeyDown}, tea.KeyPressMsg{Code: tea.KeyUp}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		k := down
		if i/30%2 == 1 {
			k = up // stay near the top: the budget is per key, not per page load
		}
		m.Update(k)
		_ = m.View()
	}
}

// BenchmarkRootView is one frame of the whole dashboard at 200×60 with
// 100,000 contracts loaded, on the Overview (its chart, top contracts and
// split read all of them) and on the Charges screen: what Bubble Tea asks
// for after every message, a spinner tick or a key. Budget (issue 21): a
// frame never waits on it — well under the 16.7 ms between two of the
// renderer's frames.
func BenchmarkRootView(b *testing.B) {
	m := loadedRoot(b, 100_000, 200, 60)
	for _, s := range []struct {
		name string
		key  string
	}{{"overview", "1"}, {"charges", "2"}} {
		m.Update(press(s.key))
		b.Run(s.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}
