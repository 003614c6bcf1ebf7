package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
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
// it: context → notification type → channel → boolean.
//
// A PUT replaces the whole document, so a save must send back everything
// that was read. Prefs therefore keeps the exact JSON bytes and edits them
// in place: decoding into Go maps would turn lone surrogates and invalid
// UTF-8 into U+FFFD, reorder members and lose how numbers were written.
// The bytes are always one valid JSON object; a Prefs is never modified,
// With returns a new one.
type Prefs struct {
	raw []byte
}

// NewPrefs builds a document from decoded values (numbers may be
// json.Number), for tests and for a forced save that has nothing to start
// from. A nil map, or one encoding/json cannot encode, gives the zero Prefs,
// which SetNotificationPrefs refuses to send.
func NewPrefs(doc map[string]any) Prefs {
	if doc == nil {
		return Prefs{}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return Prefs{}
	}
	return Prefs{raw: b}
}

// ParsePrefs wraps the raw bytes of a preferences document. They must be
// valid JSON holding an object; they are copied and kept exactly.
func ParsePrefs(raw []byte) (Prefs, error) {
	if !json.Valid(raw) {
		return Prefs{}, errors.New("the preferences document is not valid JSON")
	}
	if i := skipSpace(raw, 0); i >= len(raw) || raw[i] != '{' {
		return Prefs{}, errors.New("the preferences document is not a JSON object")
	}
	return Prefs{raw: bytes.Clone(raw)}, nil
}

// IsZero reports a document that was never read.
func (p Prefs) IsZero() bool { return p.raw == nil }

// Equal reports whether both documents have exactly the same bytes.
func (p Prefs) Equal(o Prefs) bool { return bytes.Equal(p.raw, o.raw) }

// MarshalJSON writes the bare document (without the notification_preferences
// envelope) exactly as held; the zero Prefs is {}.
func (p Prefs) MarshalJSON() ([]byte, error) {
	if p.raw == nil {
		return []byte("{}"), nil
	}
	return bytes.Clone(p.raw), nil
}

// Document decodes the whole document, numbers as json.Number, for display
// and tests. It is lossy (see Prefs); never build a save from it. The zero
// Prefs gives nil.
func (p Prefs) Document() map[string]any {
	if p.raw == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(p.raw))
	dec.UseNumber()
	var doc map[string]any
	if dec.Decode(&doc) != nil {
		return nil
	}
	return doc
}

// Get reports the switch at path and whether the document holds a JSON
// true or false there. Keys are compared decoded, so "low\u005fcredit"
// matches low_credit; of duplicate keys the last one counts, as it does for
// JSON decoders.
func (p Prefs) Get(path PrefPath) (on, ok bool) {
	if p.raw == nil {
		return false, false
	}
	at := skipSpace(p.raw, 0)
	for _, k := range path {
		if at >= len(p.raw) || p.raw[at] != '{' {
			return false, false
		}
		ms, _ := members(p.raw, at)
		m, found := lastMember(ms, k)
		if !found {
			return false, false
		}
		at = m.val
	}
	return boolLiteral(p.raw[at:valueEnd(p.raw, at)])
}

// With returns a copy of the document with the switch at path set to on.
// Only the bytes of that one value change: every other member, its order,
// whitespace, escapes and even invalid UTF-8 go back to the server as read.
// Missing levels are created as new members at the end of the enclosing
// object. A level that exists but is not an object, or a switch that holds
// something other than true, false or null, is an error and nothing is
// changed: vastdash does not know what it means, and a save would destroy
// it. Of duplicate keys the last one is changed, the one decoders use.
func (p Prefs) With(path PrefPath, on bool) (Prefs, error) {
	for _, k := range path {
		if !utf8.ValidString(k) {
			// Such a key could not be written so that it reads back equal.
			return Prefs{}, fmt.Errorf("the switch name %q is not valid UTF-8", k)
		}
	}
	doc := p.raw
	if doc == nil {
		doc = []byte("{}")
	}
	lit := "false"
	if on {
		lit = "true"
	}
	at := skipSpace(doc, 0)
	for depth, k := range path {
		if at >= len(doc) || doc[at] != '{' {
			// Only reachable for the document itself, which ParsePrefs
			// and decodePrefs check; the levels below are checked as
			// they are entered.
			return Prefs{}, errors.New("the preferences document is not a JSON object")
		}
		ms, closing := members(doc, at)
		m, found := lastMember(ms, k)
		if !found {
			// Create this level and everything below it as one new
			// member at the end of the object.
			ins := newMember(path[depth:], lit)
			pos := at + 1
			if len(ms) > 0 {
				pos = ms[len(ms)-1].end
				ins = "," + ins
			}
			if closing >= len(doc) || pos > closing {
				return Prefs{}, errors.New("the preferences document is damaged")
			}
			return Prefs{raw: splice(doc, pos, pos, ins)}, nil
		}
		if depth == len(path)-1 {
			if _, isBool := boolLiteral(doc[m.val:m.end]); !isBool && string(doc[m.val:m.end]) != "null" {
				return Prefs{}, fmt.Errorf("the preferences document's %s is not true or false; vastdash will not replace it", describe(path[:depth+1]))
			}
			return Prefs{raw: splice(doc, m.val, m.end, lit)}, nil
		}
		if doc[m.val] != '{' {
			return Prefs{}, fmt.Errorf("the preferences document's %s is not an object; vastdash will not replace it", describe(path[:depth+1]))
		}
		at = m.val
	}
	return Prefs{}, errors.New("empty preference path") // unreachable: a PrefPath has three keys
}

// Paths lists every switch the document holds (every path where Get
// reports ok), in document order: contexts, then types, then channels.
// Levels that are not objects and values that are not true or false are
// skipped. A key given twice is listed once, where it first appears, with
// the value of its last occurrence (as JavaScript and Python decoders keep
// it).
func (p Prefs) Paths() []PrefPath {
	if p.raw == nil {
		return nil
	}
	var out []PrefPath
	doc := p.raw
	for _, c := range objectMembers(doc, skipSpace(doc, 0)) {
		for _, t := range objectMembers(doc, c.val) {
			for _, ch := range objectMembers(doc, t.val) {
				if _, ok := boolLiteral(doc[ch.val:ch.end]); ok {
					out = append(out, PrefPath{c.key, t.key, ch.key})
				}
			}
		}
	}
	return out
}

// member is one "key": value pair of an object: the decoded key and the
// value's bytes doc[val:end].
type member struct {
	key      string
	val, end int
}

// members splits the object whose '{' is doc[open] into its members, in
// order, duplicates included, and returns the index of its closing '}'.
// doc must be valid JSON; the scanner only finds boundaries, it does not
// validate.
func members(doc []byte, open int) (ms []member, closing int) {
	i := skipSpace(doc, open+1)
	for i < len(doc) && doc[i] == '"' {
		keyEnd := stringEnd(doc, i)
		key := decodeKey(doc[i:keyEnd])
		i = skipSpace(doc, keyEnd)
		if i < len(doc) && doc[i] == ':' {
			i = skipSpace(doc, i+1)
		}
		end := valueEnd(doc, i)
		ms = append(ms, member{key: key, val: i, end: end})
		i = skipSpace(doc, end)
		if i < len(doc) && doc[i] == ',' {
			i = skipSpace(doc, i+1)
		}
	}
	return ms, i
}

// objectMembers returns the effective members of the value at doc[at] if it
// is an object, nil otherwise: one per distinct key, at its first position,
// with its last value.
func objectMembers(doc []byte, at int) []member {
	if at >= len(doc) || doc[at] != '{' {
		return nil
	}
	ms, _ := members(doc, at)
	var out []member
	seen := make(map[string]int, len(ms))
	for _, m := range ms {
		if i, dup := seen[m.key]; dup {
			out[i].val, out[i].end = m.val, m.end
			continue
		}
		seen[m.key] = len(out)
		out = append(out, m)
	}
	return out
}

// lastMember finds the last member named key.
func lastMember(ms []member, key string) (member, bool) {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].key == key {
			return ms[i], true
		}
	}
	return member{}, false
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipSpace(doc []byte, i int) int {
	for i < len(doc) {
		switch doc[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// stringEnd returns the index just past the string whose opening quote is
// doc[i].
func stringEnd(doc []byte, i int) int {
	for i++; i < len(doc); i++ {
		switch doc[i] {
		case '\\':
			i++ // the escaped byte cannot end the string
		case '"':
			return i + 1
		}
	}
	return len(doc)
}

// valueEnd returns the index just past the value that starts at doc[i].
func valueEnd(doc []byte, i int) int {
	if i >= len(doc) {
		return len(doc)
	}
	switch doc[i] {
	case '"':
		return stringEnd(doc, i)
	case '{', '[':
		depth := 0
		for i < len(doc) {
			switch doc[i] {
			case '"':
				i = stringEnd(doc, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(doc)
	}
	// A number or a literal runs to the next delimiter.
	for i < len(doc) {
		switch doc[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// decodeKey decodes the raw key (quotes included). Keys without escapes,
// the usual case, are used as they are; the rest go through encoding/json,
// which is what makes "low\u005fcredit" equal low_credit.
func decodeKey(raw []byte) string {
	if len(raw) >= 2 {
		inner := raw[1 : len(raw)-1]
		if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			return string(inner)
		}
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		// Not reachable for a valid document; a key nobody can ask for.
		return "\x00invalid"
	}
	return s
}

// boolLiteral reads a JSON true or false.
func boolLiteral(v []byte) (on, ok bool) {
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// newMember writes "k0":{"k1":{…"kn":lit}} for the levels still missing.
func newMember(keys []string, lit string) string {
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('{')
		}
		q, _ := json.Marshal(k) // a string always encodes
		b.Write(q)
		b.WriteByte(':')
	}
	b.WriteString(lit)
	b.WriteString(strings.Repeat("}", len(keys)-1))
	return b.String()
}

// splice returns a new slice: doc with doc[from:to] replaced by s.
func splice(doc []byte, from, to int, s string) []byte {
	out := make([]byte, 0, len(doc)-(to-from)+len(s))
	out = append(out, doc[:from]...)
	out = append(out, s...)
	return append(out, doc[to:]...)
}

// describe names a path for an error message: "client" → "low_credit".
func describe(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, " → ")
}
