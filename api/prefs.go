package api

import (
	"encoding/json"
	"maps"
)

// PrefPath names one switch in the preferences document: context, notification
// type, channel.
type PrefPath [3]string

// The two switches vastdash shows.
var (
	LowCreditEmail    = PrefPath{"client", "low_credit", "email"}
	LowCreditWebhooks = PrefPath{"client", "low_credit", "webhooks"}
)

// Prefs is the whole notification preferences document as the server sent
// it: context → notification type → channel → boolean. Contexts, types,
// channels and values vastdash does not know are kept exactly, because a PUT
// replaces the whole document and must send them back untouched.
type Prefs struct {
	doc map[string]any
}

// NewPrefs wraps a decoded document (numbers as json.Number). The map is
// copied.
func NewPrefs(doc map[string]any) Prefs { return Prefs{doc: deepCopy(doc)} }

// Get reports the switch at p and whether the document holds a boolean there.
func (p Prefs) Get(path PrefPath) (on, ok bool) {
	node := any(p.doc)
	for _, k := range path {
		m, isMap := node.(map[string]any)
		if !isMap {
			return false, false
		}
		node = m[k]
	}
	on, ok = node.(bool)
	return on, ok
}

// With returns a copy of the document with the switch at path set to on and
// everything else unchanged. Missing levels are created.
func (p Prefs) With(path PrefPath, on bool) Prefs {
	doc := deepCopy(p.doc)
	if doc == nil {
		doc = map[string]any{}
	}
	m := doc
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = on
	return Prefs{doc: doc}
}

// Document returns a deep copy of the whole document.
func (p Prefs) Document() map[string]any { return deepCopy(p.doc) }

// IsZero reports a document that was never read.
func (p Prefs) IsZero() bool { return p.doc == nil }

// MarshalJSON writes the bare document (without the notification_preferences
// envelope).
func (p Prefs) MarshalJSON() ([]byte, error) {
	if p.doc == nil {
		return []byte("{}"), nil
	}
	return json.Marshal(p.doc)
}

func deepCopy(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := maps.Clone(m)
	for k, v := range out {
		if sub, ok := v.(map[string]any); ok {
			out[k] = deepCopy(sub)
		}
	}
	return out
}
