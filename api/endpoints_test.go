package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
)

// noEndpointPacing turns off the pacers of the endpoints beyond charges,
// for tests that make several calls against fakes that do not pace.
func noEndpointPacing() []Option {
	var opts []Option
	for path := range defaultEndpointThresholds() {
		opts = append(opts, WithEndpointThreshold(path, 0))
	}
	return opts
}

// demo starts a demo server (pacing of every endpoint off unless opts says
// otherwise) and returns it with a client for key.
func demo(t *testing.T, opts demoserver.Options, key string, copts ...Option) (*demoserver.Server, *Client) {
	t.Helper()
	if opts.Now.IsZero() {
		opts.Now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	}
	if opts.Contracts == 0 {
		opts.Contracts = 2000
	}
	for _, d := range []*time.Duration{&opts.Threshold, &opts.SettingsThreshold, &opts.TypesThreshold, &opts.InstancesThreshold, &opts.InvoicesThreshold} {
		if *d == 0 {
			*d = -1
		}
	}
	s, err := demoserver.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	base := []Option{WithHTTPClient(&http.Client{Transport: tr}), WithChargesThreshold(0), WithBackoff(time.Millisecond, 4*time.Millisecond)}
	c, err := New(s.URL(), key, append(append(base, noEndpointPacing()...), copts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return s, c
}

func TestWithEndpointThresholdIgnoresOtherPaths(t *testing.T) {
	c, err := New("https://example.invalid", "k", WithEndpointThreshold("/api/v0/nope/", time.Second), WithEndpointThreshold(InstancesPath, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.pacers) != len(defaultEndpointThresholds())-1 || c.endpointPacer(InstancesPath) != nil || c.endpointPacer(SettingsPath) == nil {
		t.Fatalf("pacers %v", c.pacers)
	}
	if got := c.endpointPacer(SettingsPath).interval; got != DefaultSettingsThreshold {
		t.Fatalf("settings interval %v", got)
	}
}

func TestCutString(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{{"abc", 5, "abc"}, {"abcdef", 3, "abc"}, {"aé", 2, "a"}, {"日本", 4, "日"}, {"", 0, ""}} {
		if got := cutString(tc.in, tc.n); got != tc.want {
			t.Errorf("cutString(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

// The demo server's faults on each new endpoint give the *Error kinds the
// charges endpoint gives, and a transient fault is retried through.
func TestEndpointFaultsDemo(t *testing.T) {
	ops := []struct {
		name, method, path string
		run                func(*Client) error
	}{
		{"settings", http.MethodPut, "/api/v0/users", func(c *Client) error {
			return c.SetBalanceThreshold(context.Background(), money.Dollar, nil)
		}},
		{"types", http.MethodGet, "/api/v0/notification-types", func(c *Client) error {
			_, err := c.NotificationTypes(context.Background())
			return err
		}},
		{"instances", http.MethodGet, "/api/v1/instances", func(c *Client) error {
			_, err := c.Instances(context.Background(), "")
			return err
		}},
	}
	faults := []struct {
		name  string
		fault demoserver.Fault
		kind  error // nil: the call succeeds
		get   bool  // only for GETs (the PUT is not retried on a 5xx)
	}{
		{"503 once", demoserver.Fault{Status: 503, Times: 1}, nil, true},
		{"500", demoserver.Fault{Status: 500, Body: `{"success":false,"msg":"boom"}`}, ErrServer, false},
		{"429 once", demoserver.Fault{Status: 429, Times: 1, Body: `{"detail":"API requests too frequent endpoint threshold=0.01"}`}, nil, false},
		{"429 plain", demoserver.Fault{Status: 429, Body: `API requests too frequent endpoint threshold=0.001`, ContentType: "text/plain"}, ErrRateLimited, false},
		{"html", demoserver.Fault{Status: 200, Body: `<html><title>Gateway</title></html>`, ContentType: "text/html"}, ErrMalformed, false},
		{"hang", demoserver.Fault{Hang: true}, ErrTimeout, false},
		{"huge", demoserver.Fault{HugeBody: 128 << 10}, ErrTooLarge, false},
		{"cut", demoserver.Fault{ResetAfterBytes: 10}, ErrTransport, false},
		{"success false", demoserver.Fault{Status: 200, Body: `{"success":false,"error":"auth_error","msg":"Invalid user key"}`}, ErrInvalidKey, false},
	}
	for _, op := range ops {
		for _, f := range faults {
			if f.get && op.method != http.MethodGet {
				continue
			}
			t.Run(op.name+"/"+f.name, func(t *testing.T) {
				s, c := demo(t, demoserver.Options{}, demoserver.DemoKey, WithTimeout(200*time.Millisecond), withMaxBody(64<<10))
				ft := f.fault
				ft.Method, ft.Path = op.method, op.path
				s.AddFault(ft)
				err := op.run(c)
				if f.kind == nil {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				apiErr(t, err, f.kind)
			})
		}
	}
}
