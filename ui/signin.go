package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/ui/signin"
)

// SignIn runs the sign-in screen (package signin) until a key is saved or
// the user leaves, and says how it ended. Like Run, it alone handles the
// signals meanwhile: the first quits it the normal way (ErrInterrupted),
// the terminal restored.
func SignIn(base context.Context, o signin.Options, progOpts ...tea.ProgramOption) (signin.Result, error) {
	base, cancel := context.WithCancel(base)
	defer cancel()
	m := signin.New(base, o)
	p := newProgram(base, m, nil, append([]tea.ProgramOption{tea.WithoutSignalHandler(), tea.WithFPS(renderFPS)}, progOpts...)...)
	signaled, stop := quitOnSignal(p)
	_, err := p.Run()
	stop()
	if signaled.Load() {
		return signin.Result{}, ErrInterrupted
	}
	return m.Result(), err
}
