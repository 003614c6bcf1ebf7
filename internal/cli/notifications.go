package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/notices"
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

// thresholdValue is --threshold: an amount notices.ParseThreshold takes,
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
	a, err := notices.ParseThreshold(s)
	if err != nil {
		return badValue("--threshold %s: %v", argText(s), err)
	}
	v.set, v.amount = true, a
	return nil
}

func (v *thresholdValue) Type() string { return "dollars" }

// setValues is --set, repeatable: CONTEXT.TYPE.CHANNEL=on|off, read by
// notices.ParseSwitch when the flag is parsed.
type setValues struct{ sw []notices.Switch }

func (v *setValues) String() string {
	parts := make([]string, len(v.sw))
	for i, w := range v.sw {
		parts[i] = notices.PathString(w.Path) + "=" + word(w.On)
	}
	return strings.Join(parts, ",")
}

func (v *setValues) Set(s string) error {
	w, err := notices.ParseSwitch(s)
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
	set                        []notices.Switch
	all, force                 bool
	output                     string // text or json
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
		Long: `Print the low-credit alert switches, one per line (Low credit by email: on), or switch them; --all prints every alert of the account, --set switches any of them, --threshold sets the low-balance threshold the low-credit alerts fire below.

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
	outputFlags(cmd, &a.output, "text", "json")
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
		sw = append(sw, notices.Switch{Path: api.LowCreditEmail, On: a.email.on})
	}
	if a.webhooks.set {
		sw = append(sw, notices.Switch{Path: api.LowCreditWebhooks, On: a.webhooks.on})
	}
	var th *notices.ThresholdChange
	if a.threshold.set || a.thEnabled.set {
		th = &notices.ThresholdChange{}
		if a.threshold.set {
			th.Amount = &a.threshold.amount
		}
		if a.thEnabled.set {
			th.Enabled = &a.thEnabled.on
		}
	}
	out := &alertsOut{json: a.output == "json"}
	if th == nil {
		out.threshold(billing.ThresholdOf(user), a.all)
	}
	if th == nil && len(sw) == 0 {
		prefs, err := notices.ReadPrefs(ctx, svc, user.ID)
		if errors.Is(err, notices.ErrPrefsUnreadable) {
			return fmt.Errorf("%w; set the switches with --email/--webhooks and --force", err)
		}
		if err != nil {
			return err
		}
		s.switches(ctx, out, prefs, a.all, nil)
		return s.answerHeard(ctx, out, prefs)
	}

	// Both or neither where that can be known before a write; else the
	// error names what was saved (notices.SaveAlerts).
	res, err := notices.SaveAlerts(ctx, svc, user.ID, notices.AlertsChange{Threshold: th, Switches: sw, Force: a.force})
	// The threshold first: its line leads the answer. One not read again
	// after its save is unknown (null in JSON), never the one before.
	if th != nil && res.Threshold.Read {
		out.threshold(res.Threshold.Held(), true)
	}
	if th != nil {
		if terr := thresholdOutcome(s, res.Threshold, res.ThresholdErr); terr != nil {
			if len(sw) > 0 {
				terr = fmt.Errorf("%w; the switches were not sent", terr)
			}
			if res.Threshold.Outcome == notices.Failed {
				return terr // nothing changed: stdout stays empty
			}
			return s.partial(out, terr)
		}
	}
	if len(sw) == 0 {
		if !a.all {
			return s.answer(out.write)
		}
		prefs, err := notices.ReadPrefs(ctx, svc, user.ID)
		if err != nil {
			return s.partial(out, fmt.Errorf("the threshold was saved, but the switches could not be read: %w", err))
		}
		s.switches(ctx, out, prefs, true, nil)
		return s.answerHeard(ctx, out, prefs)
	}
	sr := res.Switches
	if res.SwitchesSent && !sr.Prefs.IsZero() && sr.Outcome != notices.Failed {
		s.switches(ctx, out, sr.Prefs, a.all, sw)
	}
	switch {
	case errors.Is(err, notices.ErrPartial):
		return s.partial(out, err)
	case errors.Is(err, notices.ErrPrefsUnreadable):
		return fmt.Errorf("not saved: %w (alerts other than low credit would be reset); add --force to save only the switches given", err)
	case errors.Is(err, notices.ErrNoSuchSwitch):
		return fmt.Errorf("not saved: %w (vastdash notifications --all lists them)", err)
	case !res.SwitchesSent:
		return err
	}
	switch sr.Outcome {
	case notices.Failed:
		return err
	case notices.Unknown:
		return s.partial(out, fmt.Errorf("the outcome of the save is unknown (%w), and the preferences could not be read again", err))
	case notices.Differs:
		if sr.Lost {
			return s.partial(out, fmt.Errorf("the save's answer was lost (%w); read again, the server does not hold the change: not saved", err))
		}
		return s.partial(out, errors.New("the server's answer does not hold the change asked for: the switches printed are what it holds"))
	}
	if sr.Lost {
		warn(s.stderr, "the save's answer was lost ("+svc.Explain(err)+"); read again, the server holds the change: saved")
	}
	return s.answerHeard(ctx, out, sr.Prefs)
}

// answerHeard writes the answer, then says on stderr, in one line, when a
// webhooks switch it lists is on while no webhook carries its event: the
// alert is delivered nowhere (notices.Unheard), as the dashboard says
// beside the switch. That takes one read of the webhooks, only when such a
// switch is listed on; a list that cannot be read claims nothing, and the
// exit code is the answer's.
func (s *Session) answerHeard(ctx context.Context, out *alertsOut, prefs api.Prefs) error {
	if err := s.answer(out.write); err != nil {
		return err
	}
	var on []api.PrefPath
	for _, p := range out.listed {
		if v, ok := prefs.Get(p); ok && v && p[2] == "webhooks" {
			on = append(on, p)
		}
	}
	if len(on) == 0 {
		return nil
	}
	l, err := notices.Webhooks(ctx, s.Billing)
	var events []string
	for _, p := range on {
		if notices.Unheard(prefs, l, err == nil, p) {
			events = append(events, notices.EventOf(p))
		}
	}
	if len(events) == 0 {
		return nil
	}
	what := "this alert is"
	if len(events) > 1 {
		what = "these alerts are"
	}
	which := strings.Join(events, ", ")
	if n := len(events); n > 1 {
		which = strings.Join(events[:n-1], ", ") + " and " + events[n-1]
	}
	if len(l.Webhooks) == 0 {
		warn(s.stderr, strings.ToLower(notices.NoWebhookText)+" carries "+which+": "+what+" delivered nowhere — vastdash webhooks add registers one")
		return nil
	}
	// Webhooks are registered, for other alerts: "no webhook registered"
	// would be false.
	warn(s.stderr, "no webhook takes "+which+" (those registered carry other alerts): "+what+
		" delivered nowhere — vastdash webhooks add registers one for it; vastdash webhooks edit ID --event (its events and this one) gives it to one")
	return nil
}

// thresholdOutcome says a threshold save that did not come to what was
// sent as an error (nil when it did), and warns of a lost answer whose
// change took.
func thresholdOutcome(s *Session, r notices.ThresholdResult, err error) error {
	switch r.Outcome {
	case notices.Saved:
		if r.Lost {
			warn(s.stderr, "the threshold save's answer was lost ("+s.Billing.Explain(err)+"); read again, the server holds it: saved")
		}
		return nil
	case notices.Differs:
		if r.Lost {
			return fmt.Errorf("the threshold save's answer was lost (%w); read again, the server holds the low-balance threshold %s, not what was sent (%s): not saved", err, r.Held(), r.Sent)
		}
		return fmt.Errorf("the server holds the low-balance threshold %s, not what was sent (%s)", r.Held(), r.Sent)
	case notices.Unknown:
		return fmt.Errorf("the outcome of the threshold save is unknown (%w), and the account could not be read again", err)
	}
	return err
}

// partial prints what the server holds after a change that did not go as
// asked, then fails with err: one line on stderr, exit 1.
func (s *Session) partial(out *alertsOut, err error) error {
	if werr := s.answer(out.write); werr != nil {
		// Still one line: the failure is the news, and nothing was printed
		// to take for the server's state.
		return fmt.Errorf("%w, and what the server holds now cannot be written: %w", err, unwrapPath(errors.Unwrap(werr)))
	}
	return err
}

// alertsOut is the command's answer as it is built: the low-balance
// threshold and the switches, written as lines (text) or as one JSON
// document.
type alertsOut struct {
	json   bool
	lines  []string // text: the threshold line, then one line a switch
	doc    alertsJSON
	listed []api.PrefPath // the switches the answer holds
}

// alertsJSON is the answer in JSON.
type alertsJSON struct {
	Threshold *thresholdJSON `json:"threshold"` // null when not read again after a save
	Switches  []switchJSON   `json:"switches"`
}

// thresholdJSON is the low-balance threshold.
type thresholdJSON struct {
	Amount  *money.Amount `json:"amount"`            // null when the record holds none vastdash believes
	Enabled *bool         `json:"enabled"`           // null when the record does not say
	Invalid string        `json:"invalid,omitempty"` // what the record holds instead of an amount
}

// switchJSON is one switch: its path (what --set takes), the alert's name
// and the channel, its state (null when the document does not set it),
// and whether the platform always sends it.
type switchJSON struct {
	Path    string `json:"path"`
	Name    string `json:"name"`
	Channel string `json:"channel"`
	On      *bool  `json:"on"`
	Locked  bool   `json:"locked"`
}

// threshold sets the threshold of the answer; line says text prints it
// (JSON always holds it).
func (o *alertsOut) threshold(th billing.Threshold, line bool) {
	if line {
		o.lines = append(o.lines, "low-balance threshold: "+th.String())
	}
	j := &thresholdJSON{Enabled: th.Enabled, Invalid: th.Bad}
	if th.Known {
		j.Amount = &th.Amount
	}
	o.doc.Threshold = j
}

// write writes the answer.
func (o *alertsOut) write(w io.Writer) error {
	if !o.json {
		return linesOf(o.lines)(w)
	}
	if o.doc.Switches == nil {
		o.doc.Switches = []switchJSON{}
	}
	return writeJSON(w, o.doc)
}

// switches adds the switches of p to the answer: every switch with all
// (PATH: on (Name by channel), or PATH: locked · always sent (…)), else the low-credit ones and
// those just set (Name by channel: on), under the catalogue's names, or
// the raw keys when it cannot be read (said on stderr with all, and in
// JSON, whose names always come from the catalogue).
func (s *Session) switches(ctx context.Context, out *alertsOut, p api.Prefs, all bool, set []notices.Switch) {
	var cat api.NotificationCatalogue
	var cerr error
	if all || len(set) > 0 || out.json {
		cat, cerr = s.Billing.Catalogue(ctx, false)
		if cerr != nil && (all || out.json) {
			warn(s.stderr, "the notification catalogue could not be read ("+cerr.Error()+"): raw keys shown")
		}
	}
	as := notices.ListAlerts(p, cat, cerr)
	for _, sw := range as.Switches() {
		path := sw.Channel.Path
		switch {
		case all:
			state := notices.SwitchState(p, path)
			if sw.Channel.Locked {
				state = notices.LockedText
			}
			out.lines = append(out.lines, fmt.Sprintf("%s: %s (%s)", notices.PathString(path), state, sw.Label))
		case notices.IsLowCredit(path) || setHas(set, path):
			out.lines = append(out.lines, sw.Label+": "+notices.SwitchState(p, path))
		default:
			continue
		}
		out.listed = append(out.listed, path)
		j := switchJSON{Path: notices.PathString(path), Name: sw.Alert.Name, Channel: sw.Channel.Name, Locked: sw.Channel.Locked}
		if on, ok := p.Get(path); ok {
			j.On = &on
		}
		out.doc.Switches = append(out.doc.Switches, j)
	}
	if all && as.Hidden > 0 {
		warn(s.stderr, fmt.Sprintf("%d more switches in the document not listed (over the bounds vastdash lists)", as.Hidden))
	}
}

func setHas(set []notices.Switch, p api.PrefPath) bool {
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
