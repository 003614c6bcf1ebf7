package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
)

const notificationsHelp = `  notifications   print the low-credit alert switches, one per line:
                      low credit by email: on / low credit by webhooks: off
      --email on|off     switch the email alert
      --webhooks on|off  switch the webhook alert
                      (reads the whole preferences document, changes only these
                      switches, saves it and prints what the server confirmed)
      --force         save even when the server cannot read the current document;
                      the save then holds only the switches given and every
                      other notification preference is replaced
`

// switchFlag is an optional on/off flag value.
type switchFlag struct {
	set, on bool
}

func parseSwitch(name, v string) (switchFlag, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "":
		return switchFlag{}, nil
	case "on":
		return switchFlag{set: true, on: true}, nil
	case "off":
		return switchFlag{set: true}, nil
	}
	return switchFlag{}, fmt.Errorf("--%s %q: want on or off", name, v)
}

func runNotifications(r *runner, o options, args []string) int {
	fs := newCommandFlags("notifications", &o)
	emailArg := fs.String("email", "", "")
	webhooksArg := fs.String("webhooks", "", "")
	force := fs.Bool("force", false, "")
	if code, ok := r.parseCommand("notifications", notificationsHelp, fs, args); !ok {
		return code
	}
	email, err := parseSwitch("email", *emailArg)
	if err == nil {
		var webhooks switchFlag
		webhooks, err = parseSwitch("webhooks", *webhooksArg)
		if err == nil {
			return r.notifications(o, email, webhooks, *force)
		}
	}
	return r.usageError("notifications", err)
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
