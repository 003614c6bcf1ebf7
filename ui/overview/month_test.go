package overview

import (
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/shared"
)

// monthScreen is the loaded screen at w×h with budget and a rate reading:
// every query gets the fixture's pages, so the panel's figures are
// billing's outlook of the fixture.
func monthScreen(t *testing.T, w, h int, budget money.Amount, rate billing.CurrentRate) (*Model, *driver, billing.Outlook) {
	t.Helper()
	cs := fixture()
	m, d, _ := modelWith(t, w, h, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
	})
	m.ctx.Budget = budget
	d.run(t, m.Update(shared.UserMsg{User: testUser()}))
	d.run(t, m.Init())
	d.send(t, shared.RateMsg{Rate: rate})
	want := billing.BuildOutlook(billing.OutlookInput{Loc: time.UTC, Now: now, Charges: cs, Rate: &rate, Budget: budget})
	return m, d, want
}

// The panel shows billing's figures: the month so far, last month by the
// same point with the change, the forecast with its basis, and no budget
// line without a budget. It waits for the first rate reading: until then
// there is no panel and no query of its own.
func TestMonthPanel(t *testing.T) {
	cs := fixture()
	m, d, qs := modelWith(t, 120, 40, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
	})
	d.run(t, m.Init())
	before := qs.n()
	if strings.Contains(view(m), "Month ") {
		t.Fatalf("a panel before the rate:\n%s", view(m))
	}
	rate := testRate()
	d.send(t, shared.RateMsg{Rate: rate})
	if qs.n() != before+1 || !qs.at(before).Equal(m.ctx.Billing.OutlookQuery(now)) {
		t.Fatalf("%d queries after the rate, want one more: the outlook's", qs.n()-before)
	}
	o := billing.BuildOutlook(billing.OutlookInput{Loc: time.UTC, Now: now, Charges: cs, Rate: &rate})
	head := lineWith(t, m, "Month  ")
	for _, want := range []string{o.SoFar.String() + " so far", o.PrevText() + " " + o.PrevSoFar.String(), "(" + billing.ChangeText(o.Change, o.ChangeOK) + ")"} {
		if !strings.Contains(head, want) {
			t.Errorf("%q lacks %q", head, want)
		}
	}
	if f := lineWith(t, m, "forecast "); !strings.Contains(f, o.Forecast.String()+" to 30 Nov · "+o.BasisText()) || o.Basis != billing.BasisRate {
		t.Errorf("forecast line %q; want %v at %s", f, o.Forecast, o.BasisText())
	}
	if strings.Contains(view(m), "Budget ") {
		t.Error("a budget line without a budget")
	}

	// A key without instance_read: the forecast runs on the burn and says
	// so in place.
	d.send(t, shared.RateMsg{Rate: billing.CurrentRate{NeedsPermission: billing.NeedsInstanceRead}})
	burn := billing.BuildOutlook(billing.OutlookInput{Loc: time.UTC, Now: now, Charges: cs, Rate: &billing.CurrentRate{NeedsPermission: billing.NeedsInstanceRead}})
	if f := lineWith(t, m, "forecast "); !strings.Contains(f, burn.Forecast.String()) || !strings.Contains(f, "last 7 complete days") || !strings.Contains(f, "(no instance_read)") {
		t.Errorf("burn forecast line %q, want %v", f, burn.Forecast)
	}
	if qs.n() != before+1 {
		t.Errorf("a new rate reading read the charges again (%d queries)", qs.n()-before)
	}
}

// With a budget: a gauge, the share and the level in words (so NO_COLOR,
// which drops the colours, loses nothing), fitting 80×24 whole and 40×12
// cut down, never wider than the screen.
func TestMonthPanelBudget(t *testing.T) {
	m, _, o := monthScreen(t, 120, 40, 5000*money.Dollar, testRate())
	b := lineWith(t, m, "Budget ")
	if o.Level() != billing.BudgetAhead || !strings.Contains(b, billing.UsedText(o.Used)+" of $5,000.00 · heading over · forecast crosses it on "+o.CrossedAt.Format("2 Jan")) ||
		!strings.Contains(b, "█") || !strings.Contains(b, "▒") || !strings.HasSuffix(strings.Split(b, " ")[1], "»") {
		t.Errorf("budget line %q (level %v, used %d‰)", b, o.Level(), o.Used)
	}
	for _, size := range [][2]int{{80, 24}, {40, 12}, {100, 30}, {20, 5}} {
		checkSize(t, "budget", m, size[0], size[1])
	}
	m.SetSize(80, 24)
	for _, want := range []string{"Month  ", "forecast ", "Budget ", "heading over"} {
		if !strings.Contains(view(m), want) {
			t.Errorf("80×24 lacks %q:\n%s", want, view(m))
		}
	}
	m.SetSize(40, 12)
	if !strings.Contains(view(m), "Month  "+o.SoFar.String()) {
		t.Errorf("40×12 lost the month:\n%s", view(m))
	}

	// Under 80 % of a larger budget: on track, no shading past the spend
	// beyond the forecast's share.
	m, _, o = monthScreen(t, 120, 40, 50_000*money.Dollar, testRate())
	if b := lineWith(t, m, "Budget "); o.Level() != billing.BudgetOK || !strings.Contains(b, "on track") || strings.Contains(b, "»") {
		t.Errorf("budget line %q", b)
	}
}

// The first crossing of the budget is told to the root once: the first
// reading without a ring (the user opened the program in that state), a
// later crossing with one, the same level never twice.
func TestMonthPanelAlarm(t *testing.T) {
	idle := billing.CurrentRate{AsOf: now}
	_, d, o := monthScreen(t, 100, 30, 0, idle)
	if len(d.alarms) != 0 {
		t.Fatalf("alarms without a budget: %v", d.alarms)
	}
	// A budget the forecast at no rate stays under, and a rate that takes
	// it over.
	budget := o.Forecast + o.Forecast/2
	_, d, o = monthScreen(t, 100, 30, budget, idle)
	if o.Level() != billing.BudgetOK || len(d.alarms) != 0 {
		t.Fatalf("level %v, alarms %v", o.Level(), d.alarms)
	}
	d.send(t, shared.RateMsg{Rate: testRate()})
	if len(d.alarms) != 1 || !d.alarms[0].Ring || !strings.Contains(d.alarms[0].Text, "over your "+budget.Credit()) {
		t.Fatalf("alarms %v", d.alarms)
	}
	d.send(t, shared.RateMsg{Rate: testRate()})
	if len(d.alarms) != 1 {
		t.Fatalf("the same crossing told again: %v", d.alarms)
	}

	_, d, _ = monthScreen(t, 100, 30, money.Dollar, idle)
	if len(d.alarms) != 1 || d.alarms[0].Ring || !strings.Contains(d.alarms[0].Text, "spend") {
		t.Fatalf("already over at start: %v", d.alarms)
	}
}

// A key without billing_read: the panel names the permission in place;
// a failure part-way marks the figures incomplete, and r resumes.
func TestMonthPanelFailures(t *testing.T) {
	cs := fixture()
	denied := &api.Error{Kind: api.ErrPermission, Status: 401, Permission: "billing_read"}
	m, d, _ := modelWith(t, 120, 40, func(q api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Fail: denied}
	})
	d.run(t, m.Init())
	d.send(t, shared.RateMsg{Rate: testRate()})
	if l := lineWith(t, m, "Month  "); !strings.Contains(l, "— this API key lacks the billing_read permission") {
		t.Errorf("month line %q", l)
	}

	var outlook api.ChargesQuery
	m, d, _ = modelWith(t, 120, 40, func(q api.ChargesQuery) *billingtest.Pager[api.Charge] {
		p := &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
		if q.Equal(outlook) {
			p.Errs = map[int]error{2: &api.Error{Kind: api.ErrServer, Status: 502}}
		}
		return p
	})
	outlook = m.ctx.Billing.OutlookQuery(now)
	d.run(t, m.Init())
	d.send(t, shared.RateMsg{Rate: testRate()})
	if l := lineWith(t, m, "Month  "); !strings.Contains(l, "(incomplete)") {
		t.Errorf("month line %q", l)
	}
	if f := lineWith(t, m, "forecast "); !strings.Contains(f, "(incomplete)") {
		t.Errorf("forecast line %q", f)
	}
	d.key(t, "r")
	if l := lineWith(t, m, "Month  "); strings.Contains(l, "incomplete") {
		t.Errorf("after r: %q", l)
	}
}

// clockedMonth is the screen with its month panel read on the fixture at
// the clock *c, which the test moves.
func clockedMonth(t *testing.T) (*Model, *driver, *queries, *time.Time) {
	t.Helper()
	cs := fixture()
	clock := now
	m, d, qs := modelWith(t, 120, 40, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
	}, billing.WithClock(func() time.Time { return clock }))
	d.run(t, m.Init())
	d.send(t, shared.RateMsg{Rate: testRate()})
	return m, d, qs, &clock
}

// Left open overnight, the first rate reading of a new day reads the
// month's charges again (its query runs to the end of the day); readings
// a minute apart do not.
func TestMonthPanelNextDay(t *testing.T) {
	m, d, qs, clock := clockedMonth(t)
	n := qs.n()
	*clock = now.Add(time.Minute)
	d.send(t, shared.RateMsg{Rate: testRate()})
	if qs.n() != n {
		t.Fatalf("a reading a minute later read the charges again")
	}
	*clock = now.Add(12 * time.Hour) // 22 Nov, 03:04
	d.send(t, shared.RateMsg{Rate: testRate()})
	if qs.n() != n+1 || !qs.at(n).Equal(m.ctx.Billing.OutlookQuery(*clock)) {
		t.Fatalf("%d new queries on a new day, want the new day's outlook", qs.n()-n)
	}
	if !strings.Contains(lineWith(t, m, "Month  "), "to 22 Oct 03:04") {
		t.Errorf("the panel did not move on:\n%s", view(m))
	}
}

// The panel's feed waits for the range on screen to load: a rate reading
// that comes first starts nothing, and the month's charges are asked for
// once the range's last page is in.
func TestMonthPanelWaitsForTheRange(t *testing.T) {
	cs := fixture()
	pager := gated(&billingtest.Pager[api.Charge]{Pages: paged(cs, 11), Matching: len(cs)})
	r := preset(t, "30d")
	m, d, qs := modelWith(t, 100, 30, func(q api.ChargesQuery) *billingtest.Pager[api.Charge] {
		if q.Equal(billing.RangeQuery(r.From, r.To)) {
			return pager
		}
		return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
	})
	cmd := m.Init()
	pager.Allow(1)
	d.runUntil(t, cmd, pagesIn(m, 1))
	next := m.Update(shared.RateMsg{Rate: testRate()})
	if m.month.fl != nil || qs.n() != 1 {
		t.Fatalf("%d queries with the range still loading; the month's feed started: %v", qs.n(), m.month.fl != nil)
	}
	pager.Allow(64)
	d.run(t, next)
	if qs.n() != 2 || !qs.at(1).Equal(m.ctx.Billing.OutlookQuery(now)) || !strings.Contains(view(m), "forecast ") {
		t.Fatalf("%d queries once the range loaded:\n%s", qs.n(), view(m))
	}
}

// Left open, the panel's so far follows the live refresh: a rate reading
// monthEvery or more after the month's charges were read reads them again
// (through the ledger, only what changed), and the forecast is built from
// that current so far, not from the old one plus the new rate over hours
// it already counted; readings closer together reuse the charges.
func TestMonthPanelFollowsTheRefresh(t *testing.T) {
	cs := fixture()
	m, d, qs, clock := clockedMonth(t)
	n := qs.n()
	*clock = now.Add(monthEvery - time.Second)
	d.send(t, shared.RateMsg{Rate: testRate()})
	if qs.n() != n {
		t.Fatalf("a reading within %v read the charges again", monthEvery)
	}
	*clock = now.Add(monthEvery + 5*time.Minute)
	rate := testRate()
	d.send(t, shared.RateMsg{Rate: rate})
	if qs.n() != n+1 || !qs.at(n).Equal(m.ctx.Billing.OutlookQuery(*clock)) {
		t.Fatalf("%d new queries %v later, want the month's charges read again", qs.n()-n, clock.Sub(now))
	}
	want := billing.BuildOutlook(billing.OutlookInput{Loc: time.UTC, Now: *clock, Charges: cs, Rate: &rate})
	if o := m.month.out; o == nil || !o.AsOf.Equal(*clock) || o.Forecast != want.Forecast || o.SoFar != want.SoFar {
		t.Fatalf("outlook %+v, want so far %v and forecast %v as of %v", o, want.SoFar, want.Forecast, *clock)
	}
	if !strings.Contains(lineWith(t, m, "Month  "), "to 21 Oct "+clock.Format("15:04")) {
		t.Errorf("the panel did not move on:\n%s", view(m))
	}
	// A key whose rate is not read again (no instance_read): the credit's
	// reading of the refresh does it.
	*clock = clock.Add(monthEvery)
	d.send(t, shared.UserMsg{User: testUser()})
	if qs.n() != n+2 || m.month.out == nil || !m.month.out.AsOf.Equal(*clock) {
		t.Fatalf("%d new queries after the credit's reading, outlook %+v", qs.n()-n, m.month.out)
	}
}

// Across New Year the panel's dates carry the year of a day in another
// one: on 3 January last month's point is "3 Dec 2026" (it read "3 Dec
// 10:00", this December's) and the last 7 complete days begin "27 Dec
// 2026"; late in December nothing carries a year.
func TestMonthPanelAcrossNewYear(t *testing.T) {
	for _, c := range []struct {
		clock       time.Time
		prev, to, w string
	}{
		{time.Date(2027, 1, 3, 10, 0, 0, 0, time.UTC), "December to 3 Dec 2026", " to 31 Jan · ", "(last 7 complete days: 27 Dec 2026 – 2 Jan)"},
		{time.Date(2026, 12, 30, 10, 0, 0, 0, time.UTC), "November to 30 Nov 10:00", " to 31 Dec · ", "(last 7 complete days: 23 Dec – 29 Dec)"},
	} {
		// $1/h from two months back to the clock.
		from := c.clock.AddDate(0, -2, 0)
		cs := []api.Charge{{Type: "instance", Source: "instance-1", Start: from.Unix(), End: c.clock.Unix(),
			Amount: money.Amount((c.clock.Unix() - from.Unix()) * 1000 / 3600)}}
		m, d, _ := modelWith(t, 120, 40, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
			return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
		}, billing.WithClock(func() time.Time { return c.clock }))
		d.run(t, m.Update(shared.UserMsg{User: testUser()}))
		d.run(t, m.Init())
		d.send(t, shared.RateMsg{Rate: billing.CurrentRate{AsOf: c.clock}})
		if head := lineWith(t, m, "Month  "); !strings.Contains(head, c.prev) {
			t.Errorf("%v: %q lacks %q", c.clock, head, c.prev)
		}
		if f := lineWith(t, m, "forecast "); !strings.Contains(f, c.to) {
			t.Errorf("%v: %q lacks %q", c.clock, f, c.to)
		}
		if b := lineWith(t, m, "Burn "); !strings.Contains(b, c.w) {
			t.Errorf("%v: %q lacks %q", c.clock, b, c.w)
		}
	}
}
