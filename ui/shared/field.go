package shared

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// Field is a text field that opens on a value standing selected, as a
// browser's address bar does: the first character typed or pasted
// replaces the value, backspace or delete empties it, a move (←, →, home,
// end) keeps it for editing; the clear key (field-clear, ctrl+u) empties
// the field at any time. Bubbles' textinput (v2.2.1) has no selection of
// its own: the Field draws the selected value reversed and does the
// replacing itself. Before, typing appended to the value shown ("$10.00"
// then 25 gave "$10.0025").
type Field struct {
	textinput.Model
	selected bool
	clear    key.Binding
	plain    textinput.Styles // the styles with nothing selected
}

// NewField is a focused field holding value, selected, with the cursor
// at its end; clear is the binding that empties it (field-clear). Set
// Prompt, CharLimit and width on the result as for a textinput.
func NewField(value string, clear key.Binding) (Field, tea.Cmd) {
	f := Field{Model: textinput.New(), clear: clear}
	st := f.Styles()
	st.Cursor.Blink = false // a blinking cursor would wake the program twice a second
	f.plain = st
	f.SetStyles(st)
	f.SetValue(value)
	f.CursorEnd()
	f.setSelected(value != "")
	return f, f.Focus()
}

// Deselect leaves the value for typing after it: a start ("https://")
// rather than a value to replace.
func (f *Field) Deselect() { f.setSelected(false) }

// Selected reports that the value still stands selected: nothing has been
// typed or moved over since the field opened.
func (f *Field) Selected() bool { return f.selected }

// setSelected selects the value or not, drawing it reversed while it is.
func (f *Field) setSelected(on bool) {
	f.selected = on
	st := f.plain
	if on {
		st.Focused.Text = st.Focused.Text.Reverse(true)
	}
	f.SetStyles(st)
}

// Update handles msg while the field has the keyboard.
func (f *Field) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, f.clear) {
		f.SetValue("")
		f.setSelected(false)
		return nil
	}
	if f.selected {
		km := f.KeyMap
		switch m := msg.(type) {
		case tea.PasteMsg:
			f.SetValue("")
		case tea.KeyPressMsg:
			switch {
			case key.Matches(m, km.DeleteCharacterBackward, km.DeleteCharacterForward, km.DeleteWordBackward,
				km.DeleteWordForward, km.DeleteBeforeCursor, km.DeleteAfterCursor):
				f.SetValue("")
				f.setSelected(false)
				return nil
			case key.Matches(m, km.Paste) || typed(m):
				f.SetValue("")
			}
		default:
			var cmd tea.Cmd
			f.Model, cmd = f.Model.Update(msg) // the cursor's own messages
			return cmd
		}
		f.setSelected(false)
	}
	var cmd tea.Cmd
	f.Model, cmd = f.Model.Update(msg)
	return cmd
}

// typed reports a key press that types its text into a field: one that
// carries text, without ctrl or alt, and is none of the field's own keys.
func typed(k tea.KeyPressMsg) bool {
	return k.Text != "" && k.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModMeta|tea.ModSuper|tea.ModHyper) == 0
}
