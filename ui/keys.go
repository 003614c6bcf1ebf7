package ui

import (
	"fmt"

	"charm.land/bubbles/v2/key"

	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
)

// keyMap holds the global bindings; each screen has its own for the rest.
type keyMap struct {
	Screens   [numScreens]key.Binding // in tab order
	Accounts  key.Binding             // the Accounts screen, when drawn
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

// newKeyMap returns the global bindings as b binds them (nil: the
// defaults), from package keymap's one table.
func newKeyMap(b keymap.Bindings) keyMap {
	k := func(name string) key.Binding { return shared.Binding(b, name) }
	return keyMap{
		Screens:   [numScreens]key.Binding{k("overview"), k("charges"), k("notifications"), k("statement"), k("audit")},
		Accounts:  k("accounts"),
		Next:      k("next-screen"),
		Prev:      k("prev-screen"),
		Reload:    k("reload"),
		Help:      k("help"),
		Quit:      k("quit"),
		ForceQuit: k("force-quit"),

		HelpClose:  k("help-close"),
		HelpUp:     k("help-up"),
		HelpDown:   k("help-down"),
		HelpPageUp: k("help-page-up"),
		HelpPageDn: k("help-page-down"),
		HelpTop:    k("help-top"),
		HelpBottom: k("help-bottom"),
	}
}

// screenKey returns the screen whose key press is.
func (k keyMap) screenKey(press fmt.Stringer) (screenID, bool) {
	for i, b := range k.Screens {
		if key.Matches(press, b) {
			return screenID(i), true
		}
	}
	return 0, false
}

// FullHelp lists every global key as one column, for the help pane. r is
// global too (it re-reads the credit on every screen), but each screen
// lists it with what it reloads there.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{append(append([]key.Binding{k.Accounts}, k.Screens[:]...), k.Next, k.Prev, k.Help, k.Quit, k.ForceQuit)}
}
