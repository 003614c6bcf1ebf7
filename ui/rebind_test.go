package ui

import (
	"slices"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/keymap"
)

// TestReloadReboundOnEveryScreen: reload bound to f5 is the key every
// screen answers and lists, the Overview's, the Notifications' and the
// Statement's too, and r no longer reloads anything.
func TestReloadReboundOnEveryScreen(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{"reload": {"f5"}})
	if err != nil {
		t.Fatal(err)
	}
	m := testModel(t)
	m.ctx.Keys = b
	m = New(m.ctx, m.opts)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 30})
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
