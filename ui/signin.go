package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/ui/signin"
)

// SignIn runs the sign-in screen (package signin) until a key is saved or
// the user leaves, and says how it ended. It runs as Run does: it alone
// handles the signals meanwhile (the first quits it the normal way,
// ErrInterrupted), and the terminal is restored however it ends.
func SignIn(base context.Context, o signin.Options, progOpts ...tea.ProgramOption) (signin.Result, error) {
	base, cancel := context.WithCancel(base)
	defer cancel()
	m := signin.New(base, o)
	err := runProgram(base, m, nil, progOpts...)
	if err != nil {
		return signin.Result{}, err
	}
	return m.Result(), nil
}
