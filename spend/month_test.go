package spend

import (
	"testing"
	"time"
	_ "time/tzdata" // the zones below on machines without a zone database
)

// zonesWithMidnightGaps are zones whose clocks have jumped at midnight:
// there, time.Date(y, m, d, 0, 0, 0, 0, loc) names 23:00 of the day before
// (America/Asuncion on 1 October 2017 and 2023), and a fixed zone that
// never jumps.
var zonesWithMidnightGaps = []string{"America/Asuncion", "America/Santiago", "Asia/Beirut", "America/Havana", "fixed-03"}

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	if name == "fixed-03" {
		return time.FixedZone("-03", -3*3600)
	}
	return mustLoad(t, name)
}

// Every zone, every month of 2015..2035: a month begins at the first
// instant of its first local day. The instant before it is in the month
// before, it shows the 1st, and stepping by AddMonths visits every month
// once, in order.
func TestMonthStartIsTheFirstInstantOfTheFirstDay(t *testing.T) {
	for _, name := range zonesWithMidnightGaps {
		loc := zone(t, name)
		first := MonthStart(time.Date(2015, 1, 20, 12, 0, 0, 0, loc), loc)
		for i := 0; i < 21*12; i++ {
			y, m := 2015+i/12, time.Month(i%12+1)
			want := time.Date(y, m, 15, 12, 0, 0, 0, loc)
			got := MonthStart(want, loc)
			if gy, gm, gd := got.Date(); gy != y || gm != m || gd != 1 {
				t.Fatalf("%s: MonthStart(%v) = %v, not the 1st of its month", name, want, got)
			}
			if before := got.Add(-time.Nanosecond).In(loc); before.Month() == m {
				t.Fatalf("%s: %v is not the first instant of %d-%02d: %v is in it too", name, got, y, m, before)
			}
			if step := AddMonths(first, i); !step.Equal(got) {
				t.Fatalf("%s: AddMonths(%v, %d) = %v, want %v", name, first, i, step, got)
			}
			if back := AddMonths(got, -i); !back.Equal(first) {
				t.Fatalf("%s: AddMonths(%v, %d) = %v, want %v", name, got, -i, back, first)
			}
			// Any instant of the month maps to the same start, the first
			// one included.
			if again := MonthStart(got, loc); !again.Equal(got) {
				t.Fatalf("%s: MonthStart of a month's start %v moved to %v", name, got, again)
			}
		}
	}
}

// The month the issue found: in Asunción clocks went from 00:00 to 01:00 on
// 1 October 2023, so October began at 01:00, not at 30 September 23:00.
func TestAsuncionOctober2023BeginsAtOne(t *testing.T) {
	loc := zone(t, "America/Asuncion")
	got := MonthStart(time.Date(2023, 10, 15, 0, 0, 0, 0, loc), loc)
	if s := got.Format("2006-01-02 15:04 -0700"); s != "2023-10-01 01:00 -0300" {
		t.Fatalf("October 2023 in Asunción begins at %s", s)
	}
	if got := DayStart(2023, 10, 1, loc); got.Format("2006-01-02 15:04") != "2023-10-01 01:00" {
		t.Fatalf("DayStart(2023-10-01) = %v", got)
	}
	r, err := PresetRange("last-month", time.Date(2023, 11, 10, 12, 0, 0, 0, loc), loc)
	if err != nil || r.From.Format("2006-01-02 15:04") != "2023-10-01 01:00" || r.To.Format("2006-01-02 15:04:05") != "2023-10-31 23:59:59" {
		t.Fatalf("last-month in November 2023: %v, %v", r, err)
	}
}

// DayStart agrees with Midnight for every day of 2015..2030 in these zones.
func TestDayStartEveryDay(t *testing.T) {
	for _, name := range zonesWithMidnightGaps {
		loc := zone(t, name)
		for d := 0; d < 16*366; d++ {
			y, m, dd := time.Date(2015, 1, 1+d, 12, 0, 0, 0, time.UTC).Date()
			got := DayStart(y, m, dd, loc)
			if gy, gm, gd := got.Date(); gy != y || gm != m || gd != dd {
				t.Fatalf("%s: DayStart(%d-%02d-%02d) = %v", name, y, m, dd, got)
			}
			if got.Add(-time.Nanosecond).In(loc).Day() == dd {
				t.Fatalf("%s: DayStart(%d-%02d-%02d) = %v is not the day's first instant", name, y, m, dd, got)
			}
		}
	}
}
