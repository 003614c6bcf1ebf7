package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// teamKey is the lab account's key in these tests.
const teamKey = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

// accountsEnv is a home with the usual key in VAST_API_KEY, a lab key in
// keys/lab and settings naming it; extra is appended to the settings.
func accountsEnv(t *testing.T, vars map[string]string, extra string) Env {
	t.Helper()
	if vars == nil {
		vars = map[string]string{}
	}
	vars["VAST_API_KEY"] = testKey
	env := fakeEnv(t, vars)
	writeTestFile(t, filepath.Join(env.HomeDir, ".config", "vastdash", "keys", "lab"), teamKey+"\n", 0o600)
	writeTestFile(t, SettingsPath(env), "theme = \"dark\"\n\n[accounts.lab]\nkey_file = \"~/.config/vastdash/keys/lab\"\nurl = \"http://127.0.0.1:9/\"\n"+extra, 0o600)
	return env
}

func TestLoadAccountPicksKeyAndURL(t *testing.T) {
	for _, tc := range []struct {
		name      string
		vars      map[string]string
		flag      string
		extra     string
		keyFile   string
		wantKey   string
		wantURL   string
		wantName  string
		wantNamed bool
	}{
		{name: "no choice is the usual key", wantKey: testKey, wantURL: DefaultURL, wantName: "default"},
		{name: "--account lab", flag: "lab", wantKey: teamKey, wantURL: "http://127.0.0.1:9", wantName: "lab", wantNamed: true},
		{name: "VASTDASH_ACCOUNT", vars: map[string]string{EnvAccount: "lab"}, wantKey: teamKey, wantURL: "http://127.0.0.1:9", wantName: "lab", wantNamed: true},
		{name: "the flag over the variable", vars: map[string]string{EnvAccount: "lab"}, flag: "default", wantKey: testKey, wantURL: DefaultURL, wantName: "default", wantNamed: true},
		{name: "default_account", extra: "", wantKey: teamKey, wantURL: "http://127.0.0.1:9", wantName: "lab", wantNamed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := accountsEnv(t, tc.vars, "")
			if tc.name == "default_account" {
				writeTestFile(t, SettingsPath(env), "default_account = \"lab\"\n[accounts.lab]\nkey_file = \"~/.config/vastdash/keys/lab\"\nurl = \"http://127.0.0.1:9\"\n", 0o600)
			}
			c, err := Load(env, Flags{Account: tc.flag})
			if err != nil {
				t.Fatal(err)
			}
			if c.Key.Reveal() != tc.wantKey || c.BaseURL != tc.wantURL || c.Account != tc.wantName || c.Named != tc.wantNamed {
				t.Errorf("got url %s account %s named %v, key right %v", c.BaseURL, c.Account, c.Named, c.Key.Reveal() == tc.wantKey)
			}
		})
	}
}

func TestLoadAccountUnknownNamesTheConfigured(t *testing.T) {
	env := accountsEnv(t, nil, "[accounts.team-2]\nkey_file = \"keys/lab\"\n")
	_, err := Load(env, Flags{Account: "labb"})
	if !errors.Is(err, ErrAccount) {
		t.Fatalf("got %v, want ErrAccount", err)
	}
	assertSafeError(t, err)
	if !strings.Contains(err.Error(), `"labb"`) && !strings.Contains(err.Error(), "labb") || !strings.Contains(err.Error(), "default, lab, team-2") {
		t.Errorf("got %q", err)
	}
}

func TestLoadAccountTwoKeysRefused(t *testing.T) {
	env := accountsEnv(t, nil, "")
	_, err := Load(env, Flags{Account: "lab", APIKeyFile: "/nonexistent"})
	if !errors.Is(err, ErrAccount) || !strings.Contains(err.Error(), "two keys") {
		t.Fatalf("got %v", err)
	}
}

func TestLoadAccountRelativeKeyFile(t *testing.T) {
	env := accountsEnv(t, nil, "[accounts.b]\nkey_file = \"keys/lab\"\n")
	s, err := LoadSettings(env, "")
	if err != nil {
		t.Fatal(err)
	}
	a, ok := s.Account("b")
	if want := filepath.Join(filepath.Dir(SettingsPath(env)), "keys", "lab"); !ok || a.KeyFile != want {
		t.Errorf("got %+v, want key file %s", a, want)
	}
}

func TestAccountSettingsErrorsHaveLines(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"bad name", "theme = \"dark\"\n[accounts.\"a b\"]\nkey_file = \"k\"\n", ":2: account name"},
		{"no key_file", "[accounts.lab]\nurl = \"https://console.vast.ai\"\n", ":1: "},
		{"unknown field", "\n[accounts.lab]\nkey_file = \"k\"\nkey = \"x\"\n", `:4: unknown field "key"`},
		{"plain http url", "[accounts.lab]\nkey_file = \"k\"\nurl = \"http://example.com\"\n", ":3: refusing to send the API key over plain http"},
		// A bad url is named at its own line, not the table's (it was
		// said at the [accounts.NAME] line wherever the url stood).
		{"bad url, second account", "theme = \"dark\"\n\n[accounts.ok]\nkey_file = \"k\"\nurl = \"https://console.vast.ai\"\n\n[accounts.lab]\n# the lab's own server\nkey_file = \"k\"\n\nurl = \"ftp://x\"\n", ":11: bad url of an account"},
		{"url not quoted", "[accounts.lab]\nkey_file = \"k\"\nurl = 5\n", ":3: an account's url must be a URL in quotes"},
		{"bad url, inline table", "theme = \"dark\"\n[accounts]\nlab = { key_file = \"k\", url = \"ftp://x\" }\n", ":3: bad url of an account"},
		{"bad url, dotted keys", "accounts.ok.key_file = \"k\"\naccounts.ok.url = \"https://a.example\"\naccounts.lab.key_file = \"k\"\naccounts.lab.url = \"ftp://x\"\n", ":4: bad url of an account"},
		{"default_account not configured", "default_account = \"lab\"\n", ":1: default_account lab is not an account: the accounts configured are default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := fakeEnv(t, nil)
			writeTestFile(t, SettingsPath(env), tc.text, 0o600)
			_, err := LoadSettings(env, "")
			if !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want it to hold %q", err, tc.want)
			}
			assertSafeError(t, err)
		})
	}
}

// An account's name is its key file's name: a device name of Windows
// (con, nul, com1 …, in any case) is refused on every system, or
// keys\con would read the console for the key and a saved key would go
// to a device; settings are carried between systems.
func TestAccountNameIsNoDeviceName(t *testing.T) {
	for _, name := range []string{"con", "CON", "nul", "Prn", "aux", "com1", "LPT9"} {
		if ValidAccountName(name) {
			t.Errorf("%q is taken as an account's name", name)
		}
	}
	for _, name := range []string{"lab", "console", "null", "com", "com10", "lpt", "aux-2", "con_lab"} {
		if !ValidAccountName(name) {
			t.Errorf("%q is refused", name)
		}
	}
}

// Two accounts whose names differ only in case are one key file and one
// state file on macOS and Windows: the settings are refused, naming both,
// and so is a sign-in adding the second.
func TestAccountNamesDifferingInCaseAreRefused(t *testing.T) {
	env := accountsEnv(t, nil, "\n[accounts.Lab]\nkey_file = \"keys/lab\"\n")
	_, err := LoadSettings(env, "")
	if err == nil || !strings.Contains(err.Error(), "Lab and lab") {
		t.Errorf("settings with lab and Lab: %v (%+v)", err, err == nil)
	}
	env = accountsEnv(t, nil, "")
	before, _ := LoadSettings(env, "")
	if _, err := AddAccount(env, "", "LAB", filepath.Join(env.HomeDir, ".config", "vastdash", "keys", "LAB"), ""); err == nil {
		t.Error("AddAccount LAB beside lab: no error")
	}
	if after, err := LoadSettings(env, ""); err != nil || len(after.Accounts) != len(before.Accounts) {
		t.Errorf("the settings after: %v %v", after.AccountNames(), err)
	}
}
