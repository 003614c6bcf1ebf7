package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Every row of spec section 7, answered by a fake charges endpoint, maps to
// its typed error.
func TestChargesErrorsSpecSection7(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		body      string
		kind      error
		code      string
		msg       string
		perm      string
		threshold time.Duration
	}{
		{"400 day missing", 400, `{"success":false,"msg":"Both gte and lte of day must be given"}`,
			ErrBadRequest, "", "Both gte and lte of day must be given", "", 0},
		{"400 invalid token", 400, `{"success":false,"error":"invalid_token","msg":"Invalid pagination token"}`,
			ErrInvalidToken, "invalid_token", "Invalid pagination token", "", 0},
		{"401 framework, invalid key", 401, `{"detail":"Invalid user key"}`,
			ErrInvalidKey, "", "Invalid user key", "", 0},
		{"401 scoped key", 401, `{"success":false,"error":"unauthorized","msg":"Not authorized for this endpoint"}`,
			ErrPermission, "unauthorized", "Not authorized for this endpoint", "", 0},
		{"403 no auth", 403, `{"success":false,"error":"auth_error","msg":"This action requires login."}`,
			ErrNotLoggedIn, "auth_error", "This action requires login.", "", 0},
		{"403 auth_error naming a permission", 403, `{"success":false,"error":"auth_error","msg":"API key lacks permission billing_read"}`,
			ErrPermission, "auth_error", "API key lacks permission billing_read", "billing_read", 0},
		{"403 other", 403, `{"detail":"Forbidden"}`,
			ErrPermission, "", "Forbidden", "", 0},
		{"404 invalid key", 404, `{"success":false,"error":"auth_error","msg":"Invalid user key"}`,
			ErrInvalidKey, "auth_error", "Invalid user key", "", 0},
		{"404 no such endpoint", 404, `Not Found`, ErrNotFound, "", "Not Found", "", 0},
		{"405", 405, `{"detail":"Method \"GET\" not allowed."}`, ErrNotFound, "", `Method "GET" not allowed.`, "", 0},
		{"429 JSON", 429, `{"detail": "API requests too frequent endpoint threshold=0.002"}`,
			ErrRateLimited, "", "API requests too frequent endpoint threshold=0.002", "", 2 * time.Millisecond},
		{"429 plain text", 429, `API requests too frequent endpoint threshold=0.003`,
			ErrRateLimited, "", "API requests too frequent endpoint threshold=0.003", "", 3 * time.Millisecond},
		{"500", 500, `{"success":false,"msg":"boom"}`, ErrServer, "", "boom", "", 0},
		{"502 HTML", 502, `<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>`,
			ErrServer, "", "502 Bad Gateway", "", 0},
		{"418", 418, `short and stout`, ErrBadRequest, "", "short and stout", "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, tc.status, tc.body) })
			_, err := f.client(t).Charges(context.Background(), testQuery(), "")
			e := apiErr(t, err, tc.kind)
			if e.Op != "GET /api/v0/charges/" || e.Status != tc.status || e.Code != tc.code || e.Msg != tc.msg ||
				e.Permission != tc.perm || e.Threshold != tc.threshold {
				t.Errorf("error = %+v", e)
			}
		})
	}
}

// ParseRateLimit reads the spec's 1.0 threshold in both body forms.
func TestParseRateLimitSpecBodies(t *testing.T) {
	for _, body := range []string{
		`{"detail": "API requests too frequent endpoint threshold=1.0"}`,
		"API requests too frequent endpoint threshold=1.0\n",
	} {
		if d, ok := ParseRateLimit([]byte(body)); !ok || d != time.Second {
			t.Errorf("ParseRateLimit(%q) = %v, %v; want 1s", body, d, ok)
		}
	}
	if _, ok := ParseRateLimit([]byte(`{"detail":"slow down"}`)); ok {
		t.Error("a body without a threshold gave one")
	}
	if d, _ := ParseRateLimit([]byte(`threshold=86400`)); d != maxServerThreshold {
		t.Errorf("a day-long threshold gave %v, want the %v cap", d, maxServerThreshold)
	}
}

// A scoped key without the endpoint's permission gets ErrPermission naming
// that permission, for every endpoint.
func TestPermissionNamedPerEndpoint(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 401, `{"success":false,"error":"permission_denied","msg":"API key lacks permission"}`)
	})
	c := f.client(t)
	ctx := context.Background()
	doc := NewPrefs(map[string]any{"client": map[string]any{"low_credit": map[string]any{"email": true}}})
	calls := []struct {
		perm string
		run  func() error
	}{
		{"billing_read", func() error { _, err := c.Charges(ctx, testQuery(), ""); return err }},
		{"user_read", func() error { _, err := c.CurrentUser(ctx); return err }},
		{"user_read", func() error { _, err := c.NotificationPrefs(ctx, 7); return err }},
		{"user_write", func() error { _, err := c.SetNotificationPrefs(ctx, 7, doc); return err }},
	}
	for _, call := range calls {
		e := apiErr(t, call.run(), ErrPermission)
		if e.Permission != call.perm || !strings.Contains(e.Error(), call.perm) {
			t.Errorf("%s: permission %q, text %q", e.Op, e.Permission, e.Error())
		}
	}
}

// The key appears in no error text, whatever fails, including server
// bodies that echo it back.
func TestCanaryKeyNeverInErrors(t *testing.T) {
	k := canary
	bodies := []struct {
		status int
		body   string
	}{
		{400, `{"success":false,"error":"bad","msg":"your key ` + k + ` is bad"}`},
		{400, `{"success":false,"error":"` + k + `","msg":"code echoes the key"}`},
		{401, `{"detail":"Invalid user key ` + k + `"}`},
		{403, `{"success":false,"error":"auth_error","msg":"` + k + `"}`},
		{404, `{"success":false,"error":"auth_error","msg":"Invalid user key: ` + k + `"}`},
		{404, `not found: ` + k},
		{405, `{"detail":["` + k + `"]}`},
		{429, `{"detail":"too frequent for ` + k + ` threshold=0.001"}`},
		{429, `too frequent for ` + k + ` threshold=0.001`},
		{500, `<html><title>Error for ` + k + `</title></html>`},
		{503, strings.Repeat("x", 150) + k},
		// The key split by an escape sequence, rejoined by sanitizing.
		{400, `{"msg":"CANARY-KEY-\u001b[0mdo-not-print-7f3a"}`},
		{400, "CANARY-KEY-\x1b]0;title\x07do-not-print-7f3a"},
		// 200s that fail.
		{200, `{"success":false,"error":"auth_error","msg":"Invalid user key ` + k + `"}`},
		{200, `<html>` + k + `</html>`},
		{200, `{"results":` + k},
		{200, `{"results":[{"amount":"` + k + `"}],"total":"` + k + `"}`},
		{200, `{"id":"` + k + `","credit":"` + k + `","notification_preferences":"` + k + `"}`},
		{200, ``},
	}
	ctx := context.Background()
	check := func(t *testing.T, err error) {
		t.Helper()
		if err == nil {
			return
		}
		for _, s := range []string{err.Error(), fmt.Sprintf("%v", err), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			assertNoKey(t, s)
		}
	}
	for i, b := range bodies {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, b.status, b.body) })
			c := f.client(t)
			_, err := c.Charges(ctx, testQuery(), "")
			check(t, err)
			_, err = c.CurrentUser(ctx)
			check(t, err)
			_, err = c.NotificationPrefs(ctx, 1)
			check(t, err)
			_, err = c.SetNotificationPrefs(ctx, 1, NewPrefs(map[string]any{"a": true}))
			check(t, err)
		})
	}

	t.Run("transport", func(t *testing.T) {
		f := newFake(t, nil)
		c := f.client(t)
		f.srv.Close()
		_, err := c.Charges(ctx, testQuery(), "token-"+k)
		apiErr(t, err, ErrTransport)
		check(t, err)
	})
	t.Run("timeout", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { <-r.Context().Done() })
		_, err := f.client(t, WithTimeout(20*time.Millisecond)).CurrentUser(ctx)
		apiErr(t, err, ErrTimeout)
		check(t, err)
	})
	t.Run("too large", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, strings.Repeat(k, 100)) })
		_, err := f.client(t, withMaxBody(1000)).CurrentUser(ctx)
		apiErr(t, err, ErrTooLarge)
		check(t, err)
	})
	t.Run("usage", func(t *testing.T) {
		_, err := New("not a url "+k, k)
		check(t, err)
		_, err = New("https://example.com", k+" with space")
		check(t, err)
		_, err = New("https://"+k+":x@example.com", k)
		check(t, err)
	})
}

// Error bodies are quoted at most 200 sanitized characters.
func TestErrorBodyQuotedShortAndSanitized(t *testing.T) {
	long := "\x1b[2J\x1b]0;pwned\x07" + strings.Repeat("é", 500)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 400, long) })
	_, err := f.client(t).Charges(context.Background(), testQuery(), "")
	e := apiErr(t, err, ErrBadRequest)
	if n := len([]rune(e.Msg)); n > 200 {
		t.Errorf("message has %d characters", n)
	}
	if strings.ContainsAny(e.Error(), "\x1b\x07") || strings.Contains(e.Error(), "pwned") {
		t.Errorf("control sequences survived: %q", e.Error())
	}
}
