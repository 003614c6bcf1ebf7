package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

func decodeTypes(t *testing.T, body string) (NotificationCatalogue, error) {
	t.Helper()
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, body) })
	return f.client(t).NotificationTypes(context.Background())
}

func TestNotificationTypesDecode(t *testing.T) {
	cat, err := decodeTypes(t, `{"success":true,"notification_types":[
		{"key":"client:low_credit","slug":"low_credit","context":"client","topic":"billing","category":"account",
		 "display_name":"Low credit","mandatory_email":false,"defaults":{"email":true,"webhooks":false},"extra":[1]},
		{"key":"client:payment_failed","display_name":"Payment failed","mandatory_email":1,"default_preferences":{"email":1}},
		{"slug":"credit_transfer","context":"client"},
		{"key":"host:payout_sent","defaults":null,"default_preferences":{"email":false},"topic":null}
	]}`)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Skipped != 0 || len(cat.Types) != 4 {
		t.Fatalf("%+v", cat)
	}
	lc := cat.Types[0]
	if lc.Key != "client:low_credit" || lc.Slug != "low_credit" || lc.Context != "client" || lc.Topic != "billing" ||
		lc.Category != "account" || lc.DisplayName != "Low credit" || lc.MandatoryEmail ||
		len(lc.Defaults) != 2 || !lc.Defaults["email"] || lc.Defaults["webhooks"] {
		t.Errorf("low_credit %+v", lc)
	}
	pf := cat.Types[1]
	if pf.Context != "client" || pf.Slug != "payment_failed" || !pf.MandatoryEmail || !pf.Defaults["email"] {
		t.Errorf("payment_failed %+v", pf)
	}
	if ct := cat.Types[2]; ct.Key != "client:credit_transfer" || ct.Defaults != nil {
		t.Errorf("credit_transfer %+v", ct)
	}
	if ps := cat.Types[3]; ps.Defaults == nil || ps.Defaults["email"] {
		t.Errorf("payout_sent %+v", ps)
	}
	if got, ok := cat.Find("client", "payment_failed"); !ok || got.Key != "client:payment_failed" {
		t.Errorf("Find %+v %v", got, ok)
	}
	if _, ok := cat.Find("host", "low_credit"); ok {
		t.Error("Find matched another context")
	}
}

func TestNotificationTypesSkips(t *testing.T) {
	long := strings.Repeat("x", 129)
	entries := []string{
		`{"key":"client:ok","display_name":"` + strings.Repeat("é", 300) + `"}`,
		`null`, `7`, `"client:low_credit"`, `[]`,
		`{"key":5}`, `{"key":"client:a","display_name":7}`, `{"key":"client:b","mandatory_email":"yes"}`,
		`{"key":"client:c","defaults":{"email":"on"}}`, `{"key":"client:d","defaults":[true]}`,
		`{"key":"nocolon"}`, `{}`, `{"slug":"x"}`, `{"key":"client:` + long + `"}`,
		`{"key":"client:ok"}`, // repeat
		`{"key":"client:e","defaults":{` + channels(17) + `}}`,
		`{"key":"client:f","defaults":{"":true}}`,
	}
	cat, err := decodeTypes(t, `{"notification_types":[`+strings.Join(entries, ",")+`]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Types) != 1 || cat.Skipped != len(entries)-1 {
		t.Fatalf("kept %d, skipped %d of %d", len(cat.Types), cat.Skipped, len(entries))
	}
	if n := len(cat.Types[0].DisplayName); n > maxTypeText || n < maxTypeText-1 {
		t.Fatalf("display name of %d bytes", n)
	}
}

func channels(n int) string {
	var s []string
	for i := range n {
		s = append(s, fmt.Sprintf(`"ch%d":true`, i))
	}
	return strings.Join(s, ",")
}

func TestNotificationTypesBound(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"notification_types":[`)
	for i := range MaxNotificationTypes + 5 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"key":"c:t%d"}`, i)
	}
	b.WriteString(`]}`)
	cat, err := decodeTypes(t, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Types) != MaxNotificationTypes || cat.Skipped != 5 {
		t.Fatalf("kept %d skipped %d", len(cat.Types), cat.Skipped)
	}
}

func TestNotificationTypesErrors(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		kind   error
	}{
		{200, `{"success":true}`, ErrMalformed},
		{200, `{"notification_types":null}`, ErrMalformed},
		{200, `{"notification_types":{}}`, ErrMalformed},
		{200, `{"notification_types":"x"}`, ErrMalformed},
		{200, `[]`, ErrMalformed},
		{200, ``, ErrMalformed},
		{200, `<html><title>hi</title>`, ErrMalformed},
		{200, `{"notification_types":[`, ErrMalformed},
		{200, `{"success":false,"error":"invalid_request","msg":"` + canary + `"}`, ErrBadRequest},
		{200, `{"success":false,"error":"auth_error","msg":"Invalid user key"}`, ErrInvalidKey},
		{401, `{"success":false,"error":"permission_denied","msg":"API key lacks the permission"}`, ErrPermission},
		{401, ``, ErrPermission},
		{403, `{"error":"auth_error","msg":"This action requires login."}`, ErrNotLoggedIn},
		{403, ``, ErrPermission},
		{404, `{"error":"auth_error","msg":"Invalid user key"}`, ErrInvalidKey},
		{404, ``, ErrNotFound},
		{429, `{"detail":"API requests too frequent endpoint threshold=0.001"}`, ErrRateLimited},
		{429, ``, ErrRateLimited},
	} {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, tc.status, tc.body) })
		_, err := f.client(t, noEndpointPacing()...).NotificationTypes(context.Background())
		e := apiErr(t, err, tc.kind)
		if tc.status == 401 && tc.body != "" && e.Permission != "user_read" {
			t.Errorf("%d %s: permission %q", tc.status, tc.body, e.Permission)
		}
	}
}

// The demo's catalogue names every type of its preferences document.
func TestNotificationTypesDemo(t *testing.T) {
	s, c := demo(t, demoserver.Options{}, demoserver.KeyNoBilling)
	cat, err := c.NotificationTypes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if cat.Skipped != 0 {
		t.Fatalf("skipped %d", cat.Skipped)
	}
	n := 0
	for ctx, types := range s.Prefs() {
		for slug := range types.(map[string]any) {
			n++
			typ, ok := cat.Find(ctx, slug)
			if !ok || typ.DisplayName == "" || typ.Defaults == nil {
				t.Errorf("%s.%s: %+v %v", ctx, slug, typ, ok)
			}
		}
	}
	if len(cat.Types) != n {
		t.Errorf("%d types for %d switches", len(cat.Types), n)
	}
	mandatory := 0
	for _, typ := range cat.Types {
		if typ.MandatoryEmail {
			mandatory++
		}
	}
	if mandatory != 1 {
		t.Errorf("%d mandatory types", mandatory)
	}
	for _, slug := range []string{"low_credit", "billing_receipt", "payment_failed", "credit_transfer"} {
		if _, ok := cat.Find("client", slug); !ok {
			t.Errorf("no client:%s", slug)
		}
	}
}

func TestNotificationTypesDemoPermissionAndPacing(t *testing.T) {
	const th = 200 * time.Millisecond
	s, c := demo(t, demoserver.Options{TypesThreshold: th}, "vastdash-test-billing-only",
		WithEndpointThreshold(NotificationTypesPath, th))
	s.AddKey("vastdash-test-billing-only", "billing-only", []string{"billing_read"})
	ctx := context.Background()
	e := apiErr(t, func() error { _, err := c.NotificationTypes(ctx); return err }(), ErrPermission)
	if e.Permission != "user_read" {
		t.Fatalf("permission %q", e.Permission)
	}
	clk := demoserver.NewClock(1)
	s, c = demo(t, demoserver.Options{TypesThreshold: th, Clock: clk.Now}, demoserver.DemoKey,
		WithEndpointThreshold(NotificationTypesPath, th), WithClock(clk))
	start := clk.Now()
	for range 3 {
		if _, err := c.NotificationTypes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if d := clk.Since(start); d < 2*th {
		t.Fatalf("3 calls in %v", d)
	}
	if n := s.CountStatus(429); n != 0 {
		t.Fatalf("%d 429s", n)
	}
}
