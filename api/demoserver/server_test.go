package demoserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestAuth(t *testing.T) {
	ts := start(t, Options{})
	now := ts.Now().Unix()
	charges := chargesPath(now-day, now, nil)
	login := `{"success":false,"error":"auth_error","msg":"This action requires login."}`
	invalid := `{"success":false,"error":"auth_error","msg":"Invalid user key"}`
	denied := `{"success":false,"error":"permission_denied","msg":"API key lacks the permission for this action"}`
	prefsBody := []byte(`{"notification_preferences":{"client":{"low_credit":{"email":true,"webhooks":true}}}}`)

	wantBody(t, ts.get(charges, ""), 403, login)
	wantBody(t, ts.get("/api/v0/users/current", ""), 403, login)
	wantBody(t, ts.do("GET", "/api/v0/users/current", "", nil, "Authorization", "Basic Zm9vOmJhcg=="), 404, invalid)
	wantBody(t, ts.get(charges, "not-a-key"), 404, invalid)

	// The scoped key of the spec's example: account and prefs readable,
	// charges and prefs changes denied.
	wantBody(t, ts.get(charges, KeyNoBilling), 401, denied)
	if r := ts.get("/api/v0/users/current", KeyNoBilling); r.status != 200 {
		t.Fatalf("nobilling users/current: %d", r.status)
	}
	if r := ts.get(ts.prefsPath(), KeyNoBilling); r.status != 200 {
		t.Fatalf("nobilling prefs GET: %d", r.status)
	}
	wantBody(t, ts.do("PUT", ts.prefsPath(), KeyNoBilling, prefsBody), 401, denied)

	if r := ts.get(charges, KeyReadOnly); r.status != 200 {
		t.Fatalf("readonly charges: %d", r.status)
	}
	wantBody(t, ts.do("PUT", ts.prefsPath(), KeyReadOnly, prefsBody), 401, denied)
	if r := ts.do("PUT", ts.prefsPath(), DemoKey, prefsBody); r.status != 200 {
		t.Fatalf("demo key prefs PUT: %d", r.status)
	}

	// Someone else's prefs.
	other := fmt.Sprintf("/api/v0/users/%d/notification-prefs", ts.UserID()+1)
	r := ts.get(other, DemoKey)
	if r.status != 403 || !strings.Contains(string(r.body), `"success":false`) {
		t.Fatalf("other user's prefs: %d %s", r.status, r.body)
	}

	ts.RevokeKey(DemoKey)
	wantBody(t, ts.get(charges, DemoKey), 404, invalid)
	wantBody(t, ts.get("/api/v0/users/current", DemoKey), 404, invalid)

	// The log names keys, never carries them.
	names := map[string]bool{}
	for _, rq := range ts.Requests() {
		names[rq.KeyName] = true
		if strings.Contains(fmt.Sprintf("%+v", rq), "not-a-key") {
			t.Fatalf("raw key recorded: %+v", rq)
		}
	}
	for _, n := range []string{"", KeyNameUnknown, KeyNameDemo, KeyNameNoBilling, KeyNameReadOnly} {
		if !names[n] {
			t.Errorf("no request recorded under key name %q", n)
		}
	}
	if ts.CountStatus(401) != 3 || ts.CountStatus(403) != 3 {
		t.Fatalf("CountStatus 401=%d 403=%d", ts.CountStatus(401), ts.CountStatus(403))
	}
	ts.ResetRequests()
	if len(ts.Requests()) != 0 || ts.CountStatus(404) != 0 {
		t.Fatal("ResetRequests kept records")
	}
}

func TestAddKey(t *testing.T) {
	ts := start(t, Options{})
	ts.AddKey("custom-key", "custom", []string{"billing_read"})
	if r := ts.get(chargesPath(0, ts.Now().Unix(), nil), "custom-key"); r.status != 200 {
		t.Fatalf("custom key charges: %d", r.status)
	}
	if r := ts.get("/api/v0/users/current", "custom-key"); r.status != 401 {
		t.Fatalf("custom key without user_read: %d", r.status)
	}
	if got := ts.Requests()[0].KeyName; got != "custom" {
		t.Fatalf("KeyName %q", got)
	}
}

func TestUsersCurrent(t *testing.T) {
	ts := start(t, Options{Contracts: 2000})
	for _, key := range []string{DemoKey, KeyReadOnly} {
		r := ts.get("/api/v0/users/current/", key)
		dec := json.NewDecoder(bytes.NewReader(r.body))
		dec.UseNumber()
		var u map[string]any
		if err := dec.Decode(&u); err != nil || r.status != 200 {
			t.Fatalf("%d %v", r.status, err)
		}
		if u["email"] != "demo@vastdash.example" || u["api_key"] != key || u["balance_threshold_enabled"] != true ||
			fmt.Sprint(u["id"]) != fmt.Sprint(ts.UserID()) || u["ssh_key"] == "" || u["username"] == nil || u["fullname"] == nil {
			t.Fatalf("user record: %v", u)
		}
		if milli(t, u["credit"].(json.Number)) != ts.Credit() || milli(t, u["balance"].(json.Number)) != 0 ||
			milli(t, u["balance_threshold"].(json.Number)) <= 0 {
			t.Fatalf("credit %v balance %v threshold %v; Credit() %d", u["credit"], u["balance"], u["balance_threshold"], ts.Credit())
		}
	}
	// The credit lasts two to three weeks at the last week's pace.
	now := ts.Now().Unix()
	var spend int64
	for _, c := range ts.Contracts(Filter{Gte: now - 7*day, Lte: now}) {
		if c.End == c.Start {
			spend += c.Amount
			continue
		}
		spend += c.Amount * (c.End - max(c.Start, now-7*day)) / (c.End - c.Start)
	}
	days := float64(ts.Credit()) / (float64(spend) / 7)
	if days < 14 || days > 21 {
		t.Fatalf("credit %d lasts %.1f days at %d/week", ts.Credit(), days, spend)
	}
}

func TestPrefs(t *testing.T) {
	ts := start(t, Options{})
	r := ts.get(ts.prefsPath(), DemoKey)
	var got struct {
		Success bool           `json:"success"`
		Doc     map[string]any `json:"notification_preferences"`
	}
	if err := json.Unmarshal(r.body, &got); err != nil || !got.Success {
		t.Fatalf("GET prefs: %d %s", r.status, r.body)
	}
	if !reflect.DeepEqual(got.Doc, ts.Prefs()) {
		t.Fatal("GET differs from Prefs()")
	}
	lc := got.Doc["client"].(map[string]any)["low_credit"].(map[string]any)
	if _, ok := lc["email"].(bool); !ok || len(got.Doc) < 3 {
		t.Fatalf("prefs document too thin: %v", got.Doc)
	}

	// Prefs returns a copy.
	p := ts.Prefs()
	p["client"].(map[string]any)["low_credit"].(map[string]any)["email"] = "changed"
	if reflect.DeepEqual(p, ts.Prefs()) {
		t.Fatal("Prefs() shares state with the server")
	}

	// PUT replaces the whole document; deeper nesting is fine.
	put := `{"notification_preferences":{"client":{"low_credit":{"email":false,"webhooks":true}},"x":{"y":{"z":{"w":false}}}}}`
	r = ts.do("PUT", ts.prefsPath(), DemoKey, []byte(put), "Content-Type", "application/json; charset=utf-8")
	wantBody(t, r, 200, `{"success":true,`+put[1:])
	want := map[string]any{
		"client": map[string]any{"low_credit": map[string]any{"email": false, "webhooks": true}},
		"x":      map[string]any{"y": map[string]any{"z": map[string]any{"w": false}}},
	}
	if !reflect.DeepEqual(ts.Prefs(), want) {
		t.Fatalf("after PUT: %v", ts.Prefs())
	}
	if r := ts.get(strings.TrimSuffix(ts.prefsPath(), "/"), DemoKey); string(r.body) != `{"success":true,`+put[1:] {
		t.Fatalf("GET after PUT: %s", r.body)
	}

	for name, body := range map[string]string{
		"not json":      `{"notification_preferences":`,
		"string leaf":   `{"notification_preferences":{"client":{"low_credit":{"email":"yes"}}}}`,
		"number leaf":   `{"notification_preferences":{"client":{"low_credit":{"email":1}}}}`,
		"null leaf":     `{"notification_preferences":{"client":null}}`,
		"array":         `{"notification_preferences":[true]}`,
		"no wrapper":    `{"client":{"low_credit":{"email":true}}}`,
		"extra key":     `{"notification_preferences":{},"success":true}`,
		"trailing data": `{"notification_preferences":{}} {}`,
		"empty":         ``,
	} {
		t.Run(name, func(t *testing.T) {
			r := ts.do("PUT", ts.prefsPath(), DemoKey, []byte(body), "Content-Type", "application/json")
			if r.status != 400 || !strings.Contains(string(r.body), `"success":false`) {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if !reflect.DeepEqual(ts.Prefs(), want) {
				t.Fatal("a rejected PUT changed the document")
			}
		})
	}
	good := []byte(`{"notification_preferences":{"a":true}}`)
	if r := ts.do("PUT", ts.prefsPath(), DemoKey, good, "Content-Type", "text/plain"); r.status != 400 {
		t.Fatalf("text/plain PUT: %d", r.status)
	}
	if r := ts.do("PUT", ts.prefsPath(), DemoKey, good); r.status != 200 {
		t.Fatalf("PUT without Content-Type: %d", r.status)
	}
	big := append([]byte(`{"notification_preferences":{"a":true},"pad":"`), bytes.Repeat([]byte("x"), MaxBodyBytes)...)
	r = ts.do("PUT", ts.prefsPath(), DemoKey, append(big, `"}`...), "Content-Type", "application/json")
	if r.status != 400 || !strings.Contains(string(r.body), "too large") {
		t.Fatalf("oversized PUT: %d %s", r.status, r.body)
	}

	ts.SetPrefsGET(false)
	if r := ts.get(ts.prefsPath(), DemoKey); r.status != 405 || r.header.Get("Allow") != "PUT" {
		t.Fatalf("GET with SetPrefsGET(false): %d Allow=%q", r.status, r.header.Get("Allow"))
	}
	if r := ts.do("PUT", ts.prefsPath(), DemoKey, good); r.status != 200 {
		t.Fatalf("PUT with SetPrefsGET(false): %d", r.status)
	}
}

func TestPathsAndMethods(t *testing.T) {
	ts := start(t, Options{})
	now := ts.Now().Unix()
	cp := chargesPath(now-day, now, nil)
	for _, pair := range [][2]string{
		{cp, strings.Replace(cp, "/?", "?", 1)},
		{"/api/v0/users/current/", "/api/v0/users/current"},
		{ts.prefsPath(), strings.TrimSuffix(ts.prefsPath(), "/")},
	} {
		a, b := ts.get(pair[0], DemoKey), ts.get(pair[1], DemoKey)
		if a.status != 200 || b.status != 200 || !bytes.Equal(a.body, b.body) {
			t.Fatalf("%s vs %s: %d %d", pair[0], pair[1], a.status, b.status)
		}
	}
	r := ts.get("/api/v0/nope", DemoKey)
	if r.status != 404 || !strings.Contains(string(r.body), `"error":"not_found"`) {
		t.Fatalf("unknown path: %d %s", r.status, r.body)
	}
	r = ts.do("POST", "/api/v0/charges/", DemoKey, []byte("{}"))
	if r.status != 405 || r.header.Get("Allow") != "GET" || !strings.Contains(string(r.body), `"success":false`) {
		t.Fatalf("POST charges: %d %s", r.status, r.body)
	}
	if r := ts.do("DELETE", ts.prefsPath(), DemoKey, nil); r.status != 405 {
		t.Fatalf("DELETE prefs: %d", r.status)
	}
}

func TestPacing(t *testing.T) {
	clk := &fakeClock{t: testNow}
	ts := start(t, Options{Threshold: time.Second, Clock: clk.Now})
	now := ts.Now().Unix()
	path := chargesPath(now-day, now, nil)
	if r := ts.get(path, DemoKey); r.status != 200 {
		t.Fatalf("first: %d", r.status)
	}
	r := ts.get(path, DemoKey)
	wantBody(t, r, 429, `{"detail":"API requests too frequent endpoint threshold=1.0"}`)
	if r.header.Get("Retry-After") != "" || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		t.Fatalf("429 headers: %v", r.header)
	}
	// Pacing is per key and per endpoint.
	if r := ts.get(path, KeyReadOnly); r.status != 200 {
		t.Fatalf("other key: %d", r.status)
	}
	for i := 0; i < 3; i++ {
		if r := ts.get("/api/v0/users/current", DemoKey); r.status != 200 {
			t.Fatalf("users/current paced: %d", r.status)
		}
	}
	// A 429 does not restart the interval: 0.6 s after the accepted request
	// is too early, 1.0 s after it is fine although a 429 came in between.
	clk.Add(600 * time.Millisecond)
	if r := ts.get(path, DemoKey); r.status != 429 {
		t.Fatalf("at 0.6 s: %d", r.status)
	}
	clk.Add(400 * time.Millisecond)
	if r := ts.get(path, DemoKey); r.status != 200 {
		t.Fatalf("at 1.0 s: %d", r.status)
	}
	if ts.CountStatus(429) != 2 {
		t.Fatalf("CountStatus(429) = %d", ts.CountStatus(429))
	}
	ts.SetThreshold(-1)
	if r := ts.get(path, DemoKey); r.status != 200 {
		t.Fatalf("pacing disabled: %d", r.status)
	}
}

func TestPacingPlainText(t *testing.T) {
	clk := &fakeClock{t: testNow}
	ts := start(t, Options{Threshold: 2500 * time.Millisecond, PlainText429: true, Clock: clk.Now})
	path := chargesPath(0, ts.Now().Unix(), nil)
	ts.get(path, DemoKey)
	r := ts.get(path, DemoKey)
	wantBody(t, r, 429, "API requests too frequent endpoint threshold=2.5")
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("Content-Type %q", r.header.Get("Content-Type"))
	}
}

func TestDeterminism(t *testing.T) {
	opts := Options{Seed: 7, Contracts: 500}
	a, b := start(t, opts), start(t, opts)
	opts.Seed = 8
	c := start(t, opts)
	now := a.Now().Unix()
	for _, p := range []string{
		chargesPath(0, now, nil, "limit", "500"),
		chargesPath(now-90*day, now, nil, "format", "tree"),
		"/api/v0/users/current",
		a.prefsPath(),
	} {
		ra, rb := a.get(p, DemoKey), b.get(p, DemoKey)
		if ra.status != 200 || !bytes.Equal(ra.body, rb.body) {
			t.Fatalf("%s: same options, different answers", p)
		}
	}
	p := chargesPath(0, now, nil, "limit", "500")
	if bytes.Equal(a.get(p, DemoKey).body, c.get(p, DemoKey).body) {
		t.Fatal("other seed, same data")
	}
}

func TestHostile(t *testing.T) {
	ts := start(t, Options{Hostile: true})
	now := ts.Now().Unix()
	hasAll := func(s string) bool {
		c1 := strings.IndexFunc(s, func(r rune) bool { return r >= 0x80 && r <= 0x9f }) >= 0
		return strings.Contains(s, "\x1b") && strings.Contains(s, "\u202e") && strings.Contains(s, "\u200d") && c1
	}
	es, _ := ts.all(now-30*day, now, nil, "format", "tree", "limit", "500")
	long := 0
	var walk func(e entry)
	walk = func(e entry) {
		if !hasAll(e.Description) {
			t.Fatalf("description %q is not hostile", e.Description)
		}
		if l, ok := e.Metadata["label"].(string); ok {
			if !hasAll(l) {
				t.Fatalf("label %q is not hostile", l)
			}
			if len(l) >= 2000 {
				long++
			}
		}
		for _, c := range e.Items {
			walk(c)
		}
	}
	for _, e := range es {
		walk(e)
		if !strings.HasPrefix(src(e), e.Type+"-") && !strings.HasPrefix(src(e), "endpoint-") {
			t.Fatalf("source %q must stay parseable", src(e))
		}
	}
	if long == 0 {
		t.Fatal("no ~2 KB labels")
	}
	var u map[string]any
	if err := json.Unmarshal(ts.get("/api/v0/users/current", DemoKey).body, &u); err != nil {
		t.Fatal(err)
	}
	if !hasAll(u["username"].(string)) || !hasAll(u["fullname"].(string)) || u["api_key"] != DemoKey {
		t.Fatalf("user record not hostile or key mangled: %q %q", u["username"], u["fullname"])
	}
	found := false
	for k := range ts.Prefs() {
		found = found || strings.Contains(k, "\x1b")
	}
	if !found {
		t.Fatal("no hostile prefs key")
	}
}

func TestCloseRejectsLateRequests(t *testing.T) {
	s := New(Options{Now: testNow, Contracts: 10})
	s.Close()
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/api/v0/users/current", nil))
	if w.Code != 503 {
		t.Fatalf("after Close: %d", w.Code)
	}
}
