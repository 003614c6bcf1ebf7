package shared

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// The find convention every list screen shares: a "/" field of 32 cells
// holding up to 128 characters, matching any case against what is shown.

// NewFindInput is the focused find field, holding value selected (typing
// replaces it, a move keeps it) with the cursor at its end, and the
// command that starts its cursor; clear (field-clear) empties it.
func NewFindInput(value string, clear key.Binding) (Field, tea.Cmd) {
	in, cmd := NewField(value, clear)
	in.Prompt = "/"
	in.CharLimit = 128
	in.SetWidth(32)
	return in, cmd
}

// FindOutcome is what a message did to an open find field.
type FindOutcome int

// The outcomes of UpdateFind.
const (
	FindTyped   FindOutcome = iota // went to the field, which stays open: filter by its text now
	FindKept                       // the keep key: close the field, keep the text
	FindCleared                    // the clear key: close the field, drop the text
	FindOther                      // a key the screen's own handler took (nav)
)

// UpdateFind handles msg while the find field in has the keyboard: the keep
// key (enter) and the clear key (esc) close it, checked first so a rebound
// one wins; then nav (nil for none) may take a key press of the screen's
// own, such as moving over the matches; anything else is typed into the
// field. text is the field's text trimmed, what to filter by when typed.
func UpdateFind(in *Field, msg tea.Msg, keep, clear key.Binding, nav func(tea.KeyPressMsg) bool) (out FindOutcome, text string, cmd tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, clear):
			return FindCleared, "", nil
		case key.Matches(k, keep):
			return FindKept, strings.TrimSpace(in.Value()), nil
		case nav != nil && nav(k):
			return FindOther, strings.TrimSpace(in.Value()), nil
		}
	}
	cmd = in.Update(msg)
	return FindTyped, strings.TrimSpace(in.Value()), cmd
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
