package spend

import (
	"math/rand/v2"
	"testing"
	"time"
)

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Skip("no zoneinfo:", err)
	}
	return loc
}

// Where a daylight-saving change skips 00:00, time.Date names 23:00 of the
// day before; Midnight must be the first instant that shows the date.
func TestMidnightWhereMidnightIsSkipped(t *testing.T) {
	cases := []struct {
		zone       string
		y, m, d    int
		want       string // the day's first instant, local
		hoursInDay int
	}{
		{"America/Sao_Paulo", 2018, 11, 4, "2018-11-04 01:00:00 -0200", 23},
		{"America/Havana", 2026, 3, 8, "2026-03-08 01:00:00 -0400", 23},
		{"Asia/Beirut", 2026, 3, 29, "2026-03-29 01:00:00 +0300", 23},
		{"Europe/Berlin", 2026, 10, 25, "2026-10-25 00:00:00 +0200", 25},
		{"Pacific/Apia", 2011, 12, 31, "2011-12-31 00:00:00 +1400", 24}, // the 30th never happened
	}
	for _, c := range cases {
		loc := mustLoad(t, c.zone)
		noon := time.Date(c.y, time.Month(c.m), c.d, 12, 0, 0, 0, loc)
		got := Midnight(noon)
		if s := got.Format("2006-01-02 15:04:05 -0700"); s != c.want {
			t.Errorf("%s: Midnight(%v) = %s, want %s", c.zone, noon, s, c.want)
		}
		if h := nextDay(got).Sub(got).Hours(); h != float64(c.hoursInDay) {
			t.Errorf("%s: day of %v has %v hours, want %d", c.zone, got, h, c.hoursInDay)
		}
	}
	// Samoa skipped 30 Dec 2011: the day after the 29th is the 31st.
	apia := mustLoad(t, "Pacific/Apia")
	d29 := Midnight(time.Date(2011, 12, 29, 12, 0, 0, 0, apia))
	if n := nextDay(d29); n.Day() != 31 || n.Hour() != 0 {
		t.Fatalf("day after %v is %v", d29, n)
	}
}

// Property: in zones with odd transitions, Midnight(t) is on t's date, not
// after t, and a nanosecond before it is an earlier date; walking nextDay
// visits every date once, in order.
func TestMidnightProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for _, zone := range []string{"UTC", "Europe/Berlin", "America/Sao_Paulo", "America/Havana", "America/Santiago", "Asia/Beirut", "Pacific/Apia", "Australia/Lord_Howe", "America/St_Johns"} {
		loc := mustLoad(t, zone)
		base := time.Date(2010, 1, 1, 0, 0, 0, 0, loc).Unix()
		for i := 0; i < 20000; i++ {
			tm := time.Unix(base+r.Int64N(18*365*86400), 0).In(loc)
			m := Midnight(tm)
			y, mo, d := tm.Date()
			if !sameDate(m, y, mo, d) || m.After(tm) || sameDate(m.Add(-time.Nanosecond), y, mo, d) {
				t.Fatalf("%s: Midnight(%v) = %v", zone, tm, m)
			}
		}
		day := Midnight(time.Unix(base, 0).In(loc))
		for i := 0; i < 18*366; i++ {
			next := nextDay(day)
			if !next.After(day) || !next.Equal(Midnight(next)) || next.YearDay() == day.YearDay() {
				t.Fatalf("%s: after %v comes %v", zone, day, next)
			}
			if gap := next.Sub(day); gap > 25*time.Hour && zone != "Pacific/Apia" {
				t.Fatalf("%s: a %v day from %v", zone, gap, day)
			}
			day = next
		}
	}
}

func TestBurnWindow(t *testing.T) {
	from, to := BurnWindow(time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC), time.UTC)
	if !from.Equal(day(14)) || !to.Equal(day(22).Add(-time.Second)) {
		t.Fatalf("UTC window %v .. %v", from, to)
	}
	// On Berlin's 25-hour day the last second of today is 23:59:59 CET,
	// 25 hours after midnight, and 7 days back crosses the change.
	berlin := mustLoad(t, "Europe/Berlin")
	from, to = BurnWindow(time.Date(2026, 10, 25, 9, 0, 0, 0, time.UTC), berlin)
	if got := from.Format(time.DateTime + " -0700"); got != "2026-10-18 00:00:00 +0200" {
		t.Errorf("from = %s", got)
	}
	if got := to.Format(time.DateTime + " -0700"); got != "2026-10-25 23:59:59 +0100" {
		t.Errorf("to = %s", got)
	}
	// The window holds the 7 complete days BurnWeek measures, and today.
	d := NewDailyWindow(berlin, from, to)
	if n := len(d.Days(from, to)); n != 8 {
		t.Fatalf("window has %d days, want 8", n)
	}
	// A nil location is UTC, not a panic.
	if f, _ := BurnWindow(now, nil); !f.Equal(day(14)) {
		t.Fatalf("nil loc: %v", f)
	}
}

func TestParseRangeWhereMidnightIsSkipped(t *testing.T) {
	loc := mustLoad(t, "America/Sao_Paulo")
	r, err := ParseRange("2018-11-04", loc)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.From.Format(time.DateTime); got != "2018-11-04 01:00:00" {
		t.Errorf("from = %s (time.Date gives 23:00 the day before)", got)
	}
	if got := r.To.Format(time.DateTime); got != "2018-11-04 23:59:59" {
		t.Errorf("to = %s", got)
	}
	p, err := PresetRange("7d", time.Date(2018, 11, 10, 12, 0, 0, 0, loc), loc)
	if err != nil || p.From.Format(time.DateTime) != "2018-11-04 01:00:00" {
		t.Fatalf("7d from %v, %v", p.From, err)
	}
}
