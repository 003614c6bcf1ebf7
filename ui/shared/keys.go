package shared

import (
	"charm.land/bubbles/v2/key"

	"github.com/vastdash/vastdash/keymap"
)

// Binding is the binding of action name (see package keymap) as b binds it
// (nil b: the defaults), labelled with those keys, so the help and the
// footer show what the user bound. An action bound to no key is disabled
// and the help leaves it out.
func Binding(b keymap.Bindings, name string) key.Binding {
	a, ok := keymap.Lookup(name)
	if !ok {
		panic("keymap: no action " + name) // a typo in the code, caught by any test
	}
	opts := []key.BindingOpt{key.WithKeys(b.Keys(name)...), key.WithHelp(b.Label(name), a.Desc)}
	if len(b.Keys(name)) == 0 {
		opts = append(opts, key.WithDisabled()) // an empty key list alone still counts as enabled
	}
	return key.NewBinding(opts...)
}

// Hint renders bindings as a muted inline hint: "enter apply · esc cancel".
func Hint(bs ...key.Binding) string {
	s := ""
	for _, b := range bs {
		if !b.Enabled() {
			continue
		}
		if s != "" {
			s += " · "
		}
		s += b.Help().Key + " " + b.Help().Desc
	}
	return s
}

// Key names action's first key as bound, for prose: "r" in "r to retry".
// An action bound to no key is named by its action name, which [keys]
// can bind.
func (c *Context) Key(action string) string {
	if k := c.Keys.First(action); k != "" {
		return k
	}
	return action
}

// Rebind gives b the keys of action as bound in keys, keeping b's own
// help text: for a screen whose bindings are not in the table but answer
// a global action (r reloads every screen), so that the key the root
// takes for the action is the one the screen answers.
func Rebind(b *key.Binding, keys keymap.Bindings, action string) {
	ks := keys.Keys(action)
	if len(ks) == 0 {
		ks = nil // no keys: disabled however often SetEnabled(true) is called
	}
	b.SetKeys(ks...)
	b.SetHelp(keys.Label(action), b.Help().Desc)
}
