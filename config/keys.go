package config

import (
	"errors"
	"fmt"

	"github.com/vastdash/vastdash/keymap"
)

// keyList decodes one action of the [keys] table: a key ("ctrl+f") or a
// list of keys (["j", "down"]); [] unbinds the action. Each key is checked
// here, so that the decoder reports a bad one with its line.
type keyList struct {
	keys []string
}

// UnmarshalTOML implements toml.Unmarshaler.
func (l *keyList) UnmarshalTOML(v any) error {
	var raw []string
	switch v := v.(type) {
	case string:
		raw = []string{v}
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return errors.New(`a key must be written as a string, like "ctrl+f" or ["j", "down"]`)
			}
			raw = append(raw, s)
		}
	default:
		return errors.New(`a key must be written as a string, like "ctrl+f" or ["j", "down"]`)
	}
	for _, k := range raw {
		if _, err := keymap.ParseKey(k); err != nil {
			return fmt.Errorf("key %q: %v", k, err)
		}
	}
	l.keys = raw
	return nil
}

// bindKeys applies the [keys] table to the defaults. An unknown action, two
// actions sharing a key in one place (a global key and a screen's too), or
// no key left for the only way to quit, to the help or out of a field is an
// error at the line of the action named.
func bindKeys(path, data string, table map[string]keyList) (keymap.Bindings, error) {
	user := make(map[string][]string, len(table))
	for n, l := range table {
		user[n] = l.keys
	}
	b, err := keymap.Bind(user)
	if err != nil {
		line := 0
		var ke *keymap.Error
		if errors.As(err, &ke) {
			line = findKeyLine(data, ke.Action)
		}
		if line == 0 {
			line = findKeyLine(data, "keys")
		}
		return nil, settingsError(path, line, err.Error())
	}
	return b, nil
}
