package api

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/money"
)

func TestNewValidates(t *testing.T) {
	good := map[string]string{
		"https://console.vast.ai":         "https://console.vast.ai",
		"https://console.vast.ai/":        "https://console.vast.ai",
		"http://127.0.0.1:8080/prefix//":  "http://127.0.0.1:8080/prefix",
		"  https://console.vast.ai/api  ": "https://console.vast.ai/api",
	}
	for in, want := range good {
		c, err := New(in, canary)
		if err != nil || c.BaseURL() != want {
			t.Errorf("New(%q) = %v, %v; want base %q", in, c, err, want)
		}
	}
	for _, bad := range []string{"", "console.vast.ai", "/api/v0", "ftp://console.vast.ai", "https://",
		"http://:80", "https://user:pw@console.vast.ai", "https://console.vast.ai?x=1", "https://console.vast.ai#top",
		"https://console.vast.ai/%zz"} {
		_, err := New(bad, canary)
		apiErr(t, err, ErrUsage)
	}
	for _, key := range []string{"", "has space", "new\nline", "tab\t", "nul\x00", "ünïcode"} {
		_, err := New("https://console.vast.ai", key)
		apiErr(t, err, ErrUsage)
	}
}

// Printing a Client, by pointer or by value, with any verb, shows the base
// URL and never the key.
func TestClientFormattingHidesKey(t *testing.T) {
	c, err := New("https://console.vast.ai", canary)
	if err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		s := fmt.Sprintf(verb, c)
		assertNoKey(t, s)
		if !strings.Contains(s, "console.vast.ai") && verb != "%x" && verb != "%d" {
			t.Errorf("%s of *Client = %q, want the base URL", verb, s)
		}
		assertNoKey(t, fmt.Sprintf(verb, *c))
		assertNoKey(t, fmt.Sprintf(verb, []any{c, struct{ C *Client }{c}}))
	}
}

// Every request carries the bearer key, JSON Accept and the User-Agent.
func TestRequestHeaders(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, `{"id":1}`) })
	ctx := context.Background()
	if _, err := f.client(t).CurrentUser(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := f.client(t, WithVersion("1.2.3")).CurrentUser(ctx); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	for i, ua := range []string{"vastdash/dev", "vastdash/1.2.3"} {
		h := reqs[i].Header
		if h.Get("Authorization") != "Bearer "+canary || h.Get("Accept") != "application/json" || h.Get("User-Agent") != ua {
			t.Errorf("request %d headers: auth ok %v, accept %q, UA %q", i,
				h.Get("Authorization") == "Bearer "+canary, h.Get("Accept"), h.Get("User-Agent"))
		}
		if reqs[i].Path != "/api/v0/users/current/" || reqs[i].Method != "GET" || len(reqs[i].Body) != 0 {
			t.Errorf("request %d: %s %s with %d body bytes", i, reqs[i].Method, reqs[i].Path, len(reqs[i].Body))
		}
	}
}

func TestCurrentUser(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 0:
			reply(w, 200, `{"id":4242,"username":"ann","fullname":"Ann","email":"ann@example.com","api_key":"`+canary+`",
				"credit":125.5,"balance":-3.25,"balance_threshold":10,"balance_threshold_enabled":true,
				"ssh_key":"ssh-ed25519 AAAA","sid":"x","has_billing":true,"nested":{"a":[1]}}`)
		case 1:
			reply(w, 200, `{"id":7.0,"credit":0.1,"balance_threshold_enabled":0}`)
		default:
			reply(w, 200, `{"email":"no-id@example.com"}`)
		}
	})
	c := f.client(t)
	u, err := c.CurrentUser(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	th, on := money.Amount(10000), true
	want := User{ID: 4242, Email: "ann@example.com", Credit: 125500, Balance: -3250, BalanceThreshold: &th, BalanceThresholdEnabled: &on}
	if !reflect.DeepEqual(u, want) {
		t.Fatalf("user = %+v", u)
	}
	assertNoKey(t, fmt.Sprintf("%#v", u))

	u, err = c.CurrentUser(context.Background())
	off := false
	if err != nil || u.ID != 7 || u.Credit != 100 || u.BalanceThreshold != nil || !reflect.DeepEqual(u.BalanceThresholdEnabled, &off) {
		t.Fatalf("sparse user = %+v, %v", u, err)
	}
	_, err = c.CurrentUser(context.Background())
	apiErr(t, err, ErrMalformed)
}

const prefsDoc = `{"client":{"low_credit":{"email":true,"webhooks":false},"invoice":{"email":true}},
	"host":{"machine_offline":{"email":true,"sms":false,"threshold":3}},"beta":{"x":{"y":"keep me"}}}`

// The PUT sends back the whole document read by the GET with one switch
// changed; other contexts, types, channels and values survive the round
// trip.
func TestPrefsRoundTrip(t *testing.T) {
	stored := prefsDoc
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.Method {
		case http.MethodGet:
			reply(w, 200, `{"success":true,"notification_preferences":`+stored+`}`)
		case http.MethodPut:
			var env struct {
				Prefs json.RawMessage `json:"notification_preferences"`
			}
			body, _ := io.ReadAll(r.Body)
			if err := json.Unmarshal(body, &env); err != nil || len(env.Prefs) == 0 {
				reply(w, 400, `{"success":false,"error":"bad_request","msg":"bad body"}`)
				return
			}
			stored = string(env.Prefs)
			reply(w, 200, `{"success":true,"notification_preferences":`+stored+`}`)
		}
	})
	c := f.client(t)
	ctx := context.Background()
	p, err := c.NotificationPrefs(ctx, 4242)
	if err != nil {
		t.Fatal(err)
	}
	if on, ok := p.Get(LowCreditWebhooks); on || !ok {
		t.Fatalf("webhooks = %v, %v", on, ok)
	}
	got, err := c.SetNotificationPrefs(ctx, 4242, mustWith(t, p, LowCreditWebhooks, true))
	if err != nil {
		t.Fatal(err)
	}
	if on, _ := got.Get(LowCreditWebhooks); !on {
		t.Fatal("the confirmed document does not have webhooks on")
	}

	reqs := f.requests()
	put := reqs[1]
	if put.Method != "PUT" || put.Path != "/api/v0/users/4242/notification-prefs/" || put.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("PUT request: %s %s, Content-Type %q", put.Method, put.Path, put.Header.Get("Content-Type"))
	}
	if reqs[0].Path != "/api/v0/users/4242/notification-prefs/" {
		t.Fatalf("GET path %s", reqs[0].Path)
	}
	var sent, want map[string]any
	if err := json.Unmarshal(put.Body, &sent); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"notification_preferences":`+prefsDoc+`}`), &want); err != nil {
		t.Fatal(err)
	}
	want["notification_preferences"].(map[string]any)["client"].(map[string]any)["low_credit"].(map[string]any)["webhooks"] = true
	if !reflect.DeepEqual(sent, want) {
		t.Fatalf("PUT body\n%s\nwant the read document with webhooks on", put.Body)
	}
	if !strings.Contains(string(put.Body), `"threshold":3`) {
		t.Errorf("the number 3 was not sent back as written: %s", put.Body)
	}
	// The confirmed document is what the server now holds.
	if !reflect.DeepEqual(got.Document(), mustPrefs(t, stored).Document()) {
		t.Errorf("confirmed %v, stored %s", got.Document(), stored)
	}
}

func mustPrefs(t *testing.T, doc string) Prefs {
	t.Helper()
	c := &Client{key: keyFunc(canary)}
	p, ok, err := c.decodePrefs("op", "perm", []byte(`{"notification_preferences":`+doc+`}`))
	if err != nil || !ok {
		t.Fatalf("decodePrefs: %v %v", ok, err)
	}
	return p
}

func TestPrefsEdgeCases(t *testing.T) {
	ctx := context.Background()
	doc := NewPrefs(map[string]any{"client": map[string]any{"low_credit": map[string]any{"email": true}}})

	// A success without the document confirms what was sent.
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, `{"success":true}`) })
	got, err := f.client(t).SetNotificationPrefs(ctx, 1, doc)
	if err != nil || !reflect.DeepEqual(got.Document(), doc.Document()) {
		t.Fatalf("got %v, %v", got.Document(), err)
	}
	// …but a GET without it is not a document.
	_, err = f.client(t).NotificationPrefs(ctx, 1)
	apiErr(t, err, ErrMalformed)

	// Refused before sending: no user id, or a document never read.
	before := f.count()
	_, err = f.client(t).SetNotificationPrefs(ctx, 1, Prefs{})
	apiErr(t, err, ErrUsage)
	_, err = f.client(t).SetNotificationPrefs(ctx, 0, doc)
	apiErr(t, err, ErrUsage)
	if f.count() != before {
		t.Fatal("a refused PUT was sent")
	}

	// A server without the GET.
	nf := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 405, `{"detail":"Method not allowed"}`) })
	_, err = nf.client(t).NotificationPrefs(ctx, 1)
	apiErr(t, err, ErrNotFound)

	// 400 on the PUT: the server's message.
	bad := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 400, `{"success":false,"error":"invalid_args","msg":"notification_preferences malformed"}`)
	})
	_, err = bad.client(t).SetNotificationPrefs(ctx, 1, doc)
	if e := apiErr(t, err, ErrBadRequest); e.Msg != "notification_preferences malformed" || e.Code != "invalid_args" {
		t.Fatalf("error %+v", e)
	}

	// success:false on a 200.
	sf := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 200, `{"success":false,"error":"auth_error","msg":"This action requires login."}`)
	})
	_, err = sf.client(t).NotificationPrefs(ctx, 1)
	apiErr(t, err, ErrNotLoggedIn)
}
