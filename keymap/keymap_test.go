package keymap

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

// keysDoc is the page that documents the keys, seen from this package's
// folder: the README links to it.
const keysDoc = "../docs/keys.md"

// keysTable is the keys table of docs/keys.md: from the page's title to its
// section on rebinding keys.
func keysTable(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(keysDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "# Keys\n")
	end := strings.Index(doc, "## Keys in the settings")
	if start < 0 || end < start {
		t.Fatalf("%s has no keys table", keysDoc)
	}
	return doc[start:end]
}

// TestKeysDocListsEveryAction: the keys table of docs/keys.md names every
// action, so a user can rebind any key the help shows.
func TestKeysDocListsEveryAction(t *testing.T) {
	table := keysTable(t)
	for _, a := range Actions {
		if !strings.Contains(table, "`"+a.Name+"`") {
			t.Errorf("docs/keys.md's keys table lacks the action %q", a.Name)
		}
	}
}

func TestParseKey(t *testing.T) {
	for in, want := range map[string]string{
		"ctrl+f": "ctrl+f", "CTRL+F": "ctrl+f", "shift+ctrl+x": "ctrl+shift+x", "G": "G", "/": "/",
		"+": "+", "ctrl++": "ctrl++", "Enter": "enter", "PgDown": "pgdown", "f12": "f12", "alt+shift+tab": "alt+shift+tab", "é": "é",
	} {
		if got, err := ParseKey(in); err != nil || got != want {
			t.Errorf("ParseKey(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "ctrl+", "cmd+f", "ctrl+ctrl+f", "shift+g", "f0", "f64", "fx", "enterr", " ", "\t", "\x1b", "ctrl+fx"} {
		if got, err := ParseKey(bad); !errors.Is(err, ErrKey) {
			t.Errorf("ParseKey(%q) = %q, %v; want ErrKey", bad, got, err)
		}
	}
}

func TestBindLabels(t *testing.T) {
	b, err := Bind(map[string][]string{"down": {"n", "down", "j"}, "export": {}})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.Label("down"); got != "n/↓" {
		t.Errorf("label %q", got)
	}
	if got := b.Label("export"); got != "" {
		t.Errorf("an unbound action is labelled %q", got)
	}
	if got := Bindings(nil).Label("page-down"); got != "pgdn" {
		t.Errorf("default label %q", got)
	}
	// The picker's keys are free of the root's: tab would never reach it.
	if _, err := Bind(map[string][]string{"pick-right": {"tab"}}); err == nil {
		t.Error("pick-right on tab, the next-screen key, was accepted")
	}
}

// TestGlobalKeyClashesWithScreens: a global key acts on every screen, so a
// screen's own key bound to it too is refused, naming both: with
// statement on "a", Notifications said "a applies it" while a opened the
// Statement.
func TestGlobalKeyClashesWithScreens(t *testing.T) {
	for _, tt := range []struct {
		user map[string][]string
		want string
	}{
		{map[string][]string{"statement": {"4", "a"}}, `"a" is bound to both statement and threshold-suggest, which both act in the Notifications switches`},
		{map[string][]string{"help": {"v"}}, `"v" is bound to both help and pick-volume, which both act in the Charges type picker`},
		{map[string][]string{"charges": {"2", "enter"}}, `"enter" is bound to both charges and toggle`},
		{map[string][]string{"next-screen": {"y"}}, `"y" is bound to both next-screen and copy`},
		{map[string][]string{"quit": {"n"}}, `"n" is bound to both quit and prompt-no, which both act in the Notifications save prompt`},
		{map[string][]string{"reveal": {"r"}}, `"r" is bound to both reload and reveal, which both act in the Overview`},
		{map[string][]string{"records": {"s"}}, `"s" is bound to both sort and records, which both act in the Statement`},
		{map[string][]string{"up": {"a"}}, `"a" is bound to both up and threshold-suggest`},
	} {
		_, err := Bind(tt.user)
		var ke *Error
		if !errors.As(err, &ke) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Bind(%v) = %v, want an error saying %s", tt.user, err, tt.want)
			continue
		}
		if _, bound := tt.user[ke.Action]; !bound {
			t.Errorf("Bind(%v) blames %s, which the user did not bind", tt.user, ke.Action)
		}
	}
	// A key free on every screen the action acts on is fine: t is the
	// type picker on Charges and the threshold on Notifications, which
	// never share a place.
	if _, err := Bind(map[string][]string{"threshold-suggest": {"x"}, "reveal": {"space"}, "records": {"o"}}); err != nil {
		t.Errorf("keys free in their places were refused: %v", err)
	}
}

// TestNoWayOutIsRefused: settings that unbind every key of the only way
// to quit, to open or close the help, or out of a field are refused,
// naming an action the user unbound; one way left is enough.
func TestNoWayOutIsRefused(t *testing.T) {
	for _, tt := range []struct {
		user  map[string][]string
		blame string
		want  string
	}{
		{map[string][]string{"quit": {}, "force-quit": {}}, "quit", "quit and force-quit both have no key, and nothing else can quit the dashboard"},
		{map[string][]string{"help": {}}, "help", "help has no key, and nothing else can open the help"},
		{map[string][]string{"help-close": {}}, "help-close", "close the help"},
		{map[string][]string{"threshold-save": {}, "threshold-cancel": {}}, "threshold-save", "leave the threshold field"},
		{map[string][]string{"search-keep": {}, "search-clear": {}}, "search-keep", "leave a find field"},
		{map[string][]string{"prompt-yes": {}, "prompt-no": {}}, "prompt-yes", "answer the save prompt"},
	} {
		_, err := Bind(tt.user)
		var ke *Error
		if !errors.As(err, &ke) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Bind(%v) = %v, want an error saying %q", tt.user, err, tt.want)
			continue
		}
		if ke.Action != tt.blame {
			t.Errorf("Bind(%v) blames %s, want %s (its line is the one shown)", tt.user, ke.Action, tt.blame)
		}
	}
	for _, ok := range []map[string][]string{
		{"quit": {}}, {"force-quit": {}}, {"threshold-cancel": {}}, {"quit": {"Q"}, "force-quit": {}},
	} {
		if _, err := Bind(ok); err != nil {
			t.Errorf("Bind(%v) = %v: one way is left", ok, err)
		}
	}
}

// TestOneMeaningPerLetter: a letter or sign means one thing on every
// screen's rows — t was the type picker on Charges and the threshold on
// Notifications, e an export on Charges and the threshold's switch on
// Notifications. (Picker, prompt and field keys answer a question on
// screen and may reuse a letter: i instance, y yes.)
func TestOneMeaningPerLetter(t *testing.T) {
	const screens = Rows | Detail | Top | notifications | Months | Leaks
	owner := map[string]string{}
	for _, a := range Actions {
		if a.Where&screens == 0 {
			continue
		}
		for _, k := range a.Keys {
			if len([]rune(k)) != 1 {
				continue // enter, space, arrows: "act on this row" everywhere
			}
			if o, ok := owner[k]; ok && o != a.Name {
				t.Errorf("%q is both %s and %s on the screens' rows", k, o, a.Name)
				continue
			}
			owner[k] = a.Name
		}
	}
}

// TestKeysDocParses: the keys table of docs/keys.md writes each key as the
// settings file takes it (up, pgdown — not ↑, pgdn), so a key copied from
// it into [keys] works: every key there parses, is spelled as Bubble Tea
// spells it, and is a default key of an action of its row; and every
// default key of every action is in a row naming it.
func TestKeysDocParses(t *testing.T) {
	table := keysTable(t)
	code := func(cell string) []string {
		var out []string
		for i, part := range strings.Split(cell, "`") {
			if i%2 == 1 {
				out = append(out, part)
			}
		}
		return out
	}
	defaults := map[string][]string{}
	for _, a := range Actions {
		defaults[a.Name] = a.Keys
	}
	shown := map[string]map[string]bool{} // action → keys its rows show
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if !strings.HasPrefix(line, "| `") || len(cells) < 4 {
			continue
		}
		rows++
		actions, keys := code(cells[0]), code(cells[1])
		for _, k := range keys {
			got, err := ParseKey(k)
			if err != nil || got != k {
				t.Errorf("docs/keys.md's key %q (%v) is not one the settings take as written (%q, %v)", k, actions, got, err)
				continue
			}
			owner := false
			for _, a := range actions {
				if slices.Contains(defaults[a], k) {
					owner = true
					if shown[a] == nil {
						shown[a] = map[string]bool{}
					}
					shown[a][k] = true
				}
			}
			if !owner {
				t.Errorf("docs/keys.md gives %q to %v, whose keys it is not", k, actions)
			}
		}
	}
	if rows < len(Actions)/3 {
		t.Fatalf("only %d rows of the keys table read", rows)
	}
	for _, a := range Actions {
		for _, k := range a.Keys {
			if !shown[a.Name][k] {
				t.Errorf("docs/keys.md's keys table does not give %s its key %q", a.Name, k)
			}
		}
	}
}
