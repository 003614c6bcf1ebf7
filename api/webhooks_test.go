package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

// webhookJSON is one webhook as the server sends it.
func webhookJSON(id int, name string, events ...string) string {
	ev, _ := json.Marshal(events)
	return fmt.Sprintf(`{"id":%d,"name":%q,"webhook_url":"https://hooks.example.com/%d","event_types":%s,"updated_at":1767225600}`, id, name, id, ev)
}

// The list is read as a bare array or inside an object (webhooks or
// results), with the same webhooks.
func TestWebhooksAcceptsEveryListShape(t *testing.T) {
	one := webhookJSON(7, "ops", "client:low_credit")
	for name, body := range map[string]string{
		"bare array": "[" + one + "]",
		"webhooks":   `{"success":true,"webhooks":[` + one + `]}`,
		"results":    `{"results":[` + one + `],"count":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, body) })
			l, err := f.client(t, WithEndpointThreshold(WebhooksPath, 0)).Webhooks(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Webhooks) != 1 || l.Skipped != 0 {
				t.Fatalf("list %+v", l)
			}
			w := l.Webhooks[0]
			if w.ID != "7" || w.Name != "ops" || w.URL != "https://hooks.example.com/7" || !w.Carries("client:low_credit") ||
				!w.Changed.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
				t.Fatalf("webhook %+v", w)
			}
			if r := f.requests()[0]; r.Method != http.MethodGet || r.Path != WebhooksPath {
				t.Fatalf("request %s %s", r.Method, r.Path)
			}
		})
	}
}

// Any other shape is an error that names the endpoint: never an empty
// list a screen would show as "none".
func TestWebhooksOtherShapesAreErrors(t *testing.T) {
	for name, body := range map[string]string{
		"empty object":         `{}`,
		"success only":         `{"success":true}`,
		"list is an object":    `{"webhooks":{"id":1}}`,
		"list is a string":     `{"results":"none"}`,
		"null list":            `{"webhooks":null}`,
		"html":                 `<html>login</html>`,
		"empty body":           ``,
		"a number":             `42`,
		"truncated":            `[{"id":1,"name":"x"`,
		"array of one string":  `"webhooks"`,
		"broken array":         `[1,]`,
		"success false":        `{"success":false,"msg":"nope"}`,
		"webhooks not a list ": `{"webhooks":true,"results":[]}`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, body) })
			l, err := f.client(t, WithEndpointThreshold(WebhooksPath, 0)).Webhooks(context.Background())
			if err == nil {
				t.Fatalf("no error; list %+v", l)
			}
			if name != "success false" {
				apiErr(t, err, ErrMalformed)
			}
			if !strings.Contains(err.Error(), "GET "+WebhooksPath) {
				t.Errorf("the error does not name the endpoint: %q", err)
			}
		})
	}
}

// Every value is bounded: entries of the wrong shape or beyond the bounds
// are skipped and counted, a repeated id once, a long name cut, an
// implausible time dropped but the webhook kept.
func TestWebhooksBoundsEveryValue(t *testing.T) {
	long := strings.Repeat("n", 2000)
	entries := []string{
		webhookJSON(1, "ok", "client:low_credit", "client:low_credit"),
		`{"id":2,"name":"no url","event_types":["client:low_credit"]}`,
		`{"id":-3,"name":"negative id","webhook_url":"https://a.example","event_types":[]}`,
		`{"id":"../x","name":"path id","webhook_url":"https://a.example","event_types":[]}`,
		`{"id":4.5,"name":"fraction","webhook_url":"https://a.example","event_types":[]}`,
		`{"id":5,"name":7,"webhook_url":"https://a.example","event_types":[]}`,
		`{"id":6,"name":"events not a list","webhook_url":"https://a.example","event_types":"client:low_credit"}`,
		`{"id":7,"name":"event too long","webhook_url":"https://a.example","event_types":["` + strings.Repeat("e", 200) + `"]}`,
		`{"id":8,"name":"url too long","webhook_url":"https://a.example/` + strings.Repeat("u", 9000) + `","event_types":[]}`,
		`"not an object"`,
		webhookJSON(1, "repeat of 1"),
		`{"id":"abc-9","name":"` + long + `","webhook_url":"https://b.example","event_types":["host:machine_offline"],"updated_at":"9999-01-01T00:00:00Z","created_at":"2025-06-01 12:00:00"}`,
		`{"id":10,"webhook_url":"https://c.example","event_types":[],"updated_at":1e300}`,
	}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 200, `{"webhooks":[`+strings.Join(entries, ",")+`]}`)
	})
	l, err := f.client(t, WithEndpointThreshold(WebhooksPath, 0)).Webhooks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, w := range l.Webhooks {
		ids = append(ids, w.ID)
	}
	if strings.Join(ids, ",") != "1,abc-9,10" || l.Skipped != 10 {
		t.Fatalf("kept %v, skipped %d", ids, l.Skipped)
	}
	if ev := l.Webhooks[0].Events; len(ev) != 1 {
		t.Errorf("a repeated event is kept twice: %v", ev)
	}
	w := l.Webhooks[1]
	if len(w.Name) != maxWireName || !w.Changed.Equal(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("name %d bytes, changed %v: want the name cut and created_at when updated_at is implausible", len(w.Name), w.Changed)
	}
	if !l.Webhooks[2].Changed.IsZero() || l.Webhooks[2].Name != "" {
		t.Errorf("webhook 10: %+v", l.Webhooks[2])
	}
}

// A list longer than MaxWebhooks keeps the first ones and counts the rest.
func TestWebhooksListBounded(t *testing.T) {
	var entries []string
	for i := 1; i <= MaxWebhooks+5; i++ {
		entries = append(entries, webhookJSON(i, "w"))
	}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, "["+strings.Join(entries, ",")+"]") })
	l, err := f.client(t, WithEndpointThreshold(WebhooksPath, 0)).Webhooks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Webhooks) != MaxWebhooks || l.Skipped != 5 {
		t.Fatalf("kept %d, skipped %d", len(l.Webhooks), l.Skipped)
	}
}

// A create sends exactly name, webhook_url and event_types, and returns
// the webhook and its secret, wrapped or not; the secret prints as
// "[redacted]" every way but Reveal.
func TestCreateWebhook(t *testing.T) {
	const secret = "whsec_CANARYSECRET0123456789"
	for name, answer := range map[string]string{
		"bare":    `{"id":12,"name":"ops","webhook_url":"https://hooks.example.com/a","event_types":["client:low_credit"],"webhook_secret":"` + secret + `"}`,
		"wrapped": `{"success":true,"webhook":{"id":12,"name":"ops","webhook_url":"https://hooks.example.com/a","event_types":["client:low_credit"]},"webhook_secret":"` + secret + `"}`,
		"inside":  `{"success":true,"webhook":{"id":12,"name":"ops","webhook_url":"https://hooks.example.com/a","event_types":["client:low_credit"],"webhook_secret":"` + secret + `"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 201, answer) })
			spec := WebhookSpec{Name: "ops", URL: "https://hooks.example.com/a", Events: []string{"client:low_credit"}}
			w, s, err := f.client(t, WithEndpointThreshold(WebhooksPath, 0)).CreateWebhook(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			if w.ID != "12" || s.Reveal() != secret {
				t.Fatalf("webhook %+v, secret revealed %q", w, s.Reveal())
			}
			r := f.requests()[0]
			if r.Method != http.MethodPost || r.Path != WebhooksPath ||
				string(r.Body) != `{"name":"ops","webhook_url":"https://hooks.example.com/a","event_types":["client:low_credit"]}` {
				t.Fatalf("request %s %s %s", r.Method, r.Path, r.Body)
			}
			var logged bytes.Buffer
			slog.New(slog.NewTextHandler(&logged, nil)).Info("created", "secret", s)
			j, _ := json.Marshal(struct{ S WebhookSecret }{s})
			for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %s %q %x", s, s, s, s, s, s), fmt.Sprintf("%+v", struct{ s WebhookSecret }{s}), string(j), logged.String()} {
				if strings.Contains(out, "CANARY") {
					t.Fatalf("the secret printed: %q", out)
				}
			}
		})
	}
}

// A create answer without a readable webhook is ErrMalformed, and a secret
// it holds comes back all the same: it is the only copy.
func TestCreateWebhookKeepsTheSecretOfABadAnswer(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 200, `{"webhook_secret":"whsec_only_copy","name":"no id"}`)
	})
	_, s, err := f.client(t, WithEndpointThreshold(WebhooksPath, 0)).CreateWebhook(context.Background(),
		WebhookSpec{Name: "x", URL: "https://a.example", Events: []string{"client:low_credit"}})
	apiErr(t, err, ErrMalformed)
	if s.Reveal() != "whsec_only_copy" {
		t.Fatalf("secret %q", s.Reveal())
	}
	// A secret that could not be shown as it is, is no secret.
	f = newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 200, `{"id":3,"webhook_url":"https://a.example","event_types":[],"webhook_secret":"bad \u001b[2J"}`)
	})
	_, s, err = f.client(t, WithEndpointThreshold(WebhooksPath, 0)).CreateWebhook(context.Background(),
		WebhookSpec{Name: "x", URL: "https://a.example", Events: []string{"client:low_credit"}})
	apiErr(t, err, ErrMalformed)
	if !s.IsZero() {
		t.Fatal("an unprintable secret was returned")
	}
}

// The wire's own bounds refuse a spec before anything is sent.
func TestWebhookSpecBoundsSendNothing(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, `{}`) })
	c := f.client(t, WithEndpointThreshold(WebhooksPath, 0))
	ok := WebhookSpec{Name: "n", URL: "https://a.example", Events: []string{"client:low_credit"}}
	bad := map[string]WebhookSpec{
		"long name":   {Name: strings.Repeat("é", 121), URL: ok.URL, Events: ok.Events},
		"no url":      {Name: "n", Events: ok.Events},
		"long url":    {Name: "n", URL: "https://a.example/" + strings.Repeat("u", 2040), Events: ok.Events},
		"no event":    {Name: "n", URL: ok.URL},
		"empty event": {Name: "n", URL: ok.URL, Events: []string{""}},
	}
	for name, spec := range bad {
		if _, _, err := c.CreateWebhook(context.Background(), spec); err == nil {
			t.Errorf("%s: no error", name)
		} else {
			apiErr(t, err, ErrUsage)
		}
		if err := c.UpdateWebhook(context.Background(), "1", spec); err == nil {
			t.Errorf("%s: update: no error", name)
		}
	}
	for _, id := range []string{"", "../users", "1/test", "a b", strings.Repeat("1", 65)} {
		if err := c.DeleteWebhook(context.Background(), id); err == nil {
			t.Errorf("id %q: no error", id)
		} else if strings.Contains(err.Error(), "users") {
			t.Errorf("the error quotes the id: %q", err)
		}
	}
	if f.count() != 0 {
		t.Fatalf("%d requests sent", f.count())
	}
}

// Update, delete, rotate and test go to the webhook's own paths.
func TestWebhookCallsPaths(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/rotate-secret/"):
			reply(w, 200, `{"success":true,"webhook_secret":"whsec_new"}`)
		case strings.HasSuffix(r.URL.Path, "/test/"):
			reply(w, 200, `{"success":true,"delivered":false,"status_code":503,"msg":"the endpoint answered 503 \u001b[2J"}`)
		case r.Method == http.MethodDelete:
			w.WriteHeader(http.StatusNoContent)
		default:
			reply(w, 200, `{"success":true}`)
		}
	})
	c := f.client(t, WithEndpointThreshold(WebhooksPath, 0))
	ctx := context.Background()
	if err := c.UpdateWebhook(ctx, "12", WebhookSpec{Name: "n", URL: "https://a.example", Events: []string{"client:low_credit"}}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteWebhook(ctx, "12"); err != nil {
		t.Fatal(err)
	}
	s, err := c.RotateWebhookSecret(ctx, "12")
	if err != nil || s.Reveal() != "whsec_new" {
		t.Fatalf("rotate: %q %v", s.Reveal(), err)
	}
	res, err := c.TestWebhook(ctx, "12")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Known || res.Delivered || res.Status != 503 || res.Msg != "the endpoint answered 503" {
		t.Fatalf("test %+v", res)
	}
	var got []string
	for _, r := range f.requests() {
		got = append(got, r.Method+" "+r.Path)
	}
	want := "PUT /api/v0/webhooks/12/,DELETE /api/v0/webhooks/12/,POST /api/v0/webhooks/12/rotate-secret/,POST /api/v0/webhooks/12/test/"
	if strings.Join(got, ",") != want {
		t.Fatalf("requests %v", got)
	}
}

// A rotation answer without a secret, and a test answer that does not say
// how it went in a readable way, are errors naming the endpoint.
func TestWebhookAnswersOfOtherShapes(t *testing.T) {
	for name, tc := range map[string]struct {
		body string
		call func(c *Client) error
	}{
		"rotate without secret":  {`{"success":true}`, func(c *Client) error { _, err := c.RotateWebhookSecret(context.Background(), "1"); return err }},
		"rotate secret a number": {`{"webhook_secret":12}`, func(c *Client) error { _, err := c.RotateWebhookSecret(context.Background(), "1"); return err }},
		"rotate html":            {`<html></html>`, func(c *Client) error { _, err := c.RotateWebhookSecret(context.Background(), "1"); return err }},
		"test status a string":   {`{"status_code":"ok"}`, func(c *Client) error { _, err := c.TestWebhook(context.Background(), "1"); return err }},
		"test status 9000":       {`{"status_code":9000}`, func(c *Client) error { _, err := c.TestWebhook(context.Background(), "1"); return err }},
		"test delivered a word":  {`{"delivered":"yes"}`, func(c *Client) error { _, err := c.TestWebhook(context.Background(), "1"); return err }},
		"test a list":            {`[]`, func(c *Client) error { _, err := c.TestWebhook(context.Background(), "1"); return err }},
		"delete html":            {`<html></html>`, func(c *Client) error { return c.DeleteWebhook(context.Background(), "1") }},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, tc.body) })
			err := tc.call(f.client(t, WithEndpointThreshold(WebhooksPath, 0)))
			apiErr(t, err, ErrMalformed)
			if !strings.Contains(err.Error(), WebhooksPath+"1/") {
				t.Errorf("the error does not name the endpoint: %q", err)
			}
		})
	}
}

// A test delivery the server refuses (success:false) is its error; one it
// only accepted (no word on the delivery) is not Known.
func TestWebhookTestOutcomes(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			reply(w, 200, `{"success":false,"msg":"webhook disabled"}`)
			return
		}
		reply(w, 202, `{"success":true}`)
	})
	c := f.client(t, WithEndpointThreshold(WebhooksPath, 0))
	_, err := c.TestWebhook(context.Background(), "1")
	if e := apiErr(t, err, ErrBadRequest); e.Msg != "webhook disabled" {
		t.Fatalf("error %q", err)
	}
	res, err := c.TestWebhook(context.Background(), "1")
	if err != nil || res.Known {
		t.Fatalf("%+v %v", res, err)
	}
}

// A create whose connection is lost after the request was written is not
// sent again (the server may have made the webhook); a GET is.
func TestWebhookCreateNotRepeatedAfterALostConnection(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		hj, _ := w.(http.Hijacker)
		conn, _, err := hj.Hijack()
		if err == nil {
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		}
	})
	c := f.client(t, WithEndpointThreshold(WebhooksPath, 0))
	_, _, err := c.CreateWebhook(context.Background(), WebhookSpec{Name: "x", URL: "https://a.example", Events: []string{"client:low_credit"}})
	apiErr(t, err, ErrTransport)
	if n := f.count(); n != 1 {
		t.Fatalf("the create was sent %d times", n)
	}
	_, err = c.Webhooks(context.Background())
	apiErr(t, err, ErrTransport)
	if n := f.count(); n != 1+1+maxRetries {
		t.Fatalf("the list was sent %d times, want it retried", n-1)
	}
}

// Webhook calls are paced on one budget, whatever the webhook's path.
func TestWebhookCallsShareOnePacer(t *testing.T) {
	const th = 150 * time.Millisecond
	srv, err := demoserver.Start(demoserver.Options{Contracts: 10, WebhooksThreshold: th})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := New(srv.URL(), demoserver.DemoKey, WithEndpointThreshold(WebhooksPath, th), WithPacingMargin(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	l, err := c.Webhooks(ctx)
	if err != nil || len(l.Webhooks) == 0 {
		t.Fatalf("%+v %v", l, err)
	}
	if _, err := c.TestWebhook(ctx, l.Webhooks[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Webhooks(ctx); err != nil {
		t.Fatal(err)
	}
	var times []time.Time
	for _, r := range srv.Requests() {
		if r.Status == http.StatusTooManyRequests {
			t.Fatalf("a webhook call was refused: %s %s", r.Method, r.Path)
		}
		times = append(times, r.Time)
	}
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < th {
			t.Errorf("calls %d and %d %s apart", i-1, i, gap)
		}
	}
}

// A secret learned on create or rotate is a secret from then on: server
// text that quotes it later (a test delivery's message, an error body)
// reaches no screen in clear. So is a key the API-keys endpoint made.
func TestLearnedSecretsAreRedactedFromLaterText(t *testing.T) {
	const (
		created = "whsec_CREATED_0123456789"
		rotated = "whsec_ROTATED_0123456789"
	)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch {
		case r.Method == http.MethodPost && r.URL.Path == WebhooksPath:
			reply(w, 201, `{"id":12,"name":"ops","webhook_url":"https://hooks.example.com/a","event_types":["client:low_credit"],"webhook_secret":"`+created+`"}`)
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/rotate-secret/"):
			reply(w, 200, `{"webhook_secret":"`+rotated+`"}`)
		case r.Method == http.MethodPost && r.URL.Path == APIKeysPath:
			reply(w, 200, `{"id": 77, "key": "`+newKey+`", "permissions": {"api": {"user_read": {}}}}`)
		case strings.HasSuffix(r.URL.Path, "/test/"):
			reply(w, 200, `{"delivered":false,"msg":"endpoint answered: bad signature for `+created+` and `+rotated+`"}`)
		default:
			reply(w, 400, `{"success":false,"msg":"refused: `+newKey+` / `+rotated+`"}`)
		}
	})
	c := f.client(t, noEndpointPacing()...)
	ctx := context.Background()
	spec := WebhookSpec{Name: "ops", URL: "https://hooks.example.com/a", Events: []string{"client:low_credit"}}
	if _, _, err := c.CreateWebhook(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RotateWebhookSecret(ctx, "12"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateAPIKey(ctx, "vastdash", []string{"user_read"}); err != nil {
		t.Fatal(err)
	}
	res, err := c.TestWebhook(ctx, "12")
	if err != nil {
		t.Fatal(err)
	}
	err = c.UpdateWebhook(ctx, "12", spec)
	for _, text := range []string{res.Msg, err.Error()} {
		if strings.Contains(text, "whsec_") || strings.Contains(text, "NEWKEY") || !strings.Contains(text, "[redacted]") {
			t.Errorf("a learned secret is shown in clear: %q", text)
		}
	}
}
