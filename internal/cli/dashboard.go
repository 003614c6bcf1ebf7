package cli

import (
	"context"
	"errors"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/ui"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/signin"
	"github.com/vastdash/vastdash/ui/theme"
)

// dashboard is the root command: the TUI, on a session like any command's.
func (x *execution) dashboard() error {
	// Not x.env.context(): while the dashboard runs, ui.Run alone handles
	// signals (it quits the program and restores the terminal).
	base, stop := context.WithCancel(context.Background())
	defer stop()
	events := &ui.Events{}
	g := x.globals
	open := func() (*Session, error) {
		return openSession(x.env, g, sessionOptions{base: base, observe: events.Observe, dashboard: true})
	}
	s, err := open()
	var signedIn signin.Result
	if errors.Is(err, config.ErrNoKey) && x.env.stdinTerminal() && x.env.isTerminal(x.env.stdout) {
		// A first run at a terminal: sign in, then the dashboard on the
		// key saved. Without a terminal nothing changes: exit 2.
		if signedIn, err = x.signIn(base); err != nil || !signedIn.Saved || signedIn.Left {
			return err
		}
		s, err = open()
	}
	if err != nil {
		return err
	}
	if !x.env.isTerminal(x.env.stdout) || !x.env.stdinTerminal() && !x.env.tty() {
		// Else Bubble Tea fails in its own words ("bubbletea: error
		// opening TTY: …", exit 1), or draws into a file.
		s.Close()
		return errNoTerminal
	}
	roll := x.newAccountsReader(s)
	warning := ""
	for {
		err = x.runDashboard(base, s, roll, events, signedIn, warning)
		s.Close()
		var sw ui.SwitchAccount
		switch {
		case errors.As(err, &ui.AddAccount{}):
			// + on the Accounts screen: the sign-in screen adds one, and
			// the dashboard opens on it (on this one again if not).
			left := false
			if sw.Name, signedIn, left, err = x.addAccount(base, s.Account); err != nil || left {
				return err
			}
		case errors.As(err, &sw):
			signedIn = signin.Result{}
		default:
			return uiError(err)
		}
		// Another account chosen on the Accounts screen: its own session
		// (key, ledger, remembered filters), the dashboard again on it.
		was := s.Account
		g.flags.Account = sw.Name
		warning = ""
		if s, err = open(); err != nil {
			// Its key went since the roll-up read it: back to the one
			// that was open, saying why.
			warning = "not opened: " + sw.Name + ": " + oneLineError(err)
			g.flags.Account, signedIn = was, signin.Result{}
			if s, err = open(); err != nil {
				return err
			}
		}
		// The accounts as the settings now say (one added).
		roll = x.rollAgain(roll, s)
	}
}

// runDashboard runs the dashboard on s until it ends; a SwitchAccount
// says the Accounts screen chose another account. warning is said at
// start (the account chosen before, which could not be opened).
func (x *execution) runDashboard(base context.Context, s *Session, roll *accountsReader, events *ui.Events, signedIn signin.Result, warning string) error {
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
	ctx.State = config.NewStateStore(s.statePath())
	ctx.Remembered, ctx.StateErr = ctx.State.Load()
	ctx.Cursor = roll.cursor(s.Account) // and the cursor, for this run
	opts := ui.Options{Host: s.headerName(), Demo: x.globals.demo, Theme: s.Settings.Theme, NoMouse: !s.Settings.Mouse,
		Refresh: s.Settings.Refresh, NoBell: !s.Settings.Bell, Notice: signedIn.Note, Access: signedIn.Access, Dark: dark(s.Settings.Theme),
		Warning: warning, Accounts: roll.options(s)}
	if x.env.runUI != nil {
		return x.env.runUI(base, ctx, opts, events)
	}
	return runQuietly(func() error { return ui.Run(base, ctx, opts, events) })
}

// errNoTerminal is the dashboard run where there is no terminal to draw
// on and read keys from: cron, ssh without -t, stdout to a file or pipe.
// A usage error like the missing key on the same path: exit 2.
var errNoTerminal = configError(errors.New("the dashboard needs a terminal; a script uses a command (vastdash --help)"))

// dark is the background guess of a theme setting until the terminal
// reports its own.
func dark(setting string) bool {
	switch setting {
	case "light":
		return false
	case "dark":
		return true
	}
	return theme.DarkFromEnv(os.Getenv("COLORFGBG"))
}

// signIn runs the sign-in screen on the settings' keys and theme.
func (x *execution) signIn(base context.Context) (signin.Result, error) {
	cfg := config.DefaultEnv()
	settings, err := config.LoadSettings(cfg, x.globals.flags.ConfigFile)
	if err != nil {
		return signin.Result{}, configError(err)
	}
	si := &signIn{x: x, base: base}
	defer si.close()
	o := signin.Options{Funcs: si.funcs(), Keys: settings.Keys, Styles: theme.New(dark(settings.Theme)),
		Path: cfg.Shown(config.KeySavePath(cfg))}
	if base, err := config.ResolveURL(cfg, x.globals.flags.URL); err == nil {
		o.Host = hostOf(base)
	}
	var res signin.Result
	err = runQuietly(func() (err error) { res, err = ui.SignIn(base, o); return err })
	return res, uiError(err)
}

// uiError is a Bubble Tea program's end as the command's error.
func uiError(err error) error {
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
