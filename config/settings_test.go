package config

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/money"
)

func TestLoadSettingsDefaults(t *testing.T) {
	t.Run("no file", func(t *testing.T) {
		s, err := LoadSettings(fakeEnv(t, nil), "")
		if err != nil {
			t.Fatal(err)
		}
		if s.Range != "30d" || s.TimeZone != "local" || s.Theme != "auto" || s.Location != time.Local || s.Path != "" {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("no home", func(t *testing.T) {
		s, err := LoadSettings(Env{Getenv: func(string) string { return "" }}, "")
		if err != nil || s.Range != "30d" {
			t.Errorf("got %+v, %v", s, err)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		env := fakeEnv(t, nil)
		p := SettingsPath(env)
		writeTestFile(t, p, "# nothing yet\n", 0o644)
		s, err := LoadSettings(env, "")
		if err != nil || s.Range != "30d" || s.Theme != "auto" || s.Path != p {
			t.Errorf("got %+v, %v", s, err)
		}
	})
}

func TestSettingsPath(t *testing.T) {
	env := fakeEnv(t, nil)
	if got, want := SettingsPath(env), filepath.Join(env.HomeDir, ".config", "vastdash", "config.toml"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	env = fakeEnv(t, map[string]string{"XDG_CONFIG_HOME": "/x/cfg"})
	if got := SettingsPath(env); got != "/x/cfg/vastdash/config.toml" {
		t.Errorf("got %s", got)
	}
}

func TestLoadSettingsValid(t *testing.T) {
	tests := []struct {
		content        string
		rng, tz, theme string
		loc            *time.Location
	}{
		{"range = \"7d\"\ntimezone = \"UTC\"\ntheme = \"dark\"\n", "7d", "UTC", "dark", time.UTC},
		{"# comment\nrange = 'last-month' # inline\n", "last-month", "local", "auto", time.Local},
		{"theme = \"light\"", "30d", "local", "light", time.Local},
		// Friendly about case, canonical on the way out.
		{"timezone = \"utc\"\ntheme = \"Dark\"\nrange = \"THIS-MONTH\"\n", "this-month", "UTC", "dark", time.UTC},
	}
	for _, tt := range tests {
		env := fakeEnv(t, nil)
		writeTestFile(t, SettingsPath(env), tt.content, 0o644)
		s, err := LoadSettings(env, "")
		if err != nil {
			t.Fatalf("%q: %v", tt.content, err)
		}
		if s.Range != tt.rng || s.TimeZone != tt.tz || s.Theme != tt.theme || s.Location != tt.loc {
			t.Errorf("%q: got %+v", tt.content, s)
		}
	}
}

// An IANA zone name works, and days then begin at midnight in Berlin (the
// package embeds time/tzdata for machines without a zone database).
func TestLoadSettingsIANAZone(t *testing.T) {
	env := fakeEnv(t, nil)
	writeTestFile(t, SettingsPath(env), "timezone = \"Europe/Berlin\"\n", 0o644)
	s, err := LoadSettings(env, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.TimeZone != "Europe/Berlin" || s.Location == nil || s.Location.String() != "Europe/Berlin" {
		t.Fatalf("got %+v", s)
	}
	if _, off := time.Date(2026, 7, 1, 12, 0, 0, 0, s.Location).Zone(); off != 2*3600 {
		t.Errorf("Berlin in July is UTC+%d s, want +7200", off)
	}
}

func TestLoadSettingsEveryPreset(t *testing.T) {
	for _, r := range rangePresets {
		env := fakeEnv(t, nil)
		writeTestFile(t, SettingsPath(env), "range = \""+r+"\"\n", 0o600)
		s, err := LoadSettings(env, "")
		if err != nil || s.Range != r {
			t.Errorf("%s: got %q, %v", r, s.Range, err)
		}
	}
}

func TestLoadSettingsExplicitPath(t *testing.T) {
	env := fakeEnv(t, nil)
	// The default file is broken; --config must make it irrelevant.
	writeTestFile(t, SettingsPath(env), "garbage", 0o644)
	p := filepath.Join(t.TempDir(), "other.toml")
	writeTestFile(t, p, "range = \"90d\"\n", 0o644)
	s, err := LoadSettings(env, p)
	if err != nil || s.Range != "90d" || s.Path != p {
		t.Fatalf("got %+v, %v", s, err)
	}

	missing := filepath.Join(t.TempDir(), "missing.toml")
	_, err = LoadSettings(env, missing)
	if !errors.Is(err, ErrSettings) || err.Error() != missing+": cannot read settings: no such file" {
		t.Errorf("err = %v", err)
	}
}

func TestLoadSettingsErrors(t *testing.T) {
	tests := []struct {
		name, content string
		line          int
		msg           string
	}{
		{"bad timezone", "range = \"7d\"\n\ntimezone = \"Mars/Olympus\"\n", 3, `timezone must be "local", "UTC" or an IANA zone name like "Europe/Berlin" (unknown zone "Mars/Olympus")`},
		{"timezone path", "timezone = \"../../etc/passwd\"\n", 1, `unknown zone "../../etc/passwd"`},
		{"timezone not a string", "timezone = 3\n", 1, `timezone must be "local", "UTC" or an IANA zone name`},
		{"bad range", "  range   = \"1y\"\n", 1, `range must be one of "24h", "7d", "30d", "90d", "this-month", "last-month"`},
		{"bad theme", "theme = \"blue\"\n", 1, `theme must be one of "auto", "dark", "light"`},
		{"wrong type", "theme = \"dark\"\nrange = 30\n", 2, `range must be one of`},
		{"table instead of value", "\n[theme]\ndark = true\n", 2, `theme must be one of`},
		{"unknown key", "range = \"7d\"\ncolour = \"red\"\n", 2, `unknown setting "colour" (known: range, timezone, theme, mouse, refresh, bell, budget, ledger, default_account, [keys], [alerts], [accounts.NAME])`},
		{"mouse not a bool", "range = \"7d\"\nmouse = \"no\"\n", 2, `mouse must be true or false`},
		{"unknown quoted key", "range = \"7d\"\n\n  \"time zone\" = \"UTC\"\n", 3, `unknown setting "time zone"`},
		{"unknown table", "theme = \"dark\"\n\n[colors]\nfg = 1\n", 3, `unknown setting "colors"`},
		{"unknown dotted key", "ui.theme = \"dark\"\n", 1, `unknown setting "ui"`},
		// The line of an escaped key is not found; the message still names it, on one line.
		{"key with newline stays one line", "\"a\\nb\" = 1\n", 0, `unknown setting "a\nb"`},
		// A syntax error in a user's words, not the parser's ("expected
		// value but found '\n' instead").
		{"malformed", "range = \"7d\"\ntheme = \"dark\n", 2, `a quoted value does not end on its line: write theme = "…"`},
		{"missing equals", "range\n", 1, `not a setting: write one a line, as name = "value"`},
		{"duplicate key", "range = \"7d\"\nrange = \"30d\"\n", 2, "range is set twice: keep one"},
		{"no value", "range = \"7d\"\ntheme =\n", 2, `the value of theme is missing or not in quotes: write theme = "…"`},
		{"bare value", "theme = dark\n", 1, `the value of theme is missing or not in quotes: write theme = "…"`},
		{"list not closed", "[keys]\nquit = [\"q\",\n", 2, `the value of keys.quit is missing or not in quotes: write quit = "…"`},
		{"table not closed", "[keys\n", 2, "a table's name is not closed: write [keys]"},
		{"budget zero", "range = \"7d\"\nbudget = \"0\"\n", 2, `budget must be a positive amount of dollars`},
		{"budget negative", "budget = -500\n", 1, `budget must be a positive amount`},
		{"budget words", "\nbudget = \"five hundred\"\n", 2, `budget must be a positive amount`},
		{"budget commas", "budget = \"1,500\"\n", 1, `budget must be a positive amount`},
		{"budget mills", "budget = \"500.125\"\n", 1, `at most two decimals`},
		{"budget too large", "budget = \"2000000000\"\n", 1, `budget must be a positive amount`},
		{"budget a bool", "budget = true\n", 1, `budget must be a positive amount`},
		{"control character", "theme = \"dark\"\x01\n", 1, `0x01`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := fakeEnv(t, nil)
			p := SettingsPath(env)
			writeTestFile(t, p, tt.content, 0o644)
			_, err := LoadSettings(env, "")
			if !errors.Is(err, ErrSettings) {
				t.Fatalf("err = %v, want ErrSettings", err)
			}
			prefix := p + ": "
			if tt.line > 0 {
				prefix = p + ":" + strconv.Itoa(tt.line) + ": "
			}
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("%q does not start with %q", err, prefix)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("%q does not say %q", err, tt.msg)
			}
			assertSafeError(t, err)
		})
	}
}

// budget = "500" is dollars a month, as a string or a number; unset there
// is no budget.
func TestLoadSettingsBudget(t *testing.T) {
	for content, want := range map[string]money.Amount{
		"": 0, "budget = \"500\"\n": 500 * money.Dollar, "budget = \" $1250.50 \"\n": 1_250_500,
		"budget = 500\n": 500 * money.Dollar, "budget = 99.5\n": 99_500,
	} {
		env := fakeEnv(t, nil)
		writeTestFile(t, SettingsPath(env), content, 0o644)
		s, err := LoadSettings(env, "")
		if err != nil || s.Budget != want {
			t.Errorf("%q: budget %v, %v; want %v", content, s.Budget, err, want)
		}
	}
}

func TestFindKeyLine(t *testing.T) {
	data := "# range = \"x\"\nrangeish = 1\n[[ theme.x ]]\n 'tz' = 1\n"
	for key, want := range map[string]int{"range": 0, "rangeish": 2, "theme": 3, "tz": 4, "absent": 0} {
		if got := findKeyLine(data, key); got != want {
			t.Errorf("%s: line %d, want %d", key, got, want)
		}
	}
}

// mouse = false turns mouse capture off, so the terminal's own selection
// works; it is on by default.
func TestLoadSettingsMouse(t *testing.T) {
	for content, want := range map[string]bool{"": true, "mouse = false\n": false, "mouse = true\n": true} {
		env := fakeEnv(t, nil)
		writeTestFile(t, SettingsPath(env), content, 0o644)
		s, err := LoadSettings(env, "")
		if err != nil || s.Mouse != want {
			t.Errorf("%q: mouse %v, %v; want %v", content, s.Mouse, err, want)
		}
	}
	if s, err := LoadSettings(fakeEnv(t, nil), ""); err != nil || !s.Mouse {
		t.Errorf("no file: mouse %v, %v", s.Mouse, err)
	}
}

// ledger = false turns the ledger off; it is on without the setting, and
// anything but a boolean is refused with its line.
func TestLedgerSetting(t *testing.T) {
	env := fakeEnv(t, nil)
	if s, err := LoadSettings(env, ""); err != nil || !s.Ledger {
		t.Fatalf("default: %+v, %v", s, err)
	}
	writeTestFile(t, SettingsPath(env), "ledger = false\n", 0o644)
	if s, err := LoadSettings(env, ""); err != nil || s.Ledger {
		t.Fatalf("ledger = false: %+v, %v", s, err)
	}
	writeTestFile(t, SettingsPath(env), "range = \"7d\"\nledger = \"off\"\n", 0o644)
	if _, err := LoadSettings(env, ""); err == nil || !strings.Contains(err.Error(), ":2: ledger must be true or false") {
		t.Fatalf("ledger = \"off\": %v", err)
	}
}

// The ledgers live in $XDG_DATA_HOME/vastdash, by default under
// ~/.local/share; a relative XDG_DATA_HOME is ignored.
func TestLedgerDir(t *testing.T) {
	env := fakeEnv(t, nil)
	if got, want := LedgerDir(env), filepath.Join(env.HomeDir, ".local", "share", "vastdash"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got := LedgerDir(fakeEnv(t, map[string]string{"XDG_DATA_HOME": "/x/data"})); got != "/x/data/vastdash" {
		t.Errorf("got %s", got)
	}
	if got := LedgerDir(fakeEnv(t, map[string]string{"XDG_DATA_HOME": "rel"})); strings.HasPrefix(got, "rel") {
		t.Errorf("a relative XDG_DATA_HOME was used: %s", got)
	}
	if got := LedgerDir(Env{Getenv: func(string) string { return "" }}); got != "" {
		t.Errorf("no home: %q", got)
	}
}
