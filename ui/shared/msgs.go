package shared

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/access"
	"github.com/vastdash/vastdash/spend"
)

// RunwayMsg is the Overview's current estimate of how long the credit lasts
// (OK false while there is none; Runway.Reason says why). The root colours
// the header credit by it.
type RunwayMsg struct {
	Runway spend.Runway
	OK     bool
}

// AccessMsg is what the key may do, probed once at start
// (access.ProbeWith): the Overview says up front which
// permission is lacking, instead of each screen finding out on its own.
type AccessMsg struct {
	Access access.Access
	Err    error
}

// AlarmMsg asks the root to say Text on the status line as a warning and,
// if Ring is set and the bell setting allows, to ring the terminal once:
// a screen's alarm (the month's budget crossed) heard wherever the user is.
type AlarmMsg struct {
	Source string
	Text   string
	Ring   bool
}

// StatusKind is the tone of a status line.
type StatusKind int

// Status tones.
const (
	StatusInfo StatusKind = iota
	StatusOK
	StatusWarn
	StatusError
)

// StatusMsg asks the root to show one line in the status bar: the one place
// a screen speaks to the user outside its own area. Text "" clears the
// line if it still shows a message of the same Source. TTL > 0 clears it
// after that long; 0 keeps it until replaced.
type StatusMsg struct {
	Source string // the screen (or "root") that sent it
	Kind   StatusKind
	Text   string
	TTL    time.Duration
}

// SetStatus returns a command sending a StatusMsg.
func SetStatus(source string, kind StatusKind, text string, ttl time.Duration) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Source: source, Kind: kind, Text: text, TTL: ttl} }
}

// FeedMsg says a feed changed: Feed is the feed (a *billing.Feed or a
// *billing.PaymentsFeed), State its state then, and Listener the number of
// the Follower whose listen reported it. The root hands it to every screen:
// each Follower holding that feed takes what came (Follower.Heard, Next),
// and only the one whose listen answered listens again.
type FeedMsg struct {
	Feed     any
	State    billing.State
	Listener int
}

// listeners hands out listener numbers.
var listeners atomic.Int64

// NewListener returns a listener number no other caller gets: each hold of
// a Follower takes one, so a late answer of an earlier hold is not taken
// for the current one's.
func NewListener() int { return int(listeners.Add(1)) }

// waiter is what a listen needs of a feed of any kind of entry.
type waiter interface {
	Wait(ctx context.Context, after uint64) billing.State
}

// wait is the command of Follower.Listen: it blocks a goroutine, not a
// timer (an idle dashboard costs nothing), until f passes version after
// and reports msg(state), or nothing once ctx ends (a nil ctx never does).
func wait(ctx context.Context, f waiter, after uint64, msg func(billing.State) tea.Msg) tea.Cmd {
	if ctx == nil {
		ctx = context.Background()
	}
	return func() tea.Msg {
		st := f.Wait(ctx, after)
		if ctx.Err() != nil {
			return nil // quitting
		}
		return msg(st)
	}
}

// After returns a command that reports msg after d, or nothing once ctx
// ends: unlike tea.Tick, a timer still pending when the program quits does
// not keep a goroutine alive after it.
func After(ctx context.Context, d time.Duration, msg tea.Msg) tea.Cmd {
	if ctx == nil {
		ctx = context.Background()
	}
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return msg
		case <-ctx.Done():
			return nil
		}
	}
}

// RetryText is a failure for the status line, the remedy first so a narrow
// terminal cuts the error's detail rather than what to do, and the error
// told by ErrorText: "charges stopped (r to retry): cannot reach HOST:PORT —
// check the URL …" rather than the Go error of a failed dial. Asking again
// cannot mend a refused key or a missing permission, so neither is offered
// a retry: a refused key is only "not loaded" (the root says why, once,
// with what to do), a missing permission names it.
func (c *Context) RetryText(what string, err error) string {
	switch {
	case Refused(err):
		return what + " not loaded"
	case Permission(err) != "":
		return what + " not loaded: this API key lacks the " + Permission(err) + " permission"
	}
	return what + " stopped (" + c.Key("reload") + " to reload): " + c.ErrorText(err)
}

// Refused reports that err is the key itself refused (rejected, or none
// sent): the root's status line says so once with what to do, and the
// screens do not repeat it.
func Refused(err error) bool {
	return errors.Is(err, api.ErrInvalidKey) || errors.Is(err, api.ErrNotLoggedIn)
}

// Permission is the permission err says the key lacks ("billing_read"),
// "" when it says none.
func Permission(err error) string {
	var ae *api.Error
	if errors.As(err, &ae) && ae.Kind == api.ErrPermission {
		return ae.Permission
	}
	return ""
}
