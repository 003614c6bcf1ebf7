// Package notices is what the account is told and where: the alert
// switches of the notification preferences (read fresh, changed one by one,
// written, read again when the outcome is unknown), the catalogue's names
// for them, the low-balance threshold's parse and save, and the webhooks
// the alerts deliver to (what one may be, one request per change, what a
// change came to, the switch whose alert goes nowhere). It stands on the
// billing core, whose client, catalogue, resolver and charges it uses.
package notices

import (
	"context"
	"errors"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
)

// Switch is one alert switch to set.
type Switch struct {
	Path api.PrefPath
	On   bool
}

// The two low-credit switches, with the names both front ends show.
var LowCredit = []struct {
	Path  api.PrefPath
	Label string
}{
	{api.LowCreditEmail, "Low credit by email"},
	{api.LowCreditWebhooks, "Low credit by webhooks"},
}

// ErrPrefsUnreadable is returned by SaveSwitches when the server cannot
// read the current preferences (it has no GET for them) and the caller did
// not force the save: a save replaces the whole document, so saving blind
// would reset every alert other than the ones asked for.
var ErrPrefsUnreadable = errors.New("this server cannot read the current notification preferences, and a save replaces every one of them")

// PrefsUnreadable reports a read of the preferences that will not succeed
// by asking again: the server has no GET for them (404/405) or refuses
// this key access to them. It is the one rule of both front ends: ReadPrefs
// returns such a failure as an error matching ErrPrefsUnreadable (its cause
// still matches api.ErrNotFound or api.ErrPermission), and a forced save
// goes ahead without the document then.
func PrefsUnreadable(err error) bool {
	return errors.Is(err, api.ErrNotFound) || errors.Is(err, api.ErrPermission)
}

// unreadableError is ErrPrefsUnreadable with the read's own failure.
type unreadableError struct{ cause error }

func (e *unreadableError) Error() string {
	if errors.Is(e.cause, api.ErrNotFound) {
		return ErrPrefsUnreadable.Error()
	}
	return "the current notification preferences cannot be read (" + e.cause.Error() + "), and a save replaces every one of them"
}

func (e *unreadableError) Is(target error) bool { return target == ErrPrefsUnreadable }
func (e *unreadableError) Unwrap() error        { return e.cause }

// Outcome is what a save came to: by the server's answer, or, when the
// answer was lost, by what the server holds when read again. Billing
// decides it; both front ends only say it in their words.
type Outcome int

// The outcomes.
const (
	// Failed: refused, or never sent: the server holds what it held.
	Failed Outcome = iota
	// Saved: the server holds what was asked — by its answer, by a read
	// after a lost answer, or because it already held it (nothing sent).
	Saved
	// Differs: the server holds something else than what was asked, by
	// its answer or by a read after a lost answer.
	Differs
	// Unknown: the answer was lost and the read after it failed too: the
	// server may hold either.
	Unknown
)

// outcomeOf is the outcome of a save: err is the save's, sent that the
// request may have been applied all the same (its answer lost, or not read
// back), read that there is a state of the server to compare (its answer
// or a read after it), held that this state is what was asked.
func outcomeOf(err error, sent, read, held bool) Outcome {
	switch {
	case err != nil && !sent:
		return Failed
	case !read:
		return Unknown
	case held:
		return Saved
	}
	return Differs
}

// SaveResult is the outcome of SaveSwitches.
type SaveResult struct {
	// Prefs is what the server holds now, as far as vastdash knows: the
	// document it confirmed, the document read when nothing needed saving,
	// or, when the answer was lost, the document read again afterwards
	// (zero when that read failed too).
	Prefs api.Prefs
	// Unchanged is set when the document already held every switch as
	// asked: nothing was sent.
	Unchanged bool
	// Lost is set when the save may or may not have reached the server (a
	// timeout, a connection lost after sending, a 5xx answer); Prefs is
	// then a fresh read, and the returned error says what happened.
	Lost bool
	// Outcome is what the save came to; with Lost, whether the change
	// took (Saved), did not (Differs) or cannot be told (Unknown).
	Outcome Outcome
}

// holds reports that p holds every switch of sw as asked.
func holds(p api.Prefs, sw []Switch) bool {
	for _, w := range sw {
		if on, ok := p.Get(w.Path); !ok || on != w.On {
			return false
		}
	}
	return true
}

// switchesResult is r with its Outcome decided, and err.
func switchesResult(r SaveResult, sw []Switch, err error) (SaveResult, error) {
	r.Outcome = outcomeOf(err, r.Lost, !r.Prefs.IsZero(), holds(r.Prefs, sw))
	return r, err
}

// ReadPrefs reads the preferences document of the account userID. A read
// that will not succeed by asking again (PrefsUnreadable) is an error
// matching ErrPrefsUnreadable.
func ReadPrefs(ctx context.Context, core *billing.Service, userID int64) (api.Prefs, error) {
	if core.Client() == nil {
		return api.Prefs{}, billing.ErrNoClient
	}
	p, err := core.Client().NotificationPrefs(ctx, userID)
	if PrefsUnreadable(err) {
		return p, &unreadableError{cause: err}
	}
	return p, err
}

// SaveSwitches sets the switches of the account userID the one safe way:
// it reads the current document, changes only the switches asked for, and
// writes it back, so a save never sends a document older than the one just
// read and a change made meanwhile elsewhere (the web console, another
// vastdash) is kept. With force, a document that cannot be read (no GET,
// or access to it refused) is replaced by one holding only these switches
// (the caller has warned the user); without it, that is an error matching
// ErrPrefsUnreadable.
//
// When the write's answer is lost (a timeout, a cut connection, a 5xx
// after the request was sent), the document is read again and returned
// with Lost set, and the Outcome says whether the change took, so the
// caller shows what the server holds instead of guessing.
//
// Any switch of the document can be set this way (see ListAlerts), but
// not one the catalogue marks mandatory by email (an error matching
// ErrLocked, before anything is read or sent), nor one the document does
// not hold, other than low_credit's (ErrNoSuchSwitch, nothing sent).
func SaveSwitches(ctx context.Context, core *billing.Service, userID int64, sw []Switch, force bool) (SaveResult, error) {
	cur, readable, err := prepareSwitches(ctx, core, userID, sw, force)
	if err != nil {
		return switchesResult(SaveResult{Prefs: cur}, sw, err)
	}
	next := cur
	for _, w := range sw {
		if next, err = next.With(w.Path, w.On); err != nil {
			return switchesResult(SaveResult{Prefs: cur}, sw, err)
		}
	}
	if readable && next.Equal(cur) {
		return switchesResult(SaveResult{Prefs: cur, Unchanged: true}, sw, nil)
	}
	got, err := core.Client().SetNotificationPrefs(ctx, userID, next)
	if err == nil {
		return switchesResult(SaveResult{Prefs: got}, sw, nil)
	}
	if !billing.OutcomeUnknown(err) || ctx.Err() != nil {
		return switchesResult(SaveResult{Prefs: cur}, sw, err)
	}
	// The PUT may have landed: ask the server what it holds now.
	now, rerr := core.Client().NotificationPrefs(ctx, userID)
	if rerr != nil {
		return switchesResult(SaveResult{Lost: true}, sw, err)
	}
	return switchesResult(SaveResult{Prefs: now, Lost: true}, sw, err)
}

// prepareSwitches is every check of a save of sw before anything is
// written: the locks, the document read (or, forced, an empty one when it
// cannot be read) and the switches it holds. readable is false for a
// forced save without the document.
func prepareSwitches(ctx context.Context, core *billing.Service, userID int64, sw []Switch, force bool) (cur api.Prefs, readable bool, err error) {
	if core.Client() == nil {
		return cur, false, billing.ErrNoClient
	}
	if err := checkLocks(ctx, core, sw); err != nil {
		return cur, false, err
	}
	cur, err = core.Client().NotificationPrefs(ctx, userID)
	switch {
	case PrefsUnreadable(err) && force:
		return api.NewPrefs(map[string]any{}), false, nil
	case PrefsUnreadable(err):
		return api.Prefs{}, false, &unreadableError{cause: err}
	case err != nil:
		return api.Prefs{}, false, err
	}
	return cur, true, checkHeld(cur, sw)
}

// ErrNoSuchSwitch is matched by the error SaveSwitches returns for a
// switch the document it just read does not hold: a typo
// (instance_outbd) would otherwise add a switch nobody reads. The two
// low_credit switches are exempt: vastdash knows them, and a document
// without them gets them.
var ErrNoSuchSwitch = errors.New("no such switch")

type noSuchSwitchError struct{ path api.PrefPath }

func (e *noSuchSwitchError) Error() string {
	return "the notification preferences hold no switch " + PathString(e.path)
}

func (e *noSuchSwitchError) Is(target error) bool { return target == ErrNoSuchSwitch }

// checkHeld refuses a switch doc does not hold (see ErrNoSuchSwitch).
func checkHeld(doc api.Prefs, sw []Switch) error {
	for _, w := range sw {
		if _, ok := doc.Get(w.Path); !ok && !IsLowCredit(w.Path) {
			return &noSuchSwitchError{path: w.Path}
		}
	}
	return nil
}

// IsLowCredit reports one of the two low_credit switches (LowCredit).
func IsLowCredit(p api.PrefPath) bool {
	for _, lc := range LowCredit {
		if lc.Path == p {
			return true
		}
	}
	return false
}

// LockedText is the state of a switch the platform always sends (the
// catalogue's locked channels), whatever the document holds: the Alerts
// screen reads "[=] locked … · always sent", the command line the same
// words, never "off" for an alert that is sent.
const LockedText = "locked · always sent"

// SwitchState names a switch's state in a document: "on", "off", or
// "not set" when the document holds no boolean there.
func SwitchState(p api.Prefs, path api.PrefPath) string {
	on, ok := p.Get(path)
	switch {
	case !ok:
		return "not set"
	case on:
		return "on"
	}
	return "off"
}
