package overview

import (
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
)

// Issue 27 item 3: a custom range from 2015-01-01 to today is longer than
// ten years of days. The Overview charted its first 3,660 days only, an
// empty chart, and said the one contract's $1.500 "fell on days outside
// the range". Every part of the range is charted (by month, then year, as
// the width needs) and nothing is said to lie outside it.
func TestOverviewChartsARangeLongerThanTenYears(t *testing.T) {
	r, err := spend.ParseRangeAt("2015-01-01..", now, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	one := api.Charge{Type: "instance", Source: "instance-1", Start: now.Add(-30 * time.Hour).Unix(), End: now.Add(-6 * time.Hour).Unix(), Amount: 1_500}
	m, d, _ := modelWith(t, 100, 40, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: [][]api.Charge{{one}}, Matching: 1}
	})
	d.run(t, m.Update(shared.UserMsg{User: testUser()}))
	d.run(t, m.SetRange(r))
	v := view(m)
	if !strings.Contains(v, "Spend 2015-01-01.. · all 1 contract loaded") {
		t.Fatalf("not loaded:\n%s", v)
	}
	if strings.Contains(v, "outside the range") {
		t.Errorf("the contract lies inside the range, yet:\n%s", v)
	}
	if !strings.Contains(v, "per month") && !strings.Contains(v, "per year") {
		t.Errorf("a range of twelve years is not charted by month or year:\n%s", v)
	}
	// The chart runs from 2015 on, and one bar (this month's, or this
	// year's, the last) has the spend.
	if !strings.Contains(v, "2015") || !strings.Contains(v, "2025") {
		t.Errorf("the axis does not span 2015 to 2025:\n%s", v)
	}
	drawn := 0
	for _, l := range plain(m) {
		if strings.Contains(l, "┤") || strings.Contains(l, "│") {
			drawn += strings.Count(l, "█")
		}
	}
	if drawn == 0 {
		t.Errorf("the chart draws no spend:\n%s", v)
	}
	// The months add up to the range's total exactly.
	var sum int64
	for _, day := range m.chartDays() {
		sum += int64(day.Total)
	}
	if sum != 1_500 {
		t.Errorf("the chart's months add up to %d, want 1500", sum)
	}
}

// The sizes between: 3,660 days are still charted by the day (weekly or
// monthly bars as the width needs); one more day and the spread is by
// the month. Either way the chart reaches the range's last day.
func TestOverviewChartPeriodFollowsTheSpan(t *testing.T) {
	to := time.Date(2026, 11, 21, 23, 59, 59, 0, time.UTC)
	tenYears := to.AddDate(0, 0, -spend.MaxDays+1)
	if spend.PeriodFor(tenYears, to, time.UTC) != spend.Day || spend.PeriodFor(tenYears.AddDate(0, 0, -1), to, time.UTC) != spend.Month {
		t.Fatalf("period of %d days: %v; of one more: %v", spend.MaxDays, spend.PeriodFor(tenYears, to, time.UTC), spend.PeriodFor(tenYears.AddDate(0, 0, -1), to, time.UTC))
	}
	for _, from := range []time.Time{tenYears, tenYears.AddDate(0, 0, -1)} {
		daily := spend.NewPeriodWindow(time.UTC, from, to, spend.PeriodFor(from, to, time.UTC))
		daily.Add([]api.Charge{{Type: "instance", Source: "instance-1", Start: to.Add(-2 * time.Hour).Unix(), End: to.Unix(), Amount: 7_000}})
		if b, a := daily.Outside(); b != 0 || a != 0 {
			t.Errorf("from %v: %v before and %v after the window", from, b, a)
		}
		ls := stripAll(chart(daily.Days(from, to), daily.Period(), 80, 10, newCtx().Styles))
		if n := strings.Count(strings.Join(ls[1:len(ls)-1], ""), "█"); n == 0 || strings.Contains(ls[0], "the last") {
			t.Errorf("from %v: the chart does not show the range's last day:\n%s", from, strings.Join(ls, "\n"))
		}
	}
}
