package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/alerting"
	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/exporter"
	"github.com/vastdash/vastdash/notify"
)

// newAlertsCommand is `vastdash alerts` and its subcommands: the rules,
// their state and the targets; test, check, digest.
func newAlertsCommand(x *execution) *cobra.Command {
	run := func(f func(ctx context.Context, s *Session) error) func(*cobra.Command, []string) error {
		return x.commandRun(nil, nil, f)
	}
	// output is --output of whichever command runs (one a run).
	var output string
	cmd := &cobra.Command{
		Use:   "alerts",
		Short: "alerts on a phone or in a chat: every rule, its state, the targets",
		Long: `Alerts tell you, on a phone or in a chat, what vastdash knows and nobody is looking at: the credit lasting less than the runway line at the current rate, the credit under its line, a money leak the audit has not reported before, the month's spend crossing shares of the budget, a host price increase waiting for an answer; and a daily digest. The targets are shoutrrr URLs (ntfy, Discord, Slack, Telegram, e-mail over SMTP, Gotify, Matrix, a generic webhook …) in the settings' [alerts] table or VASTDASH_ALERTS_TO. See docs/alerts.md.

This prints every rule with its state (armed, or fired at … and the figure then), the figures now, and the targets as their service and host only: a URL carries tokens and is never shown whole.

vastdash serve evaluates the rules at every refresh and sends the digest at its time; vastdash alerts check does it once, for cron. Both share the account's state, so nothing is sent twice.`,
		Example: `
vastdash alerts
vastdash alerts test
vastdash alerts check      # from cron, every 5 minutes
vastdash alerts digest
`,
		Args: noArgs,
		RunE: run(func(ctx context.Context, s *Session) error { return alertsShow(ctx, s, output) }),
	}
	test := &cobra.Command{
		Use:   "test",
		Short: "send a test message to every target, a line per target; exit 1 when one failed",
		Args:  noArgs,
		RunE:  run(func(ctx context.Context, s *Session) error { return alertsTest(ctx, s, output) }),
	}
	check := &cobra.Command{
		Use:   "check",
		Short: "evaluate every rule once and send what is due (for cron); exit 1 when a delivery failed",
		Long:  `Evaluate every rule once, send what fired and what earlier runs kept (a target that failed is tried again, with backoff), and the digest when its time has come today. Exit 0 when all that was due was delivered, 1 when a delivery failed (it is kept for the next run, never dropped), 2 when there is no target. A target that keeps failing is said once. What was sent is listed on stdout, one line each: nothing when nothing was due.`,
		Args:  noArgs,
		RunE:  run(func(ctx context.Context, s *Session) error { return alertsCheck(ctx, s, output) }),
	}
	digest := &cobra.Command{
		Use:   "digest",
		Short: "send the digest now: credit, runway, spend, the month against the budget, leaks",
		Args:  noArgs,
		RunE:  run(func(ctx context.Context, s *Session) error { return alertsDigest(ctx, s, output) }),
	}
	for _, c := range []*cobra.Command{cmd, test, check, digest} {
		outputFlags(c, &output, "text", "json")
	}
	cmd.AddCommand(test, check, digest)
	return cmd
}

// errNoTargets is the answer when there is nowhere to send to.
func errNoTargets(s *Session) error {
	where := s.Settings.Path
	if where == "" {
		where = config.SettingsPath(config.DefaultEnv())
	}
	if where == "" {
		where = "the settings file"
	}
	return configError(fmt.Errorf("no alert target: add [alerts] with to = [\"ntfy://ntfy.sh/YOUR-TOPIC\"] to %s, or set %s (see docs/alerts.md)", where, config.AlertsToEnv))
}

// apiHost names the API's host in messages and the state file's name.
func (s *Session) apiHost() string {
	switch {
	case s.demo != nil:
		return "demo"
	case s.Host != "":
		return s.Host
	}
	return "console.vast.ai"
}

// readFigures reads what the rules need, side by side, through billing:
// the account (needed: it names the state), the rate and the audit; the
// month's outlook when month; the last 24 hours when day. A part that
// fails is said on stderr and left out (its rules wait).
func readFigures(ctx context.Context, s *Session, month, day bool) (*alerting.Figures, error) {
	svc := s.Billing
	var (
		wg            sync.WaitGroup
		user          api.User
		rate          billing.CurrentRate
		audit         leaks.Audit
		userErr       error
		rateErr       error
		auditErr      error
		outlook       billing.Outlook
		outlookErr    error
		est           billing.Estimate
		estErr        error
		rules, budget = s.Settings.Alerts, s.Settings.Budget
	)
	wg.Go(func() { user, userErr = svc.Account(ctx) })
	wg.Go(func() { rate, rateErr = svc.CurrentRate(ctx) })
	if rules.Leaks || rules.PriceIncreases || day {
		wg.Go(func() { audit, auditErr = leaks.Read(ctx, svc) })
	}
	if month {
		wg.Go(func() { outlook, outlookErr = svc.Outlook(ctx, time.Time{}, budget, nil) })
	}
	wg.Wait()
	if userErr != nil {
		return nil, userErr
	}
	f := &alerting.Figures{Name: s.Account, UserID: user.ID, Host: s.apiHost(), AsOf: svc.Now(), User: &user, Budget: budget}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	say := func(what string, err error) {
		if !errors.Is(err, api.ErrPermission) {
			warn(s.stderr, what+": "+svc.Explain(err)+" (its alerts wait for the next reading)")
		}
	}
	switch {
	case rateErr != nil:
		say("the current rate", rateErr)
	case rate.NeedsPermission == "":
		f.Rate = &rate
	}
	if auditErr != nil {
		say("the audit", auditErr)
	} else if rules.Leaks || rules.PriceIncreases || day {
		f.Audit = &audit
	}
	if month {
		if outlookErr != nil {
			say("the month's charges", outlookErr)
		} else {
			f.Outlook = &outlook
			f.Month = &billing.MonthSpend{Start: outlook.Month, AsOf: outlook.AsOf, Spend: outlook.SoFar}
		}
	}
	if day && !user.CreditMissing {
		if est, estErr = svc.Runway(ctx, user.Credit, nil); estErr == nil && !est.Day.Overflow {
			d := est.Day.PerDay
			f.Day = &d
		}
	}
	return f, nil
}

// serveAlerts is serve's alerts: the rules on each refresh's readings
// (the exporter's, read once for the metrics and the alerts), the digest's
// further figures read only when it is due, what happened said on log.
// nil when there is no target.
func serveAlerts(s *Session, log *slog.Logger) exporter.AlertsFunc {
	if len(s.Settings.Alerts.To) == 0 {
		return nil
	}
	var targets []string
	for _, t := range s.Settings.Alerts.To {
		targets = append(targets, t.String())
	}
	log.Info("alerts on", "targets", strings.Join(targets, ", "), "from", s.Settings.Alerts.ToFrom)
	var first sync.Once
	return func(ctx context.Context, r exporter.Readings) (map[string]int, int) {
		a, err := alerter(s, r.User.ID)
		if err != nil {
			log.Warn("alerts: " + err.Error())
			return nil, 0
		}
		f := &alerting.Figures{Name: s.Account, UserID: r.User.ID, Host: s.apiHost(), AsOf: s.Billing.Now(), User: r.User,
			Rate: r.Rate, Audit: r.Audit, Month: r.Month, Budget: s.Settings.Budget}
		if a.DigestDue() {
			more, err := readFigures(ctx, s, true, true)
			if err == nil {
				f.Outlook, f.Day = more.Outlook, more.Day
			}
		}
		res, err := a.Check(ctx, f, true)
		for _, n := range res.Notices {
			log.Warn("alerts: " + n)
		}
		for rule, n := range res.Sent {
			log.Info("alert sent", "rule", rule, "deliveries", n)
		}
		if err != nil {
			log.Warn("alerts: " + oneLine(err.Error()))
		}
		// Once, so the log shows the rules run without a line a refresh.
		first.Do(func() { log.Info("alerts checked", "waiting", res.Pending) })
		return res.Sent, res.Failed
	}
}

// alerter is the alerter of the session's account.
func alerter(s *Session, userID int64) (*alerting.Alerter, error) {
	path := alerting.StatePath(config.DefaultEnv(), userID, s.apiHost())
	if path == "" {
		return nil, configError(errors.New("no home folder to keep the alerts' state in: set XDG_STATE_HOME"))
	}
	return alerting.New(alerting.Options{Rules: s.Settings.Alerts, Path: path, Location: s.Billing.Location(), Now: s.Billing.Now}), nil
}

// budgetRule says whether the budget rule can fire: a budget and shares.
func budgetRule(s *Session) bool {
	return s.Settings.Budget > 0 && len(s.Settings.Alerts.Budget) > 0
}

// alertsCheck is `vastdash alerts check`.
func alertsCheck(ctx context.Context, s *Session, output string) error {
	rules := s.Settings.Alerts
	if len(rules.To) == 0 {
		return errNoTargets(s)
	}
	f, err := readFigures(ctx, s, budgetRule(s) || rules.DigestOn, rules.DigestOn)
	if err != nil {
		return retryWaiting(ctx, s, output, err)
	}
	// The key's user id is remembered (once, beside the ledgers) so that
	// a run that cannot read the account finds what waits.
	_ = s.rememberedUserID()
	a, err := alerter(s, f.UserID)
	if err != nil {
		return err
	}
	res, err := a.Check(ctx, f, true)
	for _, n := range res.Notices {
		warn(s.stderr, n)
	}
	if err != nil {
		return err
	}
	if err := s.answer(func(w io.Writer) error {
		if output == "json" {
			return writeJSON(w, checkJSON{Fired: append([]string{}, res.Fired...), Sent: res.Sent, Failed: res.Failed, Waiting: res.Pending})
		}
		return writeSent(w, res)
	}); err != nil {
		return err
	}
	if res.Pending > 0 {
		return fmt.Errorf("%s not delivered yet: kept for the next run (see vastdash alerts)", billing.Plural(res.Pending, "alert", "alerts"))
	}
	return nil
}

// retryWaiting is alerts check when the account cannot be read (the API
// is down): the deliveries kept from past runs are sent all the same,
// their state found by the user id remembered for the key (the ledger's
// identity file), and the run still fails with readErr.
func retryWaiting(ctx context.Context, s *Session, output string, readErr error) error {
	id := s.rememberedUserID()
	if id == 0 {
		return readErr
	}
	a, err := alerter(s, id)
	if err != nil {
		return readErr
	}
	res, err := a.Retry(ctx)
	for _, n := range res.Notices {
		warn(s.stderr, n)
	}
	if err == nil {
		err = s.answer(func(w io.Writer) error {
			if output == "json" {
				return writeJSON(w, checkJSON{Fired: []string{}, Sent: res.Sent, Failed: res.Failed, Waiting: res.Pending})
			}
			return writeSent(w, res)
		})
	}
	if err != nil {
		warn(s.stderr, "alerts waiting: "+oneLine(err.Error()))
	}
	return readErr
}

// checkJSON is the --json answer of alerts check.
type checkJSON struct {
	Fired   []string       `json:"fired"`
	Sent    map[string]int `json:"sent"`
	Failed  int            `json:"failed"`
	Waiting int            `json:"waiting"`
}

// writeSent lists what a run delivered, a line per rule.
func writeSent(w io.Writer, res alerting.Result) error {
	rules := make([]string, 0, len(res.Sent))
	for r := range res.Sent {
		rules = append(rules, r)
	}
	slices.Sort(rules)
	for _, r := range rules {
		if _, err := fmt.Fprintf(w, "sent %s: %s\n", r, billing.Plural(res.Sent[r], "delivery", "deliveries")); err != nil {
			return err
		}
	}
	return nil
}

// alertsTest is `vastdash alerts test`.
func alertsTest(ctx context.Context, s *Session, output string) error {
	if len(s.Settings.Alerts.To) == 0 {
		return errNoTargets(s)
	}
	user, err := s.Billing.Account(ctx)
	if err != nil {
		return err
	}
	a, err := alerter(s, user.ID)
	if err != nil {
		return err
	}
	f := alerting.Figures{Name: s.Account, UserID: user.ID, Host: s.apiHost()}
	m := notify.Message{Title: "vastdash: test", Body: "A test from vastdash for " + f.Account() + ": alerts reach you here. `vastdash alerts` shows the rules."}
	return sendNowAnswer(ctx, s, a, m, output)
}

// sendNowAnswer sends m to every target now and prints a line per
// target; an error when any failed.
func sendNowAnswer(ctx context.Context, s *Session, a *alerting.Alerter, m notify.Message, output string) error {
	results := a.SendNow(ctx, m)
	failed := 0
	for _, r := range results {
		if r.Err != nil {
			failed++
		}
	}
	err := s.answer(func(w io.Writer) error {
		if output == "json" {
			out := []sentJSON{}
			for _, r := range results {
				j := sentJSON{Target: r.Target.String(), Sent: r.Err == nil}
				if r.Err != nil {
					e := oneLine(r.Err.Error())
					j.Error = &e
				}
				out = append(out, j)
			}
			return writeJSON(w, out)
		}
		for _, r := range results {
			line := r.Target.String() + ": sent"
			if r.Err != nil {
				line = r.Target.String() + ": failed: " + r.Err.Error()
			}
			if _, err := fmt.Fprintln(w, oneLine(line)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %s failed", failed, billing.Plural(len(results), "target", "targets"))
	}
	return nil
}

// sentJSON is one target's result in the --json answer of alerts test
// and alerts digest.
type sentJSON struct {
	Target string  `json:"target"`
	Sent   bool    `json:"sent"`
	Error  *string `json:"error"`
}

// alertsDigest is `vastdash alerts digest`: the digest now, outside the
// daily one's schedule.
func alertsDigest(ctx context.Context, s *Session, output string) error {
	if len(s.Settings.Alerts.To) == 0 {
		return errNoTargets(s)
	}
	f, err := readFigures(ctx, s, true, true)
	if err != nil {
		return err
	}
	a, err := alerter(s, f.UserID)
	if err != nil {
		return err
	}
	title, body := alerting.Digest(f, s.Billing.Location())
	return sendNowAnswer(ctx, s, a, notify.Message{Title: title, Body: body}, output)
}

// alertsShow is `vastdash alerts`.
func alertsShow(ctx context.Context, s *Session, output string) error {
	rules := s.Settings.Alerts
	f, err := readFigures(ctx, s, budgetRule(s), false)
	if err != nil {
		return err
	}
	a, err := alerter(s, f.UserID)
	if err != nil {
		return err
	}
	st, err := a.Status(ctx)
	if err != nil {
		return err
	}
	loc := s.Billing.Location()
	at := func(t time.Time) string { return t.In(loc).Format("2 Jan 15:04") }
	fired := func(prefix string) string {
		var keys []string
		for k := range st.Fired {
			if strings.HasPrefix(k, prefix) {
				keys = append(keys, k)
			}
		}
		switch {
		case len(keys) == 0:
			return "armed"
		case prefix == "runway" || prefix == "credit":
			r := st.Fired[prefix]
			return "fired " + at(r.At) + " (" + r.Text + "); again once it clears"
		}
		return billing.Plural(len(keys), "told", "told") + ", each once"
	}
	rows := [][]string{{"RULE", "SETTING", "STATE"}}
	add := func(rule, setting, state string) { rows = append(rows, []string{rule, setting, state}) }
	if rules.Runway > 0 {
		add("runway", "credit lasts under "+alerting.SpellDuration(rules.Runway)+" at the current rate", fired("runway"))
	} else {
		add("runway", "off", "")
	}
	switch th := billing.ThresholdOf(*f.User); {
	case rules.Credit > 0:
		add("credit", "credit under "+rules.Credit.Credit(), fired("credit"))
	case th.Known && th.Enabled != nil && *th.Enabled:
		add("credit", "credit under the account's threshold "+th.Amount.Credit(), fired("credit"))
	default:
		add("credit", "off (no alerts.credit, the account's threshold off)", "")
	}
	add("leaks", onOff(rules.Leaks, "a money leak not reported before"), fired("leak "))
	switch {
	case len(rules.Budget) == 0:
		add("budget", "off", "")
	case s.Settings.Budget <= 0:
		add("budget", "off (no budget in the settings)", "")
	default:
		var shares []string
		for _, pm := range rules.Budget {
			shares = append(shares, billing.UsedText(pm))
		}
		add("budget", "the month's spend past "+strings.Join(shares, ", ")+" of "+s.Settings.Budget.Credit(), fired("budget "))
	}
	add("price_increases", onOff(rules.PriceIncreases, "a host price increase waiting"), fired("increase "))
	if rules.DigestOn {
		last := "not sent yet"
		if st.DigestDay != "" {
			last = "last sent " + st.DigestDay
		}
		zone := loc.String()
		if loc == time.Local {
			zone = "local time"
		}
		add("digest", fmt.Sprintf("every day at %02d:%02d %s", rules.Digest/60, rules.Digest%60, zone), last)
	} else {
		add("digest", "off", "")
	}
	targetState := func(t notify.Target) (string, int) {
		state := "ok"
		if fl, ok := st.Failing[t.String()]; ok {
			state = "failing since " + at(fl.At) + ": " + fl.Text
		}
		return oneLine(state), st.Pending[t.String()]
	}
	if output == "json" {
		j := showJSON{Account: f.Account(), AsOf: f.AsOf, Rules: []ruleJSON{}, Targets: []targetJSON{}, Delivered: st.Sent, TargetsFrom: rules.ToFrom}
		for _, r := range rows[1:] {
			j.Rules = append(j.Rules, ruleJSON{Rule: r[0], Setting: r[1], State: r[2]})
		}
		for _, t := range rules.To {
			state, n := targetState(t)
			j.Targets = append(j.Targets, targetJSON{Target: t.String(), State: state, Waiting: n})
		}
		return s.answer(func(w io.Writer) error { return writeJSON(w, j) })
	}
	return s.answer(func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "%s, %s\n", f.Account(), at(f.AsOf)); err != nil {
			return err
		}
		if err := writeTable(w, rows, 3); err != nil {
			return err
		}
		credit, runway := "not read", "not read"
		if !f.User.CreditMissing {
			credit = f.User.Credit.Credit()
		}
		if f.Rate != nil {
			rw := f.Rate.RunwayOf(f.User)
			runway = rw.Reason
			if rw.Reason == "" {
				runway = "until " + at(rw.Until) + " at " + f.Rate.Total().String()
			}
		}
		leaks := "not read"
		if f.Audit != nil {
			leaks = billing.Plural(len(f.Audit.Leaks), "leak", "leaks") + " (" + f.Audit.TotalText() + "), " +
				billing.Plural(len(f.Audit.Increases), "price increase", "price increases") + " waiting"
		}
		fmt.Fprintf(w, "\nnow: credit %s; runway %s; %s\n", credit, runway, leaks)
		from := rules.ToFrom
		if from == "" {
			from = "none"
		}
		fmt.Fprintf(w, "\ntargets (from %s):\n", from)
		if len(rules.To) == 0 {
			fmt.Fprintf(w, "  none: add [alerts] to = [\"ntfy://ntfy.sh/YOUR-TOPIC\"] to the settings, or set %s\n", config.AlertsToEnv)
		}
		for _, t := range rules.To {
			state, n := targetState(t)
			if n > 0 {
				state += "; " + billing.Plural(n, "alert", "alerts") + " waiting"
			}
			fmt.Fprintln(w, "  "+t.String()+": "+state)
		}
		var sent []string
		for r, n := range st.Sent {
			sent = append(sent, r+" "+strconv.Itoa(n))
		}
		slices.Sort(sent)
		if len(sent) > 0 {
			fmt.Fprintf(w, "\ndelivered so far: %s\n", strings.Join(sent, ", "))
		}
		return nil
	})
}

// showJSON is the --json answer of vastdash alerts.
type showJSON struct {
	Account     string         `json:"account"`
	AsOf        time.Time      `json:"as_of"`
	Rules       []ruleJSON     `json:"rules"`
	Targets     []targetJSON   `json:"targets"`
	TargetsFrom string         `json:"targets_from"`
	Delivered   map[string]int `json:"delivered"`
}

type ruleJSON struct {
	Rule    string `json:"rule"`
	Setting string `json:"setting"`
	State   string `json:"state"`
}

type targetJSON struct {
	Target  string `json:"target"`
	State   string `json:"state"`
	Waiting int    `json:"waiting"`
}

func onOff(on bool, what string) string {
	if on {
		return what
	}
	return "off"
}
