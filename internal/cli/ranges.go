package cli

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/vastdash/vastdash/billing"
)

// bound is --from or --to: a whole day, YYYY-MM-DD, which begins and ends
// in the user's time zone; an instant, RFC 3339, for a window shorter than
// a day; or a word of the dashboard's range presets (7d, this-month, …),
// whose range begins (--from) or ends (--to) there. The zero bound was not
// given.
type bound struct {
	day    string    // "2026-11-01"
	at     time.Time // the instant, to the second
	preset string    // "7d", "last-month"
}

func (b bound) set() bool { return b.day != "" || !b.at.IsZero() || b.preset != "" }

// parser is the flag parser of b: it checks the syntax and that the day or
// instant lies where charges can (billing.CheckRange: 0001-01-01 is also
// Go's zero time, which a query would read as "no date").
func (b *bound) parser(flag string) func(string) error {
	return func(s string) error {
		s = strings.TrimSpace(s)
		if w := strings.ToLower(s); slices.Contains(billing.Presets, w) {
			*b = bound{preset: w}
			return nil
		}
		var nb bound
		t, err := time.Parse(time.DateOnly, s)
		if err == nil {
			nb.day = s
		} else if t, err = time.Parse(time.RFC3339, s); err == nil {
			// The API counts in whole seconds.
			nb.at = t.Truncate(time.Second)
		} else {
			return badValue("%s %s is not a date like 2026-11-01, a time like 2026-11-01T08:00:00Z or one of %s",
				flag, argText(s), orList(billing.Presets))
		}
		if err := billing.CheckRange(t, t); err != nil {
			return badValue("%s %v", flag, err)
		}
		*b = nb
		return nil
	}
}

// resolve is b in loc at now: a day's or a preset's first second, or with
// end its last (the API's upper bound is inclusive); an instant as it is.
func (b bound) resolve(loc *time.Location, now time.Time, end bool) (time.Time, error) {
	var (
		r   billing.Range
		err error
	)
	switch {
	case b.preset != "":
		r, err = billing.PresetRange(b.preset, now, loc)
	case b.day != "":
		r, err = billing.ParseRange(b.day, now, loc)
	default:
		return b.at, nil
	}
	if end {
		return r.To, err
	}
	return r.From, err
}

// text is b as the user gave it, for an error.
func (b bound) text() string {
	switch {
	case b.preset != "":
		return b.preset
	case b.day != "":
		return b.day
	}
	return b.at.Format(time.RFC3339)
}

// timeRange resolves --from and --to in loc; --to defaults to the end of
// the day of now. A day without --to is the open range "FROM..", read by
// the same code as the dashboard's range field; a preset without --to is
// the preset's whole range, as on the dashboard.
func (a chargesArgs) timeRange(loc *time.Location, now time.Time) (billing.Range, error) {
	switch {
	case a.from.preset != "" && !a.to.set():
		return billing.PresetRange(a.from.preset, now, loc)
	case a.from.day != "" && !a.to.set():
		return billing.ParseRange(a.from.day+"..", now, loc)
	}
	to := a.to
	if !to.set() {
		to = bound{day: now.In(loc).Format(time.DateOnly)}
	}
	from, err := a.from.resolve(loc, now, false)
	if err != nil {
		return billing.Range{}, err
	}
	until, err := to.resolve(loc, now, true)
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
func rangeFlags(cmd *cobra.Command, from, to *bound, fromHelp string) {
	fs := cmd.Flags()
	fs.Var(&checkedValue{typ: "day|time|word", parse: from.parser("--from")}, "from", fromHelp)
	fs.Var(&checkedValue{typ: "day|time|word", parse: to.parser("--to")}, "to",
		"last day, inclusive, an RFC 3339 time, or the end of a range word\n(default: today; needs --from)")
	// The words complete; a date is typed.
	completeWith(cmd, "from", billing.Presets...)
	completeWith(cmd, "to", billing.Presets...)
}
