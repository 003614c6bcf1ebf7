package api

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestDebugTransportRedacts(t *testing.T) {
	const key = "CANARY-debug-key-31337"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id": 7, "email": "a@b.c", "credit": 12.5, "api_key": "` + key + `", "note": "echo ` + key + ` \u001b]0;x\u0007"}`))
	}))
	defer srv.Close()
	var log bytes.Buffer
	hc := &http.Client{Transport: DebugTransport(nil, &log)}
	c, err := New(srv.URL, key, WithHTTPClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.CurrentUser(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if u.ID != 7 || u.Credit != 12500 {
		t.Fatalf("the logged body no longer decodes: %+v", u)
	}
	out := log.String()
	if strings.Contains(out, key) || strings.Contains(out, "CANARY") {
		t.Fatalf("the key reached the debug log:\n%s", out)
	}
	for _, want := range []string{"--> ", "GET " + srv.URL + "/api/v0/users/current/", "<-- 200 OK", "Authorization: [redacted]", `"api_key": "[redacted]"`} {
		if !strings.Contains(out, want) {
			t.Errorf("debug log lacks %q:\n%s", want, out)
		}
	}
}

func TestDebugTransportEscapesControls(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("<html>\x1b]0;pwned\x07\x1b[2J</html>"))
	}))
	defer srv.Close()
	var log bytes.Buffer
	c, _ := New(srv.URL, "k3y-xyz", WithHTTPClient(&http.Client{Transport: DebugTransport(nil, &log)}))
	if _, err := c.CurrentUser(context.Background()); err == nil {
		t.Fatal("a 500 succeeded")
	}
	out := log.String()
	if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) {
		t.Fatalf("a raw control character reached the debug log:\n%q", out)
	}
	if !strings.Contains(out, `\x1b]0;pwned\x07`) {
		t.Fatalf("the escaped body is missing:\n%s", out)
	}
}

func TestDebugTransportLogsPutBodyAndErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"success": true, "notification_preferences": {"client": {"low_credit": {"email": false}}}}`))
	}))
	var log bytes.Buffer
	hc := &http.Client{Transport: DebugTransport(nil, &log)}
	c, _ := New(srv.URL, "k3y-xyz", WithHTTPClient(hc))
	p := NewPrefs(map[string]any{"client": map[string]any{"low_credit": map[string]any{"email": true}}})
	if _, err := c.SetNotificationPrefs(context.Background(), 1, mustWith(t, p, LowCreditEmail, false)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), `{"notification_preferences":{"client":{"low_credit":{"email":false}}}}`) {
		t.Fatalf("PUT body not logged:\n%s", log.String())
	}
	srv.Close()
	_, _ = c.CurrentUser(context.Background())
	if !strings.Contains(log.String(), "<-- error after") {
		t.Fatalf("transport error not logged:\n%s", log.String())
	}
}
