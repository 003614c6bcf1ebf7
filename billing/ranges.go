package billing

import (
	"time"

	"github.com/vastdash/vastdash/spend"
)

// The front ends read every range through these, so that a preset, a typed
// range and an open end mean the same on the command line and on a screen.
// The arithmetic of days lives in spend/, under the billing layer.

// Range is a span of time the charges are asked over: From and To
// inclusive, to the second.
type Range = spend.Range

// ErrRange is the error of a range that cannot be read, or that is reversed.
var ErrRange = spend.ErrRange

// PresetRange is the range a preset names ("24h", "7d", "30d", "90d",
// "this-month", "last-month") at now, days beginning in loc.
func PresetRange(name string, now time.Time, loc *time.Location) (Range, error) {
	return spend.PresetRange(name, now, loc)
}

// ParseRange reads a typed range at now: "2026-10-01..2026-10-31", an open
// end "2026-11-01.." (to the end of today), or one day "2026-11-01", days
// beginning in loc; one reaching outside the days vastdash accepts is
// refused (CheckRange: 0001-01-01 would read as "no date").
func ParseRange(s string, now time.Time, loc *time.Location) (Range, error) {
	r, err := spend.ParseRangeAt(s, now, loc)
	if err == nil {
		err = CheckRange(r.From, r.To)
	}
	return r, err
}

// Presets are the range words, in the order the dashboard cycles them.
var Presets = spend.Presets
