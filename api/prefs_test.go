package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// mustWith sets one switch or fails the test.
func mustWith(t testing.TB, p Prefs, path PrefPath, on bool) Prefs {
	t.Helper()
	q, err := p.With(path, on)
	if err != nil {
		t.Fatalf("With(%v, %v): %v", path, on, err)
	}
	return q
}

func mustParse(t testing.TB, doc string) Prefs {
	t.Helper()
	p, err := ParsePrefs([]byte(doc))
	if err != nil {
		t.Fatalf("ParsePrefs(%q): %v", doc, err)
	}
	return p
}

// With changes the bytes of one value and nothing else, or refuses.
func TestPrefsWith(t *testing.T) {
	for _, tc := range []struct {
		name    string
		doc     string
		path    PrefPath
		on      bool
		want    string // the whole document after With
		wantErr string // instead of want: the error holds this
	}{
		{
			name: "lone surrogate in a sibling type's name",
			doc:  `{"client":{"\ud800":{"email":true},"low_credit":{"email":true}}}`,
			path: LowCreditEmail,
			want: `{"client":{"\ud800":{"email":true},"low_credit":{"email":false}}}`,
		},
		{
			name: "lone surrogate in a string value",
			doc:  `{"client":{"low_credit":{"email":false,"note":"a\ud800b\udc00"}}}`,
			path: LowCreditEmail, on: true,
			want: `{"client":{"low_credit":{"email":true,"note":"a\ud800b\udc00"}}}`,
		},
		{
			name: "invalid UTF-8 in a string",
			doc:  "{\"client\":{\"low_credit\":{\"email\":false}},\"host\":{\"caf\xe9\":{\"sms\":\"\xff\xfe\"}}}",
			path: LowCreditEmail, on: true,
			want: "{\"client\":{\"low_credit\":{\"email\":true}},\"host\":{\"caf\xe9\":{\"sms\":\"\xff\xfe\"}}}",
		},
		{
			name: "member order",
			doc:  `{"z":{},"client":{"low_credit":{"webhooks":true,"email":false},"b":{},"a":{}},"a":[2,1]}`,
			path: LowCreditWebhooks,
			want: `{"z":{},"client":{"low_credit":{"webhooks":false,"email":false},"b":{},"a":{}},"a":[2,1]}`,
		},
		{
			name: "unknown contexts, channels, number literals and whitespace",
			doc:  "{ \"host\" : { \"x\" : { \"sms\" : 1.50e3, \"pager\": -0.0 } } ,\n\t\"client\":{\"low_credit\":{\"email\":true, \"carrier_pigeon\" : true}}, \"html\":\"<&>\\u2028\"}",
			path: LowCreditEmail,
			want: "{ \"host\" : { \"x\" : { \"sms\" : 1.50e3, \"pager\": -0.0 } } ,\n\t\"client\":{\"low_credit\":{\"email\":false, \"carrier_pigeon\" : true}}, \"html\":\"<&>\\u2028\"}",
		},
		{
			name: "strings holding braces, quotes and backslashes",
			doc:  `{"a\"}":"}{\\","client":{"x":"\"{","low_credit":{"email":true}},"b":"\\\""}`,
			path: LowCreditEmail,
			want: `{"a\"}":"}{\\","client":{"x":"\"{","low_credit":{"email":false}},"b":"\\\""}`,
		},
		{
			name: "escaped key matches",
			doc:  `{"\u0063lient":{"low\u005fcredit":{"em\u0061il":true}}}`,
			path: LowCreditEmail,
			want: `{"\u0063lient":{"low\u005fcredit":{"em\u0061il":false}}}`,
		},
		{
			name: "null switch is set",
			doc:  `{"client":{"low_credit":{"email":null}}}`,
			path: LowCreditEmail, on: true,
			want: `{"client":{"low_credit":{"email":true}}}`,
		},
		{
			name: "same value gives the same bytes",
			doc:  `{"client":{"low_credit":{"email":true}}}`,
			path: LowCreditEmail, on: true,
			want: `{"client":{"low_credit":{"email":true}}}`,
		},
		{
			name: "missing channel",
			doc:  `{"client":{"low_credit":{"webhooks":false} } }`,
			path: LowCreditEmail, on: true,
			want: `{"client":{"low_credit":{"webhooks":false,"email":true} } }`,
		},
		{
			name: "missing type in an empty object",
			doc:  `{"client":{ },"host":{}}`,
			path: LowCreditEmail, on: true,
			want: `{"client":{"low_credit":{"email":true} },"host":{}}`,
		},
		{
			name: "missing context",
			doc:  `{"host":{"x":{"sms":true}}}`,
			path: LowCreditWebhooks,
			want: `{"host":{"x":{"sms":true}},"client":{"low_credit":{"webhooks":false}}}`,
		},
		{
			name: "empty document",
			doc:  ` {} `,
			path: PrefPath{"a<b", "é", "\x01"}, on: true,
			want: ` {"a\u003cb":{"é":{"\u0001":true}}} `,
		},
		{
			name: "duplicate switch: the last one changes",
			doc:  `{"client":{"low_credit":{"email":true,"email":true}}}`,
			path: LowCreditEmail,
			want: `{"client":{"low_credit":{"email":true,"email":false}}}`,
		},
		{
			name: "duplicate context: the last one is the document's",
			doc:  `{"client":{"low_credit":{"email":true}},"client":{}}`,
			path: LowCreditEmail,
			want: `{"client":{"low_credit":{"email":true}},"client":{"low_credit":{"email":false}}}`,
		},
		{
			name:    "context is a number",
			doc:     `{"client": 5, "host": {}}`,
			path:    LowCreditEmail,
			wantErr: `the preferences document's "client" is not an object; vastdash will not replace it`,
		},
		{
			name:    "context is an array",
			doc:     `{"client": [1]}`,
			path:    LowCreditEmail,
			wantErr: `"client" is not an object`,
		},
		{
			name:    "type is a string",
			doc:     `{"client":{"low_credit":"yes"}}`,
			path:    LowCreditEmail,
			wantErr: `"client" → "low_credit" is not an object`,
		},
		{
			name:    "switch is a string",
			doc:     `{"client":{"low_credit":{"email":"yes"}}}`,
			path:    LowCreditEmail,
			wantErr: `"client" → "low_credit" → "email" is not true or false`,
		},
		{
			name:    "switch is an object",
			doc:     `{"client":{"low_credit":{"email":{"on":true}}}}`,
			path:    LowCreditEmail,
			wantErr: `is not true or false`,
		},
		{
			name:    "the last duplicate is not an object",
			doc:     `{"client":{"low_credit":{"email":true}},"client":null}`,
			path:    LowCreditEmail,
			wantErr: `"client" is not an object`,
		},
		{
			name:    "switch name that is not UTF-8",
			doc:     `{}`,
			path:    PrefPath{"client", "low_credit", "\xff"},
			wantErr: "not valid UTF-8",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, tc.doc)
			q, err := p.With(tc.path, tc.on)
			if string(p.raw) != tc.doc {
				t.Fatalf("With changed its receiver: %q", p.raw)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q (document %q)", err, tc.wantErr, q.raw)
				}
				if !q.IsZero() {
					t.Errorf("a refused With returned a document: %q", q.raw)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(q.raw) != tc.want {
				t.Fatalf("got  %q\nwant %q", q.raw, tc.want)
			}
			if on, ok := q.Get(tc.path); !ok || on != tc.on {
				t.Errorf("Get = %v, %v after setting %v", on, ok, tc.on)
			}
		})
	}
}

func TestPrefsWithZeroCreatesTheDocument(t *testing.T) {
	q := mustWith(t, Prefs{}, LowCreditEmail, true)
	if string(q.raw) != `{"client":{"low_credit":{"email":true}}}` {
		t.Fatalf("got %q", q.raw)
	}
}

func TestPrefsGet(t *testing.T) {
	doc := mustParse(t, `{"client":{"low\u005fcredit":{"email":true,"webhooks":"yes","sms":null,"x":false,"x":true},"low_credit":{"email":false}},`+
		`"host":{"a":{"email":1}},"c":5}`)
	for _, tc := range []struct {
		path   PrefPath
		on, ok bool
	}{
		// Both spellings name the same type; the last one counts.
		{LowCreditEmail, false, true},
		{PrefPath{"client", "low_credit", "webhooks"}, false, false},
		{PrefPath{"host", "a", "email"}, false, false},
		{PrefPath{"c", "a", "b"}, false, false},
		{PrefPath{"nope", "a", "b"}, false, false},
	} {
		if on, ok := doc.Get(tc.path); on != tc.on || ok != tc.ok {
			t.Errorf("Get(%v) = %v, %v; want %v, %v", tc.path, on, ok, tc.on, tc.ok)
		}
	}
	dup := mustParse(t, `{"a":{"b":{"x":false,"x":true}}}`)
	if on, ok := dup.Get(PrefPath{"a", "b", "x"}); !on || !ok {
		t.Errorf("duplicate switch reads %v, %v; want the last one (true)", on, ok)
	}
	if _, ok := (Prefs{}).Get(LowCreditEmail); ok {
		t.Error("the zero Prefs holds a switch")
	}
}

func TestPrefsPaths(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
		want []PrefPath
	}{
		{
			name: "document order, non-objects and non-booleans skipped",
			doc: `{"host":{"b":{"sms":true,"x":1,"email":false},"a":[true]},"client":5,` +
				`"beta":{"t":[true],"u":{"c":true,"d":null,"e":"true"}},"z":{"y":{"\u0078":false}}}`,
			want: []PrefPath{{"host", "b", "sms"}, {"host", "b", "email"}, {"beta", "u", "c"}, {"z", "y", "x"}},
		},
		{
			name: "duplicates once, at the first position, with the last value",
			doc:  `{"a":{"b":{"c":true}},"x":{"y":{"z":true}},"a":{"b":{"d":false,"d":1}},"x":{"y":{"z":false,"w":true}}}`,
			want: []PrefPath{{"x", "y", "z"}, {"x", "y", "w"}},
		},
		{name: "empty", doc: `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := mustParse(t, tc.doc)
			if got := p.Paths(); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Paths = %q\nwant %q", got, tc.want)
			}
		})
	}
	if (Prefs{}).Paths() != nil {
		t.Error("the zero Prefs has switches")
	}
}

func TestParsePrefs(t *testing.T) {
	for _, bad := range []string{``, ` `, `null`, `[1]`, `"x"`, `5`, `{`, `{"a":1,}`, `{} {}`, "{\"a\":\"\x01\"}"} {
		if p, err := ParsePrefs([]byte(bad)); err == nil {
			t.Errorf("ParsePrefs(%q) accepted: %q", bad, p.raw)
		}
	}
	in := []byte("\n{\"a\":\"\xff\"}\t")
	p, err := ParsePrefs(in)
	if err != nil {
		t.Fatal(err)
	}
	in[2] = 'X'
	if string(p.raw) != "\n{\"a\":\"\xff\"}\t" {
		t.Fatalf("the bytes were not copied and kept: %q", p.raw)
	}
	raw, _ := p.MarshalJSON()
	raw[0] = 'X'
	if !p.Equal(mustParse(t, "\n{\"a\":\"\xff\"}\t")) {
		t.Fatal("MarshalJSON handed out the document's own bytes")
	}
	if p.Equal(mustParse(t, `{"a":"\ufffd"}`)) {
		t.Fatal("Equal compares decoded documents, not bytes")
	}
}

func TestNewPrefsAndMarshal(t *testing.T) {
	if !NewPrefs(nil).IsZero() || !(Prefs{}).IsZero() {
		t.Fatal("a document never read is not zero")
	}
	if NewPrefs(map[string]any{}).IsZero() {
		t.Fatal("an empty document read is zero")
	}
	if b, err := (Prefs{}).MarshalJSON(); err != nil || string(b) != `{}` {
		t.Fatalf("zero marshals to %q, %v", b, err)
	}
	p := NewPrefs(map[string]any{"host": map[string]any{"x": map[string]any{"n": json.Number("1.50e3")}}, "a": true})
	if string(p.raw) != `{"a":true,"host":{"x":{"n":1.50e3}}}` {
		t.Fatalf("NewPrefs wrote %q", p.raw)
	}
	doc := mustParse(t, `{ "z":1.50e3, "a":"\ud800" }`)
	if b, _ := doc.MarshalJSON(); string(b) != `{ "z":1.50e3, "a":"\ud800" }` {
		t.Fatalf("MarshalJSON wrote %q", b)
	}
	want := map[string]any{"z": json.Number("1.50e3"), "a": "\ufffd"}
	if got := doc.Document(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Document = %#v", got)
	}
}

// The PUT carries the document's bytes exactly: no compaction, no HTML
// escaping, no U+FFFD; a success without a document confirms those bytes.
func TestSetNotificationPrefsSendsTheBytes(t *testing.T) {
	const doc = "{ \"client\" : {\"low_credit\":{\"email\":true}},\n \"x\":\"<\\ud800>\xff\", \"n\": 1.50e3 }"
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, `{"success":true}`) })
	p := mustWith(t, mustParse(t, doc), LowCreditEmail, false)
	got, err := f.client(t).SetNotificationPrefs(context.Background(), 1, p)
	if err != nil {
		t.Fatal(err)
	}
	sent := f.requests()[0].Body
	want := `{"notification_preferences":` + strings.Replace(doc, "true", "false", 1) + `}`
	if string(sent) != want {
		t.Fatalf("PUT body\n%q\nwant\n%q", sent, want)
	}
	if !got.Equal(p) {
		t.Fatalf("confirmed %q, want what was sent", got.raw)
	}
}

// A document read keeps the bytes the server sent.
func TestDecodePrefsKeepsTheBytes(t *testing.T) {
	const doc = "{\"client\":{\"low_credit\":{\"email\":true}}, \"x\":\"\\ud800\xfe\", \"n\":1.50e3}"
	if got := mustPrefs(t, doc).raw; string(got) != doc {
		t.Fatalf("read %q\nsent %q", got, doc)
	}
	c := &Client{key: keyFunc(canary)}
	for _, body := range []string{`{"notification_preferences":[1]}`, `{"notification_preferences":"x"}`} {
		if _, _, err := c.decodePrefs("op", "perm", []byte(body)); err == nil {
			t.Errorf("%s accepted", body)
		}
	}
}

// FuzzPrefsWith: for any document ParsePrefs accepts and any path, With
// either refuses or changes exactly that switch: the result is valid JSON,
// reads the switch back, keeps every other switch, decodes to the old
// document with the switch set, and differs from the old bytes only where
// a literal was replaced or members were inserted.
func FuzzPrefsWith(f *testing.F) {
	for _, doc := range []string{
		`{}`,
		` { } `,
		`{"client":{"\ud800":{"email":true},"low_credit":{"email":true}}}`,
		`{"client":{"low_credit":{"email":false,"note":"a\ud800b"}}}`,
		"{\"client\":{\"low_credit\":{\"email\":false}},\"host\":{\"caf\xe9\":{\"sms\":\"\xff\"}}}",
		"{ \"host\" : { \"x\" : { \"sms\" : 1.50e3 } } ,\n\"client\":{\"low_credit\":{\"webhooks\":true, \"email\" : null}}}",
		`{"client": 5}`,
		`{"client": [1]}`,
		`{"client":{"low_credit":"yes"}}`,
		`{"client":{"low_credit":{"email":"yes"}}}`,
		`{"client":{"low\u005fcredit":{"email":true}}}`,
		`{"client":{"low_credit":{"email":true,"email":false}},"client":{"low_credit":{}}}`,
		`{"a\"}":"}{\\","client":{"x":"\"{","low_credit":{"email":true}},"b":[{"c":"]"}]}`,
		prefsDoc,
	} {
		for _, on := range []bool{true, false} {
			f.Add([]byte(doc), "client", "low_credit", "email", on)
		}
	}
	f.Add([]byte(`{"\u0000":{"":{"\ufffd":true}}}`), "\x00", "", "\ufffd", false)
	f.Add([]byte(`{"a":{"b":{"c":true}}}`), "a", "b", "\xff", true)
	f.Fuzz(func(t *testing.T, doc []byte, k0, k1, k2 string, on bool) {
		p, err := ParsePrefs(doc)
		if err != nil {
			return
		}
		path := PrefPath{k0, k1, k2}
		before := p.Paths()
		checkPaths(t, p)
		q, err := p.With(path, on)
		if !bytes.Equal(p.raw, doc) {
			t.Fatalf("With changed its receiver")
		}
		if err != nil {
			if !q.IsZero() {
				t.Fatalf("refused With returned %q", q.raw)
			}
			return
		}
		out := q.raw
		if !json.Valid(out) {
			t.Fatalf("With(%q) on %q wrote invalid JSON %q", path, doc, out)
		}
		if got, ok := q.Get(path); !ok || got != on {
			t.Fatalf("With(%q, %v) on %q reads back %v, %v: %q", path, on, doc, got, ok, out)
		}
		for _, o := range before {
			if o == path {
				continue
			}
			was, _ := p.Get(o)
			if now, ok := q.Get(o); !ok || now != was {
				t.Fatalf("With(%q) on %q moved %q from %v to %v, %v: %q", path, doc, o, was, now, ok, out)
			}
		}
		checkPaths(t, q)
		// Only a literal may go; everything else of the old bytes stays.
		pre := 0
		for pre < len(doc) && pre < len(out) && doc[pre] == out[pre] {
			pre++
		}
		suf := 0
		for suf < len(doc)-pre && suf < len(out)-pre && doc[len(doc)-1-suf] == out[len(out)-1-suf] {
			suf++
		}
		if gone := doc[pre : len(doc)-suf]; len(gone) > 5 || strings.Trim(string(gone), "truefalsn") != "" {
			t.Fatalf("With(%q) on %q dropped %q: %q", path, doc, gone, out)
		}
		// Decoded, the result is the old document with the switch set.
		want := p.Document()
		m := want
		for _, k := range path[:2] {
			next, ok := m[k].(map[string]any)
			if !ok {
				if _, exists := m[k]; exists {
					t.Fatalf("With(%q) on %q replaced %q", path, doc, k)
				}
				next = map[string]any{}
				m[k] = next
			}
			m = next
		}
		m[path[2]] = on
		if got := q.Document(); !reflect.DeepEqual(got, want) {
			t.Fatalf("With(%q) on %q decodes to %v, want %v", path, doc, got, want)
		}
	})
}

// checkPaths: every switch Paths lists reads back through Get, once each.
func checkPaths(t *testing.T, p Prefs) {
	t.Helper()
	paths := p.Paths()
	for i, path := range paths {
		if _, ok := p.Get(path); !ok {
			t.Fatalf("Paths lists %q, which Get does not read in %q", path, p.raw)
		}
		if slices.Contains(paths[:i], path) {
			t.Fatalf("Paths lists %q twice in %q", path, p.raw)
		}
	}
}
