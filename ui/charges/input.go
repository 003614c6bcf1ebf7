package charges

import (
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// lineInput is a one-line text field for the custom date range.
//
// It stands in for bubbles/textinput, which needs a clipboard module the
// project does not depend on. A date range needs little: typing, moving the
// cursor, deleting and pasting.
type lineInput struct {
	text []rune
	pos  int // cursor, 0..len(text)
}

// inputMax bounds what can be typed; a range needs 22 characters.
const inputMax = 64

// Set replaces the text and puts the cursor at its end.
func (in *lineInput) Set(s string) {
	in.text = []rune(s)
	in.pos = len(in.text)
}

// Value is the text typed.
func (in *lineInput) Value() string { return string(in.text) }

// Insert types s at the cursor, dropping control characters (a pasted line
// break must not end up in the field).
func (in *lineInput) Insert(s string) {
	var add []rune
	for _, r := range s {
		if unicode.IsPrint(r) && len(in.text)+len(add) < inputMax {
			add = append(add, r)
		}
	}
	in.text = append(in.text[:in.pos], append(add, in.text[in.pos:]...)...)
	in.pos += len(add)
}

// Key applies an editing key and reports whether it was one.
func (in *lineInput) Key(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "left", "ctrl+b":
		in.pos = max(in.pos-1, 0)
	case "right", "ctrl+f":
		in.pos = min(in.pos+1, len(in.text))
	case "home", "ctrl+a":
		in.pos = 0
	case "end", "ctrl+e":
		in.pos = len(in.text)
	case "backspace", "ctrl+h":
		if in.pos > 0 {
			in.text = append(in.text[:in.pos-1], in.text[in.pos:]...)
			in.pos--
		}
	case "delete", "ctrl+d":
		if in.pos < len(in.text) {
			in.text = append(in.text[:in.pos], in.text[in.pos+1:]...)
		}
	case "ctrl+u":
		in.text = append([]rune(nil), in.text[in.pos:]...)
		in.pos = 0
	case "ctrl+k":
		in.text = in.text[:in.pos]
	default:
		if k.Text == "" || k.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
			return false
		}
		in.Insert(k.Text)
	}
	return true
}

// View renders the text with the cursor cell drawn in cursor (reverse
// video), which stays visible without colour.
func (in *lineInput) View(cursor lipgloss.Style) string {
	var b strings.Builder
	b.WriteString(string(in.text[:in.pos]))
	at := " "
	if in.pos < len(in.text) {
		at = string(in.text[in.pos])
	}
	b.WriteString(cursor.Render(at))
	if in.pos < len(in.text) {
		b.WriteString(string(in.text[in.pos+1:]))
	}
	return b.String()
}
