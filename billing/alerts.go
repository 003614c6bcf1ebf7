package billing

import (
	"context"
	"errors"

	"github.com/vastdash/vastdash/api"
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
	{api.LowCreditEmail, "low credit by email"},
	{api.LowCreditWebhooks, "low credit by webhooks"},
}

// ErrPrefsUnreadable is returned by SaveSwitches when the server cannot
// read the current preferences (it has no GET for them) and the caller did
// not force the save: a save replaces the whole document, so saving blind
// would reset every alert other than the ones asked for.
var ErrPrefsUnreadable = errors.New("this server cannot read the current notification preferences, and a save replaces every one of them")

// unreadable reports a read of the preferences that will not succeed by
// asking again: the server has no GET for them (404/405) or refuses this key
// access to them. A forced save goes ahead without the document then, in
// both front ends alike.
func unreadable(err error) bool {
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

// SaveResult is the outcome of SaveSwitches.
type SaveResult struct {
	// Prefs is what the server holds now, as far as vastdash knows: the
	// document it confirmed, the document read when nothing needed saving,
	// or, when the outcome was unknown, the document read again afterwards
	// (zero when that read failed too).
	Prefs api.Prefs
	// Unchanged is set when the document already held every switch as
	// asked: nothing was sent.
	Unchanged bool
	// Unknown is set when the save may or may not have reached the server
	// (a timeout, a connection lost after sending); Prefs is then a fresh
	// read, and the returned error says what happened.
	Unknown bool
}

// ReadPrefs reads the preferences document of the account userID.
func (s *Service) ReadPrefs(ctx context.Context, userID int64) (api.Prefs, error) {
	if s.client == nil {
		return api.Prefs{}, errNoClient
	}
	return s.client.NotificationPrefs(ctx, userID)
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
// When the write's outcome is unknown, the document is read again and
// returned with Unknown set, so the caller shows what the server holds
// instead of guessing.
//
// Any switch of the document can be set this way (see ListAlerts), but
// not one the catalogue marks mandatory by email (an error matching
// ErrLocked, before anything is read or sent), nor one the document does
// not hold, other than low_credit's (ErrNoSuchSwitch, nothing sent).
func (s *Service) SaveSwitches(ctx context.Context, userID int64, sw []Switch, force bool) (SaveResult, error) {
	if s.client == nil {
		return SaveResult{}, errNoClient
	}
	if err := s.checkLocks(ctx, sw); err != nil {
		return SaveResult{}, err
	}
	cur, err := s.client.NotificationPrefs(ctx, userID)
	readable := err == nil
	switch {
	case unreadable(err) && force:
		cur = api.NewPrefs(map[string]any{})
	case unreadable(err):
		return SaveResult{}, &unreadableError{cause: err}
	case err != nil:
		return SaveResult{}, err
	}
	if readable {
		if err := checkHeld(cur, sw); err != nil {
			return SaveResult{Prefs: cur}, err
		}
	}
	next := cur
	for _, w := range sw {
		if next, err = next.With(w.Path, w.On); err != nil {
			return SaveResult{Prefs: cur}, err
		}
	}
	if readable && next.Equal(cur) {
		return SaveResult{Prefs: cur, Unchanged: true}, nil
	}
	got, err := s.client.SetNotificationPrefs(ctx, userID, next)
	if err == nil {
		return SaveResult{Prefs: got}, nil
	}
	if !outcomeUnknown(err) || ctx.Err() != nil {
		return SaveResult{Prefs: cur}, err
	}
	// The PUT may have landed: ask the server what it holds now.
	now, rerr := s.client.NotificationPrefs(ctx, userID)
	if rerr != nil {
		return SaveResult{Unknown: true}, err
	}
	return SaveResult{Prefs: now, Unknown: true}, err
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

// outcomeUnknown reports a failed request that may have reached the server:
// no complete answer came back.
func outcomeUnknown(err error) bool {
	return errors.Is(err, api.ErrTimeout) || errors.Is(err, api.ErrTransport) || errors.Is(err, api.ErrMalformed)
}

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
