package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// bodyTransport answers every request with status 200 and body, without a
// network, so a fuzz target can run the whole decode path of a call.
type bodyTransport struct{ body []byte }

func (b bodyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(string(b.body))), Request: r}, nil
}

func fuzzClient(t *testing.T, body []byte) *Client {
	c, err := New("https://api.invalid", "fuzz-key", WithHTTPClient(&http.Client{Transport: bodyTransport{body}}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// FuzzDecodeUser: any account body gives a User with an id or an *Error,
// never a panic, and never an error text holding the key.
func FuzzDecodeUser(f *testing.F) {
	for _, s := range []string{
		`{"id": 7, "email": "a@b.c", "credit": 12.5, "balance_threshold": 50, "balance_threshold_enabled": 1, "api_key": "x"}`,
		`{"id": 7.0, "credit": "12"}`, `{"success": false, "msg": "fuzz-key"}`, `[]`, `null`, `{"id": null}`, `<html>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		u, err := fuzzClient(t, body).CurrentUser(context.Background())
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error", err)
			}
			if strings.Contains(err.Error(), "fuzz-key") {
				t.Fatalf("the key reached the error: %v", err)
			}
			return
		}
		if !json.Valid(body) {
			t.Fatalf("accepted invalid JSON %q as %+v", body, u)
		}
	})
}

// FuzzDecodePrefs: any preferences body gives a document or an *Error;
// a document read can have a switch set and still marshal to valid JSON
// that reads the switch back.
func FuzzDecodePrefs(f *testing.F) {
	for _, s := range []string{
		`{"success": true, "notification_preferences": {"client": {"low_credit": {"email": true, "webhooks": false}}, "host": {"x": 1.50}}}`,
		`{"notification_preferences": {"client": "no"}}`, `{"notification_preferences": null}`, `{"success": false}`, `{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := fuzzClient(t, body).NotificationPrefs(context.Background(), 1)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *Error", err)
			}
			return
		}
		for _, on := range []bool{true, false} {
			q, err := p.With(LowCreditWebhooks, on)
			if err != nil {
				// A level that is not an object is refused, never replaced.
				continue
			}
			out, err := json.Marshal(q)
			if err != nil || !json.Valid(out) {
				t.Fatalf("document from %q does not marshal: %v", body, err)
			}
			if got, ok := q.Get(LowCreditWebhooks); !ok || got != on {
				t.Fatalf("switch set to %v reads %v, %v", on, got, ok)
			}
		}
	})
}
