package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	env := fakeEnv(t, map[string]string{"VAST_API_KEY": testKey, "VAST_URL": "http://127.0.0.1:8080/"})
	writeTestFile(t, SettingsPath(env), "range = \"7d\"\n", 0o644)
	cfg, err := Load(env, Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Key.Reveal() != testKey || cfg.KeySource != "env VAST_API_KEY" || cfg.BaseURL != "http://127.0.0.1:8080" ||
		cfg.Settings.Range != "7d" || len(cfg.Warnings) != 0 {
		t.Errorf("got %+v", cfg)
	}
}

func TestLoadPassesFlagsAndWarnings(t *testing.T) {
	env := fakeEnv(t, nil)
	dir := t.TempDir()
	keyFile, settings := filepath.Join(dir, "key"), filepath.Join(dir, "s.toml")
	writeTestFile(t, keyFile, testKey, 0o644)
	writeTestFile(t, settings, "theme = \"light\"\n", 0o644)
	cfg, err := Load(env, Flags{APIKeyFile: keyFile, URL: "https://h.example/", ConfigFile: settings})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.KeySource != keyFile || cfg.BaseURL != "https://h.example" || cfg.Settings.Theme != "light" || cfg.Settings.Path != settings {
		t.Errorf("got %+v", cfg)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "chmod 600 "+keyFile) {
		t.Errorf("warnings %q", cfg.Warnings)
	}
}

func TestLoadErrorPriority(t *testing.T) {
	// Usage errors come before the missing key: fixing the command line first.
	tests := []struct {
		name     string
		url      string
		settings string
		want     error
	}{
		{"bad url and bad settings and no key", "http://example.com", "x = 1", ErrInsecureURL},
		{"bad settings and no key", "", "x = 1", ErrSettings},
		{"only no key", "", "", ErrNoKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := fakeEnv(t, nil)
			if tt.settings != "" {
				writeTestFile(t, SettingsPath(env), tt.settings, 0o600)
			}
			cfg, err := Load(env, Flags{URL: tt.url})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if cfg.Key != "" || cfg.BaseURL != "" {
				t.Errorf("partial config returned with the error: %+v", cfg)
			}
		})
	}
}

func TestLoadScrubsKeyFromSettingsError(t *testing.T) {
	// --config pointed at an env file by mistake: the TOML parser quoted
	// the start of the bare value it choked on, which is (part of) the key.
	// The settings' error says it in its own words now, which never quote
	// the value; Load's scrub stays behind it.
	for _, key := range []string{"deadbeef" + testKey[8:], testKey, "abcdefghijkl"} {
		env := fakeEnv(t, map[string]string{"VAST_API_KEY": key})
		p := filepath.Join(t.TempDir(), "vast.env")
		writeTestFile(t, p, "VAST_API_KEY = "+key+"\n", 0o600)

		_, raw := LoadSettings(env, p)
		if raw == nil || strings.Contains(raw.Error(), key[:6]) {
			t.Fatalf("the settings' error quotes the value: %v", raw)
		}
		_, err := Load(env, Flags{ConfigFile: p})
		if !errors.Is(err, ErrSettings) || !strings.HasPrefix(err.Error(), p+":1: ") {
			t.Fatalf("err = %v", err)
		}
		if strings.Contains(err.Error(), key[:6]) {
			t.Errorf("error shows part of the key: %s", err)
		}
	}
}

func TestScrubKeepsUnrelatedWords(t *testing.T) {
	err := newError(ErrSettings, `/home/u/config.toml:2: expected value but found "yellow" instead`)
	if got := scrub(err, Secret(testKey)); got != err {
		t.Errorf("message changed: %v", got)
	}
}
