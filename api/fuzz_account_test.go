package api

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/money"
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
// never a panic, and never an error text holding the key. A User that
// decodes has amounts money.Parse can give (never beyond 18 digits of
// thousandths, never a saturated sum), and written back in the server's
// field names it reads back as the same User: nothing is lost or invented
// between the wire and the header.
func FuzzDecodeUser(f *testing.F) {
	for _, s := range []string{
		// The record as the real API sends it (api-notes: many more fields
		// than the spec, the key among them), and the demo server's.
		`{"id": 1041588, "username": "ada", "fullname": "Ada L", "email": "ada@example.com", "email_verified": true, "credit": 2983.9871, "balance": 0.0, "balance_threshold": 50.0, "balance_threshold_enabled": true, "billed_verified": true, "has_billing": true, "can_pay": true, "host_only": false, "paypal_email": null, "billaddress_country": "NL", "last4": "4242", "created_at": 1700000000, "ssh_key": "ssh-ed25519 AAAA demo", "api_key": "fuzz-key"}`,
		`{"id": 7, "email": "a@b.c", "credit": 12.5, "balance_threshold": 50, "balance_threshold_enabled": 1, "api_key": "x"}`,
		// Credit-only account, threshold off and given as 0/1, no threshold.
		`{"id": 12, "email": "b@c.d", "credit": 0.004, "balance": 0, "balance_threshold": 0, "balance_threshold_enabled": 0}`,
		`{"id": 13, "email": "", "credit": -3.2}`,
		// Numbers in every spelling JSON allows, at and past the bounds.
		`{"id": 7.0, "credit": 1e3, "balance": 999999999999999.999, "balance_threshold": 1E-3}`,
		`{"id": 7, "credit": 1000000000000000}`, `{"id": 9223372036854775807, "credit": -999999999999999.9995}`,
		`{"id": 7.5}`, `{"id": "7"}`, `{"id": 7, "credit": "12"}`, `{"id": 7, "balance_threshold_enabled": "yes"}`,
		`{"id": 7, "email": "a\u0000\u001b[31m@b", "credit": null, "balance_threshold": null}`,
		`{"id": 7, "credit": 1, "credit": 2}`,
		`{"success": false, "msg": "fuzz-key"}`, `{"success": true, "id": 3}`, `[]`, `null`, `{"id": null}`, `<html>`, ``,
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
		amounts := []money.Amount{u.Credit, u.Balance}
		if u.BalanceThreshold != nil {
			amounts = append(amounts, *u.BalanceThreshold)
		}
		for _, a := range amounts {
			if a > maxWireAmount || a < -maxWireAmount {
				t.Fatalf("%q decoded to an amount beyond the bound: %d thousandths", body, a)
			}
		}
		again, err := fuzzClient(t, encodeUser(t, u)).CurrentUser(context.Background())
		if err != nil {
			t.Fatalf("%+v written back as %s does not read: %v", u, encodeUser(t, u), err)
		}
		if !reflect.DeepEqual(again, u) {
			t.Fatalf("%q read as %+v, written back and read again as %+v", body, u, again)
		}
	})
}

// maxWireAmount is the largest magnitude money.Parse gives:
// $999,999,999,999,999.999.
const maxWireAmount = money.Amount(999_999_999_999_999_999)

// encodeUser writes u the way the server spells an account record, with
// the optional fields only when u has them.
func encodeUser(t *testing.T, u User) []byte {
	t.Helper()
	rec := map[string]any{"id": u.ID, "email": u.Email, "credit": u.Credit, "balance": u.Balance}
	if u.CreditMissing {
		rec["credit"] = nil // a record without a credit figure stays without one
	}
	if u.BalanceThreshold != nil {
		rec["balance_threshold"] = *u.BalanceThreshold
	}
	if u.BalanceThresholdEnabled != nil {
		rec["balance_threshold_enabled"] = *u.BalanceThresholdEnabled
	}
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
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
