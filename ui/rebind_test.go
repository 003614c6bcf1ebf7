package ui

import (
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/keymap"
)

// TestReloadReboundOnEveryScreen: reload bound to f5 is the key every
// screen answers and lists, the Overview's, the Notifications' and the
// Statement's too, and r no longer reloads anything.
func TestReloadReboundOnEveryScreen(t *testing.T) {
	m := boundModel(t, map[string][]string{"reload": {"f5"}}, 200)
	f5 := tea.KeyPressMsg{Code: tea.KeyF5}
	for _, s := range []string{"1", "2", "3", "4"} {
		m.Update(press(s))
		var keys []string
		for _, col := range m.screen(m.active).Help().FullHelp() {
			for _, kb := range col {
				keys = append(keys, kb.Help().Key)
				if key.Matches(tea.KeyPressMsg{Code: 'r', Text: "r"}, kb) {
					t.Errorf("screen %s still answers r: %q", s, kb.Help())
				}
			}
		}
		if s != "3" && !slices.Contains(keys, "f5") { // Notifications offers it once the account is read
			t.Errorf("screen %s lists %q, not f5", s, keys)
		}
	}
	m.Update(press("1"))
	if cmd := m.handleKey(f5); cmd == nil {
		t.Error("f5 on the Overview does nothing")
	}
}

// TestFooterNamesTheWayOut: with quit bound to no key the footer ends with
// force-quit's, the way out the settings must leave, on every screen.
func TestFooterNamesTheWayOut(t *testing.T) {
	m := boundModel(t, map[string][]string{"quit": {}, "force-quit": {"ctrl+q"}}, 100)
	for _, s := range []string{"1", "2", "3", "4"} {
		m.Update(press(s))
		if f := footer(m); !strings.HasSuffix(strings.TrimRight(f, " "), "ctrl+q quit, even while typing") {
			t.Errorf("screen %s: footer %q", s, f)
		}
	}
}

// boundModel is testModel width columns wide with the keys bound as user
// binds them in [keys].
func boundModel(t *testing.T, user map[string][]string, width int) *Model {
	t.Helper()
	b, err := keymap.Bind(user)
	if err != nil {
		t.Fatal(err)
	}
	m := testModel(t)
	m.ctx.Keys = b
	m = New(m.ctx, m.opts)
	m.Update(tea.WindowSizeMsg{Width: width, Height: 30})
	return m
}
