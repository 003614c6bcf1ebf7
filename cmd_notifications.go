package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vastdash/vastdash/api"
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
	ctx, stop := r.context()
	defer stop()

	user, err := sess.client.CurrentUser(ctx)
	if err != nil {
		return r.runtimeError(err)
	}
	prefs, err := sess.client.NotificationPrefs(ctx, user.ID)
	readable := err == nil
	if err != nil && !errors.Is(err, api.ErrNotFound) {
		return r.runtimeError(err)
	}
	change := email.set || webhooks.set
	switch {
	case !readable && !change:
		return r.runtimeError(errors.New("this server cannot read the notification preferences (it has no GET for them); set them with --email/--webhooks and --force"))
	case !readable && !force:
		return r.runtimeError(errors.New("not saved: this server cannot read the current notification preferences, and a save replaces every one of them (alerts other than low credit would be reset); add --force to save only the switches given"))
	case !readable:
		prefs = api.NewPrefs(map[string]any{})
	}

	if change {
		next := prefs
		if email.set {
			next = next.With(api.LowCreditEmail, email.on)
		}
		if webhooks.set {
			next = next.With(api.LowCreditWebhooks, webhooks.on)
		}
		// Saving what is already there would only risk a write; a forced
		// save has nothing to compare with, so it always goes out.
		if !readable || !samePrefs(prefs, next) {
			prefs, err = sess.client.SetNotificationPrefs(ctx, user.ID, next)
			if err != nil {
				return r.runtimeError(err)
			}
		}
	}
	fmt.Fprintf(r.stdout, "low credit by email: %s\nlow credit by webhooks: %s\n",
		switchState(prefs, api.LowCreditEmail), switchState(prefs, api.LowCreditWebhooks))
	return exitOK
}

// samePrefs compares the two switches this command changes.
func samePrefs(a, b api.Prefs) bool {
	for _, p := range []api.PrefPath{api.LowCreditEmail, api.LowCreditWebhooks} {
		aOn, aOK := a.Get(p)
		bOn, bOK := b.Get(p)
		if aOn != bOn || aOK != bOK {
			return false
		}
	}
	return true
}

func switchState(p api.Prefs, path api.PrefPath) string {
	on, ok := p.Get(path)
	switch {
	case !ok:
		return "not set"
	case on:
		return "on"
	}
	return "off"
}
