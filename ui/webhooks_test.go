package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api/demoserver"
)

// The key-leak test of a webhook's signing secret: rotated through the
// real program, the secret is in the frames that show its panel and in no
// other — not on the status line, not after the panel is closed — and
// the key is in none (startRig checks every frame for it).
func TestFaultWebhookSecretShownOnlyInItsPanel(t *testing.T) {
	r := startRig(t, demoserver.Options{Contracts: 300}, nil)
	r.press("3")
	// The warning stands beside a switch once the webhooks are read.
	r.waitFor("the webhooks read", func(s string) bool {
		return strings.Contains(s, "Machine offline by webhooks · ! No webhook takes this alert")
	})
	for range 12 {
		r.prog.Send(tea.KeyPressMsg{Code: tea.KeyPgDown})
	}
	r.waitFor("the add row", func(s string) bool { return strings.Contains(s, "› + add a webhook") })
	r.press("k", "k")
	r.waitFor("ops alerts", func(s string) bool { return strings.Contains(s, "› ops alerts →") })
	r.press("R")
	r.waitFor("the question", func(s string) bool { return strings.Contains(s, "Rotate the secret of ops alerts?") })
	r.press("y")
	panel := r.waitFor("the panel", func(s string) bool { return strings.Contains(s, "New signing secret · ops alerts") })
	secret := r.srv.Webhooks()[0].Secret
	if !strings.Contains(panel, secret) {
		t.Fatalf("the panel does not show the server's secret:\n%s", panel)
	}
	r.prog.Send(tea.KeyPressMsg{Code: tea.KeyEscape})
	r.waitFor("the panel closed", func(s string) bool { return !strings.Contains(s, "New signing secret") })
	r.quit()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, frame := range r.ever {
		inPanel := strings.Contains(frame, "New signing secret")
		lines := strings.Split(frame, "\n")
		status := strings.Join(lines[max(0, len(lines)-2):], "\n") // the status line and the footer
		switch {
		case strings.Contains(status, secret[:12]):
			t.Fatalf("the status line showed the secret:\n%s", frame)
		case strings.Contains(frame, secret[6:]) && !inPanel:
			t.Fatalf("a frame without the panel showed the secret:\n%s", frame)
		}
	}
}
