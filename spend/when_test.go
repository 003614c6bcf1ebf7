package spend

import (
	"testing"
	"time"
)

// TestShort: the one short form — day, month, then the time this year or
// the year in another, in the time's own zone (the year is now's there).
func TestShort(t *testing.T) {
	tokyo := time.FixedZone("JST", 9*3600)
	now := time.Date(2026, 11, 26, 14, 5, 0, 0, time.UTC)
	for _, c := range []struct {
		t          time.Time
		short, day string
	}{
		{time.Date(2026, 11, 26, 14, 5, 0, 0, time.UTC), "26 Nov 14:05", "26 Nov"},
		{time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), "2 Mar 09:00", "2 Mar"},
		{time.Date(2025, 12, 30, 23, 0, 0, 0, time.UTC), "30 Dec 2025", "30 Dec 2025"},
		// 23:00 UTC on 31 Dec 2025 is New Year's morning in Tokyo, where now
		// is in the same year: no year.
		{time.Date(2025, 12, 31, 23, 0, 0, 0, time.UTC).In(tokyo), "1 Jan 08:00", "1 Jan"},
	} {
		if got := Short(c.t, now); got != c.short {
			t.Errorf("Short(%v) = %q, want %q", c.t, got, c.short)
		}
		if got := ShortDay(c.t, now); got != c.day {
			t.Errorf("ShortDay(%v) = %q, want %q", c.t, got, c.day)
		}
	}
	if got := Long(time.Date(2026, 11, 26, 14, 5, 0, 0, time.UTC)); got != "26 Nov 2026 14:05 UTC" {
		t.Errorf("Long = %q", got)
	}
}
