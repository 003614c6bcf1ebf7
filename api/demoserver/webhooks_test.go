package demoserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

type wireHook struct {
	ID     int64    `json:"id"`
	Name   string   `json:"name"`
	URL    string   `json:"webhook_url"`
	Events []string `json:"event_types"`
	Secret *string  `json:"webhook_secret"`
}

func (ts *tserver) hooks(t *testing.T) []wireHook {
	t.Helper()
	r := ts.get("/api/v0/webhooks/", DemoKey)
	var l struct {
		Webhooks []wireHook `json:"webhooks"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &l) != nil {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	for _, h := range l.Webhooks {
		if h.Secret != nil || strings.Contains(string(r.body), "whsec_") {
			t.Fatalf("the list holds a secret: %s", r.body)
		}
	}
	return l.Webhooks
}

// A create answers the webhook with its secret, the list never shows a
// secret, and the fifth webhook is refused.
func TestWebhooksCreateListLimit(t *testing.T) {
	ts := start(t, Options{WebhooksThreshold: -1})
	if n := len(ts.hooks(t)); n != 2 {
		t.Fatalf("the demo starts with %d webhooks", n)
	}
	create := func(name string) response {
		return ts.do("POST", "/api/v0/webhooks/", DemoKey, []byte(`{"name":"`+name+`","webhook_url":"https://h.example/`+name+`","event_types":["client:low_credit"]}`))
	}
	r := create("third")
	var ans struct {
		Webhook wireHook `json:"webhook"`
	}
	if r.status != http.StatusCreated || json.Unmarshal(r.body, &ans) != nil || ans.Webhook.Secret == nil || !strings.HasPrefix(*ans.Webhook.Secret, "whsec_") {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if got := ts.Webhooks()[2]; got.Secret != *ans.Webhook.Secret || got.ID != ans.Webhook.ID {
		t.Fatalf("truth %+v", got)
	}
	if r := create("fourth"); r.status != http.StatusCreated {
		t.Fatalf("fourth: %d %s", r.status, r.body)
	}
	r = create("fifth")
	if r.status != 400 || !strings.Contains(string(r.body), "webhook_limit") {
		t.Fatalf("fifth: %d %s", r.status, r.body)
	}
	if n := len(ts.hooks(t)); n != 4 {
		t.Fatalf("%d webhooks after the refused fifth", n)
	}
}

// Bad bodies are refused with 400 and change nothing.
func TestWebhooksRefuseBadBodies(t *testing.T) {
	ts := start(t, Options{WebhooksThreshold: -1})
	ok := `"name":"n","event_types":["client:low_credit"]`
	for _, body := range []string{
		``, `[]`, `{}`, `{"name":"n"}`,
		`{` + ok + `,"webhook_url":"http://h.example/"}`,
		`{` + ok + `,"webhook_url":"https://user:pw@h.example/"}`,
		`{` + ok + `,"webhook_url":"https://127.0.0.1/"}`,
		`{` + ok + `,"webhook_url":"https://[::1]/"}`,
		`{` + ok + `,"webhook_url":"https://10.1.2.3/"}`,
		`{` + ok + `,"webhook_url":"https://localhost/"}`,
		`{` + ok + `,"webhook_url":"https://h.example/` + strings.Repeat("u", 2048) + `"}`,
		`{"name":"` + strings.Repeat("n", 121) + `","event_types":["client:low_credit"],"webhook_url":"https://h.example/"}`,
		`{"name":"n","event_types":[],"webhook_url":"https://h.example/"}`,
		`{"name":"n","event_types":["client:no_such"],"webhook_url":"https://h.example/"}`,
		`{` + ok + `,"webhook_url":"https://h.example/","webhook_secret":"mine"}`,
	} {
		if r := ts.do("POST", "/api/v0/webhooks/", DemoKey, []byte(body)); r.status != 400 {
			t.Errorf("%.80s: %d %s", body, r.status, r.body)
		}
	}
	if n := len(ts.Webhooks()); n != 2 {
		t.Fatalf("%d webhooks after refused creates", n)
	}
	if r := ts.do("PUT", "/api/v0/webhooks/1/", DemoKey, []byte(`{"webhook_url":"https://192.168.1.1/"}`)); r.status != 400 {
		t.Fatalf("update to a private address: %d", r.status)
	}
	if r := ts.do("PUT", "/api/v0/webhooks/99/", DemoKey, []byte(`{"name":"x"}`)); r.status != 404 {
		t.Fatalf("update of a missing webhook: %d", r.status)
	}
}

// Update, rotate, test and delete act on the webhook named in the path;
// a test to a host that does not resolve fails.
func TestWebhooksActions(t *testing.T) {
	ts := start(t, Options{WebhooksThreshold: -1})
	before := ts.Webhooks()
	if r := ts.do("PUT", "/api/v0/webhooks/1/", DemoKey, []byte(`{"name":"renamed","event_types":["client:low_credit"]}`)); r.status != 200 || strings.Contains(string(r.body), "whsec_") {
		t.Fatalf("update: %d %s", r.status, r.body)
	}
	got := ts.Webhooks()[0]
	if got.Name != "renamed" || got.URL != before[0].URL || strings.Join(got.Events, ",") != "client:low_credit" || got.Secret != before[0].Secret {
		t.Fatalf("after the update %+v", got)
	}
	r := ts.do("POST", "/api/v0/webhooks/1/rotate-secret/", DemoKey, nil)
	var rot struct {
		Secret string `json:"webhook_secret"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &rot) != nil || rot.Secret == before[0].Secret || rot.Secret != ts.Webhooks()[0].Secret {
		t.Fatalf("rotate: %d %s", r.status, r.body)
	}
	for id, want := range map[string]string{"1": `"delivered":true`, "2": `"delivered":false`} {
		if r := ts.do("POST", "/api/v0/webhooks/"+id+"/test", DemoKey, nil); r.status != 200 || !strings.Contains(string(r.body), want) {
			t.Errorf("test %s: %d %s", id, r.status, r.body)
		}
	}
	if r := ts.do("DELETE", "/api/v0/webhooks/2/", DemoKey, nil); r.status != 200 {
		t.Fatalf("delete: %d", r.status)
	}
	if r := ts.do("DELETE", "/api/v0/webhooks/2/", DemoKey, nil); r.status != 404 {
		t.Fatalf("second delete: %d", r.status)
	}
	if n := len(ts.hooks(t)); n != 1 {
		t.Fatalf("%d left", n)
	}
	if r := ts.get("/api/v0/webhooks/1/", DemoKey); r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "PUT, DELETE" {
		t.Fatalf("GET one: %d %q", r.status, r.header.Get("Allow"))
	}
	if r := ts.do("POST", "/api/v0/webhooks/1/other/", DemoKey, nil); r.status != 404 {
		t.Fatalf("unknown action: %d", r.status)
	}
}

// Reading needs user_read, changing user_write; every path shares one
// pacing budget.
func TestWebhooksPermissionAndPacing(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_800_000_000, 0)}
	ts := start(t, Options{Clock: clk.Now, WebhooksThreshold: 2 * time.Second})
	if r := ts.get("/api/v0/webhooks/", KeyReadOnly); r.status != 200 {
		t.Fatalf("read-only list: %d", r.status)
	}
	if r := ts.do("POST", "/api/v0/webhooks/1/test/", KeyReadOnly, nil); r.status != 401 {
		t.Fatalf("read-only test: %d", r.status)
	}
	if r := ts.get("/api/v0/webhooks/", DemoKey); r.status != 200 {
		t.Fatalf("first: %d", r.status)
	}
	if r := ts.do("POST", "/api/v0/webhooks/1/test/", DemoKey, nil); r.status != 429 {
		t.Fatalf("a call on another path within the interval: %d", r.status)
	}
	clk.Add(2 * time.Second)
	if r := ts.do("POST", "/api/v0/webhooks/1/test/", DemoKey, nil); r.status != 200 {
		t.Fatalf("after the interval: %d", r.status)
	}
}
