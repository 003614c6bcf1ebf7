package cli

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"

	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui"
	"github.com/vastdash/vastdash/ui/accounts"
	"github.com/vastdash/vastdash/ui/signin"
	"github.com/vastdash/vastdash/ui/theme"
)

// accountsReader is the dashboard's Accounts screen's reader: the roll-up of
// `vastdash accounts`, read through the same calls, kept for the whole
// dashboard command so that switching accounts (which runs the dashboard
// again) does not read every account again; r on the screen does.
type accountsReader struct {
	x      *execution
	names  []string
	budget money.Amount

	mu   sync.Mutex
	last *accounts.Table
	// own is the session the dashboard shows: its account is read
	// through it, sharing its feeds, rather than a second session on it.
	own *Session
	// cursors are each account's Charges cursor (its contract), kept
	// across switches for as long as the dashboard command runs; touched
	// only between the dashboard's runs and by the one running.
	cursors map[string]*string
}

// cursor is where the Charges cursor of the account name is kept, nil
// without the Accounts screen (no switch to come back from).
func (r *accountsReader) cursor(name string) *string {
	if r == nil {
		return nil
	}
	if r.cursors == nil {
		r.cursors = map[string]*string{}
	}
	if r.cursors[name] == nil {
		r.cursors[name] = new(string)
	}
	return r.cursors[name]
}

// newAccountsReader is the reader for the dashboard on s, nil when the screen is
// not drawn: fewer than two accounts, or the demo (whose figures never mix
// with an account's).
func (x *execution) newAccountsReader(s *Session) *accountsReader {
	if s.demo != nil {
		return nil
	}
	names := s.Settings.AccountNames()
	if len(names) < 2 {
		return nil
	}
	return &accountsReader{x: x, names: names, budget: s.Settings.Budget}
}

// options are the screen's options for the dashboard on s.
func (r *accountsReader) options(s *Session) *accounts.Options {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	r.own = s
	r.mu.Unlock()
	return &accounts.Options{Current: s.Account, Read: r.read}
}

// read is the roll-up: the last reading of this command unless fresh.
// The other accounts' sessions say nothing on stderr, which the screen
// covers: what goes wrong is their row.
func (r *accountsReader) read(ctx context.Context, fresh bool) accounts.Table {
	r.mu.Lock()
	last, own := r.last, r.own
	r.mu.Unlock()
	if last != nil && !fresh {
		return *last
	}
	e := *r.x.env
	e.stderr = io.Discard
	rows, noKey := r.x.readAccounts(ctx, &e, r.names, sessionOptions{base: ctx, dashboard: true}, own)
	t := accounts.Table{AsOf: r.x.env.now()}
	if len(rows) == 0 && noKey != nil {
		t.Rows = []accounts.Row{{Name: config.DefaultAccount, Err: oneLineError(noKey)}}
		return t
	}
	total := totalOf(rows, r.budget)
	for _, a := range rows {
		row := accounts.Row{Name: a.Name, SameAs: a.SameAs, Err: a.Error}
		if a.read {
			row.Email = *a.Email
			f := a.figures()
			row.Credit, row.Now, row.Runway, row.Month, row.Forecast, row.Budget, row.Leaks = f[0], f[1], f[2], f[3], f[4], f[5], f[6]
		}
		t.Rows = append(t.Rows, row)
	}
	f := total.figures()
	t.Total = accounts.Row{Name: total.label(), Credit: f[0], Now: f[1], Runway: f[2], Month: f[3], Forecast: f[4], Budget: f[5], Leaks: f[6]}
	if ctx.Err() == nil {
		// A reading the dashboard's end cut short is not kept.
		r.mu.Lock()
		r.last = &t
		r.mu.Unlock()
	}
	return t
}

// rollAgain is the Accounts screen's reader for the dashboard on s after
// a switch: roll itself while the settings name the same accounts (the
// roll-up it read stays), else a new one, reading every account again
// (one was added), with each account's Charges cursor kept.
func (x *execution) rollAgain(roll *accountsReader, s *Session) *accountsReader {
	n := x.newAccountsReader(s)
	if roll == nil || n == nil || slices.Equal(n.names, roll.names) {
		return roll
	}
	n.cursors = roll.cursors
	return n
}

// addAccount runs the sign-in screen adding an account (+ on the Accounts
// screen, the dashboard on the account current ended for it): its name,
// checked as auth login --account checks it and refused when the settings
// have it already, then its key, verified and saved as auth login
// --account NAME saves it (keys/NAME, 0600, by rename; [accounts.NAME]
// appended to the settings). The answer is the account to open next (the
// one added, else current) and the sign-in's result; left when the user
// quit (ctrl+c).
func (x *execution) addAccount(base context.Context, current string) (string, signin.Result, bool, error) {
	cfg := config.DefaultEnv()
	settings, err := config.LoadSettings(cfg, x.globals.flags.ConfigFile)
	if err != nil {
		return "", signin.Result{}, false, configError(err)
	}
	// The key is tried at --url or VAST_URL, not at the url of the
	// account open now: its account is not that one.
	ax := *x
	ax.globals.flags.Account = ""
	si := &signIn{x: &ax, base: base}
	defer si.close()
	f := si.funcs()
	f.Save = func(key config.Secret, replace bool) (string, error) {
		path, err := si.save(key, replace)
		if err == nil {
			err = si.addAccount(path)
		}
		return path, err
	}
	f.AddAccount = func(name string) (string, error) {
		if !config.ValidAccountName(name) {
			return "", errors.New("an account's name is 1 to 64 letters, digits, - and _ (not con, nul or another device name)")
		}
		s, err := config.LoadSettings(cfg, x.globals.flags.ConfigFile)
		if err != nil {
			return "", err
		}
		if slices.Contains(s.AccountNames(), name) {
			return "", errors.New("there is an account " + name + " already: pick another name (auth login --account " + name + " replaces its key)")
		}
		si.account = name
		if err := si.checkAccount(); err != nil {
			si.account = ""
			return "", err
		}
		return cfg.Shown(config.AccountKeyPath(cfg, name)), nil
	}
	o := signin.Options{Funcs: f, Keys: settings.Keys, Styles: theme.New(dark(settings.Theme))}
	if u, err := config.ResolveURL(cfg, x.globals.flags.URL); err == nil {
		o.Host = hostOf(u)
	}
	var res signin.Result
	if x.env.runSignIn != nil {
		res, err = x.env.runSignIn(base, o)
	} else {
		err = runQuietly(func() (err error) { res, err = ui.SignIn(base, o); return err })
	}
	switch {
	case err != nil:
		return "", res, false, uiError(err)
	case res.Left:
		return "", res, true, nil
	case !res.Saved:
		return current, signin.Result{}, false, nil
	}
	return res.Account, res, false, nil
}
