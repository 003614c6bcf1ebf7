package spend

import (
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// A window of NewDailyWindow holds at most MaxDays days, so twelve years
// from 2015 lost everything after their first ten (issue 27 items 2 and
// 3). By the month, the same window holds every part of the range: a
// contract across a month's end splits by its seconds on each side, the
// months add up to the amount exactly and nothing lies outside.
func TestPeriodWindowByMonth(t *testing.T) {
	for _, name := range []string{"UTC", "America/Asuncion", "Europe/Berlin"} {
		loc := mustLoad(t, name)
		from := time.Date(2015, 1, 1, 0, 0, 0, 0, loc)
		to := time.Date(2026, 11, 21, 23, 59, 59, 0, loc)
		if PeriodFor(from, to, loc) != Month {
			t.Fatalf("%s: twelve years by %v", name, PeriodFor(from, to, loc))
		}
		d := NewPeriodWindow(loc, from, to, Month)
		oct31 := time.Date(2026, 10, 31, 18, 0, 0, 0, loc)
		d.Add([]api.Charge{
			{Type: "instance", Start: oct31.Unix(), End: oct31.Add(12 * time.Hour).Unix(), Amount: 1_200},
			{Type: "volume", Start: time.Date(2015, 1, 1, 5, 0, 0, 0, loc).Unix(), End: time.Date(2015, 1, 2, 5, 0, 0, 0, loc).Unix(), Amount: 7},
		})
		months := d.Days(from, to)
		if len(months) != 12*12-1 || !months[0].Day.Equal(from) || months[len(months)-1].Day.Format("2006-01") != "2026-11" {
			t.Fatalf("%s: %d months from %v to %v", name, len(months), months[0].Day, months[len(months)-1].Day)
		}
		var sum money.Amount
		for _, m := range months {
			sum += m.Total
			if m.Day.Day() != 1 || m.Day.Add(-time.Nanosecond).In(loc).Day() == 1 {
				t.Fatalf("%s: a month starts at %v", name, m.Day)
			}
		}
		oct, nov := months[len(months)-2], months[len(months)-1]
		if sum != 1_207 || oct.Total+nov.Total != 1_200 || oct.Total < 500 || nov.Total < 500 || months[0].ByType["volume"] != 7 {
			t.Errorf("%s: sum %v, October %v, November %v, January 2015 %v", name, sum, oct.Total, nov.Total, months[0].ByType)
		}
		if b, a := d.Outside(); b != 0 || a != 0 || d.Period() != Month {
			t.Errorf("%s: outside %v and %v", name, b, a)
		}
	}
}

func TestCountDays(t *testing.T) {
	loc := mustLoad(t, "America/Asuncion")
	day := func(y int, m time.Month, d int) time.Time { return DayStart(y, m, d, loc) }
	for _, c := range []struct {
		from, to time.Time
		want     int
	}{
		{day(2023, 10, 1), day(2023, 10, 1), 1},
		{day(2023, 9, 30), day(2023, 10, 1).Add(time.Minute), 2}, // across the skipped midnight
		{day(2023, 10, 2), day(2023, 10, 1), 0},
		{day(2015, 1, 1), day(2024, 12, 31), 3653},
		{day(2015, 1, 1), day(2026, 11, 21), 4343},
	} {
		if got := CountDays(c.from, c.to, loc); got != c.want {
			t.Errorf("CountDays(%v, %v) = %d, want %d", c.from, c.to, got, c.want)
		}
	}
}
