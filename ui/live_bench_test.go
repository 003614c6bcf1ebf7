package ui

import (
	"context"
	"strconv"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// BenchmarkRefreshWake is what one refresh costs the dashboard beside the
// requests: the timer firing, the credit and a rate of 1,000 instances
// landing, the alarms checked and the frame drawn at 100×30. With refresh
// on, this is the only work of an idle dashboard besides the renderer's
// ticker and the requests, once per interval: at 60 s, 0.3 ms a minute is
// 0.0005% of a core.
func BenchmarkRefreshWake(b *testing.B) {
	clock := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc := billing.New(base, nil, billing.WithClock(func() time.Time { return clock }), billing.WithLocation(time.UTC))
	defer svc.Close()
	ctx := screentest.Context(base, svc, screentest.Styles(theme.New(true)))
	m := New(ctx, Options{Dark: true, Theme: "dark", Refresh: time.Minute})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	rate := billing.CurrentRate{AsOf: clock}
	for i := range 1000 {
		in := api.Instance{ID: int64(1_000_000 + i), Status: "running", NumGPUs: 1, GPUName: "RTX 4090", DPHTotal: 421_333, Label: "job " + strconv.Itoa(i)}
		rate.PerHour += in.DPHTotal
		rate.Running++
		rate.Billing = append(rate.Billing, in)
	}
	th := money.Amount(50_000)
	user := shared.UserMsg{User: api.User{ID: 1, Email: "bench@example.com", Credit: 1_234_567, BalanceThreshold: &th}}
	m.userLoading = false
	b.ReportAllocs()
	for b.Loop() {
		clock = clock.Add(time.Minute)
		m.live.timer = true
		m.Update(refreshMsg{}) // the commands it returns (the reads, the next timer) are not run
		m.Update(user)
		m.Update(shared.RateMsg{Rate: rate})
		_ = m.View()
	}
}
