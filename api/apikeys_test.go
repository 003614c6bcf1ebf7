package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

const newKey = "NEWKEY-created-once-4b1d9e"

func TestCreateAPIKeySendsNameAndPermissions(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 200, `{"id": 77, "key": "`+newKey+`", "permissions": {"api": {"user_read": {}, "billing_read": {}}}}`)
	})
	c := f.client(t, noEndpointPacing()...)
	k, err := c.CreateAPIKey(context.Background(), "vastdash on host", []string{"billing_read", "user_read"})
	if err != nil {
		t.Fatal(err)
	}
	if k.ID != 77 || k.Reveal() != newKey || !k.PermissionsKnown || strings.Join(k.Permissions, ",") != "billing_read,user_read" {
		t.Fatalf("got id %d, permissions %v (%v)", k.ID, k.Permissions, k.PermissionsKnown)
	}
	r := f.requests()[0]
	if r.Method != http.MethodPost || r.Path != APIKeysPath {
		t.Fatalf("sent %s %s", r.Method, r.Path)
	}
	var body map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	want := `{"name":"vastdash on host","permissions":{"api":{"billing_read":{},"user_read":{}}}}`
	if got, _ := json.Marshal(body); string(got) != want {
		t.Fatalf("body %s, want %s", got, want)
	}
	// However it is printed, the new key does not show.
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		if s := fmt.Sprintf(verb, k); strings.Contains(s, "NEWKEY") || strings.Contains(s, fmt.Sprintf("%x", newKey)) {
			t.Errorf("%s printed the key: %s", verb, s)
		}
	}
}

func TestCreateAPIKeyRefusesBeforeSending(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, `{}`) })
	c := f.client(t, noEndpointPacing()...)
	for _, tc := range []struct {
		name  string
		perms []string
	}{
		{"", []string{"user_read"}},
		{strings.Repeat("n", MaxKeyNameLen+1), []string{"user_read"}},
		{"ok", nil},
		{"ok", []string{"user read"}},
		{"ok", []string{"USER_READ"}},
	} {
		_, err := c.CreateAPIKey(context.Background(), tc.name, tc.perms)
		apiErr(t, err, ErrUsage)
	}
	if f.count() != 0 {
		t.Fatalf("%d requests sent", f.count())
	}
}

// Every answer that does not hold a usable key is an error that never
// quotes what the server sent in the key's place. One that names the new
// key's id returns it with the error: the key was made, and is to be
// deleted.
func TestCreateAPIKeyBoundsTheAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		kind       error
		id         int64
	}{
		{"no id", `{"key": "` + newKey + `"}`, ErrMalformed, 0},
		{"negative id", `{"id": -1, "key": "` + newKey + `"}`, ErrMalformed, 0},
		{"no key", `{"id": 3}`, ErrMalformed, 3},
		{"key with a space", `{"id": 3, "key": "NEWKEY with space"}`, ErrMalformed, 3},
		{"key with an escape", `{"id": 3, "key": "NEWKEY\u001b[2J"}`, ErrMalformed, 3},
		{"key too long", `{"id": 3, "key": "NEWKEY` + strings.Repeat("x", MaxKeyLen) + `"}`, ErrMalformed, 3},
		{"not json", `<html>NEWKEY</html>`, ErrMalformed, 0},
		{"success false", `{"success": false, "error": "invalid_permissions", "msg": "bad"}`, ErrBadRequest, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, tc.body) })
			c := f.client(t, noEndpointPacing()...)
			k, err := c.CreateAPIKey(context.Background(), "vastdash", []string{"user_read"})
			e := apiErr(t, err, tc.kind)
			if strings.Contains(e.Error(), "NEWKEY") {
				t.Fatalf("the error quotes the key: %q", e)
			}
			if k.ID != tc.id || k.Reveal() != "" {
				t.Fatalf("id %d (want %d), key returned %v", k.ID, tc.id, k.Reveal() != "")
			}
		})
	}
}

func TestPermissionNamesShapes(t *testing.T) {
	for _, tc := range []struct {
		raw   string
		want  string
		known bool
	}{
		{`{"api": {"user_read": {}, "billing_read": {"constraints": {}}}}`, "billing_read,user_read", true},
		{`{"user_read": {}}`, "user_read", true},
		{`["user_write", "user_write", "misc"]`, "misc,user_write", true},
		{`"{\"api\": {\"instance_read\": {}}}"`, "instance_read", true},
		{`{"api": {"\u001b[2J": {}, "ok_one": {}}}`, "ok_one", true},
		{`false`, "", false},
		{``, "", false},
		{`{"api": 3}`, "", false},
	} {
		got, known := permissionNames(json.RawMessage(tc.raw))
		if strings.Join(got, ",") != tc.want || known != tc.known {
			t.Errorf("%s: %v %v, want %q %v", tc.raw, got, known, tc.want, tc.known)
		}
	}
}

func TestAPIKeysListIsBoundedAndSkipsBadEntries(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"apikeys": [{"id": "x"}, {"id": 0}, {"id": 5, "rights": {"api": {"user_read": {}}}, "team_name": "t\u001b[31m", "key": "NEWKEY-never"}`)
	for i := 0; i < maxListedKeys+10; i++ {
		fmt.Fprintf(&b, `, {"id": %d}`, 100+i)
	}
	b.WriteString(`]}`)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, b.String()) })
	c := f.client(t, noEndpointPacing()...)
	keys, err := c.APIKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != maxListedKeys {
		t.Fatalf("%d keys kept, want %d", len(keys), maxListedKeys)
	}
	if k := keys[0]; k.ID != 5 || strings.Join(k.Rights, ",") != "user_read" || strings.ContainsRune(k.TeamName, 0x1b) {
		t.Fatalf("first key %+v", k)
	}
}

func TestDeleteAPIKey(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			reply(w, 200, `{"success": true}`)
			return
		}
		reply(w, 404, `{"success": false, "error": "not_found", "msg": "no such key"}`)
	})
	c := f.client(t, noEndpointPacing()...)
	if err := c.DeleteAPIKey(context.Background(), 77); err != nil {
		t.Fatal(err)
	}
	if r := f.requests()[0]; r.Method != http.MethodDelete || r.Path != APIKeysPath+"77/" {
		t.Fatalf("sent %s %s", r.Method, r.Path)
	}
	apiErr(t, c.DeleteAPIKey(context.Background(), 77), ErrNotFound)
	apiErr(t, c.DeleteAPIKey(context.Background(), 0), ErrUsage)
	if f.count() != 2 {
		t.Fatalf("%d requests, want 2 (a key id of 0 is not sent)", f.count())
	}
}

// The debug log of a key's creation shows neither the new key nor the
// one that made it; outside the API-keys endpoint a "key" member is kept
// (the notification catalogue's entries are named by one).
func TestDebugLogRedactsTheCreatedKey(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == APIKeysPath {
			reply(w, 200, `{"id": 77, "key": "`+newKey+`", "permissions": {"api": {"user_read": {}}}}`)
			return
		}
		reply(w, 200, `{"success": true, "notification_types": [{"key": "client:low_credit"}]}`)
	})
	var log bytes.Buffer
	hc := *f.srv.Client()
	hc.Transport = DebugTransport(hc.Transport, &log)
	c := f.client(t, append(noEndpointPacing(), WithHTTPClient(&hc))...)
	if _, err := c.CreateAPIKey(context.Background(), "vastdash", []string{"user_read"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.NotificationTypes(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := log.String()
	if strings.Contains(out, "NEWKEY") || strings.Contains(out, canary) {
		t.Fatalf("a key reached the debug log:\n%s", out)
	}
	for _, want := range []string{`"key":"[redacted]"`, `"key":"client:low_credit"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %s:\n%s", want, out)
		}
	}
}

// A lost connection after a create was sent is not retried: the key may
// have been made, and a second POST would make another.
func TestCreateAPIKeyNotRetriedAfterReset(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		_ = conn.Close()
	})
	_, err := f.client(t, noEndpointPacing()...).CreateAPIKey(context.Background(), "vastdash", []string{"user_read"})
	apiErr(t, err, ErrTransport)
	if f.count() != 1 {
		t.Fatalf("the create was sent %d times, want 1", f.count())
	}
}

// Behind a proxy whose base URL has a path (https://proxy/vast, which
// VAST_URL accepts), the API-keys endpoint's exchanges are still known
// as such: the new key is redacted from the debug log.
func TestDebugLogRedactsTheCreatedKeyUnderABasePath(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/vast"+APIKeysPath {
			reply(w, 200, `{"id": 77, "key": "`+newKey+`", "permissions": {"api": {"user_read": {}}}}`)
			return
		}
		reply(w, 404, `{"msg": "not here"}`)
	})
	var log bytes.Buffer
	hc := *f.srv.Client()
	hc.Transport = DebugTransport(hc.Transport, &log)
	c, err := New(f.srv.URL+"/vast", canary, append(noEndpointPacing(), WithHTTPClient(&hc))...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateAPIKey(context.Background(), "vastdash", []string{"user_read"}); err != nil {
		t.Fatal(err)
	}
	if out := log.String(); strings.Contains(out, "NEWKEY") || !strings.Contains(out, `"key":"[redacted]"`) {
		t.Fatalf("the new key is not redacted from the debug log:\n%s", out)
	}
}
