// Package alerting tells the account's owner, on a phone or in a chat,
// what vastdash knows and nobody is looking at: the runway under its line,
// the credit under its threshold, a new money leak, the month's spend
// crossing a share of the budget, a host price increase waiting for an
// answer; and a daily digest.
//
// The figures are billing's (Figures holds its readings, never a sum of
// its own); this package decides only when a condition is new. Each rule
// fires once when its condition becomes true and again only after it has
// cleared with a margin, so a runway hovering at its line does not flap.
// What fired is kept as deliveries, one per target, in a private state
// file per account under a lock, retried with backoff until delivered and
// never sent again after: a restart, or serve and a cron `alerts check`
// on the same account, send nothing twice.
package alerting

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/sanitize"
)

// The rules, as the metrics and the state name them.
const (
	RuleRunway   = "runway"
	RuleCredit   = "credit"
	RuleLeak     = "leak"
	RuleBudget   = "budget"
	RuleIncrease = "price_increase"
	RuleDigest   = "digest"
	RuleTest     = "test"
)

// Figures are one reading of the account, all billing's; a nil part was
// not read (a permission missing, a read that failed) and leaves its rules
// as they were.
type Figures struct {
	// Name is the account's name in the settings ("default", "lab");
	// empty: named by its user id.
	Name string
	// UserID and Host name the account ("account 123 at console.vast.ai").
	UserID int64
	Host   string
	// AsOf is when the figures were read.
	AsOf time.Time
	// User is the account record (credit, threshold); nil when not read.
	User *api.User
	// Rate is the current rate; nil when not read.
	Rate *billing.CurrentRate
	// Audit is the leaks and price increases; nil when not read.
	Audit *leaks.Audit
	// Month is this month's spend so far; nil when not read.
	Month *billing.MonthSpend
	// Outlook is the month's outlook (the digest's forecast); nil when not
	// read.
	Outlook *billing.Outlook
	// Day is the spend of the last 24 hours (the digest); nil when not
	// read.
	Day *money.Amount
	// Budget is the settings' monthly budget; 0: none.
	Budget money.Amount
}

// Account names the account in a message: by its name in the settings
// ("account lab at console.vast.ai", as every command names it), by its
// user id when it has none.
func (f *Figures) Account() string {
	if f.Name != "" {
		return "account " + f.Name + " at " + f.Host
	}
	return "account " + strconv.FormatInt(f.UserID, 10) + " at " + f.Host
}

// runwayMargin and creditMargin are how far past its line a figure must
// come back before its rule re-arms: a quarter of the runway, a tenth of
// the credit line (at least a dollar).
const (
	runwayMarginDiv = 4
	creditMarginDiv = 10
	creditMarginMin = money.Amount(1000)
)

// alert is one rule that fired in an evaluation: its message.
type alert struct {
	rule        string
	title, body string
}

// evaluate applies the rules to f, changing st's rule states, and returns
// what fired. It reads and writes nothing else, so it costs nothing next
// to the reads (BenchmarkEvaluate).
func evaluate(rules config.Alerts, f *Figures, st *accountState, loc *time.Location) []alert {
	var out []alert
	when := f.AsOf.In(loc).Format("2 Jan 15:04 MST")
	acct := f.Account()

	// The runway at the current rate.
	if rules.Runway > 0 && f.User != nil && f.Rate != nil && !f.User.CreditMissing {
		rw := f.Rate.Runway(f.User.Credit)
		left, known := time.Duration(-1), true
		switch {
		case rw.Reason == "":
			left = rw.Until.Sub(f.AsOf)
		case f.User.Credit <= 0 && f.Rate.Total() > 0:
			left = 0
		case f.Rate.Total() <= 0 && f.Rate.NeedsPermission == "":
			left = -2 // nothing billing: the credit lasts
		default:
			known = false
		}
		if known {
			on := left >= 0 && left < rules.Runway
			off := left == -2 || left >= rules.Runway+rules.Runway/runwayMarginDiv
			figure := "credit " + f.User.Credit.Credit() + " at " + f.Rate.Total().String()
			if left >= 0 {
				figure += " lasts " + SpellDuration(left) + " (until " + rw.Until.In(loc).Format("2 Jan 15:04") + ")"
			}
			if st.flip(RuleRunway, on, off, f.AsOf, figure) {
				out = append(out, alert{RuleRunway, "vastdash: runway under " + SpellDuration(rules.Runway),
					acct + ": " + figure + ", under your " + SpellDuration(rules.Runway) + " line (" + when + ").\nSee `vastdash credit` or the Overview screen (1); add credit at cloud.vast.ai/billing."})
			}
		}
	}

	// The credit under its line.
	if f.User != nil && !f.User.CreditMissing {
		limit, from := rules.Credit, "your alerts.credit"
		if limit == 0 {
			th := billing.ThresholdOf(*f.User)
			if th.Known && th.Enabled != nil && *th.Enabled {
				limit, from = th.Amount, "the account's low-balance threshold"
			}
		}
		if limit > 0 {
			margin := max(limit/creditMarginDiv, creditMarginMin)
			cr := f.User.Credit
			figure := "credit " + cr.Credit()
			if st.flip(RuleCredit, cr < limit, cr >= limit+margin, f.AsOf, figure) {
				out = append(out, alert{RuleCredit, "vastdash: credit under " + limit.Credit(),
					acct + ": " + figure + ", under " + from + " " + limit.Credit() + " (" + when + ").\nSee `vastdash credit` or the Overview screen (1)."})
			}
		}
	}

	// New money leaks, and price increases waiting.
	if a := f.Audit; a != nil {
		if rules.Leaks {
			var lines []string
			seen := map[string]bool{}
			for _, l := range a.Leaks {
				k := "leak " + string(l.Kind) + " " + strconv.FormatInt(l.ID, 10)
				seen[k] = true
				if st.once(k, f.AsOf) {
					lines = append(lines, "- "+leakLine(l, loc))
				}
			}
			st.forget("leak ", seen, func(k string) bool {
				kind := leaks.LeakKind(strings.Fields(k)[1])
				return a.Knows(kind)
			})
			if len(lines) > 0 {
				title := "vastdash: a new money leak"
				if len(lines) > 1 {
					title = "vastdash: " + strconv.Itoa(len(lines)) + " new money leaks"
				}
				out = append(out, alert{RuleLeak, title, acct + " (" + when + "), paying for what it does not use:\n" +
					strings.Join(lines, "\n") + "\nSee `vastdash audit` or the Audit screen (5)."})
			}
		}
		if rules.PriceIncreases {
			var lines []string
			seen := map[string]bool{}
			for _, p := range a.Increases {
				k := "increase " + strconv.FormatInt(p.ID, 10)
				seen[k] = true
				if st.once(k, f.AsOf) {
					lines = append(lines, "- "+increaseLine(p, loc))
				}
			}
			st.forget("increase ", seen, func(string) bool { return a.Complete() })
			if len(lines) > 0 {
				out = append(out, alert{RuleIncrease, "vastdash: a host price increase waits for your answer",
					acct + " (" + when + "):\n" + strings.Join(lines, "\n") + "\nAnswer with `vastdash audit` or on the Audit screen (5); ignored, the contract ends when it applies."})
			}
		}
	}

	// The month's spend crossing shares of the budget.
	if f.Month != nil && f.Budget > 0 && len(rules.Budget) > 0 {
		month := f.Month.Start.In(loc).Format("2006-01")
		used, ok := billing.SharePerMille(f.Month.Spend, f.Budget)
		if ok {
			var top int64 = -1
			for _, pm := range rules.Budget {
				if used >= pm && st.once("budget "+month+" "+strconv.FormatInt(pm, 10), f.AsOf) {
					top = pm
				}
			}
			st.forget("budget ", map[string]bool{}, func(k string) bool { return !strings.HasPrefix(k, "budget "+month+" ") })
			if top >= 0 {
				name := f.Month.Start.In(loc).Format("January")
				out = append(out, alert{RuleBudget, "vastdash: " + name + " passed " + billing.UsedText(top) + " of the budget",
					acct + ": " + name + "'s spend " + f.Month.Spend.String() + " is " + billing.UsedText(used) + " of your " + f.Budget.Credit() + " budget (" + when + ").\nSee `vastdash spend` or the Overview screen (1)."})
			}
		}
	}
	return out
}

// leakLine is one leak in a message: kind, what, $/h, since when.
func leakLine(l leaks.Leak, loc *time.Location) string {
	s := l.Kind.Title() + " " + l.Source
	if lbl := sanitize.Short(l.Label, 40); lbl != "" {
		s += " (" + lbl + ")"
	}
	if l.PerHourKnown {
		s += ": " + l.PerHour.String()
	}
	if !l.Since.IsZero() {
		s += " since " + l.Since.In(loc).Format("2 Jan 15:04")
	}
	if l.Why != "" {
		s += " — " + sanitize.Short(l.Why, 80)
	}
	return s
}

// increaseLine is one price increase in a message.
func increaseLine(p leaks.PriceChange, loc *time.Location) string {
	s := "instance " + strconv.FormatInt(p.InstanceID, 10)
	if lbl := sanitize.Short(p.Label, 40); lbl != "" {
		s += " (" + lbl + ")"
	}
	if p.Known {
		s += ": " + p.OldPerHour.String() + " → " + p.NewPerHour.String()
	}
	if !p.AppliesAt.IsZero() {
		s += " from " + p.AppliesAt.In(loc).Format("2 Jan 15:04")
	}
	return s
}

// SpellDuration says a duration in days and hours, or hours and minutes.
func SpellDuration(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%.1f days", d.Hours()/24)
	case d >= time.Hour:
		h := int(d / time.Hour)
		if m := int(d%time.Hour) / int(time.Minute); m != 0 && h < 10 {
			return fmt.Sprintf("%dh%02dm", h, m)
		}
		return strconv.Itoa(h) + "h"
	}
	return strconv.Itoa(int(d/time.Minute)) + "m"
}
