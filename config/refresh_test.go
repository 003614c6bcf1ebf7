package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// refresh takes a duration from 10 s to a day, or 0 for off (as a string
// or a number); it defaults to 60 s. bell is a switch, on by default.
func TestLoadSettingsRefreshAndBell(t *testing.T) {
	for content, want := range map[string]struct {
		refresh time.Duration
		bell    bool
	}{
		"":                                 {60 * time.Second, true},
		"refresh = \"60s\"\n":              {60 * time.Second, true},
		"refresh = \"5m\"\nbell = false\n": {5 * time.Minute, false},
		"refresh = \"0\"\n":                {0, true},
		"refresh = 0\n":                    {0, true},
		"refresh = \"10s\"\n":              {10 * time.Second, true},
		"refresh = \"24h\"\nbell = true\n": {24 * time.Hour, true},
	} {
		env := fakeEnv(t, nil)
		writeTestFile(t, SettingsPath(env), content, 0o644)
		s, err := LoadSettings(env, "")
		if err != nil || s.Refresh != want.refresh || s.Bell != want.bell {
			t.Errorf("%q: refresh %v bell %v, %v; want %v %v", content, s.Refresh, s.Bell, err, want.refresh, want.bell)
		}
	}
}

// A bad refresh is one line naming the file, the line and what is allowed;
// nothing faster than the floor is taken, so a typo cannot hammer the API.
func TestLoadSettingsRefreshErrors(t *testing.T) {
	for _, content := range []string{
		"refresh = \"1s\"\n", "refresh = \"9.9s\"\n", "refresh = \"-60s\"\n", "refresh = \"25h\"\n",
		"refresh = \"soon\"\n", "refresh = 60\n", "refresh = true\n", "refresh = \"60\"\n",
		"refresh = \"9999999999999h\"\n", "refresh = \"\"\n",
	} {
		env := fakeEnv(t, nil)
		p := SettingsPath(env)
		writeTestFile(t, p, "theme = \"dark\"\n"+content, 0o644)
		_, err := LoadSettings(env, "")
		if !errors.Is(err, ErrSettings) {
			t.Errorf("%q: err %v, want ErrSettings", content, err)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, p+":2: ") || !strings.Contains(msg, `refresh must be "0" (off) or a duration from "10s" to "24h"`) || strings.Contains(msg, "\n") {
			t.Errorf("%q: %q", content, msg)
		}
	}
	env := fakeEnv(t, nil)
	writeTestFile(t, SettingsPath(env), "bell = \"off\"\n", 0o644)
	if _, err := LoadSettings(env, ""); err == nil || !strings.Contains(err.Error(), "bell must be true or false") {
		t.Errorf("bell = \"off\": %v", err)
	}
}
