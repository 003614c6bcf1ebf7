package config

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// settingsDoc is the page that documents the settings file, seen from this
// package's folder.
const settingsDoc = "../docs/settings.md"

// The example settings file of docs/settings.md loads as it is written (a
// user copies it) and names every setting the loader knows, so a new setting
// cannot go undocumented.
func TestSettingsDocShowsEverySetting(t *testing.T) {
	b, err := os.ReadFile(settingsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, after, ok := strings.Cut(doc, "## Settings\n")
	if !ok {
		t.Fatalf("%s has no Settings section", settingsDoc)
	}
	_, block, ok := strings.Cut(after, "```toml\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatalf("%s's Settings section shows no settings file", settingsDoc)
	}
	env := fakeEnv(t, nil)
	path := filepath.Join(t.TempDir(), "config.toml")
	writeTestFile(t, path, block, 0o600)
	if _, err := LoadSettings(env, path); err != nil {
		t.Errorf("%s's example does not load: %v", settingsDoc, err)
	}

	// The loader names what it knows when it meets a setting it does not.
	unknown := filepath.Join(t.TempDir(), "unknown.toml")
	writeTestFile(t, unknown, "no_such_setting = 1\n", 0o600)
	_, err = LoadSettings(env, unknown)
	m := regexp.MustCompile(`\(known: ([^)]*)\)`).FindStringSubmatch(errString(err))
	if m == nil {
		t.Fatalf("an unknown setting does not list the known ones: %v", err)
	}
	var shown []string
	for _, l := range strings.Split(block, "\n") {
		if name, _, ok := strings.Cut(l, "="); ok && !strings.HasPrefix(l, "#") {
			shown = append(shown, strings.TrimSpace(name))
		} else if strings.HasPrefix(l, "[accounts.") {
			shown = append(shown, "[accounts.NAME]") // a table per account, by its name
		} else if strings.HasPrefix(l, "[") {
			shown = append(shown, strings.TrimSpace(strings.SplitN(l, "]", 2)[0]+"]"))
		}
	}
	known := strings.Split(m[1], ", ")
	if len(known) < 5 {
		t.Fatalf("only %d known settings read from %q", len(known), m[1])
	}
	for _, k := range known {
		if !slices.Contains(shown, k) {
			t.Errorf("%s's example settings file does not show %s", settingsDoc, k)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
