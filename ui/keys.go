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

	// The keys of the open help pane, which takes the keyboard until it
	// closes.
	HelpClose              key.Binding
	HelpUp, HelpDown       key.Binding
	HelpPageUp, HelpPageDn key.Binding
	HelpTop, HelpBottom    key.Binding
}

func newKeyMap() keyMap {
	return keyMap{
		Screen:    key.NewBinding(key.WithKeys("1", "2", "3", "4"), key.WithHelp("1-4", "screens")),
		Next:      key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next screen")),
		Prev:      key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous screen")),
		Reload:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reload, credit too")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit, even while typing")),

		HelpClose:  key.NewBinding(key.WithKeys("esc", "?"), key.WithHelp("?/esc", "close help")),
		HelpUp:     key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("↑/k", "scroll up")),
		HelpDown:   key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("↓/j", "scroll down")),
		HelpPageUp: key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		HelpPageDn: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn", "page down")),
		HelpTop:    key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		HelpBottom: key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
	}
}

// FullHelp lists every global key as one column, for the help pane. r is
// global too (it re-reads the credit on every screen), but each screen
// lists it with what it reloads there.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Screen, k.Next, k.Prev, k.Help, k.Quit, k.ForceQuit}}
}
