package spend

import "time"

// The one way vastdash writes a time for people, on every screen and in
// every command's text output: the day, the month's short name, then the
// time in now's year ("26 Nov 14:05") or the year in another ("30 Dec
// 2025"), in the time's own location. A day alone drops the time ("26
// Nov", "30 Dec 2025"). Machine output (JSON, CSV) writes RFC 3339 in the
// same zone instead. Long adds the year and the zone, for a detail pane or
// a statement's "as of".

// Short is t in the short form: "26 Nov 14:05", "30 Dec 2025".
func Short(t, now time.Time) string {
	if t.Year() != now.In(t.Location()).Year() {
		return t.Format("2 Jan 2006")
	}
	return t.Format("2 Jan 15:04")
}

// ShortDay is t's day in the short form: "26 Nov", "30 Dec 2025".
func ShortDay(t, now time.Time) string {
	if t.Year() != now.In(t.Location()).Year() {
		return t.Format("2 Jan 2006")
	}
	return t.Format("2 Jan")
}

// Long is t whole: "26 Nov 2026 14:05 UTC".
func Long(t time.Time) string { return t.Format("2 Jan 2006 15:04 MST") }
