package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
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

func (r *runner) notificationsCommand(o *options) *cobra.Command {
	email, webhooks := &switchValue{name: "email"}, &switchValue{name: "webhooks"}
	var force bool
	cmd := &cobra.Command{
		Use:   "notifications",
		Short: "print or switch the low-credit alerts by email and by webhooks",
		Long: `Print the low-credit alert switches, one per line (low credit by email: on), or switch them.

A change reads the whole preferences document right before the save, changes only the switches given, saves it and prints what the server confirmed: a save replaces every notification preference, so the others are kept. Asking for the state a switch already has sends nothing.`,
		Example: `
vastdash notifications
vastdash notifications --webhooks on
vastdash notifications --email off --webhooks off
`,
		Args: noArgs,
		RunE: r.runs(func() int { return r.notifications(*o, email.switchFlag, webhooks.switchFlag, force) }),
	}
	fs := cmd.Flags()
	fs.Var(email, "email", "switch the low-credit alert by email on or off")
	fs.Var(webhooks, "webhooks", "switch the low-credit alert by webhooks on or off")
	fs.BoolVar(&force, "force", false, "save even when the server cannot read the current document;\nthe save then holds only the switches given and every other\nnotification preference is replaced")
	for _, name := range []string{"email", "webhooks"} {
		completeWith(cmd, name, "on", "off")
	}
	return cmd
}

func (r *runner) notifications(o options, email, webhooks switchFlag, force bool) int {
	sess, code := r.openSession(o, nil)
	if sess == nil {
		return code
	}
	defer sess.close()
	ctx, stop := r.commandContext(o)
	defer stop()
	svc := r.newService(ctx, sess, false)
	defer svc.Close()

	user, err := svc.Account(ctx)
	if err != nil {
		return r.runtimeError(err)
	}
	var sw []billing.Switch
	if email.set {
		sw = append(sw, billing.Switch{Path: api.LowCreditEmail, On: email.on})
	}
	if webhooks.set {
		sw = append(sw, billing.Switch{Path: api.LowCreditWebhooks, On: webhooks.on})
	}

	if len(sw) == 0 {
		prefs, err := svc.ReadPrefs(ctx, user.ID)
		if errors.Is(err, api.ErrNotFound) {
			return r.runtimeError(fmt.Errorf("%w; set the switches with --email/--webhooks and --force", billing.ErrPrefsUnreadable))
		}
		if err != nil {
			return r.runtimeError(err)
		}
		return r.answer(switchesOf(prefs))
	}

	res, err := svc.SaveSwitches(ctx, user.ID, sw, force)
	switch {
	case errors.Is(err, billing.ErrPrefsUnreadable):
		return r.runtimeError(fmt.Errorf("not saved: %w (alerts other than low credit would be reset); add --force to save only the switches given", err))
	case res.Unknown:
		// The save may or may not have landed: show what the server holds
		// now rather than what was asked, and fail, since nothing confirmed
		// the change.
		if !res.Prefs.IsZero() {
			if werr := r.writeAnswer(switchesOf(res.Prefs)); werr != nil {
				// Still one line: the unknown outcome is the news, and
				// nothing was printed to take for the server's state.
				return r.runtimeError(fmt.Errorf("the outcome of the save is unknown (%w), and what the server holds now cannot be written: %w", err, unwrapPath(werr)))
			}
			return r.runtimeError(fmt.Errorf("the outcome of the save is unknown (%w); the switches printed are what the server holds now", err))
		}
		return r.runtimeError(fmt.Errorf("the outcome of the save is unknown (%w), and the preferences could not be read again", err))
	case err != nil:
		return r.runtimeError(err)
	}
	return r.answer(switchesOf(res.Prefs))
}

// switchesOf writes the low-credit switches of p, one per line, under the
// names the dashboard shows.
func switchesOf(p api.Prefs) func(w io.Writer) error {
	return func(w io.Writer) error {
		for _, s := range billing.LowCredit {
			if _, err := fmt.Fprintf(w, "%s: %s\n", s.Label, billing.SwitchState(p, s.Path)); err != nil {
				return err
			}
		}
		return nil
	}
}
