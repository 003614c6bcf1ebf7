package config

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// DefaultAccount is the name of the account whose key is found the usual
// way (--api-key-file, VAST_API_KEY, the official CLI's file).
const DefaultAccount = "default"

// EnvAccount is the environment variable that picks an account, as
// --account does (the flag wins).
const EnvAccount = "VASTDASH_ACCOUNT"

// maxAccountName bounds an account's name: it is a file name (the key's,
// keys/NAME) and a column of the roll-up.
const maxAccountName = 64

// ErrAccount means an account was asked for by a name the settings do not
// configure, or together with a key that is not its own.
var ErrAccount = errors.New("unknown account")

// Account is one [accounts.NAME] table of the settings: a key of its own
// and, optionally, a host of its own. A team on the platform is its team
// key, so a person with a personal and a team account has two of these (or
// the default and one).
type Account struct {
	// Name is the table's name: letters, digits, - and _.
	Name string
	// KeyFile is where the key is, ~ expanded; a relative path is taken
	// from the settings file's folder.
	KeyFile string
	// URL is the account's API base URL, "" for the usual (--url,
	// VAST_URL, the default).
	URL string
}

// ValidAccountName reports whether name can name an account: 1 to 64
// letters, digits, - and _, not a device name of Windows (a file name on
// every system, a word in a table).
func ValidAccountName(name string) bool {
	if name == "" || len(name) > maxAccountName {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return !windowsDevice(name)
}

// windowsDevice reports a name Windows keeps for a device in every folder
// (CON, NUL, COM1 …, in any case): as the key file's name it would read
// the console for the key, or send a saved key to a device. Refused on
// every system, since settings travel between them.
func windowsDevice(name string) bool {
	switch n := strings.ToLower(name); {
	case n == "con", n == "prn", n == "aux", n == "nul":
		return true
	case len(n) == 4 && (n[:3] == "com" || n[:3] == "lpt") && '0' <= n[3] && n[3] <= '9':
		return true
	}
	return false
}

// AccountNames are the names of the accounts configured, "default" first
// (it is always there: the usual key), then the others by name.
func (s Settings) AccountNames() []string {
	names := []string{DefaultAccount}
	for _, a := range s.Accounts {
		if a.Name != DefaultAccount {
			names = append(names, a.Name)
		}
	}
	return names
}

// Account is the [accounts.NAME] table of name; false when there is none
// (the "default" account without a table of its own is the usual key).
func (s Settings) Account(name string) (Account, bool) {
	for _, a := range s.Accounts {
		if a.Name == name {
			return a, true
		}
	}
	return Account{}, false
}

// AccountCaseTwin is the name of another account of s that differs from
// name only in case ("Lab" beside "lab"): on macOS and Windows the two
// would share one key file and one state file.
func (s Settings) AccountCaseTwin(name string) (string, bool) {
	for _, n := range s.AccountNames() {
		if n != name && strings.EqualFold(n, name) {
			return n, true
		}
	}
	return "", false
}

// caseTwinText is the error of two account names differing in case.
func caseTwinText(name, twin string) string {
	return fmt.Sprintf("accounts %s and %s differ only in case, and would share a key file on macOS and Windows: rename one", name, twin)
}

// accountEntry decodes one [accounts.NAME] table, checking its fields in
// UnmarshalTOML. A bad field is kept (bad, badKey) for accountSettings to
// report at the field's own line: the decoder knows only the table's
// ("bad url" named the [accounts.NAME] line, not the url's).
type accountEntry struct {
	keyFile, url string
	badKey       string // the field in error, "" for the table itself
	bad          error
}

// UnmarshalTOML implements toml.Unmarshaler.
func (a *accountEntry) UnmarshalTOML(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return errors.New(`an account is a table: [accounts.NAME] with key_file = "…"`)
	}
	fail := func(k string, err error) error {
		a.badKey, a.bad = k, err
		return nil
	}
	// In the file's order would be best; sorted is at least the same
	// error every run.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s, isString := m[k].(string)
		switch k {
		case "key_file":
			if !isString || strings.TrimSpace(s) == "" {
				return fail(k, errors.New(`an account's key_file must be a file's path in quotes`))
			}
			a.keyFile = strings.TrimSpace(s)
		case "url":
			if !isString {
				return fail(k, errors.New(`an account's url must be a URL in quotes, like "https://console.vast.ai"`))
			}
			if _, err := checkURL(s, "url of an account"); err != nil {
				return fail(k, err)
			}
			a.url = strings.TrimRight(strings.TrimSpace(s), "/")
		default:
			return fail(k, fmt.Errorf("unknown field %q of an account (known: key_file, url)", k))
		}
	}
	if a.keyFile == "" {
		return fail("", errors.New(`an account needs its key: key_file = "…"`))
	}
	return nil
}

// accountSettings turns the decoded [accounts] tables and default_account
// into the settings' Accounts (by name) and DefaultAccount, checking the
// names; errors are at the table's line.
func accountSettings(env Env, path, data string, table map[string]accountEntry, def string, defSet bool) ([]Account, string, error) {
	var out []Account
	for _, name := range slices.Sorted(maps.Keys(table)) {
		e := table[name]
		if e.bad != nil {
			return nil, "", settingsError(path, findFieldLine(data, name, e.badKey), e.bad.Error())
		}
		if !ValidAccountName(name) {
			return nil, "", settingsError(path, findTableLine(data, "accounts", name),
				fmt.Sprintf("account name %s: use 1 to %d letters, digits, - and _, not a device name such as con or nul", printable(strings.ToValidUTF8(name, "?")), maxAccountName))
		}
		out = append(out, Account{Name: name, KeyFile: env.expandPath(e.keyFile, filepath.Dir(path)), URL: e.url})
	}
	slices.SortFunc(out, func(a, b Account) int { return strings.Compare(a.Name, b.Name) })
	for _, a := range out {
		if twin, ok := (Settings{Accounts: out}).AccountCaseTwin(a.Name); ok {
			return nil, "", settingsError(path, findTableLine(data, "accounts", a.Name), caseTwinText(a.Name, twin))
		}
	}
	if !defSet {
		return out, "", nil
	}
	known := Settings{Accounts: out}.AccountNames()
	if !slices.Contains(known, def) {
		return nil, "", settingsError(path, findKeyLine(data, "default_account"),
			fmt.Sprintf("default_account %s is not an account: the accounts configured are %s", printable(def), strings.Join(known, ", ")))
	}
	return out, def, nil
}

// expandPath is p with a leading ~ for the home folder; a relative path is
// taken from dir (the settings file's folder), not from wherever vastdash
// runs.
func (e Env) expandPath(p, dir string) string {
	if p == "~" || strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		if e.HomeDir != "" {
			p = filepath.Join(e.HomeDir, p[1:])
		}
	}
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	return p
}

// findTableLine is the 1-based line of the header [table.name] (bare or
// quoted name), 0 if not found; for error messages only.
func findTableLine(data, table, name string) int {
	for i, line := range strings.Split(data, "\n") {
		l := strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(l, "[")
		if !ok {
			continue
		}
		rest, ok = strings.CutPrefix(strings.TrimSpace(rest), table)
		if !ok {
			continue
		}
		rest, ok = strings.CutPrefix(strings.TrimSpace(rest), ".")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		for _, form := range []string{name, `"` + name + `"`, "'" + name + "'"} {
			if r, ok := strings.CutPrefix(rest, form); ok && strings.HasPrefix(strings.TrimSpace(r), "]") {
				return i + 1
			}
		}
	}
	return findKeyLine(data, table)
}

// findFieldLine is the 1-based line of field key of the account name
// ([accounts.NAME] then key = …, an inline table, or accounts.NAME.key =
// …), the table's line for key "", 0 if not found; for error messages
// only.
func findFieldLine(data, name, key string) int {
	at := findTableLine(data, "accounts", name)
	if key == "" || at == 0 {
		return at
	}
	field := regexp.MustCompile(`(^|[.\s{,])` + regexp.QuoteMeta(key) + `\s*=`)
	lines := strings.Split(data, "\n")
	for i := at - 1; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if i > at-1 && strings.HasPrefix(l, "[") {
			break // the next table
		}
		// A dotted key (accounts.NAME.url = …) must be this account's.
		lhs, _, _ := strings.Cut(l, "=")
		if field.MatchString(l) && (!strings.Contains(lhs, ".") || strings.Contains(lhs, name+".")) {
			return i + 1
		}
	}
	return 0
}

// accountChoice is the account a run asks for: the --account flag, else
// $VASTDASH_ACCOUNT, else the settings' default_account (unless
// --api-key-file gives the usual key), else "default"; named is false only
// for the last (nothing picked one).
func accountChoice(env Env, f Flags, s Settings) (name string, named bool) {
	switch {
	case f.Account != "":
		return f.Account, true
	case strings.TrimSpace(env.getenv(EnvAccount)) != "":
		return strings.TrimSpace(env.getenv(EnvAccount)), true
	case s.DefaultAccount != "" && f.APIKeyFile == "":
		return s.DefaultAccount, true
	}
	return DefaultAccount, false
}

// unknownAccount is the error of a name the settings do not configure,
// naming those they do.
func unknownAccount(name string, s Settings) error {
	where := ""
	if s.Path != "" {
		where = " in " + printable(s.Path)
	}
	return newError(ErrAccount, fmt.Sprintf("no account %s: the accounts configured%s are %s", printable(name), where, strings.Join(s.AccountNames(), ", ")))
}
