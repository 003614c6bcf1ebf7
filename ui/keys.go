package ui

import "charm.land/bubbles/v2/key"

// keyMap holds the global bindings; each screen has its own for the rest.
type keyMap struct {
	Screen    key.Binding
	Next      key.Binding
	Prev      key.Binding
	Reload    key.Binding
	Help      key.Binding
	Quit      key.Binding
	ForceQuit key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Screen:    key.NewBinding(key.WithKeys("1", "2", "3"), key.WithHelp("1-3", "screens")),
		Next:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next screen")),
		Prev:      key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous screen")),
		Reload:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "more keys")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
	}
}

// ShortHelp lists the global keys after the screen's own.
func (k keyMap) ShortHelp() []key.Binding { return []key.Binding{k.Next, k.Help, k.Quit} }

// FullHelp lists every global key as one column.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Screen, k.Next, k.Prev, k.Help, k.Quit, k.ForceQuit}}
}
