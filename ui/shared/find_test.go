package shared

import (
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The find field's keys: typing filters by the trimmed text, enter keeps
// it, esc drops it, and the screen's own keys (↑/↓) are offered only what
// neither keep nor clear took, so a rebound clear key still clears.
func TestUpdateFind(t *testing.T) {
	keep := key.NewBinding(key.WithKeys("enter"))
	clear := key.NewBinding(key.WithKeys("esc"))
	in, _ := NewFindInput("gp", Binding(nil, "field-clear"))
	moved := 0
	nav := func(k tea.KeyPressMsg) bool {
		if k.Code == tea.KeyUp {
			moved++
			return true
		}
		return false
	}

	// The text opens selected: a move keeps it for editing.
	UpdateFind(&in, tea.KeyPressMsg{Code: tea.KeyEnd}, keep, clear, nil)
	out, text, _ := UpdateFind(&in, tea.KeyPressMsg{Code: 'u', Text: "u"}, keep, clear, nav)
	if out != FindTyped || text != "gpu" {
		t.Fatalf("typed u: %v %q", out, text)
	}
	if out, text, _ = UpdateFind(&in, tea.KeyPressMsg{Code: ' ', Text: " "}, keep, clear, nav); out != FindTyped || text != "gpu" {
		t.Fatalf("typed a space: %v %q, want the text trimmed", out, text)
	}
	if out, _, _ = UpdateFind(&in, tea.KeyPressMsg{Code: tea.KeyUp}, keep, clear, nav); out != FindOther || moved != 1 {
		t.Fatalf("up: %v, moved %d", out, moved)
	}
	if out, text, _ = UpdateFind(&in, tea.KeyPressMsg{Code: tea.KeyEnter}, keep, clear, nav); out != FindKept || text != "gpu" {
		t.Fatalf("enter: %v %q", out, text)
	}
	if out, text, _ = UpdateFind(&in, tea.KeyPressMsg{Code: tea.KeyEscape}, keep, clear, nav); out != FindCleared || text != "" {
		t.Fatalf("esc: %v %q", out, text)
	}

	// Clear rebound to ↑: it clears, and nav never sees it.
	upClears := key.NewBinding(key.WithKeys("up"))
	if out, _, _ = UpdateFind(&in, tea.KeyPressMsg{Code: tea.KeyUp}, keep, upClears, nav); out != FindCleared || moved != 1 {
		t.Fatalf("up bound to clear: %v, moved %d", out, moved)
	}
	// No nav: ↑ goes to the field (it moves nothing there).
	if out, _, _ = UpdateFind(&in, tea.KeyPressMsg{Code: tea.KeyUp}, keep, clear, nil); out != FindTyped {
		t.Fatalf("up without nav: %v", out)
	}
}
