package prefs

import "charm.land/bubbles/v2/key"

// KeyMap lists the Notifications screen's bindings. Help returns a copy
// with the bindings that do nothing in the current state disabled, so the
// help bar only offers what works.
type KeyMap struct {
	Up     key.Binding
	Down   key.Binding
	Toggle key.Binding
	Reload key.Binding
	Yes    key.Binding
	No     key.Binding
	// Flip changes the value proposed in the confirmation prompt.
	Flip key.Binding
}

// DefaultKeyMap returns the screen's bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:     key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("↓/j", "down")),
		Toggle: key.NewBinding(key.WithKeys("space", "enter"), key.WithHelp("space/enter", "toggle & save")),
		Reload: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-read")),
		Yes:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "save")),
		No:     key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "cancel")),
		Flip:   key.NewBinding(key.WithKeys("space", "enter"), key.WithHelp("space", "on/off")),
	}
}

// ShortHelp is the one-line help: the enabled bindings in reading order.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Toggle, k.Reload, k.Yes, k.No, k.Flip}
}

// FullHelp groups the bindings: moving, acting, answering the prompt.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down}, {k.Toggle, k.Reload}, {k.Yes, k.No, k.Flip}}
}
