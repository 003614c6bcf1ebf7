package ui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ui/charges"
	"github.com/vastdash/vastdash/ui/overview"
	"github.com/vastdash/vastdash/ui/prefs"
	"github.com/vastdash/vastdash/ui/shared"
)

// The root drives the screens through small interfaces (model.go) so its
// tests can use fakes; these make a change of the real screens' methods a
// build error instead of silently unwired behaviour.
var (
	_ rangeFollower = (*overview.Model)(nil)
	_ runwayTeller  = (*overview.Model)(nil)
	_ rangeShower   = (*charges.Model)(nil)
	_ revealer      = (*charges.Model)(nil)
)

// New builds the dashboard with its three screens: Overview, Charges and
// Notifications.
func New(ctx *shared.Context, opts Options) *Model {
	screens := []shared.Screen{overview.New(ctx), charges.New(ctx), prefs.New(ctx)}
	return newModel(ctx, opts, screens, []string{"Overview", "Charges", "Notifications"})
}

// Events forwards the client's pacing and retry events to the running
// program, so a paced request reads "waiting for the rate limit" instead of
// looking stuck. Pass Observe to api.WithObserver before the program exists,
// then Attach the program.
type Events struct {
	mu sync.Mutex
	p  *tea.Program
}

// minWaitShown hides waits too short to notice.
const minWaitShown = 300 * time.Millisecond

// Observe is an api observer.
func (e *Events) Observe(ev api.Event) {
	if ev.Wait < minWaitShown {
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

// Run runs the dashboard until the user quits. base is cancelled on return so
// requests still in flight end with it.
func Run(base context.Context, ctx *shared.Context, opts Options, events *Events, progOpts ...tea.ProgramOption) error {
	base, cancel := context.WithCancel(base)
	defer cancel()
	ctx.Base = base
	_, err := newProgram(base, New(ctx, opts), events, progOpts...).Run()
	return err
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
