package keymap

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestReadmeListsEveryAction: the README's keys table names every action,
// so a user can rebind any key the help shows.
func TestReadmeListsEveryAction(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "### Keys\n")
	end := strings.Index(readme, "### Keys in the settings")
	if start < 0 || end < start {
		t.Fatal("README has no keys table")
	}
	table := readme[start:end]
	for _, a := range Actions {
		if !strings.Contains(table, "`"+a.Name+"`") {
			t.Errorf("README's keys table lacks the action %q", a.Name)
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
