package config

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestLoadSettingsKeys: a [keys] table rebinds the actions it names, in
// Bubble Tea's spelling, and leaves every other action at its default.
func TestLoadSettingsKeys(t *testing.T) {
	env := fakeEnv(t, nil)
	writeTestFile(t, SettingsPath(env), "range = \"7d\"\n\n[keys]\nsearch = \"ctrl+f\"\ndown = [\"j\", \"down\", \"n\"]\nquit = \"alt+ctrl+Q\"\nexport = []\n", 0o600)
	s, err := LoadSettings(env, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Range != "7d" {
		t.Errorf("range %q: the rest of the file was lost", s.Range)
	}
	for name, want := range map[string][]string{
		"search": {"ctrl+f"}, "down": {"j", "down", "n"}, "quit": {"ctrl+alt+q"}, "export": {}, "up": {"up", "k"},
	} {
		if got := s.Keys.Keys(name); !slices.Equal(got, want) {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if got := s.Keys.Label("search"); got != "ctrl+f" {
		t.Errorf("search is labelled %q", got)
	}
}

// TestLoadSettingsKeysErrors: each mistake in [keys] is one line naming the
// file, the line and the action or key.
func TestLoadSettingsKeysErrors(t *testing.T) {
	tests := []struct {
		name, content string
		line          int
		msg           string
	}{
		{"unknown action", "[keys]\n\nserch = \"ctrl+f\"\n", 3, `unknown action "serch" (did you mean "search"? vastdash man lists every action)`},
		{"far from any action", "[keys]\nlaunch-rockets = \"x\"\n", 2, `unknown action "launch-rockets" (vastdash man lists every action, under KEYS)`},
		{"unparsable key", "[keys]\nsearch = \"ctrl+fx\"\n", 2, `key "ctrl+fx"`},
		{"unknown modifier", "[keys]\nsearch = \"cmd+f\"\n", 2, `unknown modifier "cmd"`},
		{"shifted letter", "[keys]\nsort = \"shift+s\"\n", 2, `write "S"`},
		{"not a string", "[keys]\nsort = 5\n", 2, "a key must be written as a string"},
		{"list of numbers", "[keys]\nsort = [5]\n", 2, "a key must be written as a string"},
		{"two actions on one key", "[keys]\nsearch = \"s\"\n", 2, `"s" is bound to both search and sort`},
		{"a global key on a row key", "theme = \"dark\"\n[keys]\nquit = \"j\"\n", 3, `"j" is bound to both quit and down`},
		{"typed in a field", "[keys]\napply = \"a\"\n", 2, `"a" is typed`},
		{"two rebound", "[keys]\ncopy = \"x\"\nexport = \"x\"\n", 3, `"x" is bound to both copy and export`},
		// Issue 27, item 13: a global key on a screen's own was taken, and
		// the screen's hint still named it.
		{"a global key on a screen key", "[keys]\nstatement = [\"4\", \"a\"]\n", 2, `"a" is bound to both statement and threshold-suggest, which both act in the Notifications switches`},
		{"a screen key on a global key", "[keys]\nquit = \"q\"\n\nreveal = \"q\"\n", 4, `"q" is bound to both quit and reveal, which both act in the Overview`},
		// Issue 27, item 12: no way left to quit, or to open the help.
		{"no way to quit", "[keys]\nsearch = \"/\"\nquit = []\nforce-quit = []\n", 3, "quit and force-quit both have no key, and nothing else can quit the dashboard"},
		{"no way to help", "theme = \"dark\"\n\n[keys]\nhelp = []\n", 4, "help has no key, and nothing else can open the help"},
		{"typed in the threshold field", "[keys]\nthreshold-cancel = \"c\"\n", 2, `"c" is typed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := fakeEnv(t, nil)
			p := SettingsPath(env)
			writeTestFile(t, p, tt.content, 0o600)
			_, err := LoadSettings(env, "")
			if !errors.Is(err, ErrSettings) {
				t.Fatalf("err = %v, want ErrSettings", err)
			}
			prefix := p + ":" + strconv.Itoa(tt.line) + ": "
			if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tt.msg) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%q: want one line starting %q and saying %q", err, prefix, tt.msg)
			}
			assertSafeError(t, err)
		})
	}
}

// TestDefaultKeysAreFree: the defaults bind no key twice in one place, so
// an empty [keys] table is not an error.
func TestDefaultKeysAreFree(t *testing.T) {
	env := fakeEnv(t, nil)
	writeTestFile(t, SettingsPath(env), "[keys]\n", 0o600)
	if _, err := LoadSettings(env, ""); err != nil {
		t.Fatal(err)
	}
}
