package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/billing"
)

// earlyAccount is the account request Run sends before it sets the
// terminal up: the header's credit is the one thing every start waits for,
// and it needs exactly one round trip, so that trip starts with the
// process rather than after Bubble Tea's first frame. Its answer reaches
// the root as the shared.UserMsg the regular request would have sent, so a
// failed or slow answer goes down the same error and retry paths.
type earlyAccount struct {
	done   chan struct{}
	msg    tea.Msg
	cancel context.CancelFunc
}

// requestAccountEarly sends the account request now, in the background.
func requestAccountEarly(base context.Context, svc *billing.Service) *earlyAccount {
	ctx, cancel := context.WithCancel(base)
	a := &earlyAccount{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(a.done)
		a.msg = accountMsg(ctx, svc)
	}()
	return a
}

// cmd hands the answer over once it is there.
func (a *earlyAccount) cmd() tea.Cmd {
	return func() tea.Msg {
		<-a.done
		return a.msg
	}
}

// stop cancels the request if it is still out and waits for it to end.
func (a *earlyAccount) stop() {
	a.cancel()
	<-a.done
}

// testHookBeforeProgram, when set, runs in Run after the early account
// request was started and before the Bubble Tea program starts (and with
// it the terminal set-up and the renderer).
var testHookBeforeProgram func()
