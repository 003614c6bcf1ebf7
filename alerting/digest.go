package alerting

import (
	"strconv"
	"strings"
	"time"

	"github.com/vastdash/vastdash/billing"
)

// Digest is the daily digest of f: the credit, the runway at the current
// rate, the last 24 hours' spend, the month so far and its forecast
// against the budget, the leaks' $/h and the price increases waiting.
// A figure not read says so rather than showing $0.
func Digest(f *Figures, loc *time.Location) (title, body string) {
	var b strings.Builder
	line := func(name, value string) {
		b.WriteString(name + ": " + value + "\n")
	}
	unknown := "not read"
	b.WriteString(f.Account() + ", " + f.AsOf.In(loc).Format("Mon 2 Jan 15:04 MST") + "\n")
	credit := unknown
	if f.User != nil && !f.User.CreditMissing {
		credit = f.User.Credit.Credit()
	}
	line("credit", credit)
	runway := unknown
	if f.Rate != nil && f.User != nil {
		rw := f.Rate.RunwayOf(f.User)
		if rw.Reason == "" {
			runway = SpellDuration(rw.Until.Sub(f.AsOf)) + " at " + f.Rate.Total().String() + " (until " + rw.Until.In(loc).Format("2 Jan 15:04") + ")"
		} else {
			runway = rw.Reason
		}
	}
	line("runway at the current rate", runway)
	day := unknown
	if f.Day != nil {
		day = f.Day.String()
	}
	line("spent in the last 24 hours", day)
	month := unknown
	switch o := f.Outlook; {
	case o != nil && !o.TooLarge:
		month = o.SoFar.String() + " so far"
		if o.Basis != "" {
			month += ", forecast " + o.Forecast.String()
		}
		if o.Budget > 0 {
			month += " against a " + o.Budget.Credit() + " budget (" + billing.UsedText(o.Used) + " used"
			if o.Basis != "" {
				month += ", forecast " + billing.UsedText(o.ForecastUsed)
			}
			month += ")"
		}
		if o.Incomplete {
			month += " — the charges were read in part: at least this"
		}
	case f.Month != nil:
		month = f.Month.Spend.String() + " so far"
	}
	line("this month", month)
	leaks, incr := unknown, unknown
	if a := f.Audit; a != nil {
		leaks = a.TotalText()
		if len(a.Leaks) > 0 {
			leaks = billing.Plural(len(a.Leaks), "leak", "leaks") + ", " + leaks
		}
		incr = strconv.Itoa(len(a.Increases))
		if len(a.Increases) > 0 {
			incr += " — answer with `vastdash audit` or on the Audit screen (5)"
		}
	}
	line("money leaks", leaks)
	line("price increases waiting", incr)
	b.WriteString("See `vastdash` for the dashboard.")
	return "vastdash: daily digest", b.String()
}
