package shared

import (
	"strings"

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
	return BindingAs(b, name, a.Desc)
}

// BindingAs is Binding with the help text desc: an action the table shares
// between screens (reload, copy, up) says there what it does there ("reload
// the year", "copy the month's row").
func BindingAs(b keymap.Bindings, name, desc string) key.Binding {
	if _, ok := keymap.Lookup(name); !ok {
		panic("keymap: no action " + name)
	}
	keys := b.Keys(name)
	opts := []key.BindingOpt{key.WithKeys(keys...), key.WithHelp(b.Label(name), desc)}
	if len(keys) == 0 {
		opts = append(opts, key.WithDisabled()) // an empty key list alone still counts as enabled
	}
	return key.NewBinding(opts...)
}

// Joined is one binding answering the keys of every binding in bs and
// labelled with the first key of each, for a help entry that stands for
// several actions doing one thing: "enter/t edit threshold". Disabled ones
// count for nothing; none enabled gives a disabled binding.
func Joined(desc string, bs ...key.Binding) key.Binding {
	var keys, firsts []string
	for _, b := range bs {
		if !b.Enabled() || len(b.Keys()) == 0 {
			continue
		}
		keys = append(keys, b.Keys()...)
		firsts = append(firsts, keymap.Name(b.Keys()[0]))
	}
	opts := []key.BindingOpt{key.WithKeys(keys...), key.WithHelp(strings.Join(firsts, "/"), desc)}
	if len(keys) == 0 {
		opts = append(opts, key.WithDisabled())
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
