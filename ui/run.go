package ui

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ui/internal/termguard"
	"github.com/vastdash/vastdash/ui/shared"
)

// Events forwards the client's rate-limit and retry events to the running
// program, so a 429 being waited out or a retry reads as such on the status
// line instead of looking stuck. Regular pacing is expected and not
// forwarded. Pass Observe to api.WithObserver before the program exists,
// then Attach the program.
type Events struct {
	mu sync.Mutex
	p  *tea.Program
}

// minWaitShown hides waits too short to notice.
const minWaitShown = 300 * time.Millisecond

// Observe is an api observer.
func (e *Events) Observe(ev api.Event) {
	if ev.Wait < minWaitShown || ev.Kind == api.EventPacing {
		return
	}
	e.mu.Lock()
	p := e.p
	e.mu.Unlock()
	if p != nil {
		p.Send(waitMsg(ev))
	}
}

// Attach starts forwarding to p.
func (e *Events) Attach(p *tea.Program) {
	e.mu.Lock()
	e.p = p
	e.mu.Unlock()
}

// ErrInterrupted is Run's answer when a signal (SIGINT, SIGTERM, SIGHUP)
// ended the dashboard; the terminal has been restored.
var ErrInterrupted = errors.New("interrupted")

// Run runs the dashboard until the user quits, or until enter on the
// Accounts screen chose another account: then its answer is a
// SwitchAccount naming it (an AddAccount when + there asked for one). base is cancelled on return so
// requests still in flight end with it; ctx.Billing must be set (its
// service is the caller's to close). The account request leaves first,
// before the terminal is set up (see earlyAccount).
//
// Run is the one owner of the process's signals while the dashboard runs:
// Bubble Tea's own handler is off, and base must not be a context that a
// signal cancels. With both on, a SIGTERM cancelled the program's context
// (its event loop left) while Bubble Tea's handler blocked forever sending
// its QuitMsg to that loop, and shutdown waited for the handler: the
// process hung in the alternate screen with mouse reporting on.
//
// Run also owns the terminal's size (see maxCells): Bubble Tea draws in it
// as Run reports it, so a huge terminal costs one line. progOpts are for
// tests, which bring their own input, output and size: with any given,
// Run leaves the terminal's size to them.
func Run(base context.Context, ctx *shared.Context, opts Options, events *Events, progOpts ...tea.ProgramOption) error {
	base, cancel := context.WithCancel(base)
	defer cancel()
	ctx.Base = base
	early := requestAccountEarly(base, ctx.Billing)
	defer early.stop()
	m := New(ctx, opts)
	m.early = early
	err := runProgram(base, m, events, progOpts...)
	if err == nil && m.SwitchTo() != "" {
		return SwitchAccount{Name: m.SwitchTo()}
	}
	if err == nil && m.Adding() {
		return AddAccount{}
	}
	return err
}

// runProgram runs m as Run runs the dashboard: the signals, the
// terminal's size and its guard are Run's (see there); the sign-in screen
// runs the same way.
func runProgram(base context.Context, m tea.Model, events *Events, progOpts ...tea.ProgramOption) error {
	all := []tea.ProgramOption{tea.WithoutSignalHandler()}
	termOpts, w, h, sized := terminalOptions(os.Stdout)
	if len(progOpts) > 0 {
		sized = false
	}
	if sized {
		all = append(all, termOpts...)
		if term.IsTerminal(os.Stdin.Fd()) {
			// Bubble Tea restores the terminal on every end it sees; the
			// guard on the ones it cannot (a fatal error, a kill).
			// Without one the dashboard runs as before.
			guard, _ := termguard.Start(os.Stdin)
			defer guard.Release()
		}
	}
	p := newProgram(base, m, events, append(all, progOpts...)...)
	if testHookBeforeProgram != nil {
		testHookBeforeProgram()
	}
	signaled, stop := quitOnSignal(p)
	stopSize := func() {}
	if sized {
		stopSize = watchSize(p, os.Stdout, w, h)
	}
	_, err := p.Run()
	stopSize()
	stop()
	if signaled.Load() {
		return ErrInterrupted
	}
	return err
}

// quitOnSignal makes the first SIGINT, SIGTERM or SIGHUP quit p the normal
// way (the terminal restored) and a second one kill it (Bubble Tea restores
// the terminal then too). stop ends the watch; signaled reports that a
// signal came.
func quitOnSignal(p *tea.Program) (signaled *atomic.Bool, stop func()) {
	signaled = new(atomic.Bool)
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-sig:
				// Send (under Quit) gives up once the program has ended,
				// so neither call can block past Run.
				if signaled.Swap(true) {
					p.Kill()
				} else {
					p.Quit()
				}
			}
		}
	}()
	return signaled, func() {
		signal.Stop(sig)
		close(done)
		wg.Wait()
	}
}

// newProgram is shared by Run and the end-to-end test, which wraps the model
// to watch its screen.
func newProgram(base context.Context, m tea.Model, events *Events, progOpts ...tea.ProgramOption) *tea.Program {
	p := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(base)}, progOpts...)...)
	if events != nil {
		events.Attach(p)
	}
	return p
}
