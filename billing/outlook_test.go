package billing

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// perHour is a contract billed $1 for every hour between from and to.
func perHour(from, to time.Time) api.Charge {
	secs := to.Unix() - from.Unix()
	return api.Charge{Type: "instance", Source: "instance-" + from.Format("0102"), Start: from.Unix(), End: to.Unix(), Amount: money.Amount(secs * 1000 / 3600)}
}

// A month worked by hand, in UTC on the 21st at 15:30:
//
//	A  1 Nov 00:00 → now, $1/h: 495.5 h, all of it this month; its
//	   bandwidth items run on their own seconds (bwd the last 7 days,
//	   bwu the last one).
//	B  all of October at $1/h ($744): by 21 Oct 15:30, 495.5 h.
//	C  25 Oct → 5 Nov at $1/h: 96 h of it in November, none of it
//	   before 21 Oct 15:30.
//
// So far $591.500; October by the same point $495.500: +19.4 %. The rate
// is $2.050/h (instances $2, storage $0.05); the bandwidth of the 168
// hours from 14 Nov adds ($16.800 + $2.400)/168 h = $0.114286/h. Left:
// 224.5 h. Forecast 591.500 + 2.164286 × 224.5 = $1,077.382. Against a
// $1,000 budget: 59.2 % used, the forecast 107.7 %, crossing when
// $408.500 more is spent at $2.164286/h: 679,486 s after now.
func TestOutlookByHand(t *testing.T) {
	utc := time.UTC
	now := time.Date(2026, 11, 21, 15, 30, 0, 0, utc)
	nov, oct := time.Date(2026, 11, 1, 0, 0, 0, 0, utc), time.Date(2026, 10, 1, 0, 0, 0, 0, utc)
	a := perHour(nov, now)
	a.Items = []api.Charge{
		{Type: "gpu", Amount: a.Amount - 19_200},
		{Type: "bwd", Start: time.Date(2026, 11, 14, 0, 0, 0, 0, utc).Unix(), End: time.Date(2026, 11, 21, 0, 0, 0, 0, utc).Unix(), Amount: 16_800},
		{Type: "bwu", Start: time.Date(2026, 11, 20, 0, 0, 0, 0, utc).Unix(), End: time.Date(2026, 11, 21, 0, 0, 0, 0, utc).Unix(), Amount: 2_400},
	}
	charges := []api.Charge{a, perHour(oct, nov), perHour(time.Date(2026, 10, 25, 0, 0, 0, 0, utc), time.Date(2026, 11, 5, 0, 0, 0, 0, utc))}
	rate := &CurrentRate{PerHour: 2_000_000, Storage: 50_000}
	o := BuildOutlook(OutlookInput{Loc: utc, Now: now, Charges: charges, Rate: rate, Budget: 1000 * money.Dollar})

	if o.Label() != "2026-11" || !o.Month.Equal(nov) || !o.End.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, utc)) || o.Past {
		t.Fatalf("month %s %v..%v past %v", o.Label(), o.Month, o.End, o.Past)
	}
	if o.SoFar != 591_500 || o.PrevSoFar != 495_500 || !o.PrevPoint.Equal(time.Date(2026, 10, 21, 15, 30, 0, 0, utc)) {
		t.Fatalf("so far %v, October to %v %v; want $591.500 and $495.500 to 21 Oct 15:30", o.SoFar, o.PrevPoint, o.PrevSoFar)
	}
	if got := ChangeText(o.Change, o.ChangeOK); got != "+19.4 %" {
		t.Errorf("change %q, want +19.4 %%", got)
	}
	if o.Basis != BasisRate || o.Bandwidth != 114_286 || o.PerHour != 2_164_286 || o.Left != 224*time.Hour+30*time.Minute {
		t.Fatalf("basis %q, bandwidth %v, per hour %v, left %v", o.Basis, o.Bandwidth.Decimal(), o.PerHour.Decimal(), o.Left)
	}
	if o.Forecast != 1_077_382 {
		t.Errorf("forecast %v, want $1,077.382", o.Forecast)
	}
	if o.Used != 592 || o.ForecastUsed != 1077 || o.Level() != BudgetAhead {
		t.Errorf("used %d‰, forecast %d‰, level %v", o.Used, o.ForecastUsed, o.Level())
	}
	if want := now.Add(679_486 * time.Second); !o.CrossedAt.Equal(want) {
		t.Errorf("crosses at %v, want %v", o.CrossedAt, want)
	}
	if o.Incomplete || o.TooLarge || len(o.Notes) != 0 {
		t.Errorf("incomplete %v, too large %v, notes %q", o.Incomplete, o.TooLarge, o.Notes)
	}

	// Without the rate the forecast runs on the last seven complete days'
	// spend, $168 over 168 hours: $1/h, 224.5 h → $816.000, and says why.
	for _, in := range []OutlookInput{
		{Rate: &CurrentRate{NeedsPermission: NeedsInstanceRead}},
		{RateErr: errors.New("boom")},
		{},
	} {
		in.Loc, in.Now, in.Charges = utc, now, charges
		o := BuildOutlook(in)
		if o.Basis != BasisBurn || o.PerHour != 1_000_000 || o.Forecast != 816_000 || o.Bandwidth != 0 || len(o.Notes) != 1 {
			t.Fatalf("burn basis: %q %v/h forecast %v notes %q", o.Basis, o.PerHour.Decimal(), o.Forecast, o.Notes)
		}
		if in.Rate != nil && !strings.Contains(o.Notes[0], "instance_read") || in.RateErr != nil && !strings.Contains(o.Notes[0], "boom") {
			t.Errorf("note %q does not say why", o.Notes[0])
		}
		if o.Budget != 0 || o.Level() != BudgetNone || !o.CrossedAt.IsZero() {
			t.Errorf("no budget: %v %v %v", o.Budget, o.Level(), o.CrossedAt)
		}
	}
}

// Spend that already crossed the budget crossed it on the day its running
// sum reached it, within the day in proportion: A spends $24 a day, so
// $100 is reached 4 h into 5 Nov. A past month crosses the same way and
// has no forecast.
func TestOutlookCrossedAlready(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC)
	nov := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	charges := []api.Charge{perHour(nov, now)}
	o := BuildOutlook(OutlookInput{Now: now, Charges: charges, Rate: &CurrentRate{}, Budget: 100 * money.Dollar})
	if want := time.Date(2026, 11, 5, 4, 0, 0, 0, time.UTC); !o.CrossedAt.Equal(want) || o.Level() != BudgetOver || o.Used != 4955 {
		t.Fatalf("crossed at %v (want %v), level %v, used %d‰", o.CrossedAt, want, o.Level(), o.Used)
	}

	// October in full, seen from December, against all of September.
	oct := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	charges = []api.Charge{perHour(oct.AddDate(0, -1, 0), oct.AddDate(0, 1, 0))}
	o = BuildOutlook(OutlookInput{Now: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC), Month: oct.AddDate(0, 0, 9), Charges: charges, Budget: 500 * money.Dollar})
	if !o.Past || o.Basis != "" || o.Forecast != 0 || o.SoFar != 744*money.Dollar || o.PrevSoFar != 720*money.Dollar ||
		!o.AsOf.Equal(oct.AddDate(0, 1, 0)) || !o.PrevPoint.Equal(oct) {
		t.Fatalf("past month: %+v", o)
	}
	if want := time.Date(2026, 10, 21, 20, 0, 0, 0, time.UTC); !o.CrossedAt.Equal(want) || o.ForecastUsed != o.Used || o.Level() != BudgetOver {
		t.Fatalf("past month crossed at %v, want %v; used %d‰ forecast %d‰", o.CrossedAt, want, o.Used, o.ForecastUsed)
	}
}

// Berlin on the last day of October 2026, whose 25th had 25 hours. One
// contract bills $1 for every real hour since 1 September. October so far
// is the 733 hours since 1 Oct 00:00 CEST; the 31st has no counterpart in
// September, so it compares with all of September (720 h). The last seven
// complete days hold 169 hours, and the burn is $169 over 169 hours, $1/h,
// not $169/7/24; the 12 hours left make the month $745, one per hour.
func TestOutlookAcrossDaylightSaving(t *testing.T) {
	berlin := zone(t, "Europe/Berlin")
	now := time.Date(2026, 10, 31, 12, 0, 0, 0, berlin)
	c := perHour(time.Date(2026, 9, 1, 0, 0, 0, 0, berlin), now)
	if c.Amount != 1453*money.Dollar {
		t.Fatalf("the contract bills %v, want 1,453 hours", c.Amount)
	}
	o := BuildOutlook(OutlookInput{Loc: berlin, Now: now, Charges: []api.Charge{c}})
	if o.SoFar != 733*money.Dollar || o.PrevSoFar != 720*money.Dollar || !o.PrevPoint.Equal(time.Date(2026, 10, 1, 0, 0, 0, 0, berlin)) {
		t.Fatalf("so far %v, September %v to %v", o.SoFar, o.PrevSoFar, o.PrevPoint)
	}
	if ChangeText(o.Change, o.ChangeOK) != "+1.8 %" {
		t.Errorf("change %s", ChangeText(o.Change, o.ChangeOK))
	}
	if o.PerHour != 1_000_000 || o.Left != 12*time.Hour || o.Forecast != 745*money.Dollar {
		t.Fatalf("burn %v/h, left %v, forecast %v", o.PerHour.Decimal(), o.Left, o.Forecast)
	}

	// At 23:00 on the 25th the day is 24 hours old; the 25th of September
	// at 23:00 is 23 hours in.
	now = time.Date(2026, 10, 25, 23, 0, 0, 0, berlin)
	c = perHour(time.Date(2026, 9, 1, 0, 0, 0, 0, berlin), now)
	o = BuildOutlook(OutlookInput{Loc: berlin, Now: now, Charges: []api.Charge{c}})
	if o.SoFar != (24*24+24)*money.Dollar || o.PrevSoFar != (24*24+23)*money.Dollar ||
		!o.PrevPoint.Equal(time.Date(2026, 9, 25, 23, 0, 0, 0, berlin)) {
		t.Fatalf("so far %v, September %v to %v", o.SoFar, o.PrevSoFar, o.PrevPoint)
	}
}

// Tokyo is nine hours east of UTC: at 05:00 on 1 March there it is still
// February in UTC. March so far is the five hours since midnight in Tokyo,
// and February by the same point is to 1 Feb 05:00 in Tokyo, where a
// contract running 04:00–06:00 is cut in half. On the 30th, February has no
// such day: the whole of it compares.
func TestOutlookEastOfUTC(t *testing.T) {
	tokyo := zone(t, "Asia/Tokyo")
	at := func(m time.Month, d, h int) time.Time { return time.Date(2026, m, d, h, 0, 0, 0, tokyo) }
	now := at(3, 1, 5)
	f := perHour(at(2, 1, 0), at(2, 1, 4))
	f.Amount *= 2 // $8
	g := perHour(at(2, 1, 4), at(2, 1, 6))
	charges := []api.Charge{perHour(at(2, 28, 0), now), f, g}
	o := BuildOutlook(OutlookInput{Loc: tokyo, Now: now, Charges: charges})
	if o.Label() != "2026-03" || o.SoFar != 5*money.Dollar || o.PrevSoFar != 9*money.Dollar || !o.PrevPoint.Equal(at(2, 1, 5)) {
		t.Fatalf("%s so far %v, February to %v %v", o.Label(), o.SoFar, o.PrevPoint, o.PrevSoFar)
	}
	if ChangeText(o.Change, o.ChangeOK) != "-44.4 %" {
		t.Errorf("change %s", ChangeText(o.Change, o.ChangeOK))
	}
	// The same instant in UTC is February: all 29 hours of the running
	// contract.
	if o := BuildOutlook(OutlookInput{Loc: time.UTC, Now: now, Charges: charges}); o.Label() != "2026-02" || o.SoFar != 29*money.Dollar {
		t.Fatalf("UTC: %s so far %v", o.Label(), o.SoFar)
	}

	o = BuildOutlook(OutlookInput{Loc: tokyo, Now: at(3, 30, 10), Charges: charges})
	if !o.PrevPoint.Equal(at(3, 1, 0)) || o.PrevSoFar != 34*money.Dollar || o.SoFar != 5*money.Dollar {
		t.Fatalf("30 March: February to %v %v, so far %v", o.PrevPoint, o.PrevSoFar, o.SoFar)
	}
}

// Nothing spent last month: no percentage, never a division by zero. A
// stopped feed marks the outlook incomplete.
func TestOutlookNoChangeAndIncomplete(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC)
	o := BuildOutlook(OutlookInput{Now: now, Stopped: true, Charges: []api.Charge{perHour(now.Add(-2*time.Hour), now)}})
	if o.ChangeOK || ChangeText(o.Change, o.ChangeOK) != "—" || o.SoFar != 2*money.Dollar || !o.Incomplete {
		t.Fatalf("%+v", o)
	}
}

// The query holds the month before and runs to the end of today, so it is
// the same query all day; a past month's ends with that month.
func TestOutlookQuery(t *testing.T) {
	tokyo := zone(t, "Asia/Tokyo")
	now := time.Date(2026, 3, 1, 5, 0, 0, 0, tokyo)
	s := New(context.Background(), nil, WithLocation(tokyo), WithClock(func() time.Time { return now }))
	defer s.Close()
	q := s.OutlookQuery(now)
	if !q.From.Equal(time.Date(2026, 2, 1, 0, 0, 0, 0, tokyo)) || !q.To.Equal(time.Date(2026, 3, 1, 23, 59, 59, 0, tokyo)) || q.Limit != api.MaxLimit {
		t.Fatalf("query %v..%v limit %d", q.From, q.To, q.Limit)
	}
	q = s.OutlookQuery(time.Date(2026, 1, 15, 0, 0, 0, 0, tokyo))
	if !q.From.Equal(time.Date(2025, 12, 1, 0, 0, 0, 0, tokyo)) || !q.To.Equal(time.Date(2026, 1, 31, 23, 59, 59, 0, tokyo)) {
		t.Fatalf("January's query %v..%v", q.From, q.To)
	}
}

// The watch tells each level once a month: the first reading without a
// ring, later crossings with one, the forecast only above where the spend
// stands, and a new month afresh.
func TestBudgetWatch(t *testing.T) {
	nov := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	out := func(month time.Time, used, forecast int64) Outlook {
		return Outlook{Month: month, Now: month.AddDate(0, 0, 20), Budget: 1000 * money.Dollar, Used: used, ForecastUsed: forecast,
			SoFar: money.Amount(used) * money.Dollar, Forecast: money.Amount(forecast) * money.Dollar, CrossedAt: month.AddDate(0, 0, 27)}
	}
	var w BudgetWatch
	steps := []struct {
		o    Outlook
		text string // "" for nothing
		ring bool
	}{
		{out(nov, 500, 850), "budget: November heads to $850.000, 80 % of your $1,000.00", false},
		{out(nov, 510, 900), "", false},
		{out(nov, 600, 1100), "budget: November heads to $1,100.000, over your $1,000.00 from 28 Nov", true},
		{out(nov, 850, 1200), "budget: November's spend $850.000 passed 80 % of your $1,000.00", true},
		{out(nov, 1010, 1300), "budget: November's spend $1,010.000 is over your $1,000.00", true},
		{out(nov, 1020, 1300), "", false},
		{out(nov.AddDate(0, 1, 0), 900, 1300), "budget: December's spend $900.000 passed 80 % of your $1,000.00; December heads to $1,300.000, over your $1,000.00 from 28 Dec", true},
	}
	for i, s := range steps {
		a, ok := w.Observe(s.o)
		if ok != (s.text != "") || a.Text != s.text || a.Ring != s.ring {
			t.Fatalf("step %d: %v %q ring %v; want %q ring %v", i, ok, a.Text, a.Ring, s.text, s.ring)
		}
	}
	inc := out(nov.AddDate(0, 2, 0), 1500, 1500)
	inc.Incomplete = true
	if _, ok := w.Observe(inc); ok {
		t.Fatal("an incomplete outlook told a crossing")
	}
}

// A date the outlook writes carries its year when the reading is in
// another: in January the point of December compared with is last year's
// ("December to 3 Dec 2026", not "3 Dec 10:00"), as is a past month's
// crossing; late in December nothing carries a year. In Tokyo the year
// turns nine hours before it does in UTC.
func TestOutlookDatesAcrossNewYear(t *testing.T) {
	tokyo := zone(t, "Asia/Tokyo")
	for _, c := range []struct {
		loc                     *time.Location
		now                     time.Time
		prev, cross, end, alarm string
		pastCross               string // November in full against $700
	}{
		{time.UTC, time.Date(2027, 1, 3, 10, 0, 0, 0, time.UTC), "December to 3 Dec 2026", "forecast crosses it on 31 Jan", "31 Jan",
			"January heads to $744.000, over your $740.00 from 31 Jan", "crossed on 30 Nov 2026"},
		{time.UTC, time.Date(2026, 12, 30, 10, 0, 0, 0, time.UTC), "November to 30 Nov 10:00", "forecast crosses it on 31 Dec", "31 Dec",
			"December's spend $706.000 passed 80 % of your $740.00; December heads to $744.000, over your $740.00 from 31 Dec", "crossed on 30 Nov"},
		{tokyo, time.Date(2026, 12, 31, 20, 0, 0, 0, time.UTC), "December to 1 Dec 2026", "forecast crosses it on 31 Jan", "31 Jan",
			"January heads to $744.000, over your $740.00 from 31 Jan", "crossed on 30 Nov 2026"},
	} {
		now := c.now.In(c.loc)
		month := MonthStart(now, c.loc)
		// $1/h from two months back on: the month's forecast on the burn
		// is $1/h too, $744 for 31 days, and a $740 budget is crossed on
		// its last day.
		charges := []api.Charge{perHour(spend.AddMonths(month, -2), now)}
		o := BuildOutlook(OutlookInput{Loc: c.loc, Now: c.now, Charges: charges, Budget: 740 * money.Dollar})
		if got := o.PrevText(); got != c.prev {
			t.Errorf("%v: compared with %q, want %q", now, got, c.prev)
		}
		if got := o.CrossText(); got != c.cross {
			t.Errorf("%v: %q, want %q", now, got, c.cross)
		}
		if got := o.EndText(); got != c.end {
			t.Errorf("%v: forecast to %q, want %q", now, got, c.end)
		}
		var w BudgetWatch
		if a, ok := w.Observe(o); !ok || a.Text != "budget: "+c.alarm {
			t.Errorf("%v: alarm %q, want %q", now, a.Text, "budget: "+c.alarm)
		}
		past := BuildOutlook(OutlookInput{Loc: c.loc, Now: c.now, Month: time.Date(2026, 11, 15, 0, 0, 0, 0, c.loc), Charges: charges, Budget: 700 * money.Dollar})
		if got := past.CrossText(); got != c.pastCross {
			t.Errorf("%v: November %q, want %q", now, got, c.pastCross)
		}
	}
}

// Through the demo server: one feed holds both months, the month so far is
// the statement's own figure for the current month, the rate is read
// beside it, and a key without billing_read gets the error naming it; one
// without instance_read gets a forecast on the burn.
func TestOutlookFromTheDemoServer(t *testing.T) {
	srv, s := demoService(t, demoserver.Options{Contracts: 800}, demoserver.DemoKey, nil)
	ctx := context.Background()
	now := s.Now()
	o, err := s.Outlook(ctx, time.Time{}, 2000*money.Dollar, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Statement(ctx, now, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.SoFar <= 0 || o.SoFar != st.Months[0].Spend || o.PrevSoFar <= 0 {
		t.Fatalf("so far %v, last month by now %v; the statement's month: %v", o.SoFar, o.PrevSoFar, st.Months[0].Spend)
	}
	if o.Basis != BasisRate || o.Forecast <= o.SoFar || o.Incomplete || o.Used <= 0 {
		t.Fatalf("basis %q forecast %v incomplete %v used %d", o.Basis, o.Forecast, o.Incomplete, o.Used)
	}
	if n := srv.CountPath(api.InstancesPath); n == 0 {
		t.Error("the rate was not read")
	}

	// Last month in full: more than by this day, and the month before
	// it in full beside it.
	past, err := s.Outlook(ctx, now.AddDate(0, -1, 0), 0, nil)
	if err != nil || !past.Past || past.SoFar <= o.PrevSoFar || past.PrevSoFar <= 0 || past.Basis != "" || past.Forecast != 0 {
		t.Fatalf("last month in full: %v %+v", err, past)
	}
	if _, err := s.Outlook(ctx, now.AddDate(0, 1, 0), 0, nil); err == nil {
		t.Fatal("next month's outlook was read")
	}

	_, nb := demoService(t, demoserver.Options{}, demoserver.KeyNoBilling, nil)
	if _, err := nb.Outlook(ctx, time.Time{}, 0, nil); !errors.Is(err, api.ErrPermission) || !strings.Contains(err.Error(), "billing_read") {
		t.Fatalf("no billing_read: %v", err)
	}
	_, ro := demoService(t, demoserver.Options{}, demoserver.KeyReadOnly, nil)
	o, err = ro.Outlook(ctx, time.Time{}, 0, nil)
	if err != nil || o.Basis != BasisBurn || len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "instance_read") {
		t.Fatalf("no instance_read: %v %q %q", err, o.Basis, o.Notes)
	}
}

// Charges that fail part-way come back with the error and the outlook
// marked incomplete, never silently short.
func TestOutlookChargesFailPartWay(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC)
	charges := []api.Charge{perHour(now.Add(-3*time.Hour), now), perHour(now.AddDate(0, -1, 0), now.AddDate(0, -1, 0).Add(time.Hour))}
	pages := billingtest.Paged(charges, 1).With(map[int]error{1: &api.Error{Kind: api.ErrServer, Status: 500}})
	s := New(context.Background(), nil, WithLocation(time.UTC), WithClock(func() time.Time { return now }),
		WithPages(func(api.ChargesQuery) Source[api.Charge] { return pages }),
		withInstances(func() Source[api.Instance] { return billingtest.Paged([]api.Instance(nil), 25) }))
	defer s.Close()
	o, err := s.Outlook(context.Background(), time.Time{}, 0, nil)
	if err == nil || !o.Incomplete || o.SoFar != 3*money.Dollar {
		t.Fatalf("err %v, incomplete %v, so far %v", err, o.Incomplete, o.SoFar)
	}
}

// Where a month's first midnight does not exist (Asunción skipped
// 00:00–01:00 on 1 October 2023), the month begins at 01:00 on its own
// 1st: its first day has 23 hours, and by 12:00 on the 15th October has run
// 347 hours against September's 348.
func TestOutlookSkippedMidnight(t *testing.T) {
	asu := zone(t, "America/Asuncion")
	now := time.Date(2023, 10, 15, 12, 0, 0, 0, asu)
	sep := time.Date(2023, 9, 1, 0, 0, 0, 0, asu)
	o := BuildOutlook(OutlookInput{Loc: asu, Now: now, Charges: []api.Charge{perHour(sep, now)}})
	if o.Label() != "2023-10" || o.Month.Day() != 1 || o.Month.Hour() != 1 || !o.Prev.Equal(sep) {
		t.Fatalf("month %s from %v, the one before from %v", o.Label(), o.Month, o.Prev)
	}
	if o.SoFar != 347*money.Dollar || o.PrevSoFar != 348*money.Dollar {
		t.Fatalf("so far %v, September to %v %v", o.SoFar, o.PrevPoint, o.PrevSoFar)
	}
}

// A change above a thousand percent is grouped as amounts are, so the
// Statement screen and the Overview never write "+32843.5 %".
func TestChangeTextGroups(t *testing.T) {
	for pm, want := range map[int64]string{328435: "+32,843.5 %", -1000: "-100.0 %", 0: "0.0 %", 5: "+0.5 %"} {
		if got := ChangeText(pm, true); got != want {
			t.Errorf("ChangeText(%d) = %q, want %q", pm, got, want)
		}
	}
}
