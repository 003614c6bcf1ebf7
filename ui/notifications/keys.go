package notifications

import (
	"charm.land/bubbles/v2/key"

	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
)

// KeyMap lists the Notifications screen's bindings. Help returns a copy
// with the bindings that do nothing in the current state disabled, so the
// help bar only offers what works.
type KeyMap struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Toggle   key.Binding // on a switch: toggle and save it
	Reload   key.Binding
	Yes      key.Binding
	No       key.Binding
	// Flip changes the value proposed in the confirmation prompt.
	Flip key.Binding

	// The threshold: edit its amount, switch it on or off, apply the
	// suggestion, from any row; RowEdit and RowSwitch do the first two
	// with the cursor on it. Save and Cancel work while its text field is
	// open.
	Edit      key.Binding
	Enable    key.Binding
	Suggest   key.Binding
	RowEdit   key.Binding
	RowSwitch key.Binding
	Save      key.Binding
	Cancel    key.Binding

	// onThreshold lists the row's own keys with the list-wide ones in
	// the help: "enter/t edit threshold".
	onThreshold bool

	// webhooks are the Webhooks section's keys (webhooks.go), as Help
	// enabled them.
	webhooks []key.Binding
}

// KeyMapOf returns the screen's bindings as b binds them (nil: the
// defaults), from package keymap's one table; r is the root's reload key.
func KeyMapOf(b keymap.Bindings) KeyMap {
	k := func(name string) key.Binding { return shared.Binding(b, name) }
	return KeyMap{
		Up:        k("up"),
		Down:      k("down"),
		PageUp:    k("page-up"),
		PageDown:  k("page-down"),
		Toggle:    k("switch"),
		Reload:    shared.BindingAs(b, "reload", "re-read"),
		Yes:       k("prompt-yes"),
		No:        k("prompt-no"),
		Flip:      k("prompt-flip"),
		Edit:      k("threshold-edit"),
		Enable:    k("threshold-switch"),
		Suggest:   k("threshold-suggest"),
		RowEdit:   k("threshold-row-edit"),
		RowSwitch: k("threshold-row-switch"),
		Save:      k("threshold-save"),
		Cancel:    k("threshold-cancel"),
	}
}

// edit and enable are the help entries of the threshold's edit and switch:
// on its row, its own keys first.
func (k KeyMap) edit() key.Binding {
	if !k.onThreshold {
		return k.Edit
	}
	return shared.Joined(k.Edit.Help().Desc, k.RowEdit, k.Edit)
}

func (k KeyMap) enable() key.Binding {
	if !k.onThreshold {
		return k.Enable
	}
	return shared.Joined(k.Enable.Help().Desc, k.RowSwitch, k.Enable)
}

// ShortHelp is the one-line help: the enabled bindings in reading order.
func (k KeyMap) ShortHelp() []key.Binding {
	return append([]key.Binding{k.Up, k.Down, k.Toggle, k.edit(), k.enable(), k.Suggest, k.Reload, k.Yes, k.No, k.Flip, k.Save, k.Cancel}, k.webhooks...)
}

// FullHelp groups the bindings: moving, acting on switches, the threshold,
// answering the prompt.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown},
		{k.Toggle, k.Reload},
		{k.edit(), k.enable(), k.Suggest, k.Save, k.Cancel},
		{k.Yes, k.No, k.Flip},
		k.webhooks,
	}
}
