package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/vastdash/vastdash/billing"
)

// The words of every error about a range, a month or a day, in every
// command (charges, payments, sync, statement, spend): the flag and the
// value as given, then what is wrong with it. A value that cannot be read
// is "--from "X" is not a date like …" (or "not a month like 2026-11"), one
// outside what vastdash accepts "--from X is outside the days (months)
// vastdash accepts, …", both when the flag is parsed; a range that cannot
// be is billing.ErrRange, "bad date range: …", as on the dashboard's range
// field: reversed (reversedRange) or begun after now (notBegun).

// reversedRange is a --to before its --from, days, times or months.
func reversedRange(from, to string) error {
	return fmt.Errorf("%w: --to %s is before --from %s", billing.ErrRange, to, from)
}

// notBegun is a flag whose day, time or month lies after now: "today",
// "now" or "this month".
func notBegun(flag, value, now string) error {
	return fmt.Errorf("%w: %s %s is after %s", billing.ErrRange, flag, value, now)
}

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

// start is b as the first instant of a range at now in loc: refused when
// it lies after now, as the dashboard refuses a range that begins after
// today.
func (b bound) start(flag string, loc *time.Location, now time.Time) (time.Time, error) {
	from, err := b.resolve(loc, now, false)
	if err == nil && from.After(now) {
		when := "today"
		if b.day == "" {
			when = "now"
		}
		err = notBegun(flag, b.text(), when)
	}
	return from, err
}

// reversed is the error of a --to before --from where no zone can change
// the order (two days, or two times), before anything is read; nil
// otherwise.
func reversed(from, to bound) error {
	switch {
	case from.day != "" && to.day != "" && to.day < from.day,
		!from.at.IsZero() && !to.at.IsZero() && to.at.Before(from.at):
		return reversedRange(from.text(), to.text())
	}
	return nil
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
	if a.from.preset != "" && !a.to.set() {
		return billing.PresetRange(a.from.preset, now, loc)
	}
	from, err := a.from.start("--from", loc, now)
	if err != nil {
		return billing.Range{}, err
	}
	if a.from.day != "" && !a.to.set() {
		return billing.ParseRange(a.from.day+"..", now, loc)
	}
	to := a.to
	if !to.set() {
		to = bound{day: now.In(loc).Format(time.DateOnly)}
	}
	until, err := to.resolve(loc, now, true)
	if err != nil {
		return billing.Range{}, err
	}
	if until.Before(from) {
		return billing.Range{}, reversedRange(a.from.text(), to.text())
	}
	return billing.Range{From: from, To: until}, nil
}

// monthArg is a month flag as given: its name and its YYYY-MM ("" when
// not given).
type monthArg struct{ flag, text string }

// monthParser is the parser of a month flag (statement's --from and --to,
// spend's --month), stored in p: YYYY-MM, within the months vastdash
// accepts, as the days' parser checks days.
func monthParser(flag string, p *string) func(string) error {
	return func(s string) error {
		s = strings.TrimSpace(s)
		t, err := billing.ParseMonth(s, time.UTC)
		if err != nil {
			return badValue("%s %s is not a month like 2026-11", flag, argText(s))
		}
		if billing.CheckRange(t, t) != nil {
			return badValue("%s %s is outside the months vastdash accepts, %s to %s", flag, s,
				billing.MinTime.Format("2006-01"), billing.MaxTime.AddDate(0, -1, 0).Format("2006-01"))
		}
		*p = s
		return nil
	}
}

// months is the first instant of the first and the last month in loc at
// now (billing.ParseMonth), checked by billing.StatementMonths, whose
// refusal is said here in the range words with the flag at fault: a month
// that begins after this month, months reversed, a first further back
// than a statement reaches.
func months(first, last monthArg, loc *time.Location, now time.Time) (from, to time.Time, err error) {
	if from, err = billing.ParseMonth(first.text, loc); err != nil {
		return from, to, err
	}
	if to, err = billing.ParseMonth(last.text, loc); err != nil {
		return from, to, err
	}
	err = billing.StatementMonths(from, to, now, loc)
	var me *billing.MonthsError
	if !errors.As(err, &me) {
		return from, to, err
	}
	at := first
	if me.Last {
		at = last
	}
	switch me.Problem {
	case billing.MonthNotBegun:
		err = notBegun(at.flag, at.text, "this month")
	case billing.MonthsReversed:
		err = reversedRange(first.text, last.text)
	case billing.MonthTooFarBack:
		err = fmt.Errorf("%w: %s %s is more than %d months back: the earliest is %s",
			billing.ErrRange, at.flag, at.text, billing.MaxStatementMonths, me.Earliest.Format("2006-01"))
	}
	return from, to, err
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
