package notices

import (
	"context"
	"errors"
	"strings"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/sanitize"
)

// Every alert of the preferences document, named by the notification
// catalogue when it answers. The document decides what is listed (it is
// what a save writes back); the catalogue only names types and marks the
// ones the platform always sends by e-mail. Its failure, refusal or
// garbage never hides a switch: the raw keys are shown instead.

// Bounds of the alert list. The real document has a few dozen switches;
// past these a server is broken or hostile, and a screen must stay usable.
const (
	// MaxAlertTypes is how many notification types the list holds; the
	// rest are counted in Alerts.Hidden.
	MaxAlertTypes = 300
	// MaxAlertChannels is how many channels of one type are listed.
	MaxAlertChannels = 8
	// maxNameRunes bounds a name shown for a context, type or channel.
	maxNameRunes = 48
)

// Channel is one switch of an alert: a channel (email, webhooks, …) of a
// notification type.
type Channel struct {
	Path api.PrefPath
	Name string // the channel's key, sanitized and bounded
	// Locked marks the email channel of a type the catalogue says the
	// platform always sends by e-mail: saving it is refused.
	Locked bool
}

// Alert is one notification type of the document with its channels.
type Alert struct {
	Context, Slug string // the document's keys, as read (match them, never show them)
	// Name is the catalogue's display name, else the raw key; sanitized,
	// bounded, never empty.
	Name     string
	Channels []Channel
}

// Label names a channel of the alert for a line of text: "Instance outbid
// by email"; the low_credit ones keep the names of LowCredit.
func (a Alert) Label(ch Channel) string {
	for _, lc := range LowCredit {
		if lc.Path == ch.Path {
			return lc.Label
		}
	}
	return a.Name + " by " + ch.Name
}

// AlertGroup is the alerts of one context (client, host, …).
type AlertGroup struct {
	Context string // the raw key
	Name    string // sanitized and bounded, for display
	Alerts  []Alert
}

// Alerts is every alert of a preferences document, grouped by context.
type Alerts struct {
	Groups []AlertGroup
	// Named is set when the catalogue answered and named the types.
	Named bool
	// CatalogueErr is why the catalogue did not answer (nil when it did).
	CatalogueErr error
	// Hidden counts the switches beyond the bounds, not listed.
	Hidden int
}

// Switches lists every channel of every alert in display order.
func (as Alerts) Switches() []AlertSwitch {
	var out []AlertSwitch
	for gi := range as.Groups {
		for ai := range as.Groups[gi].Alerts {
			a := &as.Groups[gi].Alerts[ai]
			for _, ch := range a.Channels {
				out = append(out, AlertSwitch{Group: gi, Alert: a, Channel: ch, Label: a.Label(ch)})
			}
		}
	}
	return out
}

// AlertSwitch is one switch of the list with what names it.
type AlertSwitch struct {
	Group   int // index in Alerts.Groups
	Alert   *Alert
	Channel Channel
	Label   string
}

// ListAlerts builds the list from doc and the catalogue (cerr is the
// catalogue's error, if it failed). Contexts and types come in document
// order, but client comes first and its low_credit first within it; the
// two low_credit switches are always listed, even when the document lacks
// them (their state is then unknown), since they are the alert this
// program exists for.
func ListAlerts(doc api.Prefs, cat api.NotificationCatalogue, cerr error) Alerts {
	as := Alerts{Named: cerr == nil && len(cat.Types) > 0, CatalogueErr: cerr}
	paths := doc.Paths()
	// The low_credit switches lead, in LowCredit's order.
	lead := make([]api.PrefPath, 0, len(paths)+len(LowCredit))
	for _, lc := range LowCredit {
		lead = append(lead, lc.Path)
	}
	seen := map[api.PrefPath]bool{}
	groups := map[string]int{}
	types := map[[2]string]int{} // → index in its group's Alerts
	for _, p := range append(lead, paths...) {
		if seen[p] {
			continue
		}
		seen[p] = true
		gi, ok := groups[p[0]]
		if !ok {
			gi = len(as.Groups)
			groups[p[0]] = gi
			as.Groups = append(as.Groups, AlertGroup{Context: p[0], Name: showKey(p[0])})
		}
		g := &as.Groups[gi]
		k := [2]string{p[0], p[1]}
		ai, ok := types[k]
		if !ok {
			if len(types) >= MaxAlertTypes {
				as.Hidden++
				continue
			}
			ai = len(g.Alerts)
			types[k] = ai
			g.Alerts = append(g.Alerts, Alert{Context: p[0], Slug: p[1], Name: typeName(cat, cerr, p[0], p[1])})
		}
		a := &g.Alerts[ai]
		if len(a.Channels) >= MaxAlertChannels {
			as.Hidden++
			continue
		}
		a.Channels = append(a.Channels, Channel{Path: p, Name: showKey(p[2]), Locked: locked(cat, cerr, p)})
	}
	// A group emptied by the bounds is not shown.
	kept := as.Groups[:0]
	for _, g := range as.Groups {
		if len(g.Alerts) > 0 {
			kept = append(kept, g)
		}
	}
	as.Groups = kept
	return as
}

// typeName is the catalogue's name of a type, else its raw key.
func typeName(cat api.NotificationCatalogue, cerr error, ctx, slug string) string {
	if cerr == nil {
		if t, ok := cat.Find(ctx, slug); ok {
			if n := showText(t.DisplayName); n != "" {
				return n
			}
		}
	}
	return showKey(slug)
}

// locked reports the email channel of a type the catalogue marks
// mandatory by email.
func locked(cat api.NotificationCatalogue, cerr error, p api.PrefPath) bool {
	if cerr != nil || p[2] != "email" {
		return false
	}
	t, ok := cat.Find(p[0], p[1])
	return ok && t.MandatoryEmail
}

// showText sanitizes a server string for display and bounds it.
func showText(s string) string {
	return strings.TrimSpace(sanitize.Short(s, maxNameRunes))
}

// showKey is showText for a key, which is never empty on screen.
func showKey(s string) string {
	if n := showText(s); n != "" {
		return n
	}
	return "(unnamed)"
}

// ErrLocked is matched by the error SaveSwitches returns for a switch the
// platform does not let anyone change.
var ErrLocked = errors.New("locked by the platform")

// lockedError names the locked switch.
type lockedError struct{ label string }

func (e *lockedError) Error() string {
	return e.label + " is locked: the platform always sends it, whatever the switch says"
}

func (e *lockedError) Is(target error) bool { return target == ErrLocked }

// checkLocks refuses switches the catalogue marks mandatory by email. The
// catalogue comes from the session's copy (one read at most); when it
// cannot be read nothing is known to be locked, and the save goes ahead.
func checkLocks(ctx context.Context, core *billing.Service, sw []Switch) error {
	email := false
	for _, w := range sw {
		email = email || w.Path[2] == "email"
	}
	if !email {
		return nil
	}
	cat, cerr := core.Catalogue(ctx, false)
	for _, w := range sw {
		if locked(cat, cerr, w.Path) {
			name := typeName(cat, cerr, w.Path[0], w.Path[1])
			return &lockedError{label: Alert{Name: name}.Label(Channel{Path: w.Path, Name: "email"})}
		}
	}
	return nil
}

// ParseSwitch reads a switch as the headless command takes it:
// CONTEXT.TYPE.CHANNEL=on|off, e.g. client.instance_outbid.email=off. The
// error does not repeat s: the caller quotes it, minding what it may hold.
func ParseSwitch(s string) (Switch, error) {
	path, val, ok := strings.Cut(s, "=")
	keys := strings.Split(path, ".")
	if !ok || len(keys) != 3 || keys[0] == "" || keys[1] == "" || keys[2] == "" {
		return Switch{}, errors.New("want CONTEXT.TYPE.CHANNEL=on|off, e.g. client.instance_outbid.email=off")
	}
	var on bool
	switch strings.ToLower(strings.TrimSpace(val)) {
	case "on", "true", "yes", "1":
		on = true
	case "off", "false", "no", "0":
	default:
		return Switch{}, errors.New("the value must be on or off")
	}
	return Switch{Path: api.PrefPath{keys[0], keys[1], keys[2]}, On: on}, nil
}

// PathString writes a switch's path as ParseSwitch reads it, sanitized
// for display: client.low_credit.email.
func PathString(p api.PrefPath) string {
	return sanitize.String(p[0] + "." + p[1] + "." + p[2])
}
