package shared

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
)

func TestFit(t *testing.T) {
	cases := []struct {
		in   string
		w    int
		want string
	}{
		{"abc", 5, "abc  "},
		{"abcdef", 4, "abc…"},
		{"訓練訓練", 5, "訓練…"},
		{"\x1b]0;x\x07ok", 3, "ok "},
		{"abc", 0, ""},
	}
	for _, c := range cases {
		got := Fit(c.in, c.w)
		if got != c.want {
			t.Errorf("Fit(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
		if ansi.StringWidth(got) != c.w {
			t.Errorf("Fit(%q, %d) is %d wide", c.in, c.w, ansi.StringWidth(got))
		}
	}
}

func TestBlock(t *testing.T) {
	out := Block([]string{"first line that is long", "x"}, 6, 3)
	lines := strings.Split(out, "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if ansi.StringWidth(l) != 6 {
			t.Fatalf("line %q is not 6 wide", l)
		}
	}
	if Block(nil, 0, 5) != "" {
		t.Fatal("zero width must render nothing")
	}
}

// contextFor is a Context whose billing layer talks to baseURL.
func contextFor(t *testing.T, baseURL string) *Context {
	t.Helper()
	c, err := api.New(baseURL, "test-key")
	if err != nil {
		t.Fatal(err)
	}
	svc := billing.New(context.Background(), c)
	t.Cleanup(svc.Close)
	return &Context{Billing: svc}
}

// An unreachable server showed a raw, cut Go error: the text must say what
// failed (the host and port) and what to check.
func TestErrorText(t *testing.T) {
	refused := &api.Error{Kind: api.ErrTransport, Op: "GET /api/v0/users/current/",
		Err: errors.New("dial tcp 127.0.0.1:9: connect: connection refused")}
	slow := &api.Error{Kind: api.ErrTimeout, Op: "GET /api/v0/users/current/", Err: context.DeadlineExceeded}
	cases := []struct {
		base string
		err  error
		want string
	}{
		{"http://127.0.0.1:9", refused, "cannot reach 127.0.0.1:9 (connection refused) — check the URL (--url / VAST_URL) and the network"},
		{"https://console.vast.ai", refused, "cannot reach console.vast.ai:443 (connection refused) — check the URL"},
		{"http://[::1]", fmt.Errorf("account: %w", refused), "account: cannot reach [::1]:80 (connection refused) — "},
		{"http://127.0.0.1:9", &api.Error{Kind: api.ErrTransport, Err: errors.New("lookup nosuch.example: no such host")},
			"cannot reach 127.0.0.1:9 (no such host) — "},
		{"http://127.0.0.1:9", slow, "127.0.0.1:9 did not answer GET /api/v0/users/current/ in time — check the network"},
		{"http://127.0.0.1:9", &api.Error{Kind: api.ErrInvalidKey, Status: 401}, "the API key was rejected"},
		{"http://127.0.0.1:9", errors.New("bad\x1b[2Jthing"), "bad"},
	}
	for _, c := range cases {
		got := contextFor(t, c.base).ErrorText(c.err)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s, %v: %q, want it to start with %q", c.base, c.err, got, c.want)
		}
		if strings.ContainsRune(got, '\x1b') {
			t.Errorf("%q is not sanitized", got)
		}
	}
	if got := (&Context{}).ErrorText(refused); !strings.HasPrefix(got, "cannot reach the server (connection refused) — ") {
		t.Errorf("without a client: %q", got)
	}
	if got := (&Context{}).ErrorText(nil); got != "" {
		t.Errorf("no error: %q", got)
	}
}

func TestContextRetryText(t *testing.T) {
	c := contextFor(t, "http://127.0.0.1:9")
	got := c.RetryText("charges", &api.Error{Kind: api.ErrTransport, Err: errors.New("dial tcp: refused")})
	if want := "charges stopped (r to reload): cannot reach 127.0.0.1:9 (refused) — check the URL"; !strings.HasPrefix(got, want) {
		t.Fatalf("%q, want it to start with %q", got, want)
	}
}

func TestFirstFit(t *testing.T) {
	for _, c := range []struct {
		w    int
		want string
	}{{40, "threshold: $50.00 — alerts fire below"}, {20, "threshold $50.00"}, {10, "$50.00"}, {4, "$50…"}} {
		if got := FirstFit(c.w, "threshold: $50.00 — alerts fire below", "threshold $50.00", "$50.00"); got != c.want {
			t.Errorf("FirstFit(%d) = %q, want %q", c.w, got, c.want)
		}
	}
	if FirstFit(5) != "" {
		t.Error("no texts, no text")
	}
}

// TestOneClockAndZone: the screens read the billing service's clock and
// zone, the ones it counts days with, so a day shown is the day counted
// (the context kept its own beside the service's, and nothing tied them).
func TestOneClockAndZone(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	at := time.Date(2026, 11, 21, 20, 0, 0, 0, time.UTC) // already the 22nd in Tokyo
	svc := billing.New(context.Background(), nil, billing.WithLocation(tokyo), billing.WithClock(func() time.Time { return at }))
	t.Cleanup(svc.Close)
	c := &Context{Billing: svc}
	if got := c.Clock(); !got.Equal(at) || got.Location() != tokyo || got.Day() != 22 {
		t.Errorf("Clock() = %v, want %v in Tokyo", got, at)
	}
	if c.Loc() != tokyo {
		t.Errorf("Loc() = %v, want the service's Asia/Tokyo", c.Loc())
	}
}
