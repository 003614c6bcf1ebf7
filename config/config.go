package config

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Flags are the command-line values this package consumes; empty means the
// flag was not given.
type Flags struct {
	APIKeyFile string // --api-key-file
	URL        string // --url
	ConfigFile string // --config
	Account    string // --account
}

// Config is everything resolved for a normal (non-demo) run.
type Config struct {
	// Key is the API key; print it freely, it formats as [redacted].
	Key Secret
	// KeySource says where the key came from: "env VAST_API_KEY" or a path.
	KeySource string
	// BaseURL is the API base URL without a trailing slash.
	BaseURL string
	// Settings are the user's display preferences.
	Settings Settings
	// Warnings are one-line messages for the user (e.g. a key file other
	// users can read); main decides where they go.
	Warnings []string
	// Account is the account's name ("default" for the usual key); Named
	// says one was picked (--account, VASTDASH_ACCOUNT, default_account),
	// so the answers name it.
	Account string
	Named   bool
}

// Load resolves URL, settings and key together. Usage problems are reported
// before a missing key, so the user fixes their command line first: a URL
// error wins, then a settings error, then a key error. Demo mode, which needs
// no key, calls [LoadSettings] alone instead.
func Load(env Env, f Flags) (Config, error) {
	base, urlErr := ResolveURL(env, f.URL)
	settings, setErr := LoadSettings(env, f.ConfigFile)
	if urlErr == nil && setErr == nil {
		if c, ok, err := loadAccount(env, f, base, settings); ok || err != nil {
			return c, err
		}
	}
	name, named := accountChoice(env, f, settings)
	key, source, warnings, keyErr := ResolveKey(env, f.APIKeyFile)
	switch {
	case urlErr != nil:
		return Config{}, urlErr
	case setErr != nil:
		return Config{}, scrub(setErr, key)
	case keyErr != nil:
		return Config{}, keyErr
	}
	return Config{Key: key, KeySource: source, BaseURL: base, Settings: settings, Warnings: warnings, Account: name, Named: named}, nil
}

// scrub removes the key, and any run of six or more of its characters, from
// a settings error. The TOML parser quotes bits of the file in its messages
// (often only the part of a bare value before its first digit), and --config
// pointed at a key or .env file by mistake would otherwise print the key or a
// piece of it.
func scrub(err error, key Secret) error {
	k := key.Reveal()
	if k == "" {
		return err
	}
	msg := strings.ReplaceAll(err.Error(), k, redacted)
	isWord := func(r rune) bool { return r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	var b strings.Builder
	for rest := msg; rest != ""; {
		i := strings.IndexFunc(rest, isWord)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		rest = rest[i:]
		j := strings.IndexFunc(rest, func(r rune) bool { return !isWord(r) })
		if j < 0 {
			j = len(rest)
		}
		if word := rest[:j]; len(word) >= 6 && strings.Contains(k, word) {
			b.WriteString(redacted)
		} else {
			b.WriteString(word)
		}
		rest = rest[j:]
	}
	if b.String() == err.Error() {
		return err
	}
	kind := ErrSettings
	var ce *configError
	if errors.As(err, &ce) {
		kind = ce.kind
	}
	return newError(kind, b.String())
}

// loadAccount is Load for an account of its own: its key file and its URL
// (under --url). ok is false when the usual key is the one to use (the
// account "default" without a table of its own, or --api-key-file over
// default_account).
func loadAccount(env Env, f Flags, base string, s Settings) (Config, bool, error) {
	name, named := accountChoice(env, f, s)
	a, ok := s.Account(name)
	if !ok {
		if name == DefaultAccount {
			return Config{}, false, nil
		}
		return Config{}, false, unknownAccount(name, s)
	}
	if f.APIKeyFile != "" {
		return Config{}, false, newError(ErrAccount, fmt.Sprintf("--api-key-file and account %s name two keys: give one", printable(name)))
	}
	if a.URL != "" && strings.TrimSpace(f.URL) == "" {
		base = a.URL
	}
	key, warnings, err := readKeyFile(env, a.KeyFile, true)
	if err != nil {
		return Config{}, false, err
	}
	return Config{Key: key, KeySource: a.KeyFile, BaseURL: base, Settings: s, Warnings: warnings, Account: name, Named: named}, true, nil
}
