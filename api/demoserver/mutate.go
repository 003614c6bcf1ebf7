package demoserver

import (
	"encoding/json"
	"sync"
)

// Page is a charges page being rewritten by a fault: its members,
// undecoded, so a test changes exactly what it means to.
type Page map[string]json.RawMessage

// Results returns the page's entries, undecoded (nil when they are not a
// list).
func (p Page) Results() []json.RawMessage {
	var rs []json.RawMessage
	if json.Unmarshal(p["results"], &rs) != nil {
		return nil
	}
	return rs
}

// SetResults replaces the page's entries.
func (p Page) SetResults(rs []json.RawMessage) {
	b, _ := json.Marshal(rs)
	p["results"] = b
}

// SetField sets field of the entries [from, to) to the JSON text value.
func (p Page) SetField(from, to int, field, value string) {
	rs := p.Results()
	for i := from; i < to && i < len(rs); i++ {
		var e map[string]json.RawMessage
		if json.Unmarshal(rs[i], &e) != nil {
			continue
		}
		e[field] = json.RawMessage(value)
		rs[i], _ = json.Marshal(e)
	}
	p.SetResults(rs)
}

// MutatePages returns a [Fault] Mutate that decodes each charges page the
// server answers, lets change alter it and encodes it again; n counts the
// pages answered before this one (0 for the first). A body that is not a
// page (a 429, an error) passes unchanged and is not counted. It is safe for
// the server's concurrent handlers.
func MutatePages(change func(n int, p Page)) func([]byte) []byte {
	var mu sync.Mutex
	n := 0
	return func(b []byte) []byte {
		var p Page
		if json.Unmarshal(b, &p) != nil || p["results"] == nil {
			return b
		}
		mu.Lock()
		defer mu.Unlock()
		change(n, p)
		n++
		out, err := json.Marshal(p)
		if err != nil {
			return b
		}
		return out
	}
}

// MutateFirstPage is MutatePages changing the first page only.
func MutateFirstPage(change func(p Page)) func([]byte) []byte {
	return MutatePages(func(n int, p Page) {
		if n == 0 {
			change(p)
		}
	})
}

// DropCredit is a [Fault] serving the account record without its credit
// figure: "credit": null when null, else no credit field at all.
func DropCredit(null bool) Fault {
	return Fault{Path: "/api/v0/users/current", Mutate: func(b []byte) []byte {
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) != nil {
			return b
		}
		delete(m, "credit")
		if null {
			m["credit"] = json.RawMessage("null")
		}
		out, err := json.Marshal(m)
		if err != nil {
			return b
		}
		return out
	}}
}
