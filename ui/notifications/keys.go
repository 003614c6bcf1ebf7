package notifications

import "charm.land/bubbles/v2/key"

// KeyMap lists the Notifications screen's bindings. Help returns a copy
// with the bindings that do nothing in the current state disabled, so the
// help bar only offers what works.
type KeyMap struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Toggle   key.Binding
	Reload   key.Binding
	Yes      key.Binding
	No       key.Binding
	// Flip changes the value proposed in the confirmation prompt.
	Flip key.Binding

	// The threshold: edit its amount, switch it on or off, apply the
	// suggestion; Save and Cancel work while its text field is open.
	Edit    key.Binding
	Enable  key.Binding
	Suggest key.Binding
	Save    key.Binding
	Cancel  key.Binding

	// webhooks are the Webhooks section's keys (webhooks.go), as Help
	// enabled them.
	webhooks []key.Binding
}

// DefaultKeyMap returns the screen's bindings: a copy of one map built
// once, since a binding's key list is only read (Help's SetEnabled changes
// the copy's own flag), so a new screen allocates nothing for them.
func DefaultKeyMap() KeyMap { return defaultKeys }

var defaultKeys = newKeyMap()

func newKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Toggle:   key.NewBinding(key.WithKeys("space", "enter"), key.WithHelp("space/enter", "toggle & save")),
		Reload:   key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-read")),
		Yes:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "save")),
		No:       key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "cancel")),
		Flip:     key.NewBinding(key.WithKeys("space", "enter"), key.WithHelp("space", "on/off")),
		Edit:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "edit threshold")),
		Enable:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "threshold on/off")),
		Suggest:  key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "apply suggestion")),
		Save:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "save threshold")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ShortHelp is the one-line help: the enabled bindings in reading order.
func (k KeyMap) ShortHelp() []key.Binding {
	return append([]key.Binding{k.Up, k.Down, k.Toggle, k.Edit, k.Enable, k.Suggest, k.Reload, k.Yes, k.No, k.Flip, k.Save, k.Cancel}, k.webhooks...)
}

// FullHelp groups the bindings: moving, acting on switches, the threshold,
// answering the prompt.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown},
		{k.Toggle, k.Reload},
		{k.Edit, k.Enable, k.Suggest, k.Save, k.Cancel},
		{k.Yes, k.No, k.Flip},
		k.webhooks,
	}
}
