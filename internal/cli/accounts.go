package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/sanitize"
)

// accountsFlags are the options of accounts.
type accountsFlags struct {
	output string // text, csv or json
	utc    bool
}

// newAccountsCommand is `vastdash accounts`: every account configured,
// side by side, and their total.
func newAccountsCommand(x *execution) *cobra.Command {
	var f accountsFlags
	cmd := &cobra.Command{
		Use:   "accounts",
		Short: "print every account's credit, rate, month and leaks side by side, and the total",
		Long: `Print a row per account of the settings (the usual key is "default", each [accounts.NAME] another): its e-mail, credit, what it costs per hour now and how long the credit lasts at it, the month so far, the month's forecast and its share of the budget, and the money leaks per hour; then the total.

The accounts are read side by side, each at its own key's pace. An account that cannot be read is a row marked ✗, the reason under the table (in JSON and CSV its error); the others still show, and the exit code is 1. An account reached by two keys (a key for vastdash alone beside the full one) is counted once in the total: accounts are told apart by their user id, not by their key.`,
		Example: `
vastdash accounts
vastdash accounts --output json | jq '.total.credit'
`,
		Args: noArgs,
		RunE: x.runE(func(*cobra.Command) error { return x.accounts(f) }),
	}
	outputFlags(cmd, &f.output, "text", "csv", "json")
	cmd.Flags().BoolVar(&f.utc, "utc", false, "days and months begin at midnight UTC (default: the settings timezone)")
	return cmd
}

// accountRow is one account of the roll-up: figures from billing, null
// when not read; Error says why it could not be read.
type accountRow struct {
	Name   string        `json:"name"`
	Email  *string       `json:"email"`
	UserID *int64        `json:"user_id"`
	Credit *money.Amount `json:"credit"`
	// RatePerHour is what the instances cost now (running and stored);
	// RunwayDays how long the credit lasts at it.
	RatePerHour *json.Number  `json:"rate_per_hour"`
	RunwayDays  *float64      `json:"runway_days"`
	RunwayNote  string        `json:"runway_note,omitempty"`
	MonthSoFar  *money.Amount `json:"month_so_far"`
	Forecast    *money.Amount `json:"forecast"`
	// BudgetUsed is the forecast's share of the budget, a fraction; null
	// without a budget.
	BudgetUsed   *json.Number `json:"budget_used"`
	LeaksPerHour *json.Number `json:"leaks_per_hour"`
	// SameAs names the row before it of the same account (another key to
	// it): not counted again in the total.
	SameAs string `json:"same_as,omitempty"`
	Error  string `json:"error,omitempty"`

	// The figures the total adds, as billing gave them.
	rate, storage, leaks api.Rate
	used                 *int64 // BudgetUsed in tenths of a percent
	read                 bool
}

// accountsTotal is the roll-up's total: each account once.
type accountsTotal struct {
	Accounts     int           `json:"accounts"`
	Credit       money.Amount  `json:"credit"`
	RatePerHour  json.Number   `json:"rate_per_hour"`
	RunwayDays   *float64      `json:"runway_days"`
	RunwayNote   string        `json:"runway_note,omitempty"`
	MonthSoFar   money.Amount  `json:"month_so_far"`
	Forecast     money.Amount  `json:"forecast"`
	BudgetUsed   *json.Number  `json:"budget_used"`
	LeaksPerHour json.Number   `json:"leaks_per_hour"`
	Budget       *money.Amount `json:"budget,omitempty"`
	// Complete is false when a row could not be read: the total leaves it
	// out.
	Complete bool `json:"complete"`

	rate, leaks api.Rate
	used        *int64
}

// errAccountsFailed ends a roll-up some account of which could not be
// read (its row says why): exit 1, after the answer.
type errAccountsFailed struct{ failed, of int }

func (e errAccountsFailed) Error() string {
	return fmt.Sprintf("%d of %d accounts could not be read (each says why)", e.failed, e.of)
}

// accounts is the accounts command.
func (x *execution) accounts(f accountsFlags) error {
	if x.globals.demo {
		return usageError(errors.New("--demo has one account: accounts reads those of the settings"))
	}
	if x.globals.flags.Account != "" {
		return usageError(errors.New("accounts reads every account: drop --account"))
	}
	settings, err := config.LoadSettings(config.DefaultEnv(), x.globals.flags.ConfigFile)
	if err != nil {
		return configError(err)
	}
	ctx, stop := x.env.context()
	defer stop()
	if x.globals.deadline > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, x.globals.deadline, errDeadline)
		defer cancel()
	}
	kept, noKey := x.readAccounts(ctx, x.env, settings.AccountNames(), sessionOptions{base: ctx, utc: f.utc}, nil)
	if len(kept) == 0 {
		return noKey
	}
	total := totalOf(kept, settings.Budget)
	failed := 0
	for _, r := range kept {
		if r.Error != "" {
			failed++
		}
	}
	width := 0
	if f.output == "text" {
		width = x.env.width(x.env.stdout)
	}
	err = textTo(x.env.stdout, width, func(w io.Writer) error { return writeAccounts(w, f.output, kept, total, width) })
	if err == nil && failed > 0 {
		err = errAccountsFailed{failed, len(kept)}
	}
	return err
}

// readAccounts reads every account of names side by side, each through a
// session of its own opened with o (own, when not nil, is the one of the
// account it is open on: the dashboard's). The usual key's absence is
// no row when other accounts have tables; noKey says it when it is all
// there is.
func (x *execution) readAccounts(ctx context.Context, e *env, names []string, o sessionOptions, own *Session) (kept []accountRow, noKey error) {
	rows := make([]accountRow, len(names))
	var (
		g    errgroup.Group
		skip = make([]bool, len(names))
	)
	for i, name := range names {
		g.Go(func() error {
			if own != nil && own.Account == name {
				rows[i] = readAccountRow(ctx, own, name)
				return nil
			}
			gl := x.globals
			gl.flags.Account = name
			s, err := openSession(e, gl, o)
			if err != nil {
				// The usual key may be absent when every account has a
				// table: then there is no "default" row at all.
				if skip[i] = name == config.DefaultAccount && errors.Is(err, config.ErrNoKey); skip[i] {
					noKey = err
				}
				rows[i] = accountRow{Name: name, Error: oneLineError(err)}
				return nil
			}
			defer s.Close()
			rows[i] = readAccountRow(ctx, s, name)
			return nil
		})
	}
	_ = g.Wait()
	for i, r := range rows {
		if !skip[i] {
			kept = append(kept, r)
		}
	}
	return kept, noKey
}

// oneLineError is err as report would say it, for a row.
func oneLineError(err error) string {
	return sanitize.String(err.Error())
}

// readAccountRow reads one account's figures through its session: the
// account first (a revoked key ends there), then the current rate, the
// month's outlook and the audit side by side, each endpoint at its pace.
func readAccountRow(ctx context.Context, s *Session, name string) accountRow {
	row := accountRow{Name: name}
	svc := s.Billing
	user, err := svc.Account(ctx)
	if err != nil {
		row.Error = s.explain(err)
		return row
	}
	email, id := sanitize.String(user.Email), user.ID
	row.Email, row.UserID = &email, &id
	cr, err := billing.CreditOf(user)
	if err != nil {
		row.Error = s.explain(err)
		return row
	}
	row.Credit = &cr
	var (
		g       errgroup.Group
		rate    billing.CurrentRate
		outlook billing.Outlook
		audit   leaks.Audit
	)
	g.Go(func() (err error) { rate, err = svc.CurrentRate(ctx); return err })
	g.Go(func() (err error) { outlook, err = svc.Outlook(ctx, time.Time{}, s.Settings.Budget, nil); return err })
	g.Go(func() (err error) { audit, err = leaks.Read(ctx, svc); return err })
	if err := g.Wait(); err != nil {
		row.Error = s.explain(err)
		return row
	}
	if rate.NeedsPermission == "" {
		row.rate, row.storage = rate.PerHour, rate.Storage
		row.RatePerHour = rateNumber(rate.Total())
	}
	rw := rate.Runway(cr)
	if rw.Reason == "" {
		days := rw.Days()
		row.RunwayDays = &days
	}
	row.RunwayNote = rw.Reason
	so, fc := outlook.SoFar, outlook.Forecast
	row.MonthSoFar, row.Forecast = &so, &fc
	if outlook.Budget > 0 {
		n, pm := json.Number(fraction(outlook.ForecastUsed)), outlook.ForecastUsed
		row.BudgetUsed, row.used = &n, &pm
	}
	row.leaks = audit.Total
	row.LeaksPerHour = rateNumber(audit.Total)
	row.read = true
	return row
}

// totalOf is the roll-up's total: each account (user id) once, the rows
// that could not be read left out; the runway is billing's at the summed
// rate.
func totalOf(rows []accountRow, budget money.Amount) accountsTotal {
	t := accountsTotal{Complete: true}
	var rate, storage, leaks api.Rate
	seen := map[int64]string{}
	for i := range rows {
		r := &rows[i]
		if !r.read {
			t.Complete = false
			continue
		}
		if first, ok := seen[*r.UserID]; ok {
			r.SameAs = first
			continue
		}
		seen[*r.UserID] = r.Name
		t.Accounts++
		t.Credit, _ = t.Credit.AddSaturating(*r.Credit)
		t.MonthSoFar, _ = t.MonthSoFar.AddSaturating(*r.MonthSoFar)
		t.Forecast, _ = t.Forecast.AddSaturating(*r.Forecast)
		rate += r.rate
		storage += r.storage
		leaks += r.leaks
	}
	cur := billing.CurrentRate{PerHour: rate, Storage: storage}
	t.rate, t.leaks = cur.Total(), leaks
	t.RatePerHour, t.LeaksPerHour = *rateNumber(t.rate), *rateNumber(leaks)
	rw := cur.Runway(t.Credit)
	if rw.Reason == "" {
		days := rw.Days()
		t.RunwayDays = &days
	}
	t.RunwayNote = rw.Reason
	if budget > 0 {
		b := budget
		t.Budget = &b
		if pm, ok := billing.SharePerMille(t.Forecast, budget); ok {
			n := json.Number(fraction(pm))
			t.BudgetUsed, t.used = &n, &pm
		}
	}
	return t
}

// accountsFit is how the roll-up meets a narrow terminal: the email
// shrinks, then the budget, the forecast, the leaks, the month, the email
// and the current rate go; the account, its credit and its runway stay.
var accountsFit = []fitStep{{1, 24}, {7, 0}, {6, 0}, {8, 0}, {5, 0}, {1, 0}, {3, 0}}

// writeAccounts writes the roll-up in the output format, a text table
// fitted to a terminal width cells wide (0: a pipe, every column).
func writeAccounts(w io.Writer, output string, rows []accountRow, t accountsTotal, width int) error {
	if rows == nil {
		rows = []accountRow{}
	}
	switch output {
	case "json":
		return writeJSON(w, struct {
			Accounts []accountRow  `json:"accounts"`
			Total    accountsTotal `json:"total"`
		}{rows, t})
	case "csv":
		out := [][]string{{"name", "email", "user_id", "credit", "rate_per_hour", "runway_days", "month_so_far", "forecast", "budget_used", "leaks_per_hour", "same_as", "error"}}
		for _, r := range rows {
			out = append(out, []string{r.Name, strText(r.Email), intText(r.UserID), amountDecimal(r.Credit), numText(r.RatePerHour),
				daysText(r.RunwayDays), amountDecimal(r.MonthSoFar), amountDecimal(r.Forecast), numText(r.BudgetUsed), numText(r.LeaksPerHour), r.SameAs, r.Error})
		}
		out = append(out, []string{"total", "", "", t.Credit.Decimal(), string(t.RatePerHour), daysText(t.RunwayDays), t.MonthSoFar.Decimal(), t.Forecast.Decimal(), numText(t.BudgetUsed), string(t.LeaksPerHour), "", ""})
		return writeCSV(w, out)
	}
	out := [][]string{{"ACCOUNT", "EMAIL", "CREDIT", "NOW", "RUNWAY", "MONTH", "FORECAST", "BUDGET", "LEAKS"}}
	// Why an account could not be read is said under the table, a line
	// each: in its row it set the EMAIL column's width, and a long reason
	// pushed every account's figures off the terminal.
	var why []string
	for _, r := range rows {
		if !r.read {
			out = append(out, []string{r.Name, "✗ not read (below)", "", "", "", "", "", "", ""})
			why = append(why, "✗ "+r.Name+": "+r.Error+"\n")
			continue
		}
		email := *r.Email
		if r.SameAs != "" {
			email += " (= " + r.SameAs + ")"
		}
		out = append(out, append([]string{r.Name, email}, r.figures()...))
	}
	out = append(out, append([]string{"", t.label()}, t.figures()...))
	if err := writeTableFit(w, out, 2, width, accountsFit); err != nil || len(why) == 0 {
		return err
	}
	_, err := io.WriteString(w, "\n"+strings.Join(why, ""))
	return err
}

// figures are a row's figures as the text table writes them: credit,
// now, runway, month, forecast, budget, leaks.
func (r accountRow) figures() []string {
	return []string{r.Credit.Credit(), rateText(r.rate + r.storage), runwayText(r.RunwayDays, r.RunwayNote),
		r.MonthSoFar.Credit(), r.Forecast.Credit(), shareText(r.used), rateText(r.leaks)}
}

// label is the total row's name: how many accounts it counts, and that
// it leaves some out.
func (t accountsTotal) label() string {
	label := "total"
	if t.Accounts != 1 {
		label = fmt.Sprintf("total (%d accounts)", t.Accounts)
	}
	if !t.Complete {
		label += ", without the ✗"
	}
	return label
}

// figures are the total's figures as the text table writes them.
func (t accountsTotal) figures() []string {
	return []string{t.Credit.Credit(), rateText(t.rate), runwayText(t.RunwayDays, t.RunwayNote),
		t.MonthSoFar.Credit(), t.Forecast.Credit(), shareText(t.used), rateText(t.leaks)}
}

func strText(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func intText(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

func numText(p *json.Number) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

func daysText(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'f', 1, 64)
}

// rateText is a rate as the text tables write one: $1.23/h.
func rateText(r api.Rate) string { return r.String() }

// runwayText is a runway in days, or why there is none, short.
func runwayText(days *float64, note string) string {
	if days == nil {
		if note == "" {
			return "—"
		}
		return "— " + note
	}
	return daysText(days) + " d"
}

// shareText is a budget share (tenths of a percent) as billing writes
// one, "—" without a budget.
func shareText(pm *int64) string {
	if pm == nil {
		return "—"
	}
	return billing.UsedText(*pm)
}
