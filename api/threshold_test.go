package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
)

func ptr[T any](v T) *T { return &v }

func TestSetBalanceThresholdBody(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, `{"success":true}`) })
	c := f.client(t, noEndpointPacing()...)
	ctx := context.Background()
	for _, tc := range []struct {
		amount  money.Amount
		enabled *bool
		want    string
	}{
		{25 * money.Dollar, nil, `{"balance_threshold":25.00}`},
		{12_340, ptr(true), `{"balance_threshold":12.34,"balance_threshold_enabled":true}`},
		{0, ptr(false), `{"balance_threshold":0.00,"balance_threshold_enabled":false}`},
		{1_005_050, nil, `{"balance_threshold":1005.05}`},
		{MaxBalanceThreshold, nil, `{"balance_threshold":1000000.00}`},
	} {
		if err := c.SetBalanceThreshold(ctx, tc.amount, tc.enabled); err != nil {
			t.Fatalf("%v: %v", tc.amount, err)
		}
		reqs := f.requests()
		r := reqs[len(reqs)-1]
		if r.Method != http.MethodPut || r.Path != SettingsPath || string(r.Body) != tc.want {
			t.Errorf("sent %s %s %s, want PUT %s %s", r.Method, r.Path, r.Body, SettingsPath, tc.want)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		if !json.Valid(r.Body) {
			t.Errorf("invalid JSON %s", r.Body)
		}
	}
}

func TestSetBalanceThresholdRefusesBadAmounts(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, `{}`) })
	c := f.client(t)
	for _, a := range []money.Amount{-10, -money.Dollar, 12_345, 1, MaxBalanceThreshold + 10, money.MaxAmount} {
		apiErr(t, c.SetBalanceThreshold(context.Background(), a, nil), ErrUsage)
	}
	if f.count() != 0 {
		t.Fatalf("%d requests sent for refused amounts", f.count())
	}
}

func TestSetBalanceThresholdAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		kind   error // nil: success
	}{
		{"success", 200, `{"success":true}`, nil},
		{"empty object", 200, `{}`, nil},
		{"record echoed", 200, `{"id":1,"balance_threshold":25,"api_key":"` + canary + `"}`, nil},
		{"no body", 204, ``, nil},
		{"not an object", 200, `true`, nil},
		{"success string", 200, `{"success":"false"}`, nil},
		{"success false", 200, `{"success":false,"error":"invalid_request","msg":"nope"}`, ErrBadRequest},
		{"success false key", 200, `{"success":false,"msg":"` + canary + `"}`, ErrBadRequest},
		{"html", 200, `<html><title>x</title></html>`, ErrMalformed},
		{"garbage", 200, `{"success":tru`, ErrMalformed},
		{"400", 400, `{"success":false,"error":"invalid_request","msg":"Unknown field"}`, ErrBadRequest},
		{"401 perm", 401, `{"success":false,"error":"permission_denied","msg":"API key lacks the permission for this action"}`, ErrPermission},
		{"401 bare", 401, ``, ErrPermission},
		{"403 login", 403, `{"success":false,"error":"auth_error","msg":"This action requires login."}`, ErrNotLoggedIn},
		{"403 bare", 403, ``, ErrPermission},
		{"404 key", 404, `{"success":false,"error":"auth_error","msg":"Invalid user key"}`, ErrInvalidKey},
		{"404 bare", 404, ``, ErrNotFound},
		{"405", 405, ``, ErrNotFound},
		{"500", 500, `oops`, ErrServer},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, tc.status, tc.body) })
			err := f.client(t).SetBalanceThreshold(context.Background(), money.Dollar, nil)
			if tc.kind == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			e := apiErr(t, err, tc.kind)
			if tc.kind == ErrPermission && strings.Contains(tc.body, "permission") && e.Permission != "user_write" {
				t.Errorf("Permission %q, want user_write", e.Permission)
			}
		})
	}
}

func TestSetBalanceThreshold429(t *testing.T) {
	for _, body := range []string{`{"detail":"API requests too frequent endpoint threshold=0.01"}`, `API requests too frequent endpoint threshold=0.01`, ``} {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 0 {
				reply(w, 429, body)
				return
			}
			reply(w, 200, `{"success":true}`)
		})
		var ev events
		if err := f.client(t, append(noEndpointPacing(), WithObserver(ev.observe))...).SetBalanceThreshold(context.Background(), money.Dollar, nil); err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		if f.count() != 2 || len(ev.kinds(EventRateLimited)) != 1 {
			t.Fatalf("%q: %d requests, events %v", body, f.count(), ev.ev)
		}
	}
	// Still refused after the retries: ErrRateLimited with the threshold.
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 429, `{"detail":"API requests too frequent endpoint threshold=0.001"}`)
	})
	e := apiErr(t, f.client(t, noEndpointPacing()...).SetBalanceThreshold(context.Background(), money.Dollar, nil), ErrRateLimited)
	if e.Threshold != time.Millisecond {
		t.Fatalf("threshold %v", e.Threshold)
	}
}

// The settings endpoint has its own pacer: two calls are its threshold
// apart, and a charges call in between is not held back by it.
func TestSetBalanceThresholdPacing(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.URL.Path == chargesPath {
			reply(w, 200, pageJSON(nil, 0, ""))
			return
		}
		reply(w, 200, `{"success":true}`)
	})
	const th = 150 * time.Millisecond
	clk := demoserver.NewClock(1)
	c := f.client(t, WithEndpointThreshold(SettingsPath, th), WithClock(clk))
	ctx := context.Background()
	start := clk.Now()
	if err := c.SetBalanceThreshold(ctx, money.Dollar, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Charges(ctx, testQuery(), ""); err != nil {
		t.Fatal(err)
	}
	if d := clk.Since(start); d != 0 {
		t.Fatalf("charges waited for the settings pacer: %v", d)
	}
	if err := c.SetBalanceThreshold(ctx, 2*money.Dollar, nil); err != nil {
		t.Fatal(err)
	}
	if d := clk.Since(start); d < th {
		t.Fatalf("second PUT after %v, want at least %v", d, th)
	}
}

func TestSetBalanceThresholdDemo(t *testing.T) {
	s, c := demo(t, demoserver.Options{}, demoserver.DemoKey)
	ctx := context.Background()
	if err := c.SetBalanceThreshold(ctx, 123_450, ptr(false)); err != nil {
		t.Fatal(err)
	}
	if m, on := s.BalanceThreshold(); m != 123_450 || on {
		t.Fatalf("server holds %d %v", m, on)
	}
	u, err := c.CurrentUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if u.BalanceThreshold == nil || *u.BalanceThreshold != 123_450 || u.BalanceThresholdEnabled == nil || *u.BalanceThresholdEnabled {
		t.Fatalf("read back %v %v", u.BalanceThreshold, u.BalanceThresholdEnabled)
	}
	// Without enabled only the amount changes.
	if err := c.SetBalanceThreshold(ctx, 0, nil); err != nil {
		t.Fatal(err)
	}
	if m, on := s.BalanceThreshold(); m != 0 || on {
		t.Fatalf("server holds %d %v", m, on)
	}

	for _, key := range []string{demoserver.KeyNoBilling, demoserver.KeyReadOnly} {
		_, rc := demo(t, demoserver.Options{}, key)
		e := apiErr(t, rc.SetBalanceThreshold(ctx, money.Dollar, nil), ErrPermission)
		if e.Permission != "user_write" {
			t.Fatalf("%s: permission %q", key, e.Permission)
		}
	}
}

// Against the demo's 5 s pacing a second call waits instead of provoking
// a 429; a fake clock keeps the test fast.
func TestSetBalanceThresholdDemoPacing(t *testing.T) {
	clk := demoserver.NewClock(1)
	s, c := demo(t, demoserver.Options{SettingsThreshold: 300 * time.Millisecond, Clock: clk.Now}, demoserver.DemoKey,
		WithEndpointThreshold(SettingsPath, 300*time.Millisecond), WithClock(clk))
	ctx := context.Background()
	for i := range 3 {
		if err := c.SetBalanceThreshold(ctx, money.Amount(i)*money.Dollar, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := s.CountStatus(429); n != 0 {
		t.Fatalf("%d 429s", n)
	}
	// A client that does not pace is refused with the charges-style body,
	// waits the threshold it names and gets through.
	_, unpaced := demo(t, demoserver.Options{SettingsThreshold: 300 * time.Millisecond, Clock: clk.Now}, demoserver.DemoKey, WithClock(clk))
	var ev events
	unpaced.observe = ev.observe
	for range 2 {
		if err := unpaced.SetBalanceThreshold(ctx, money.Dollar, nil); err != nil {
			t.Fatal(err)
		}
	}
	if got := ev.kinds(EventRateLimited); len(got) == 0 || got[0].Wait < 300*time.Millisecond {
		t.Fatalf("rate-limit events %v", got)
	}
}
