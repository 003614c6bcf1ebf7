package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/exporter"
)

// servesAccounts says serve exports every account: the settings name
// accounts and the run picks none (--account, VASTDASH_ACCOUNT, --demo
// serve one, as before, without the label).
func (x *execution) servesAccounts() bool {
	if x.globals.demo || x.globals.flags.Account != "" || os.Getenv(config.EnvAccount) != "" || x.globals.flags.APIKeyFile != "" {
		return false
	}
	s, err := config.LoadSettings(config.DefaultEnv(), x.globals.flags.ConfigFile)
	// A settings error is the one-account path's to report.
	return err == nil && len(s.Accounts) > 0
}

// serveAccounts is serve for every account of the settings: one refresh
// loop per account on its own session (its key's pace), every vast_
// series labelled account="NAME". An account whose session cannot open
// (its key file gone) is logged and stays at vast_up 0; the usual key
// missing leaves "default" out.
func (x *execution) serveAccounts(a *serveArgs) error {
	if err := checkListen(a.listen); err != nil {
		return usageError(err)
	}
	settings, err := config.LoadSettings(config.DefaultEnv(), x.globals.flags.ConfigFile)
	if err != nil {
		return configError(err)
	}
	a.log = newLogger(x.env.stderr, a.logFormat)
	ex := exporter.NewAccounts(exporter.Options{Log: a.log, Version: x.env.version})
	ctx, stop := x.env.context()
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		sessions []*Session
		wg       sync.WaitGroup
	)
	defer func() {
		for _, s := range sessions {
			s.Close()
		}
	}()
	flags := x.globals.flags
	for _, name := range settings.AccountNames() {
		flags.Account = name
		if _, err := config.Load(config.DefaultEnv(), flags); name == config.DefaultAccount && errors.Is(err, config.ErrNoKey) {
			// No usual key: every account has a table of its own.
			continue
		}
		acct := ex.Account(name)
		gl := x.globals
		gl.flags.Account = name
		s, err := openSession(x.env, gl, sessionOptions{base: ctx, transport: acct.Transport})
		if err != nil {
			a.log.Error("the account cannot be read: "+oneLineError(err)+"; its vast_up stays 0", "account", name)
			continue
		}
		sessions = append(sessions, s)
	}
	ln, interval, err := listenAndSay(ctx, a, settings, servingAccounts(len(ex.AccountNames())))
	if err != nil {
		return err
	}
	for _, s := range sessions {
		acct := ex.AccountOf(s.Account)
		wg.Go(func() { acct.Run(ctx, s.Billing, exporter.Settings{Refresh: interval, Budget: s.Settings.Budget}) })
	}
	err = ex.Serve(ctx, ln)
	cancel()
	wg.Wait()
	if err != nil {
		return fmt.Errorf("serving on %s: %w", ln.Addr(), err)
	}
	a.log.Info("stopped")
	return nil
}

// servingAccounts is serve's first log line over n accounts: "serving 1
// account's figures", "serving 2 accounts' figures".
func servingAccounts(n int) string {
	return "serving " + billing.Plural(n, "account's", "accounts'") + " figures"
}
