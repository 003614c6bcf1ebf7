// Package spend is the arithmetic of days and money under the billing
// layer: date ranges in a zone, totals by type, the daily spreading of a
// contract's amount over the days it ran, burn rate and runway. All sums
// are in money.Amount, exact. The front ends reach it through billing.
package spend

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Range is a span of whole days in one location: From is the first instant
// of the first day, To the last second of the last day (the API's day.lte is
// inclusive).
type Range struct {
	From, To time.Time
	// Preset is the preset name it came from ("30d"), or "" for a custom range.
	Preset string
	// Open marks a custom range typed without an end ("2026-11-01.."): To
	// is the end of the day it was read on, and it is read again, to a new
	// today, each time it is used (a remembered range stays open).
	Open bool
}

// Presets lists the preset names in the order the UI cycles through them.
var Presets = []string{"24h", "7d", "30d", "90d", "this-month", "last-month"}

// ErrRange is wrapped by every range parsing error.
var ErrRange = errors.New("bad date range")

// PresetRange resolves a preset at now in loc. "24h" is the last 24 hours to
// the second; "7d", "30d", "90d" are that many whole days ending today;
// "this-month" is the 1st up to today; "last-month" the whole previous month.
func PresetRange(name string, now time.Time, loc *time.Location) (Range, error) {
	loc = orUTC(loc)
	now = now.In(loc)
	today := Midnight(now)
	endToday := nextDay(today).Add(-time.Second)
	r := Range{Preset: name, To: endToday}
	switch name {
	case "24h":
		r.From, r.To = now.Add(-24*time.Hour).Truncate(time.Second), now.Truncate(time.Second)
	case "7d":
		r.From = addDays(today, -6)
	case "30d":
		r.From = addDays(today, -29)
	case "90d":
		r.From = addDays(today, -89)
	case "this-month":
		r.From = MonthStart(now, loc)
	case "last-month":
		r.From = AddMonths(MonthStart(now, loc), -1)
		r.To = MonthStart(now, loc).Add(-time.Second)
	default:
		return Range{}, fmt.Errorf("%w: unknown preset %q (want one of %s)", ErrRange, name, strings.Join(Presets, ", "))
	}
	return r, nil
}

// ParseRange reads a custom range typed as "YYYY-MM-DD..YYYY-MM-DD" (both
// days inclusive) in loc. A single day "YYYY-MM-DD" means that day, and an
// open end "YYYY-MM-DD.." from that day to today (see ParseRangeAt).
func ParseRange(s string, loc *time.Location) (Range, error) {
	return ParseRangeAt(s, time.Now(), loc)
}

// ParseRangeAt is ParseRange with today read from now: an open end
// ("2026-11-01..") runs to the end of now's day in loc, exactly as
// `--from 2026-11-01` without `--to` does.
func ParseRangeAt(s string, now time.Time, loc *time.Location) (Range, error) {
	loc = orUTC(loc)
	s = strings.TrimSpace(s)
	a, b, found := strings.Cut(s, "..")
	b = strings.TrimSpace(b)
	open := found && b == ""
	switch {
	case !found:
		b = a
	case open:
		b = now.In(loc).Format(time.DateOnly)
	}
	from, err := parseDay(strings.TrimSpace(a), loc)
	if err != nil {
		return Range{}, err
	}
	to, err := parseDay(b, loc)
	if err != nil {
		return Range{}, err
	}
	if to.Before(from) {
		if open {
			return Range{}, fmt.Errorf("%w: %s is after today", ErrRange, from.Format(time.DateOnly))
		}
		return Range{}, fmt.Errorf("%w: %s is before %s", ErrRange, to.Format(time.DateOnly), from.Format(time.DateOnly))
	}
	return Range{From: from, To: nextDay(to).Add(-time.Second), Open: open}, nil
}

// parseDay reads a date as the start of that day in loc. The date is read in
// UTC first: parsed in loc, a date whose 00:00 is skipped by a
// daylight-saving change comes back as 23:00 of the day before.
func parseDay(s string, loc *time.Location) (time.Time, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %q is not a date like 2026-11-01", ErrRange, s)
	}
	return DayStart(t.Year(), t.Month(), t.Day(), loc), nil
}

// String is the range for the filter bar: "30d (23 Oct – 21 Nov)",
// "2026-10-01..2026-10-31", or with an open end "2026-11-01..". A custom
// range's String parses back to the same range (ParseRangeAt, same day).
func (r Range) String() string {
	if r.Preset == "24h" {
		return "24h"
	}
	span := r.From.Format("2 Jan") + " – " + r.To.Format("2 Jan")
	if r.Preset != "" {
		return r.Preset + " (" + span + ")"
	}
	if r.Open {
		return r.From.Format(time.DateOnly) + ".."
	}
	return r.From.Format(time.DateOnly) + ".." + r.To.Format(time.DateOnly)
}

// Days names the range in prose, its days in the one short form against
// now: "between 1 Nov and 21 Nov", "between 1 Mar 2025 and 31 Mar 2025".
func (r Range) Days(now time.Time) string {
	return "between " + ShortDay(r.From, now) + " and " + ShortDay(r.To, now)
}
