package ui

import (
	"regexp"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// The help's Everywhere column lists every screen's key, the Statement's
// (4) too, which it had left out since that screen was added.
func TestHelpListsEveryScreenKey(t *testing.T) {
	m := testModel(t)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, id := range []string{"1", "2", "3", "4"} {
		m.Update(press(id))
		text, _ := helpText(t, m)
		for i, name := range screenNames {
			if !regexp.MustCompile(`(^|\s)` + string(rune('1'+i)) + `\s+` + name + `\b`).MatchString(text) {
				t.Errorf("screen %s: help does not list %d %s:\n%s", id, i+1, name, text)
			}
		}
		m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	}
}
