package spend

import (
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

var now = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

func day(n int) time.Time { return time.Date(2026, 11, n, 0, 0, 0, 0, time.UTC) }

func TestBurnWeekAndRunway(t *testing.T) {
	d := NewDaily(time.UTC)
	// $7 a day on each of the 7 complete days before today (14..20 Nov),
	// plus spend today and 8 days ago that the window must ignore.
	d.Add([]api.Charge{{Type: "instance", Amount: 49000, Start: day(14).Unix(), End: day(21).Unix()}})
	d.Add([]api.Charge{{Type: "instance", Amount: 99000, Start: day(21).Unix(), End: day(21).Unix() + 3600}})
	d.Add([]api.Charge{{Type: "instance", Amount: 99000, Start: day(13).Unix(), End: day(13).Unix() + 3600}})
	b := BurnWeek(d, now)
	if b.PerDay != 7000 || !b.From.Equal(day(14)) || !b.To.Equal(day(21)) {
		t.Fatalf("burn = %+v", b)
	}
	r := RunwayFor(87_000, b, true, now)
	if r.Reason != "" || r.Tenths != 124 || r.String() != "≈ 12.4 days (until 4 Dec)" {
		t.Fatalf("runway = %+v %q", r, r.String())
	}
}

// A runway of years names the year it ends: "until 13 Oct" alone would be
// read as the next 13 Oct. Under 300 days the date is unambiguous and
// stays short.
func TestRunwayStringYear(t *testing.T) {
	burn := Burn{PerDay: 1000, Label: "last 7 complete days"}
	cases := []struct {
		credit money.Amount
		want   string
	}{
		{12_400, "≈ 12.4 days (until 4 Dec)"},
		{299_900, "≈ 299.9 days (until 17 Sep)"},
		{300_000, "≈ 300.0 days (until 17 Sep 2027)"},
		{1_057_000, "≈ 1057.0 days (until 13 Oct 2029)"},
		// Clamped at the end of year 9999.
		{money.MaxAmount, "≈ 9223372036854775.8 days (until 31 Dec 9999)"},
	}
	for _, c := range cases {
		if got := RunwayFor(c.credit, burn, true, now).String(); got != c.want {
			t.Errorf("credit %d at $1/day: %q, want %q", c.credit, got, c.want)
		}
	}
}

func TestRunwayReasons(t *testing.T) {
	b := Burn{PerDay: 5000, Label: "last 7 complete days"}
	cases := []struct {
		credit   money.Amount
		burn     Burn
		complete bool
		want     string
	}{
		{0, b, true, "no credit left"},
		{-100, b, true, "no credit left"},
		{10000, b, false, "charges still loading"},
		{10000, Burn{Label: "last 7 complete days"}, true, "no spend in the last 7 complete days"},
	}
	for _, c := range cases {
		r := RunwayFor(c.credit, c.burn, c.complete, now)
		if r.Reason != c.want || !strings.HasPrefix(r.String(), "— ") {
			t.Errorf("credit %d: %+v, want reason %q", c.credit, r, c.want)
		}
	}
}

func TestBurnPartialWeekAndTodayOnly(t *testing.T) {
	// Spend only on the last 2 complete days: the week average still
	// divides by 7, because the days without spend are real days.
	d := NewDaily(time.UTC)
	d.Add([]api.Charge{{Amount: 14000, Start: day(19).Unix(), End: day(21).Unix()}})
	if b := BurnWeek(d, now); b.PerDay != 2000 {
		t.Fatalf("partial week burn = %d", b.PerDay)
	}
	// Spend only today: the week is zero, the last 24 h is not.
	d = NewDaily(time.UTC)
	today := []api.Charge{{Amount: 6000, Start: day(21).Unix(), End: day(21).Unix() + 6*3600}}
	d.Add(today)
	if b := BurnWeek(d, now); b.PerDay != 0 {
		t.Fatalf("week burn with spend only today = %d", b.PerDay)
	}
	w := Last24h(now)
	w.Add(today)
	if b := w.Burn24h(); b.PerDay != 6000 {
		t.Fatalf("24 h burn = %d", b.PerDay)
	}
}

func TestWindowProportion(t *testing.T) {
	w := Last24h(now)
	// 48 h contract ending now: half of it is inside the window.
	w.Add([]api.Charge{{Amount: 10001, Start: now.Add(-48 * time.Hour).Unix(), End: now.Unix()}})
	if w.Sum != 5001 { // 5000.5 rounds half up
		t.Fatalf("sum = %d", w.Sum)
	}
	w.Add([]api.Charge{{Amount: 300, Start: now.Add(-30 * time.Hour).Unix(), End: now.Add(-25 * time.Hour).Unix()}})
	if w.Sum != 5001 {
		t.Fatalf("a contract outside the window counted: %d", w.Sum)
	}
}

// A credit lasting an hour and a quarter read "≈ 0.0 days", one of 0.459
// days "≈ 0.4 days": under two days a runway says hours, under two hours
// hours and minutes, each rounded down, never to none.
func TestRunwayLengthInTheUnitThatReads(t *testing.T) {
	// A burn of 86.4 dollars a day: credit in thousandths is seconds.
	burn := Burn{PerDay: 86_400}
	for _, c := range []struct {
		secs int64
		want string
	}{
		{75 * 60, "1 h 15 min"},
		{3600, "1 h 0 min"},
		{7199, "1 h 59 min"},
		{40 * 60, "40 min"},
		{59, "under a minute"},
		{39657, "11 hours"}, // 0.459 days,
		{2 * 3600, "2 hours"},
		{2*86400 - 1, "47 hours"},
		{2 * 86400, "2.0 days"},
		{12*86400 + 40000, "12.4 days"},
	} {
		r := RunwayFor(money.Amount(c.secs), burn, true, now)
		if got := r.Length(); got != c.want {
			t.Errorf("%d s: Length %q, want %q", c.secs, got, c.want)
		}
		if got := r.String(); !strings.HasPrefix(got, "≈ "+c.want+" (until ") {
			t.Errorf("%d s: String %q, want ≈ %s (until …)", c.secs, got, c.want)
		}
	}
	if d := RunwayFor(75*60, burn, true, now).Days(); d != 0.052 {
		t.Errorf("an hour and a quarter is %v days for machines, want 0.052", d)
	}
	if d := RunwayFor(12*86400+40000, burn, true, now).Days(); d != 12.4 {
		t.Errorf("Days %v, want 12.4", d)
	}
	if got := (Runway{Tenths: 124}).Length(); got != "12.4 days" {
		t.Errorf("a runway of tenths alone: %q", got)
	}
	if got := (Runway{Reason: "no credit left"}).Length(); got != "" {
		t.Errorf("no figure: %q", got)
	}
}
