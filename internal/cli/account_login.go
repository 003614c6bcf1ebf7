package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vastdash/vastdash/config"
)

// loginAccount is the account auth login signs in to: --account NAME or
// VASTDASH_ACCOUNT, "" for the usual key ("default" is the usual key too).
// A VASTDASH_ACCOUNT no account can be named is a usage error, as the flag
// is: falling back to the usual key would have logout remove, and login
// replace, the key of an account the user did not name.
func (x *execution) loginAccount() (string, error) {
	name := x.globals.flags.Account
	if name == "" {
		name = strings.TrimSpace(os.Getenv(config.EnvAccount))
		if name != "" && !config.ValidAccountName(name) {
			return "", usageError(fmt.Errorf("%s=%s: an account's name is letters, digits, - and _ (not con, nul or another device name)", config.EnvAccount, argText(name)))
		}
	}
	if name == config.DefaultAccount {
		return "", nil
	}
	return name, nil
}

// checkAccount refuses, before any request, an account the settings
// already name with another key file: its table is the user's to change.
func (si *signIn) checkAccount() error {
	if si.account == "" {
		return nil
	}
	env := config.DefaultEnv()
	s, err := config.LoadSettings(env, si.x.globals.flags.ConfigFile)
	if err != nil {
		return err
	}
	if twin, ok := s.AccountCaseTwin(si.account); ok {
		return errors.New("account " + si.account + " differs from " + twin + " only in case, and would share its key file on macOS and Windows: pick another name")
	}
	want := config.AccountKeyPath(env, si.account)
	if a, ok := s.Account(si.account); ok && filepath.Clean(a.KeyFile) != filepath.Clean(want) {
		return errors.New("account " + si.account + " is already in the settings with key_file " + env.Shown(a.KeyFile) + ": remove that table or pick another name")
	}
	// What would keep the table from being added is said now, with
	// nothing sent and no key saved, not after both (exit 2 promises it).
	return config.CheckAddAccount(env, si.x.globals.flags.ConfigFile, si.account, want, si.x.globals.flags.URL)
}

// saveKey saves key where this sign-in keeps it: the vastai CLI's file, or
// the account's (keys/NAME).
func (si *signIn) saveKey(key config.Secret, replace bool) (string, error) {
	if si.account != "" {
		return config.SaveAccountKey(config.DefaultEnv(), si.account, key, replace)
	}
	return config.SaveKey(config.DefaultEnv(), key, replace)
}

// addAccount names the account's key file in the settings, appending its
// table, with the --url it was signed in at (the account's own host from
// then on); nothing for the usual key.
func (si *signIn) addAccount(keyFile string) error {
	if si.account == "" {
		return nil
	}
	if _, err := config.AddAccount(config.DefaultEnv(), si.x.globals.flags.ConfigFile, si.account, keyFile, si.x.globals.flags.URL); err != nil {
		return configError(err)
	}
	return nil
}

// replaceAction is what auth login asks about when a key file is there.
func (si *signIn) replaceAction() action {
	env := config.DefaultEnv()
	path := config.KeySavePath(env)
	if si.account != "" {
		path = config.AccountKeyPath(env, si.account)
	}
	return action{command: "auth login", does: "replaces the key file " + env.Shown(path), done: "written"}
}

// logoutAccount is auth logout --account NAME: it removes the account's
// key file (asking first); the settings' table stays, naming a file that
// is gone, until the user removes it or signs in again.
func (x *execution) logoutAccount(f logoutFlags) error {
	env := config.DefaultEnv()
	name, err := x.loginAccount()
	if err != nil {
		return err
	}
	s, err := config.LoadSettings(env, x.globals.flags.ConfigFile)
	if err != nil {
		return configError(err)
	}
	a, ok := s.Account(name)
	if !ok {
		return configError(errors.New("no account " + name + ": the accounts configured are " + joinNames(s.AccountNames())))
	}
	var out logoutJSON
	if _, err := os.Lstat(a.KeyFile); errors.Is(err, os.ErrNotExist) {
		out.Note = "no key file to remove"
		return out.write(x.env.stdout, x.env.width(x.env.stdout), f.output)
	}
	logout := action{command: "auth logout", does: "removes " + env.Shown(a.KeyFile), done: "removed"}
	if err := x.env.confirm(f.yes, "Remove "+env.Shown(a.KeyFile)+" (account "+name+"'s key)?", logout); err != nil {
		return err
	}
	if err := config.RemoveKey(env, a.KeyFile); err != nil {
		return err
	}
	path := a.KeyFile
	out.Removed = &path
	out.Note = "[accounts." + name + "] stays in the settings: remove it there, or sign in again with auth login --account " + name
	return out.write(x.env.stdout, x.env.width(x.env.stdout), f.output)
}

// joinNames is names separated by commas.
func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}
