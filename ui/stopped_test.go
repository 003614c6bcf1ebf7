package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api/demoserver"
)

// A server that stops answering: its error is said once (it was on the
// Now line, a ✗ line and the status line, each cut, pushing the top
// contracts off), the header marks the credit it keeps as stale with its
// time, and the current rate kept is marked with its.
func TestServerStopsSaidOnce(t *testing.T) {
	r := startRig(t, demoserver.Options{Contracts: 300, Leaks: true}, nil)
	// Every load ended first — the range, the rate and the month — so that
	// r's failure is the only one: a month still loading when the server
	// stops says its own.
	r.waitFor("loaded", func(s string) bool {
		return strings.Contains(s, "contracts loaded") && strings.Contains(s, "Now ") && strings.Contains(s, " so far")
	})
	r.srv.Close()
	r.press("r")
	s := r.waitFor("the failure, all loads ended", func(s string) bool {
		return strings.Contains(s, "✗") && !strings.ContainsAny(strings.SplitN(s, "\n", 2)[0], "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
	})
	r.quit()
	if n := strings.Count(s, "cannot reach"); n != 1 {
		t.Errorf("the failure is said %d times:\n%s", n, s)
	}
	if h := strings.SplitN(s, "\n", 2)[0]; !strings.Contains(h, "stale: read at ") || !strings.Contains(h, "credit $") {
		t.Errorf("the header does not mark the credit stale: %q", h)
	}
	now := ""
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "Now ") {
			now = l
		}
	}
	if !strings.Contains(now, "as of ") || !strings.Contains(now, "/h") {
		t.Errorf("the rate kept is not marked with its time: %q\n%s", now, s)
	}
}

// r after the server stopped keeps the rows already loaded, said as stale:
// the reload's failure never replaces them with nothing ("no charges
// loaded"), nor pushes the top contracts off.
func TestReloadAfterServerStopsKeepsRows(t *testing.T) {
	r := startRig(t, demoserver.Options{Contracts: 300, Leaks: true}, nil)
	idle := func(s string) bool {
		return !strings.ContainsAny(strings.SplitN(s, "\n", 2)[0], "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
	}
	loaded := regexp.MustCompile(`all ([0-9,]+) contracts loaded`)
	s := r.waitFor("everything loaded", func(s string) bool {
		return loaded.MatchString(s) && strings.Contains(s, "Now ") && idle(s)
	})
	n := loaded.FindStringSubmatch(s)[1]
	r.srv.Close()
	r.press("r")
	s = r.waitFor("the reload failed, all loads ended", func(s string) bool {
		return strings.Contains(s, "✗") && idle(s) &&
			(strings.Contains(s, "stale: the reload failed") || strings.Contains(s, "no charges loaded"))
	})
	// So does the Charges screen's r.
	r.press("2")
	r.waitFor("the charges screen", func(s string) bool { return strings.Contains(s, "[2 Charges]") && idle(s) })
	r.press("r")
	c := r.waitFor("its reload failed", func(s string) bool {
		return idle(s) && (strings.Contains(s, "stale: the reload failed") || strings.Contains(s, "0 contracts · ") || strings.Contains(s, "loaded · stopped"))
	})
	r.quit()
	if !strings.Contains(c, "stale: the reload failed") || !strings.Contains(c, "▸ ") {
		t.Errorf("the Charges screen's failed reload threw away its rows:\n%s", c)
	}
	if strings.Contains(s, "no charges loaded") {
		t.Errorf("the failed reload threw away the rows loaded:\n%s", s)
	}
	if !strings.Contains(s, n+" contracts loaded") || !strings.Contains(s, "Top 5 contracts") {
		t.Errorf("the rows loaded or the top contracts are gone:\n%s", s)
	}
}
