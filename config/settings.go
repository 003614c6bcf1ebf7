package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // IANA zone names work without a system zone database

	"github.com/BurntSushi/toml"

	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/money"
)

// Allowed values of the settings, in the order shown in error messages.
var (
	rangePresets = []string{"24h", "7d", "30d", "90d", "this-month", "last-month"}
	themes       = []string{"auto", "dark", "light"}
)

// maxSettingsFile caps the settings file read; a real one is a few lines.
const maxSettingsFile = 1 << 20

// Settings are the user's display preferences from config.toml.
type Settings struct {
	// Range is the default date range preset: "24h", "7d", "30d", "90d",
	// "this-month" or "last-month".
	Range string
	// TimeZone is "local", "UTC" or an IANA zone name: how dates are shown and where the
	// calendar presets (this-month, ...) start.
	TimeZone string
	// Theme is "auto", "dark" or "light".
	Theme string
	// Mouse is whether the dashboard captures the mouse (click a tab, wheel
	// to scroll); false leaves it to the terminal, whose own text selection
	// then works.
	Mouse bool
	// Refresh is how often the dashboard reads the credit and the current
	// rate again; 0 turns it off (no timer at all).
	Refresh time.Duration
	// Bell rings the terminal once when the credit crosses into an alarm,
	// or the month's spend or forecast first crosses 80 % or 100 % of the
	// budget.
	Bell bool
	// Budget is what the user means to spend a month, in dollars; 0 when
	// none is set (no gauge, no warnings).
	Budget money.Amount
	// Ledger keeps the account's history in a local file (package
	// ledger), so a range once fetched is read from it and only what
	// changed is asked again; false reads the server every time.
	Ledger bool
	// Keys are the dashboard's key bindings: the defaults with the [keys]
	// table's in place of theirs (see package keymap).
	Keys keymap.Bindings
	// Location is derived from TimeZone.
	Location *time.Location
	// Alerts is the [alerts] table, its targets replaced by
	// VASTDASH_ALERTS_TO when that is set.
	Alerts Alerts
	// Path is the settings file that was read, "" if none was.
	Path string
	// Accounts are the [accounts.NAME] tables, by name; DefaultAccount is
	// default_account, "" when not set (see accounts.go).
	Accounts       []Account
	DefaultAccount string
}

// DefaultSettings returns the settings used when config.toml is absent:
// range 30d, local time, automatic theme, mouse on, refresh every 60 s,
// bell on, ledger on.
func DefaultSettings() Settings {
	return Settings{Range: "30d", TimeZone: "local", Theme: "auto", Mouse: true, Keys: keymap.Defaults(), Location: time.Local,
		Refresh: DefaultRefresh, Bell: true, Ledger: true, Alerts: DefaultAlerts()}
}

// SettingsPath returns the default settings file,
// $XDG_CONFIG_HOME/vastdash/config.toml (default ~/.config/...), or "" when
// there is no config directory to look in.
func SettingsPath(env Env) string {
	ch := env.configHome()
	if ch == "" {
		return ""
	}
	return filepath.Join(ch, "vastdash", "config.toml")
}

// LoadSettings reads the settings file. path is the --config flag: when it
// is empty the default [SettingsPath] is used and may be missing (defaults
// apply); a path given explicitly must exist. Either must be a regular file,
// except that an explicit path may be a pipe (--config <(...)).
//
// Unknown keys, values outside the allowed sets and malformed TOML are
// [ErrSettings] errors of the form "FILE:LINE: problem". Values are matched
// case-insensitively and returned in their canonical spelling.
func LoadSettings(env Env, path string) (Settings, error) {
	s, err := loadSettings(env, path)
	if err == nil {
		err = alertsFromEnv(env, &s.Alerts)
	}
	if err != nil {
		return Settings{}, err
	}
	return s, nil
}

func loadSettings(env Env, path string) (Settings, error) {
	s := DefaultSettings()
	explicit := path != ""
	if !explicit {
		path = SettingsPath(env)
		if path == "" {
			return s, nil
		}
	}
	data, _, err := env.readCapped(path, maxSettingsFile, explicit)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return s, nil
		}
		return Settings{}, settingsError(path, 0, "cannot read settings: "+describeErr(err))
	}

	var raw struct {
		Range    choice             `toml:"range"`
		TimeZone zone               `toml:"timezone"`
		Theme    choice             `toml:"theme"`
		Mouse    toggle             `toml:"mouse"`
		Refresh  interval           `toml:"refresh"`
		Bell     toggle             `toml:"bell"`
		Budget   budget             `toml:"budget"`
		Ledger   toggle             `toml:"ledger"`
		Keys     map[string]keyList `toml:"keys"`

		// accounts.go
		Accounts       map[string]accountEntry `toml:"accounts"`
		DefaultAccount *string                 `toml:"default_account"`
		Alerts         *alertsTable            `toml:"alerts"`
	}
	raw.Range.name, raw.Range.allowed = "range", rangePresets
	raw.Theme.name, raw.Theme.allowed = "theme", themes
	raw.Mouse.name = "mouse"
	raw.Bell.name = "bell"
	raw.Ledger.name = "ledger"
	raw.Alerts = &alertsTable{}
	raw.Alerts.Leaks.name, raw.Alerts.PriceIncreases.name = "alerts.leaks", "alerts.price_increases"

	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return Settings{}, settingsError(path, pe.Position.Line, syntaxProblem(pe))
		}
		return Settings{}, settingsError(path, 0, err.Error())
	}
	if und := md.Undecoded(); len(und) > 0 {
		// The decoder keeps no position for keys it did not decode, so find
		// the line by looking for the key's definition in the text.
		top := und[0][0]
		if len(und[0]) > 1 && top == "alerts" {
			return Settings{}, settingsError(path, findKeyLine(string(data), und[0][1]),
				fmt.Sprintf("unknown alert setting %q (known: to, runway, credit, leaks, budget, price_increases, digest)", und[0][1]))
		}
		return Settings{}, settingsError(path, findKeyLine(string(data), top),
			fmt.Sprintf("unknown setting %q (known: range, timezone, theme, mouse, refresh, bell, budget, ledger, default_account, [keys], [alerts], [accounts.NAME])", top))
	}

	if raw.Range.set {
		s.Range = raw.Range.value
	}
	if raw.TimeZone.set {
		s.TimeZone, s.Location = raw.TimeZone.name, raw.TimeZone.loc
	}
	if raw.Theme.set {
		s.Theme = raw.Theme.value
	}
	if raw.Mouse.set {
		s.Mouse = raw.Mouse.value
	}
	if raw.Refresh.set {
		s.Refresh = raw.Refresh.value
	}
	if raw.Bell.set {
		s.Bell = raw.Bell.value
	}
	if raw.Budget.set {
		s.Budget = raw.Budget.value
	}
	if raw.Ledger.set {
		s.Ledger = raw.Ledger.value
	}
	if raw.Keys != nil {
		if s.Keys, err = bindKeys(path, string(data), raw.Keys); err != nil {
			return Settings{}, err
		}
	}
	raw.Alerts.apply(&s.Alerts, fmt.Sprintf("%s:%d", printable(path), findKeyLine(string(data), "to")))
	s.Path = path
	def := ""
	if raw.DefaultAccount != nil {
		def = *raw.DefaultAccount
	}
	if s.Accounts, s.DefaultAccount, err = accountSettings(env, path, string(data), raw.Accounts, def, raw.DefaultAccount != nil); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// choice decodes one string setting restricted to a fixed set. Validating
// inside UnmarshalTOML makes the decoder report the error with the line of
// the offending key, which MetaData does not expose otherwise.
type choice struct {
	name    string
	allowed []string
	value   string
	set     bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (c *choice) UnmarshalTOML(v any) error {
	if s, ok := v.(string); ok {
		for _, a := range c.allowed {
			if strings.EqualFold(s, a) {
				c.value, c.set = a, true
				return nil
			}
		}
	}
	return errors.New(c.name + " must be " + alternatives(c.allowed))
}

// zone decodes the timezone setting: "local", "UTC" or an IANA zone name
// ("Europe/Berlin"). The zone database is embedded (time/tzdata), so a name
// works on a minimal machine without one.
type zone struct {
	name string
	loc  *time.Location
	set  bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (z *zone) UnmarshalTOML(v any) error {
	s, _ := v.(string)
	switch {
	case strings.EqualFold(s, "local"):
		z.name, z.loc = "local", time.Local
	case strings.EqualFold(s, "UTC"):
		z.name, z.loc = "UTC", time.UTC
	case s != "" && !strings.EqualFold(s, "Local"):
		loc, err := time.LoadLocation(s)
		if err != nil {
			return errors.New(`timezone must be "local", "UTC" or an IANA zone name like "Europe/Berlin" (unknown zone ` + strconv.Quote(s) + `)`)
		}
		z.name, z.loc = loc.String(), loc
	default:
		return errors.New(`timezone must be "local", "UTC" or an IANA zone name like "Europe/Berlin"`)
	}
	z.set = true
	return nil
}

// toggle decodes one true/false setting, with the line of the key in the
// error as for choice ("mouse = "no"" would otherwise read as a type error
// of the decoder's own).
type toggle struct {
	name  string
	value bool
	set   bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (t *toggle) UnmarshalTOML(v any) error {
	b, ok := v.(bool)
	if !ok {
		return errors.New(t.name + " must be true or false")
	}
	t.value, t.set = b, true
	return nil
}

// alternatives renders `"a" or "b"` / `one of "a", "b", "c"`.
func alternatives(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = fmt.Sprintf("%q", v)
	}
	if len(q) == 2 {
		return q[0] + " or " + q[1]
	}
	return "one of " + strings.Join(q, ", ")
}

// syntaxProblem says a TOML syntax error in a user's words, naming the
// setting when the parser knows it; never the value the parser choked on
// (a key pasted into the wrong file would be echoed).
func syntaxProblem(pe toml.ParseError) string {
	msg, key := pe.Message, pe.LastKey
	example := `name = "value"`
	if key != "" {
		// Inside [keys] the line holds the last part: quit = […].
		example = key[strings.LastIndexByte(key, '.')+1:] + ` = "…"`
	}
	switch {
	case strings.Contains(msg, "already been defined"):
		if key != "" {
			return fmt.Sprintf("%s is set twice: keep one", key)
		}
		return "a setting is set twice: keep one"
	case strings.Contains(msg, "expected value"), strings.Contains(strings.ToLower(msg), "invalid integer"),
		strings.Contains(strings.ToLower(msg), "invalid float"), strings.Contains(msg, "floats must start"),
		strings.Contains(msg, "expected a digit"), strings.Contains(msg, " number: "), strings.Contains(msg, "non-decimal"):
		if key != "" {
			return fmt.Sprintf("the value of %s is missing or not in quotes: write %s", key, example)
		}
		return "a value is missing or not in quotes: write " + example
	case strings.Contains(msg, "cannot contain newlines"), strings.Contains(msg, `expected '"'`), strings.Contains(msg, `expected "'"`):
		return "a quoted value does not end on its line: write " + example
	case strings.Contains(msg, "table name"):
		return "a table's name is not closed: write [keys]"
	case strings.Contains(msg, "control characters"):
		_, c, _ := strings.Cut(msg, ": ")
		return "the file holds a control character (" + c + "): remove it"
	case strings.Contains(msg, "key separator"), strings.Contains(msg, "expected '.' or '='"),
		strings.Contains(msg, "key name appears blank"), strings.Contains(msg, "top-level item to end"):
		return `not a setting: write one a line, as name = "value"`
	}
	// A setting's own check (UnmarshalTOML) comes back as a ParseError
	// too, already in a user's words.
	return msg
}

func settingsError(path string, line int, msg string) error {
	loc := printable(path)
	if line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, line)
	}
	return newError(ErrSettings, loc+": "+oneLine(msg))
}

// findKeyLine returns the 1-based line where top-level key is defined, as a
// plain key (`key =`, `key.sub =`) or a table header (`[key]`, `[[key.x]]`),
// bare or quoted; 0 if not found. It is a heuristic for error messages only,
// good for the small flat files this package reads.
func findKeyLine(data, key string) int {
	for i, line := range strings.Split(data, "\n") {
		l := strings.TrimLeft(line, " \t")
		l = strings.TrimLeft(strings.TrimLeft(l, "["), " \t")
		for _, form := range []string{key, `"` + key + `"`, "'" + key + "'"} {
			rest, ok := strings.CutPrefix(l, form)
			if !ok {
				continue
			}
			rest = strings.TrimLeft(rest, " \t")
			if rest != "" && strings.ContainsRune("=.]", rune(rest[0])) {
				return i + 1
			}
		}
	}
	return 0
}
