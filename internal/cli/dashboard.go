package cli

import (
	"context"
	"errors"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/ui"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// dashboard is the root command: the TUI, on a session like any command's.
func (x *execution) dashboard() error {
	// Not x.env.context(): while the dashboard runs, ui.Run alone handles
	// signals (it quits the program and restores the terminal).
	base, stop := context.WithCancel(context.Background())
	defer stop()
	events := &ui.Events{}
	s, err := openSession(x.env, x.globals, sessionOptions{base: base, observe: events.Observe, dashboard: true})
	if err != nil {
		return err
	}
	defer s.Close()

	ctx := &shared.Context{
		Billing:      s.Billing,
		DefaultRange: s.Settings.Range,
		Keys:         s.Settings.Keys,
		Budget:       s.Settings.Budget,
	}
	// The filters the Charges screen showed last time. The dashboard has
	// no filter flags, so nothing given on the command line can be
	// overridden by them; a state file that cannot be read is said on the
	// status line and ignored.
	ctx.State = config.NewStateStore(config.StatePath(config.DefaultEnv()))
	ctx.Remembered, ctx.StateErr = ctx.State.Load()
	opts := ui.Options{Host: s.Host, Demo: x.globals.demo, Theme: s.Settings.Theme, NoMouse: !s.Settings.Mouse,
		Refresh: s.Settings.Refresh, NoBell: !s.Settings.Bell}
	switch s.Settings.Theme {
	case "light":
		opts.Dark = false
	case "dark":
		opts.Dark = true
	default:
		opts.Dark = theme.DarkFromEnv(os.Getenv("COLORFGBG"))
	}
	err = runQuietly(func() error { return ui.Run(base, ctx, opts, events) })
	switch {
	case errors.Is(err, ui.ErrInterrupted):
		return context.Canceled
	case errors.Is(err, tea.ErrProgramPanic):
		// Bubble Tea caught it and restored the terminal.
		return errors.New("internal error (a bug); the terminal was restored; please report it, with a --debug log if you can")
	}
	return err
}

// runQuietly runs the TUI with os.Stderr pointed at /dev/null: nothing may
// write there while the TUI owns the screen, and on a panic Bubble Tea,
// after restoring the terminal, prints the panic value and a stack to
// os.Stderr — internals, and nothing guarantees what the value holds. The
// caller prints one line instead.
func runQuietly(f func() error) error {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return f()
	}
	saved := os.Stderr
	os.Stderr = null
	defer func() {
		os.Stderr = saved
		null.Close()
	}()
	return f()
}
