package shared

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// The find convention every list screen shares: a "/" field of 32 cells
// holding up to 128 characters, matching any case against what is shown.

// NewFindInput is the focused find field, holding value with the cursor at
// its end, and the command that starts its cursor.
func NewFindInput(value string) (textinput.Model, tea.Cmd) {
	in := textinput.New()
	in.Prompt = "/"
	in.CharLimit = 128
	in.SetWidth(32)
	in.SetValue(value)
	in.CursorEnd()
	return in, in.Focus()
}

// Holds reports whether any of fields holds low (lower-cased; "" is held
// by everything), as shown: sanitized, so hidden control characters in a
// server string neither match nor stop a match.
func Holds(low string, fields ...string) bool {
	if low == "" {
		return true
	}
	for _, s := range fields {
		if strings.Contains(strings.ToLower(Safe(s)), low) {
			return true
		}
	}
	return false
}
