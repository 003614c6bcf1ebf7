package config

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestAlertsSettingsRead(t *testing.T) {
	env := fakeEnv(t, nil)
	p := SettingsPath(env)
	writeTestFile(t, p, `range = "7d"
[alerts]
to = ["ntfy://ntfy.sh/my-vast-topic", "discord://TOKEN@123456"]
runway = "12h"
credit = 25
leaks = false
budget = [0.5, 0.9]
price_increases = false
digest = "09:30"
`, 0o600)
	s, err := LoadSettings(env, "")
	if err != nil {
		t.Fatal(err)
	}
	a := s.Alerts
	if len(a.To) != 2 || a.To[0].String() != "ntfy ntfy.sh" || a.To[1].String() != "discord" {
		t.Errorf("to: %v", a.To)
	}
	if a.ToFrom != p+":3" || a.Runway != 12*time.Hour || a.Credit.Credit() != "$25.00" || a.Leaks || a.PriceIncreases ||
		len(a.Budget) != 2 || a.Budget[0] != 500 || a.Budget[1] != 900 || !a.DigestOn || a.Digest != 9*60+30 {
		t.Errorf("got %+v", a)
	}
}

func TestAlertsSettingsDefaultsAndEnv(t *testing.T) {
	s, err := LoadSettings(fakeEnv(t, map[string]string{AlertsToEnv: "ntfy://ntfy.sh/a, generic://example.com/hook"}), "")
	if err != nil {
		t.Fatal(err)
	}
	a := s.Alerts
	if len(a.To) != 2 || a.ToFrom != AlertsToEnv || a.Runway != 24*time.Hour || !a.Leaks || !a.PriceIncreases || a.DigestOn {
		t.Errorf("got %+v", a)
	}
}

func TestAlertsSettingsErrorsAtTheirLine(t *testing.T) {
	for _, c := range []struct {
		name, body string
		line       int
		want       string
	}{
		{"unknown service", "[alerts]\nto = [\"nope://SECRET@x\"]\n", 2, `unknown service "nope"`},
		{"bad runway", "[alerts]\nrunway = \"soon\"\n", 2, "alerts.runway must be"},
		{"bad share", "[alerts]\nbudget = [1.0, 0.8]\n", 2, "from the smallest up"},
		{"bad digest", "[alerts]\ndigest = \"25:00\"\n", 2, "alerts.digest must be"},
		{"unknown key", "[alerts]\nrunwya = \"1h\"\n", 2, `unknown alert setting "runwya"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := fakeEnv(t, nil)
			p := SettingsPath(env)
			writeTestFile(t, p, c.body, 0o600)
			_, err := LoadSettings(env, "")
			if !errors.Is(err, ErrSettings) {
				t.Fatalf("got %v, want a settings error", err)
			}
			if !strings.Contains(err.Error(), p+":"+string(rune('0'+c.line))+": ") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %q, want line %d and %q", err, c.line, c.want)
			}
			if strings.Contains(err.Error(), "SECRET") {
				t.Errorf("the error shows the URL's secret: %v", err)
			}
		})
	}
	_, err := LoadSettings(fakeEnv(t, map[string]string{AlertsToEnv: "ntfy://ntfy.sh/a,foo://SECRET"}), "")
	if !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), AlertsToEnv+": target 2: unknown service") || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("env: got %v", err)
	}
}
