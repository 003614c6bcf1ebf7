package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
)

// spendArgs are the options of the spend command.
type spendArgs struct {
	month  string // YYYY-MM; "" for the current month
	output string
	utc    bool
}

// newSpendCommand is `vastdash spend`: its help and flags; spend runs it.
func newSpendCommand(x *execution) *cobra.Command {
	a := spendArgs{output: "text"}
	cmd := &cobra.Command{
		Use:   "spend",
		Short: "print the month so far, last month by this day, a forecast and the budget",
		Long: `Print the Overview's month panel: this calendar month's spend so far (in the settings timezone, every charge spread over its seconds as the statement spreads it), last month's spend by the same day and time (capped at its end: on the 30th of March, all of February) and the change in percent, a forecast of the month's end, and, with budget = "500" in the settings, the share of it used and the day the spend or the forecast crosses it.

The forecast is the spend so far plus, for every hour left in the month, the current rate (running instances and the storage of stopped ones, as "credit --rate" reads it) and the bandwidth of the last seven complete days per hour, which the platform's $/h figures leave out: forecast_basis "rate". A key without instance_read gets the last seven complete days' whole spend per hour instead: forecast_basis "burn", and stderr says why.

--month shows a past month in full against the whole month before it, without a forecast.

It reads this month's and last month's charges (500 a page, one request a second) and, for the current month, the instances (25 a page) side by side. Charges that fail part-way are an error (exit 1), never a short figure.`,
		Example: `
vastdash spend
vastdash spend --json | jq -r .forecast
vastdash spend --month 2026-10 --output csv
`,
		Args: noArgs,
		RunE: x.commandRun(&a.utc, nil, func(ctx context.Context, s *Session) error { return spendOutlook(ctx, s, a) }),
	}
	fs := cmd.Flags()
	fs.Var(&checkedValue{typ: "month", parse: monthParser("--month", &a.month)}, "month", "a past month in full, YYYY-MM, against the month before\n(default: this month so far, with a forecast)")
	outputFlags(cmd, &a.output, "text", "csv", "json")
	fs.BoolVar(&a.utc, "utc", false, "months begin in UTC (default: the settings timezone)")
	return cmd
}

// spendOutlook is the spend command, after its flags were parsed (tests
// import package spend, so the name is not spend).
func spendOutlook(ctx context.Context, s *Session, a spendArgs) error {
	svc := s.Billing
	var month time.Time
	if a.month != "" {
		m := monthArg{"--month", a.month}
		first, _, err := months(m, m, svc.Location(), svc.Now())
		if err != nil {
			return usageError(err)
		}
		month = first
	}
	o, err := svc.Outlook(ctx, month, s.Settings.Budget, s.progress.feed)
	s.progress.done()
	if err != nil {
		if o.Incomplete {
			err = fmt.Errorf("%w (%s and %s are incomplete)", err, o.Month.Format("January"), o.Prev.Format("January"))
		}
		return err
	}
	if o.TooLarge {
		return fmt.Errorf("%s: the spend is too large to add up", o.Label())
	}
	if err := s.answer(func(w io.Writer) error { return writeSpend(w, a.output, o, svc, s.width) }); err != nil {
		return err
	}
	for _, n := range append(o.Notes, o.Warnings...) {
		warn(s.stderr, n)
	}
	return nil
}

// spendJSON is the JSON answer (and the CSV's columns): dollars with
// exactly 3 decimals (money.Amount's MarshalJSON); null where there is no
// figure.
type spendJSON struct {
	Month              string       `json:"month"`
	SoFar              money.Amount `json:"so_far"`
	LastMonthSamePoint money.Amount `json:"last_month_same_point"`
	// ChangePct is the change from last month in percent, one decimal.
	ChangePct     *json.Number  `json:"change_pct"`
	Forecast      *money.Amount `json:"forecast"`
	ForecastBasis *string       `json:"forecast_basis"`
	Budget        *money.Amount `json:"budget"`
	// BudgetUsed is the share of the budget spent, a fraction with three
	// decimals.
	BudgetUsed      *json.Number `json:"budget_used"`
	BudgetCrossedAt *string      `json:"budget_crossed_at"`
}

// newSpendJSON is the outlook as the JSON answer.
func newSpendJSON(o billing.Outlook) spendJSON {
	j := spendJSON{Month: o.Label(), SoFar: o.SoFar, LastMonthSamePoint: o.PrevSoFar}
	if o.ChangeOK {
		n := json.Number(billing.PerMilleText(o.Change))
		j.ChangePct = &n
	}
	if o.Basis != "" {
		f, b := o.Forecast, o.Basis
		j.Forecast, j.ForecastBasis = &f, &b
	}
	if o.Budget > 0 {
		b, used := o.Budget, json.Number(fraction(o.Used))
		j.Budget, j.BudgetUsed = &b, &used
		if !o.CrossedAt.IsZero() {
			at := rfc3339(o.CrossedAt)
			j.BudgetCrossedAt = &at
		}
	}
	return j
}

// fraction writes tenths of a percent as a fraction with three decimals:
// 408 is "0.408".
func fraction(pm int64) string {
	sign := ""
	if pm < 0 {
		sign, pm = "-", -pm
	}
	return fmt.Sprintf("%s%d.%03d", sign, pm/1000, pm%1000)
}

// writeSpend writes the outlook in the output format, text fitted to a
// terminal width cells wide (0: a pipe, every line whole).
func writeSpend(w io.Writer, output string, o billing.Outlook, svc *billing.Service, width int) error {
	j := newSpendJSON(o)
	switch output {
	case "json":
		return writeJSON(w, j)
	case "csv":
		text := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		num := func(n *json.Number) string {
			if n == nil {
				return ""
			}
			return n.String()
		}
		amount := func(a *money.Amount) string {
			if a == nil {
				return ""
			}
			return a.Decimal()
		}
		return writeCSV(w, [][]string{
			{"month", "so_far", "last_month_same_point", "change_pct", "forecast", "forecast_basis", "budget", "budget_used", "budget_crossed_at"},
			{j.Month, j.SoFar.Decimal(), j.LastMonthSamePoint.Decimal(), num(j.ChangePct), amount(j.Forecast), text(j.ForecastBasis),
				amount(j.Budget), num(j.BudgetUsed), text(j.BudgetCrossedAt)},
		})
	}
	return linesOf(spendLines(o, svc, width))(w)
}

// spendLines is the text answer: a title, then one figure a line, the
// amounts aligned; on a terminal a figure's note wraps under itself. Its
// "as of" is written as the statement's, with the year and the zone.
func spendLines(o billing.Outlook, svc *billing.Service, width int) []string {
	name := o.Month.Format("January 2006")
	title := name + " so far, as of " + svc.WhenLong(o.AsOf)
	label := "so far"
	if o.Past {
		title, label = name+" in full", "spend"
	}
	rows := [][3]string{
		{label, o.SoFar.String(), ""},
		{o.PrevText(), o.PrevSoFar.String(), billing.ChangeText(o.Change, o.ChangeOK)},
	}
	if o.Basis != "" {
		rows = append(rows, [3]string{"forecast", o.Forecast.String(), "to " + o.EndText() + " at " + o.BasisText()})
	}
	if o.Budget > 0 {
		note := billing.UsedText(o.Used) + " used"
		if o.Basis != "" {
			note += " · forecast " + billing.UsedText(o.ForecastUsed)
		}
		if c := o.CrossText(); c != "" {
			note += " · " + c
		}
		rows = append(rows, [3]string{"budget", o.Budget.Credit(), note + " · " + o.Level().String()})
	}
	labelW, amountW := 0, 0
	for _, r := range rows {
		labelW, amountW = max(labelW, len(r[0])), max(amountW, len(r[1]))
	}
	lines := []string{title}
	for _, r := range rows {
		l := "  " + r[0] + strings.Repeat(" ", labelW-len(r[0])) + "  " + strings.Repeat(" ", amountW-len(r[1])) + r[1]
		if r[2] == "" {
			lines = append(lines, l)
			continue
		}
		lines = append(lines, hanging(l+"  ", r[2], width)...)
	}
	return lines
}
