package demoserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestSettingsPUT(t *testing.T) {
	ts := start(t, Options{SettingsThreshold: -1})
	put := func(body string) response { return ts.do("PUT", "/api/v0/users/", DemoKey, []byte(body)) }
	wantBody(t, put(`{"balance_threshold":12.5,"balance_threshold_enabled":false}`), 200, `{"success":true}`)
	if m, on := ts.BalanceThreshold(); m != 12_500 || on {
		t.Fatalf("holds %d %v", m, on)
	}
	var u struct {
		Threshold json.Number `json:"balance_threshold"`
		Enabled   bool        `json:"balance_threshold_enabled"`
	}
	if err := json.Unmarshal(ts.get("/api/v0/users/current/", DemoKey).body, &u); err != nil {
		t.Fatal(err)
	}
	if u.Threshold != "12.5" || u.Enabled {
		t.Fatalf("users/current says %s %v", u.Threshold, u.Enabled)
	}
	// Without the slash too; one field alone leaves the other.
	if r := ts.do("PUT", "/api/v0/users", DemoKey, []byte(`{"balance_threshold_enabled":true}`)); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if m, on := ts.BalanceThreshold(); m != 12_500 || !on {
		t.Fatalf("holds %d %v", m, on)
	}

	for _, body := range []string{
		``, `[]`, `null`, `{}`, `{"balance_threshold":1} x`, `{"balance_threshold":1}{}`,
		`{"balance_threshold":-1}`, `{"balance_threshold":"5"}`, `{"balance_threshold":1.2345}`,
		`{"balance_threshold":1e3}`, `{"balance_threshold":1000000.001}`, `{"balance_threshold":null}`,
		`{"balance_threshold_enabled":1}`, `{"balance_threshold_enabled":"true"}`,
		`{"balance_threshold":1,"autobill_threshold":2}`, `{"balance_threshold":1,"balance_threshold":2}`,
		`{"credit":1000}`, `{"api_key":"x"}`,
	} {
		r := put(body)
		if r.status != 400 || !strings.Contains(string(r.body), `"success":false`) {
			t.Errorf("%s: got %d %s, want 400", body, r.status, r.body)
		}
	}
	if m, on := ts.BalanceThreshold(); m != 12_500 || !on {
		t.Fatalf("a refused body changed the settings: %d %v", m, on)
	}
	if r := ts.do("PUT", "/api/v0/users/", DemoKey, []byte(`{"balance_threshold":1}`), "Content-Type", "text/plain"); r.status != 400 {
		t.Fatalf("text/plain: %d", r.status)
	}
	if r := ts.get("/api/v0/users/", DemoKey); r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "PUT" {
		t.Fatalf("GET: %d %q", r.status, r.header.Get("Allow"))
	}
}

func TestSettingsPermission(t *testing.T) {
	ts := start(t, Options{SettingsThreshold: -1})
	for _, key := range []string{KeyNoBilling, KeyReadOnly} {
		wantBody(t, ts.do("PUT", "/api/v0/users/", key, []byte(`{"balance_threshold":1}`)), 401,
			`{"success":false,"error":"permission_denied","msg":"API key lacks the permission for this action"}`)
	}
	if r := ts.do("PUT", "/api/v0/users/", "", []byte(`{"balance_threshold":1}`)); r.status != 403 {
		t.Fatalf("no key: %d", r.status)
	}
	if m, _ := ts.BalanceThreshold(); m != 50_000 {
		t.Fatalf("a refused key changed the threshold to %d", m)
	}
}

// Each endpoint has its own pacing budget per key: a settings PUT does not
// use up the charges or instances budget, and only accepted requests move
// the clock.
func TestEndpointPacing(t *testing.T) {
	clk := &fakeClock{t: testNow}
	ts := start(t, Options{Clock: clk.Now, Threshold: time.Second, SettingsThreshold: 5 * time.Second})
	put := func() response { return ts.do("PUT", "/api/v0/users/", DemoKey, []byte(`{"balance_threshold":1}`)) }
	if r := put(); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	clk.Add(4900 * time.Millisecond)
	wantBody(t, put(), 429, `{"detail":"API requests too frequent endpoint threshold=5.0"}`)
	if r := ts.get("/api/v0/notification-types/", DemoKey); r.status != 200 {
		t.Fatalf("types paced by the settings budget: %d", r.status)
	}
	if r := ts.get("/api/v1/instances/", DemoKey); r.status != 200 {
		t.Fatalf("instances paced by the settings budget: %d", r.status)
	}
	clk.Add(100 * time.Millisecond)
	if r := put(); r.status != 200 {
		t.Fatalf("after 5 s: %d", r.status)
	}
	// Another key has its own budget.
	ts.AddKey("other", "other", nil)
	if r := ts.do("PUT", "/api/v0/users/", "other", []byte(`{"balance_threshold":1}`)); r.status != 200 {
		t.Fatalf("other key: %d", r.status)
	}
	clk.Add(time.Second)
	wantBody(t, ts.get("/api/v0/notification-types/", DemoKey), 429, `{"detail":"API requests too frequent endpoint threshold=2.0"}`)
	wantBody(t, ts.get("/api/v1/instances/", DemoKey), 200, string(ts.get("/api/v1/instances/", "other").body))
}

func TestEndpointPacingPlainText(t *testing.T) {
	clk := &fakeClock{t: testNow}
	ts := start(t, Options{Clock: clk.Now, PlainText429: true})
	ts.get("/api/v1/instances/", DemoKey)
	wantBody(t, ts.get("/api/v1/instances/", DemoKey), 429, `API requests too frequent endpoint threshold=1.0`)
}

func TestParseMills(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "25": 25_000, "25.5": 25_500, "0.125": 125, "-1.25": -1_250, "1000000": 1_000_000_000} {
		if got, ok := parseMills(in); !ok || got != want {
			t.Errorf("parseMills(%q) = %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", ".5", "1.2345", "1e3", "+1", "1234567890123", "1.x"} {
		if _, ok := parseMills(in); ok {
			t.Errorf("parseMills(%q) accepted", in)
		}
	}
}
