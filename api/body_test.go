package api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// Bodies that are not the JSON the spec describes, served over HTTP.
func TestMalformedBodiesOverHTTP(t *testing.T) {
	good := pageJSON([]string{contractJSON(1, 1)}, 1, "")
	for name, body := range map[string]string{
		"html with 200": "<!DOCTYPE html>\n<html><head><title>Login</title></head><body>Please log in</body></html>",
		"empty":         "",
		"truncated":     good[:len(good)/2],
		"not an object": `[{"type":"instance"}]`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, body) })
			c := f.client(t)
			_, err := c.Charges(context.Background(), testQuery(), "")
			apiErr(t, err, ErrMalformed)
			_, err = c.CurrentUser(context.Background())
			apiErr(t, err, ErrMalformed)
			_, err = c.NotificationPrefs(context.Background(), 1)
			apiErr(t, err, ErrMalformed)
			if f.count() != 3 {
				t.Fatalf("%d requests: a malformed body must not be retried", f.count())
			}
		})
	}
}

// streamBody writes n bytes of a never-ending JSON string without a
// Content-Length, as a misbehaving server would.
func streamBody(w http.ResponseWriter, n int) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(200)
	chunk := []byte(strings.Repeat("x", 64<<10))
	_, _ = w.Write([]byte(`{"results":[{"description":"`))
	for written := 0; written < n; written += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return // the client gave up, as it should
		}
	}
}

func TestBodyCap(t *testing.T) {
	ctx := context.Background()
	t.Run("50 MB streamed, default cap", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { streamBody(w, 50<<20) })
		_, err := f.client(t).Charges(ctx, testQuery(), "")
		apiErr(t, err, ErrTooLarge)
		if f.count() != 1 {
			t.Fatalf("%d requests, want 1", f.count())
		}
	})
	t.Run("50 MB announced", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.Header().Set("Content-Length", strconv.Itoa(50<<20))
			w.WriteHeader(200)
			_, _ = w.Write([]byte(`{"results":[]`))
		})
		_, err := f.client(t).Charges(ctx, testQuery(), "")
		apiErr(t, err, ErrTooLarge)
	})
	t.Run("small cap", func(t *testing.T) {
		page := pageJSON([]string{contractJSON(1, 1), contractJSON(2, 2)}, 2, "")
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, page) })
		if _, err := f.client(t, withMaxBody(int64(len(page)))).Charges(ctx, testQuery(), ""); err != nil {
			t.Fatalf("a body exactly at the cap: %v", err)
		}
		_, err := f.client(t, withMaxBody(int64(len(page)-1))).Charges(ctx, testQuery(), "")
		apiErr(t, err, ErrTooLarge)
		f2 := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { streamBody(w, 1<<20) })
		_, err = f2.client(t, withMaxBody(4096)).Charges(ctx, testQuery(), "")
		apiErr(t, err, ErrTooLarge)
	})
	// A huge error body still gives a short message.
	t.Run("huge error body", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.WriteHeader(400)
			_, _ = w.Write([]byte(strings.Repeat("y", 5<<20)))
		})
		_, err := f.client(t).Charges(ctx, testQuery(), "")
		if e := apiErr(t, err, ErrBadRequest); len([]rune(e.Msg)) > 200 {
			t.Fatalf("message of %d characters", len([]rune(e.Msg)))
		}
	})
}

// A redirect that would turn the PUT into a GET is refused: the update
// would otherwise "succeed" without changing anything.
func TestRedirectedPutRefused(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == "/moved/" {
			reply(w, 200, `{"success":true,"notification_preferences":{"client":{}}}`)
			return
		}
		http.Redirect(w, r, "/moved/", http.StatusMovedPermanently)
	})
	doc := NewPrefs(map[string]any{"client": map[string]any{"low_credit": map[string]any{"email": true}}})
	_, err := f.client(t).SetNotificationPrefs(context.Background(), 1, doc)
	e := apiErr(t, err, ErrMalformed)
	if e.Status != http.StatusMovedPermanently || f.count() != 1 {
		t.Fatalf("error %+v after %d requests", e, f.count())
	}
	// A GET may follow the redirect.
	if _, err := f.client(t).NotificationPrefs(context.Background(), 1); err != nil {
		t.Fatalf("redirected GET: %v", err)
	}
}

// The key is not sent in clear text after an https → http redirect.
func TestRedirectDowngradeRefused(t *testing.T) {
	hc := safeHTTPClient(nil)
	from, _ := url.Parse("https://console.vast.ai/api/v0/charges/")
	to, _ := url.Parse("http://console.vast.ai/api/v0/charges/")
	via := []*http.Request{{Method: "GET", URL: from}}
	if err := hc.CheckRedirect(&http.Request{Method: "GET", URL: to}, via); err != http.ErrUseLastResponse {
		t.Fatalf("downgrade allowed: %v", err)
	}
	same, _ := url.Parse("https://console.vast.ai/api/v0/charges")
	if err := hc.CheckRedirect(&http.Request{Method: "GET", URL: same}, via); err != nil {
		t.Fatalf("same-scheme redirect refused: %v", err)
	}
	// The caller's client is not modified.
	orig := &http.Client{}
	_ = safeHTTPClient(orig)
	if orig.CheckRedirect != nil {
		t.Fatal("the caller's http.Client was changed")
	}
}
