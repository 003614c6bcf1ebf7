package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/vastdash/vastdash/billing"
)

// bound is --from or --to: a whole day, YYYY-MM-DD, which begins and ends
// in the user's time zone; or an instant, RFC 3339, for a window shorter
// than a day. The zero bound was not given.
type bound struct {
	day string    // "2026-11-01", or "" for an instant
	at  time.Time // the instant, to the second
}

func (b bound) set() bool { return b.day != "" || !b.at.IsZero() }

// parser is the flag parser of b: it checks the syntax and that the day or
// instant lies where charges can (billing.CheckRange: 0001-01-01 is also
// Go's zero time, which a query would read as "no date").
func (b *bound) parser(flag string) func(string) error {
	return func(s string) error {
		s = strings.TrimSpace(s)
		var nb bound
		t, err := time.Parse(time.DateOnly, s)
		if err == nil {
			nb.day = s
		} else if t, err = time.Parse(time.RFC3339, s); err == nil {
			// The API counts in whole seconds.
			nb.at = t.Truncate(time.Second)
		} else {
			return badValue("%s %s is not a date like 2026-11-01 or a time like 2026-11-01T08:00:00Z", flag, argText(s))
		}
		if err := billing.CheckRange(t, t); err != nil {
			return badValue("%s %v", flag, err)
		}
		*b = nb
		return nil
	}
}

// resolve is b in loc: a day's first second, or with end its last (the
// API's upper bound is inclusive); an instant as it is.
func (b bound) resolve(loc *time.Location, end bool) (time.Time, error) {
	if b.day == "" {
		return b.at, nil
	}
	r, err := billing.ParseRange(b.day, time.Time{}, loc)
	if end {
		return r.To, err
	}
	return r.From, err
}

// text is b as the user gave it, for an error.
func (b bound) text() string {
	if b.day != "" {
		return b.day
	}
	return b.at.Format(time.RFC3339)
}

// timeRange resolves --from and --to in loc; --to defaults to the end of
// the day of now. A day without --to is the open range "FROM..", read by
// the same code as the dashboard's range field.
func (a chargesArgs) timeRange(loc *time.Location, now time.Time) (billing.Range, error) {
	if a.from.day != "" && !a.to.set() {
		return billing.ParseRange(a.from.day+"..", now, loc)
	}
	to := a.to
	if !to.set() {
		to = bound{day: now.In(loc).Format(time.DateOnly)}
	}
	from, err := a.from.resolve(loc, false)
	if err != nil {
		return billing.Range{}, err
	}
	until, err := to.resolve(loc, true)
	if err != nil {
		return billing.Range{}, err
	}
	if until.Before(from) {
		return billing.Range{}, fmt.Errorf("%w: --to %s is before --from %s", billing.ErrRange, to.text(), a.from.text())
	}
	return billing.Range{From: from, To: until}, nil
}

// resolve is the range of --from and --to in loc, or the preset range
// setting when --from is not given (as charges reads them).
func (a chargesArgs) resolve(preset string, now time.Time, loc *time.Location) (billing.Range, error) {
	if !a.from.set() {
		return billing.PresetRange(preset, now, loc)
	}
	return a.timeRange(loc, now)
}

// rangeFlags defines --from and --to on fs, each value checked as it is
// parsed (charges and payments read a range the same way); fromHelp is
// --from's help.
func rangeFlags(fs *pflag.FlagSet, from, to *bound, fromHelp string) {
	fs.Var(&checkedValue{typ: "day|time", parse: from.parser("--from")}, "from", fromHelp)
	fs.Var(&checkedValue{typ: "day|time", parse: to.parser("--to")}, "to",
		"last day, inclusive, or an RFC 3339 time (default: today; needs --from)")
}
