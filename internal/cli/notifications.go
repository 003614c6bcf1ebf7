package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
)

// switchFlag is an optional on/off flag value.
type switchFlag struct {
	set, on bool
}

// switchValue is an on/off flag, unset until given.
type switchValue struct {
	name string
	switchFlag
}

func (v *switchValue) String() string {
	switch {
	case !v.set:
		return ""
	case v.on:
		return "on"
	}
	return "off"
}

func (v *switchValue) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on":
		v.switchFlag = switchFlag{set: true, on: true}
	case "off":
		v.switchFlag = switchFlag{set: true}
	default:
		return badValue("--%s %s: want on or off", v.name, argText(s))
	}
	return nil
}

func (v *switchValue) Type() string { return "on|off" }

// thresholdValue is --threshold: an amount billing.ParseThreshold takes,
// checked when the flag is parsed.
type thresholdValue struct {
	set    bool
	amount money.Amount
}

func (v *thresholdValue) String() string {
	if !v.set {
		return ""
	}
	return strings.TrimPrefix(v.amount.Credit(), "$")
}

func (v *thresholdValue) Set(s string) error {
	a, err := billing.ParseThreshold(s)
	if err != nil {
		return badValue("--threshold %s: %v", argText(s), err)
	}
	v.set, v.amount = true, a
	return nil
}

func (v *thresholdValue) Type() string { return "dollars" }

// setValues is --set, repeatable: CONTEXT.TYPE.CHANNEL=on|off, read by
// billing.ParseSwitch when the flag is parsed.
type setValues struct{ sw []billing.Switch }

func (v *setValues) String() string {
	parts := make([]string, len(v.sw))
	for i, w := range v.sw {
		parts[i] = billing.PathString(w.Path) + "=" + word(w.On)
	}
	return strings.Join(parts, ",")
}

func (v *setValues) Set(s string) error {
	w, err := billing.ParseSwitch(s)
	if err != nil {
		return badValue("--set %s: %v", argText(s), err)
	}
	v.sw = append(v.sw, w)
	return nil
}

func (v *setValues) Type() string { return "context.type.channel=on|off" }

// notificationsArgs is what the flags asked for.
type notificationsArgs struct {
	email, webhooks, thEnabled switchFlag
	threshold                  thresholdValue
	set                        []billing.Switch
	all, force                 bool
}

// newNotificationsCommand is `vastdash notifications`: its help and
// flags; notifications runs it.
func newNotificationsCommand(x *execution) *cobra.Command {
	email, webhooks := &switchValue{name: "email"}, &switchValue{name: "webhooks"}
	thEnabled := &switchValue{name: "threshold-enabled"}
	var (
		a    notificationsArgs
		sets setValues
	)
	cmd := &cobra.Command{
		Use:   "notifications",
		Short: "print or switch the alerts and the low-balance threshold",
		Long: `Print the low-credit alert switches, one per line (low credit by email: on), or switch them; --all prints every alert of the account, --set switches any of them, --threshold sets the low-balance threshold the low-credit alerts fire below.

A change reads the whole preferences document right before the save, changes only the switches given, saves it and prints what the server confirmed: a save replaces every notification preference, so the others are kept. Asking for the state a switch already has sends nothing. A threshold change sends only the threshold and whether it is enabled, then reads the account again and prints what the server holds. A threshold and switches given together are saved both or neither where that can be known before a write; otherwise the error names what was saved. When a save's answer is lost (a timeout, a cut connection, a 5xx), vastdash reads the server again, prints what it holds and says whether the change took (exit 0 when it did, 1 when not or when that cannot be told).`,
		Example: `
vastdash notifications
vastdash notifications --webhooks on
vastdash notifications --email off --webhooks off
vastdash notifications --all
vastdash notifications --set client.instance_outbid.email=off --set host.machine_offline.webhooks=on
vastdash notifications --threshold 25.00 --threshold-enabled on
`,
		Args: noArgs,
		RunE: x.commandRun(nil, nil, func(ctx context.Context, s *Session) error {
			a.email, a.webhooks, a.thEnabled, a.set = email.switchFlag, webhooks.switchFlag, thEnabled.switchFlag, sets.sw
			return notifications(ctx, s, a)
		}),
	}
	fs := cmd.Flags()
	fs.Var(email, "email", "switch the low-credit alert by email on or off")
	fs.Var(webhooks, "webhooks", "switch the low-credit alert by webhooks on or off")
	fs.Var(&sets, "set", "switch any alert, e.g. client.instance_outbid.email=off\n(repeatable; --all lists them)")
	fs.BoolVar(&a.all, "all", false, "print every alert switch of the account, with the threshold")
	fs.Var(&a.threshold, "threshold", "set the low-balance threshold, in dollars (0 to 1000000, two decimals)")
	fs.Var(thEnabled, "threshold-enabled", "switch the low-balance threshold on or off")
	fs.BoolVar(&a.force, "force", false, "save even when the server cannot read the current document;\nthe save then holds only the switches given and every other\nnotification preference is replaced")
	for _, name := range []string{"email", "webhooks", "threshold-enabled"} {
		completeWith(cmd, name, "on", "off")
	}
	return cmd
}

// notifications is the notifications command, after its flags were
// parsed.
func notifications(ctx context.Context, s *Session, a notificationsArgs) error {
	svc := s.Billing
	user, err := svc.Account(ctx)
	if err != nil {
		return err
	}
	sw := a.set
	if a.email.set {
		sw = append(sw, billing.Switch{Path: api.LowCreditEmail, On: a.email.on})
	}
	if a.webhooks.set {
		sw = append(sw, billing.Switch{Path: api.LowCreditWebhooks, On: a.webhooks.on})
	}
	var th *billing.ThresholdChange
	if a.threshold.set || a.thEnabled.set {
		th = &billing.ThresholdChange{}
		if a.threshold.set {
			th.Amount = &a.threshold.amount
		}
		if a.thEnabled.set {
			th.Enabled = &a.thEnabled.on
		}
	}
	if th == nil && len(sw) == 0 {
		var lines []string
		if a.all {
			lines = append(lines, "low-balance threshold: "+billing.ThresholdOf(user).String())
		}
		prefs, err := svc.ReadPrefs(ctx, user.ID)
		if errors.Is(err, billing.ErrPrefsUnreadable) {
			return fmt.Errorf("%w; set the switches with --email/--webhooks and --force", err)
		}
		if err != nil {
			return err
		}
		return s.answer(linesOf(append(lines, s.switchLines(ctx, prefs, a.all, nil)...)))
	}

	// Both or neither where that can be known before a write; else the
	// error names what was saved (billing.SaveAlerts).
	res, err := svc.SaveAlerts(ctx, user.ID, billing.AlertsChange{Threshold: th, Switches: sw, Force: a.force})
	var lines []string
	// The threshold first: its line leads the answer.
	switch {
	case th != nil && res.Threshold.Read:
		lines = append(lines, "low-balance threshold: "+res.Threshold.Held().String())
	case th == nil && a.all:
		lines = append(lines, "low-balance threshold: "+billing.ThresholdOf(user).String())
	}
	if th != nil {
		if terr := thresholdOutcome(s, res.Threshold, res.ThresholdErr); terr != nil {
			if len(sw) > 0 {
				terr = fmt.Errorf("%w; the switches were not sent", terr)
			}
			if res.Threshold.Outcome == billing.Failed {
				return terr // nothing changed: stdout stays empty
			}
			return s.partial(lines, terr)
		}
	}
	if len(sw) == 0 {
		if !a.all {
			return s.answer(linesOf(lines))
		}
		prefs, err := svc.ReadPrefs(ctx, user.ID)
		if err != nil {
			return s.partial(lines, fmt.Errorf("the threshold was saved, but the switches could not be read: %w", err))
		}
		return s.answer(linesOf(append(lines, s.switchLines(ctx, prefs, true, nil)...)))
	}
	sr := res.Switches
	if res.SwitchesSent && !sr.Prefs.IsZero() && sr.Outcome != billing.Failed {
		lines = append(lines, s.switchLines(ctx, sr.Prefs, a.all, sw)...)
	}
	switch {
	case errors.Is(err, billing.ErrPartial):
		return s.partial(lines, err)
	case errors.Is(err, billing.ErrPrefsUnreadable):
		return fmt.Errorf("not saved: %w (alerts other than low credit would be reset); add --force to save only the switches given", err)
	case errors.Is(err, billing.ErrNoSuchSwitch):
		return fmt.Errorf("not saved: %w (vastdash notifications --all lists them)", err)
	case !res.SwitchesSent:
		return err
	}
	switch sr.Outcome {
	case billing.Failed:
		return err
	case billing.Unknown:
		return s.partial(lines, fmt.Errorf("the outcome of the save is unknown (%w), and the preferences could not be read again", err))
	case billing.Differs:
		if sr.Lost {
			return s.partial(lines, fmt.Errorf("the save's answer was lost (%w); read again, the server does not hold the change: not saved", err))
		}
		return s.partial(lines, errors.New("the server's answer does not hold the change asked for: the switches printed are what it holds"))
	}
	if sr.Lost {
		warn(s.stderr, "the save's answer was lost ("+svc.Explain(err)+"); read again, the server holds the change: saved")
	}
	return s.answer(linesOf(lines))
}

// thresholdOutcome says a threshold save that did not come to what was
// sent as an error (nil when it did), and warns of a lost answer whose
// change took.
func thresholdOutcome(s *Session, r billing.ThresholdResult, err error) error {
	switch r.Outcome {
	case billing.Saved:
		if r.Lost {
			warn(s.stderr, "the threshold save's answer was lost ("+s.Billing.Explain(err)+"); read again, the server holds it: saved")
		}
		return nil
	case billing.Differs:
		if r.Lost {
			return fmt.Errorf("the threshold save's answer was lost (%w); read again, the server holds the low-balance threshold %s, not what was sent (%s): not saved", err, r.Held(), r.Sent)
		}
		return fmt.Errorf("the server holds the low-balance threshold %s, not what was sent (%s)", r.Held(), r.Sent)
	case billing.Unknown:
		return fmt.Errorf("the outcome of the threshold save is unknown (%w), and the account could not be read again", err)
	}
	return err
}

// partial prints what the server holds after a change that did not go as
// asked, then fails with err: one line on stderr, exit 1.
func (s *Session) partial(lines []string, err error) error {
	if werr := s.answer(linesOf(lines)); werr != nil {
		// Still one line: the failure is the news, and nothing was printed
		// to take for the server's state.
		return fmt.Errorf("%w, and what the server holds now cannot be written: %w", err, unwrapPath(errors.Unwrap(werr)))
	}
	return err
}

// switchLines lists the switches of p to print: every switch with all
// (PATH: on (Name by channel[, locked])), else the low-credit ones and
// those just set (Name by channel: on), under the catalogue's names, or
// the raw keys when it cannot be read (said on stderr with all).
func (s *Session) switchLines(ctx context.Context, p api.Prefs, all bool, set []billing.Switch) []string {
	var cat api.NotificationCatalogue
	var cerr error
	if all || len(set) > 0 {
		cat, cerr = s.Billing.Catalogue(ctx, false)
		if cerr != nil && all {
			warn(s.stderr, "the notification catalogue could not be read ("+cerr.Error()+"): raw keys shown")
		}
	}
	as := billing.ListAlerts(p, cat, cerr)
	var out []string
	for _, sw := range as.Switches() {
		path := sw.Channel.Path
		switch {
		case all:
			note := sw.Label
			if sw.Channel.Locked {
				note += ", locked"
			}
			out = append(out, fmt.Sprintf("%s: %s (%s)", billing.PathString(path), billing.SwitchState(p, path), note))
		case billing.IsLowCredit(path) || setHas(set, path):
			out = append(out, sw.Label+": "+billing.SwitchState(p, path))
		}
	}
	if all && as.Hidden > 0 {
		warn(s.stderr, fmt.Sprintf("%d more switches in the document not listed (over the bounds vastdash lists)", as.Hidden))
	}
	return out
}

func setHas(set []billing.Switch, p api.PrefPath) bool {
	for _, w := range set {
		if w.Path == p {
			return true
		}
	}
	return false
}

func word(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
