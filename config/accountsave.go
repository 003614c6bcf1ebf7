package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// AccountKeyPath is where `auth login --account NAME` saves the account's
// key: $XDG_CONFIG_HOME/vastdash/keys/NAME (default ~/.config/...); ""
// without a home or for a name no account can have.
func AccountKeyPath(env Env, name string) string {
	ch := env.configHome()
	if ch == "" || !ValidAccountName(name) {
		return ""
	}
	return filepath.Join(ch, "vastdash", "keys", name)
}

// CheckAccountKeyTarget is [CheckKeyTarget] for an account's key file.
func CheckAccountKeyTarget(env Env, name string) error {
	return checkKeyTargetAt(env, AccountKeyPath(env, name))
}

// SaveAccountKey is [SaveKey] to the account's key file (0600 in a 0700
// folder, by rename, never through a link).
func SaveAccountKey(env Env, name string, key Secret, replace bool) (string, error) {
	return saveKeyAt(env, AccountKeyPath(env, name), key, replace)
}

// CheckAddAccount is what [AddAccount] would refuse, without writing:
// auth login --account asks it before any request, so that a settings
// file it cannot add to (a link, one it cannot read) ends the run with
// nothing sent and no key saved.
func CheckAddAccount(env Env, settingsPath, name, keyFile, url string) error {
	_, _, _, _, err := accountTarget(env, settingsPath, name, keyFile, url)
	return err
}

// AddAccount adds [accounts.NAME] with key_file, and url when not "" (the
// --url it was signed in with, checked as --url is), to the settings file
// (settingsPath: --config, or "" for the default), keeping every line it
// already has: the table is appended to the text, never rewritten from a
// decoded copy (comments and order stay). A table of that name with
// another key_file, or another url, is an [ErrAccount] error; with the
// same ones nothing is written. A settings file that is a link is not replaced by a file.
// It returns whether the file was changed.
func AddAccount(env Env, settingsPath, name, keyFile, url string) (bool, error) {
	path, text, url, there, err := accountTarget(env, settingsPath, name, keyFile, url)
	if err != nil || there {
		return false, err
	}
	if len(text) > 0 && text[len(text)-1] != '\n' {
		text = append(text, '\n')
	}
	if len(text) > 0 {
		text = append(text, '\n')
	}
	// accountTarget checked that the path can be written as a literal.
	text = append(text, fmt.Sprintf("[accounts.%s]\nkey_file = %s\n", name, tomlString(env.tilde(keyFile)))...)
	if url != "" {
		// checkURL's URL has no quote nor control character.
		text = append(text, fmt.Sprintf("url = %s\n", tomlString(url))...)
	}
	if err := WriteFile(path, text); err != nil {
		return false, newError(ErrSettings, fmt.Sprintf("cannot add the account to %s: %s", printable(path), describeErr(err)))
	}
	return true, nil
}

// tomlString is s as a TOML literal string ('…'), "" when s cannot be
// one (a quote or a control character in it): then the user writes it.
func tomlString(s string) string {
	if strings.ContainsRune(s, '\'') {
		return ""
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return ""
		}
	}
	return "'" + s + "'"
}

// accountTarget is AddAccount's checks: the settings file's path and text
// (nil when there is none yet), the url as it is written ("" for none),
// there when the table is already as it would be written.
func accountTarget(env Env, settingsPath, name, keyFile, rawURL string) (path string, text []byte, url string, there bool, err error) {
	if rawURL != "" {
		if url, err = checkURL(rawURL, "--url"); err != nil {
			return "", nil, "", false, err
		}
	}
	if !ValidAccountName(name) {
		return "", nil, "", false, newError(ErrAccount, fmt.Sprintf("account name %s: use 1 to %d letters, digits, - and _, not a device name such as con or nul", printable(name), maxAccountName))
	}
	s, err := LoadSettings(env, settingsPath)
	if err != nil {
		return "", nil, "", false, err
	}
	path = settingsPath
	if path == "" {
		path = SettingsPath(env)
	}
	if path == "" {
		return "", nil, "", false, errNoHome
	}
	if twin, ok := s.AccountCaseTwin(name); ok {
		return "", nil, "", false, newError(ErrAccount, caseTwinText(name, twin))
	}
	if a, ok := s.Account(name); ok {
		switch {
		case filepath.Clean(a.KeyFile) != filepath.Clean(keyFile):
		case url != "" && a.URL != url:
			return "", nil, "", false, newError(ErrAccount, fmt.Sprintf("account %s is already in %s with url %s: change it there, or pick another name", name, printable(path), printable(orDefaultURL(a.URL))))
		default:
			return path, nil, url, true, nil
		}
		return "", nil, "", false, newError(ErrAccount, fmt.Sprintf("account %s is already in %s with key_file %s: remove that table or pick another name", name, printable(path), printable(a.KeyFile)))
	}
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", nil, "", false, newError(ErrSettings, fmt.Sprintf("%s: %s", printable(path), describeErr(err)))
	case !info.Mode().IsRegular():
		return "", nil, "", false, newError(ErrSettings, fmt.Sprintf("%s is not a regular file (a link?): add [accounts.%s] with key_file = %s to it yourself", printable(path), name, strconv.Quote(keyFile)))
	default:
		data, _, err := env.readCapped(path, maxSettingsFile, true)
		if err != nil {
			return "", nil, "", false, newError(ErrSettings, fmt.Sprintf("%s: %s", printable(path), describeErr(err)))
		}
		text = data
	}
	if tomlString(env.tilde(keyFile)) == "" {
		return "", nil, "", false, newError(ErrSettings, fmt.Sprintf("the key file's path %s holds a quote or a control character: add [accounts.%s] to %s yourself", printable(keyFile), name, printable(path)))
	}
	return path, text, url, false, nil
}

// orDefaultURL is an account's url as said: the default when it has none.
func orDefaultURL(u string) string {
	if u == "" {
		return DefaultURL + " (the default)"
	}
	return u
}
