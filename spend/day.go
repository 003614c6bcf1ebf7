package spend

import "time"

// MaxDays bounds every walk over calendar days in this package, so no input
// can make one cost more than this many steps: Spread spreads over at most
// MaxDays days, a SpreadWithin or NewDailyWindow window is at most MaxDays
// days long, and Daily.Days returns at most MaxDays days. 3660 days is ten
// years and a few days, longer than any range the dashboard shows; a charge
// that claims to run longer carries a corrupt date.
const MaxDays = 3660

// Days are named only inside years 1 to 9999 (UTC). A corrupt timestamp such
// as 1e18 or math.MaxInt64 is past what time.Unix can represent (its
// internal seconds overflow) and names no real day, so it is clamped into
// this range before it becomes a time.Time. Seconds are always counted on the
// raw int64 values; clamping only decides which day a lump is written on.
const (
	minUnix = -62135596800 // 0001-01-01 00:00:00 UTC
	maxUnix = 253402300799 // 9999-12-31 23:59:59 UTC
)

var minTime, maxTime = time.Unix(minUnix, 0), time.Unix(maxUnix, 0)

// Midnight is the start of t's calendar day in t's location: 00:00 of that
// date, or, where a daylight-saving or zone change skips 00:00 (São Paulo
// until 2018, Havana, Santiago), the first instant that shows the date. For
// such a day time.Date(y, m, d, 0, 0, 0, 0, loc) names an instant on the day
// before (23:00), which would file the day under the wrong date.
func Midnight(t time.Time) time.Time {
	y, m, d := t.Date()
	loc := t.Location()
	c := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if sameDate(c, y, m, d) && c.Hour() == 0 && c.Minute() == 0 && c.Second() == 0 && !c.After(t) {
		return c // the usual case: 00:00 exists
	}
	// Walk back through the zone periods of the day. Within one period the
	// wall clock is continuous, so the day starts at 00:00 on that period's
	// clock if the period reaches back that far, or else at the period's
	// start if the instant before it shows an earlier date.
	for range 4 {
		_, off := t.Zone()
		wall := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() - int64(off)
		zs, _ := t.ZoneBounds()
		if zs.IsZero() || wall >= zs.Unix() {
			return time.Unix(wall, 0).In(loc)
		}
		prev := zs.Add(-time.Nanosecond).In(loc)
		if !sameDate(prev, y, m, d) {
			return zs.In(loc)
		}
		t = prev
	}
	return c // more than 4 zone changes in a day: no real zone does this
}

func sameDate(t time.Time, y int, m time.Month, d int) bool {
	ty, tm, td := t.Date()
	return ty == y && tm == m && td == d
}

// DayStart is the first instant of the date y-m-d in loc (a nil loc is
// UTC): 00:00, or where a daylight-saving or zone change skips 00:00, the
// first instant that shows the date (see Midnight). The date is normalized
// like time.Date's, so month 0 is December of the year before and day 0 the
// last day of the month before. It is the one way vastdash builds the start
// of a local day or month: time.Date(y, m, d, 0, 0, 0, 0, loc) names 23:00 of
// the day before where midnight does not exist (America/Asuncion on
// 1 October 2023), which files a whole day, or a whole month, under the
// wrong date.
func DayStart(y int, m time.Month, d int, loc *time.Location) time.Time {
	// Noon of a date exists unless the whole date was skipped (Samoa,
	// 30 Dec 2011), and then Midnight names the day after it.
	return Midnight(time.Date(y, m, d, 12, 0, 0, 0, orUTC(loc)))
}

// MonthStart is the first instant of t's calendar month in loc (a nil loc
// is UTC): the first instant of its first local day, in every zone.
func MonthStart(t time.Time, loc *time.Location) time.Time {
	t = t.In(orUTC(loc))
	return DayStart(t.Year(), t.Month(), 1, t.Location())
}

// AddMonths is the first instant of the calendar month n months after
// month's (n < 0 goes back), in month's location. Unlike AddDate on a
// month's first instant, it lands on the first instant of the other month
// even when the two months begin at different wall-clock times (01:00 where
// midnight was skipped, 00:00 elsewhere).
func AddMonths(month time.Time, n int) time.Time {
	return DayStart(month.Year(), month.Month()+time.Month(n), 1, month.Location())
}

// addDays is the start of the calendar day n days after day's date (n < 0
// goes back), in day's location. Like AddDate it counts calendar days, so a
// 23- or 25-hour day is one day; unlike AddDate on a midnight it lands on
// the day's real first instant where 00:00 is skipped.
func addDays(day time.Time, n int) time.Time {
	y, m, d := day.Date()
	return DayStart(y, m, d+n, day.Location())
}

// nextDay is the start of the calendar day after day's. It always moves
// forward, so every walk built on it ends.
func nextDay(day time.Time) time.Time {
	for k := 1; k <= 3; k++ {
		if n := addDays(day, k); n.After(day) {
			return n
		}
	}
	return day.Add(24 * time.Hour) // no zone skips three dates; progress anyway
}

// dayOf is the day a unix instant falls on in loc, clamped to years 1..9999.
func dayOf(unix int64, loc *time.Location) time.Time {
	return Midnight(time.Unix(min(max(unix, minUnix), maxUnix), 0).In(loc))
}

// clampTime keeps a caller's time inside years 1..9999, where the calendar
// arithmetic of time.Date cannot overflow.
func clampTime(t time.Time) time.Time {
	switch {
	case t.Before(minTime):
		return minTime
	case t.After(maxTime):
		return maxTime
	}
	return t
}

// orUTC reads a nil location as UTC instead of panicking in time.In.
func orUTC(loc *time.Location) *time.Location {
	if loc == nil {
		return time.UTC
	}
	return loc
}

// contractSpan normalizes a charge's times: 0 means the server sent none, so
// a missing start or end takes the other's value, and a contract that does
// not run forward (end <= start) is a point in time at start.
func contractSpan(start, end int64) (int64, int64) {
	if start == 0 {
		start = end
	}
	if end == 0 {
		end = start
	}
	if end < start {
		end = start
	}
	return start, end
}
