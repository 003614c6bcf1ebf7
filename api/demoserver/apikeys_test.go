package demoserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// A key made through the endpoint works at once with exactly what it was
// given, is listed (never with its key), and stops working when deleted.
func TestAPIKeysLifecycle(t *testing.T) {
	ts := start(t, Options{})
	r := ts.do("POST", "/api/v0/auth/apikeys/", DemoKey, []byte(`{"name":"vastdash test","permissions":{"api":{"billing_read":{},"user_read":{}}}}`))
	if r.status != 200 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	var made struct {
		ID          int64           `json:"id"`
		Key         string          `json:"key"`
		Permissions json.RawMessage `json:"permissions"`
	}
	if err := json.Unmarshal(r.body, &made); err != nil || made.ID <= 0 || made.Key == "" {
		t.Fatalf("answer %s (%v)", r.body, err)
	}
	if string(made.Permissions) != `{"api":{"billing_read":{},"user_read":{}}}` {
		t.Fatalf("permissions %s", made.Permissions)
	}
	if got := ts.get("/api/v0/users/current/", made.Key); got.status != 200 {
		t.Fatalf("the new key cannot read the account: %d", got.status)
	}
	if got := ts.get("/api/v1/instances/", made.Key); got.status != http.StatusUnauthorized {
		t.Fatalf("the new key read instances it was not given: %d", got.status)
	}
	list := ts.get("/api/v0/auth/apikeys/", made.Key)
	if list.status != 200 || strings.Contains(string(list.body), made.Key) || strings.Contains(string(list.body), DemoKey) {
		t.Fatalf("list: %d %s", list.status, list.body)
	}
	ck := ts.CreatedKeys()
	if len(ck) != 1 || ck[0].ID != made.ID || ck[0].Name != "vastdash test" || strings.Join(ck[0].Perms, ",") != "billing_read,user_read" || ck[0].Deleted {
		t.Fatalf("CreatedKeys %+v", ck)
	}
	// A key without user_write cannot delete; the full one can, once.
	del := "/api/v0/auth/apikeys/" + jsonInt(made.ID) + "/"
	if got := ts.do("DELETE", del, made.Key, nil); got.status != http.StatusUnauthorized {
		t.Fatalf("a key without user_write deleted: %d", got.status)
	}
	if got := ts.do("DELETE", del, DemoKey, nil); got.status != 200 {
		t.Fatalf("delete: %d %s", got.status, got.body)
	}
	if got := ts.do("DELETE", del, DemoKey, nil); got.status != 404 {
		t.Fatalf("second delete: %d", got.status)
	}
	if got := ts.get("/api/v0/users/current/", made.Key); got.status != 404 {
		t.Fatalf("a deleted key still works: %d", got.status)
	}
	if ck := ts.CreatedKeys(); !ck[0].Deleted {
		t.Fatal("CreatedKeys does not say it was deleted")
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestAPIKeysCreateRefuses(t *testing.T) {
	ts := start(t, Options{})
	for _, tc := range []struct {
		key, body string
		status    int
		code      string
	}{
		{DemoKey, `{"permissions":{"api":{"user_read":{}}}}`, 400, "invalid_request"},
		{DemoKey, `{"name":"x","permissions":{"api":{}}}`, 400, "invalid_permissions"},
		{DemoKey, `{"name":"x","permissions":{"api":{"root":{}}}}`, 400, "invalid_permissions"},
		{DemoKey, `{"name":"x","permissions":{"api":{"user_read":{}}}} {}`, 400, "invalid_request"},
		{KeyScoped, `{"name":"x","permissions":{"api":{"user_read":{}}}}`, 401, "permission_denied"},
		{"", `{"name":"x","permissions":{"api":{"user_read":{}}}}`, 403, "auth_error"},
	} {
		r := ts.do("POST", "/api/v0/auth/apikeys/", tc.key, []byte(tc.body))
		if r.status != tc.status || !strings.Contains(string(r.body), `"error":"`+tc.code+`"`) {
			t.Errorf("%s %s: %d %s, want %d %s", tc.key, tc.body, r.status, r.body, tc.status, tc.code)
		}
	}
	// A scoped key that may make keys cannot grant what it lacks.
	ts.AddKey("writer", "writer", []string{"user_read", "user_write"})
	r := ts.do("POST", "/api/v0/auth/apikeys/", "writer", []byte(`{"name":"x","permissions":{"api":{"user_read":{},"billing_read":{}}}}`))
	if r.status != 400 || !strings.Contains(string(r.body), "missing_permissions") || !strings.Contains(string(r.body), "billing_read") {
		t.Fatalf("grant beyond its own: %d %s", r.status, r.body)
	}
	if len(ts.CreatedKeys()) != 0 {
		t.Fatal("a refused request made a key")
	}
	if r := ts.do("PUT", "/api/v0/auth/apikeys/", DemoKey, nil); r.status != 405 {
		t.Fatalf("PUT: %d", r.status)
	}
	if r := ts.get("/api/v0/auth/apikeys/7/", DemoKey); r.status != 405 || r.header.Get("Allow") != "DELETE" {
		t.Fatalf("GET one: %d %q", r.status, r.header.Get("Allow"))
	}
	if r := ts.do("DELETE", "/api/v0/auth/apikeys/x/", DemoKey, nil); r.status != 404 {
		t.Fatalf("DELETE x: %d", r.status)
	}
}

// Every demo key holds its set of permissions.
func TestDemoKeysPermissions(t *testing.T) {
	ts := start(t, Options{})
	for key, want := range map[string]map[string]int{
		KeyNoAccount: {"/api/v0/users/current/": 401, "/api/v1/instances/": 200},
		KeyScoped:    {"/api/v0/users/current/": 200, "/api/v1/instances/": 200},
		KeyReadOnly:  {"/api/v0/users/current/": 200, "/api/v1/instances/": 401},
	} {
		for path, status := range want {
			if r := ts.get(path, key); r.status != status {
				t.Errorf("%s %s: %d, want %d", key, path, r.status, status)
			}
		}
	}
}
