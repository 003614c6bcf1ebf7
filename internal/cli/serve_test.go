package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// exporterBackend is the process's serve backend.
var exporterBackend = newExporter

// syncBuffer is a stderr the server's goroutines and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serving is one `vastdash serve` running in this process.
type serving struct {
	base   string // http://127.0.0.1:PORT
	stderr *syncBuffer
	stdout *syncBuffer
	cancel context.CancelFunc
	code   chan int
}

var servingURL = regexp.MustCompile(`url"?[=:]"?(http://[^ "]+)/metrics`)

// startServe runs serve against srv (paced at threshold, see serveServer)
// with key and args until the test stops it, and waits until it listens.
func startServe(t *testing.T, srv *demoserver.Server, key string, args ...string) *serving {
	t.Helper()
	isolate(t)
	t.Setenv("VAST_API_KEY", key)
	s := &serving{stderr: &syncBuffer{}, stdout: &syncBuffer{}, code: make(chan int, 1)}
	e := testEnv(s.stdout, s.stderr)
	e.now = srv.Now
	e.serve = exporterBackend
	e.clientOptions = []api.Option{api.WithChargesThreshold(threshold), api.WithEndpointThreshold(api.InstancesPath, threshold)}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	e.context = func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }
	go func() { s.code <- run(append([]string{"--url", srv.URL(), "serve"}, args...), e) }()
	t.Cleanup(func() { s.stop(t) })
	deadline := time.Now().Add(10 * time.Second)
	for {
		if m := servingURL.FindStringSubmatch(s.stderr.String()); m != nil {
			s.base = m[1]
			return s
		}
		select {
		case code := <-s.code:
			s.code <- code
			t.Fatalf("serve ended with %d before listening: %s", code, s.stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not say where it listens: %s", s.stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop sends the interrupt and returns the exit code and how long the
// exit took.
func (s *serving) stop(t *testing.T) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	s.cancel()
	select {
	case code := <-s.code:
		s.code <- code
		return code, time.Since(start)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop within 10 s of the interrupt")
	}
	return 0, 0
}

// get is one request to the server.
func (s *serving) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(s.base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// healthy waits until /healthz says the first refresh worked.
func (s *serving) healthy(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _ := s.get(t, "/healthz")
		if code == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("/healthz still %d after 10 s: %s", code, s.stderr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// serveServer is a demo server whose instances are paced like its charges.
func serveServer(t *testing.T) *demoserver.Server {
	return startServer(t, demoserver.Options{InstancesThreshold: threshold})
}

// The whole run: listen on loopback (no warning), refresh through the
// session's client (its requests counted), serve the credit, and on the
// interrupt drain and exit 0 within a second, stdout untouched; neither
// the log nor the exposition holds the key.
func TestServeServesAndStops(t *testing.T) {
	const key = "serve-canary-key-0123456789abcdef0123456789"
	srv := serveServer(t)
	srv.AddKey(key, "canary", nil)
	s := startServe(t, srv, key, "--listen", "127.0.0.1:0")
	s.healthy(t)
	code, body := s.get(t, "/metrics")
	credit := strconv.FormatFloat(float64(srv.Credit())/1000, 'g', -1, 64)
	if code != http.StatusOK || !strings.Contains(body, "\nvast_credit_dollars "+credit+"\n") {
		t.Fatalf("/metrics %d lacks the credit %s:\n%s", code, credit, body)
	}
	if !strings.Contains(body, `vast_api_requests_total{code="200",endpoint="account"} 1`) {
		t.Errorf("the session's requests are not counted:\n%s", body)
	}
	if code, index := s.get(t, "/"); code != http.StatusOK || !strings.Contains(index, `href="metrics"`) {
		t.Errorf("/ %d %q", code, index)
	}
	exit, took := s.stop(t)
	if exit != 0 || took > time.Second {
		t.Fatalf("exit %d after %v, want 0 within a second: %s", exit, took, s.stderr)
	}
	log := s.stderr.String()
	if strings.Contains(log, "level=WARN") || !strings.HasSuffix(log, "level=INFO msg=stopped\n") {
		t.Errorf("log:\n%s", log)
	}
	if s.stdout.String() != "" {
		t.Errorf("stdout %q", s.stdout)
	}
	if strings.Contains(log+body, key) || strings.Contains(log+body, key[:8]) {
		t.Error("the key is shown")
	}
}

// Any address but loopback: one warning that the figures are readable
// from that network.
func TestServeWarnsBeyondLoopback(t *testing.T) {
	srv := serveServer(t)
	s := startServe(t, srv, demoserver.DemoKey, "--listen", "0.0.0.0:0")
	port := s.base[strings.LastIndex(s.base, ":"):]
	s.base = "http://127.0.0.1" + port
	s.healthy(t)
	if exit, _ := s.stop(t); exit != 0 {
		t.Fatalf("exit %d", exit)
	}
	if n := strings.Count(s.stderr.String(), "level=WARN msg=\"listening beyond this machine"); n != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", n, s.stderr)
	}
}

// --log-format json: every line of the log is one JSON object with a
// level and a message; refresh "0" in the settings still refreshes.
func TestServeLogsJSON(t *testing.T) {
	srv := serveServer(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte("refresh = \"0\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, srv, demoserver.DemoKey, "--listen", "127.0.0.1:0", "--log-format", "json", "--config", cfg)
	s.healthy(t)
	s.stop(t)
	lines := strings.Split(strings.TrimSuffix(s.stderr.String(), "\n"), "\n")
	if len(lines) < 4 {
		t.Fatalf("log:\n%s", s.stderr)
	}
	for _, l := range lines {
		var rec struct{ Level, Msg string }
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec.Level == "" || rec.Msg == "" {
			t.Errorf("not a JSON log line: %q", l)
		}
	}
	if !strings.Contains(lines[0], "serve refreshes every 1m0s") {
		t.Errorf("refresh 0 is not said: %q", lines[0])
	}
}

// Usage errors are exit 2 before any request; an address in use is exit
// 1 with one line.
func TestServeRefusals(t *testing.T) {
	srv := serveServer(t)
	for _, args := range [][]string{
		{"serve", "--listen", "nope"},
		{"serve", "--listen", "127.0.0.1:99999"},
		{"serve", "--log-format", "xml"},
		{"serve", "extra"},
	} {
		res := headlessWith(t, srv, demoserver.DemoKey, func(e *env) { e.serve = exporterBackend }, args...)
		res.failed(t, exitUsage, "")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests after usage errors", n)
	}

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	res := headlessWith(t, srv, demoserver.DemoKey, func(e *env) { e.serve = exporterBackend }, "serve", "--listen", busy.Addr().String())
	res.failed(t, exitRuntime, "cannot listen on "+busy.Addr().String())
}

// The budget of the settings reaches the exporter: vast_budget_dollars
// says it (issue 24).
func TestServeExportsTheBudget(t *testing.T) {
	srv := serveServer(t)
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(cfg, []byte("budget = \"500\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, srv, demoserver.DemoKey, "--listen", "127.0.0.1:0", "--config", cfg)
	s.healthy(t)
	if _, body := s.get(t, "/metrics"); !strings.Contains(body, "\nvast_budget_dollars 500\n") {
		t.Fatalf("no vast_budget_dollars 500:\n%s", body)
	}
}

// serve over several accounts logged "serving 1 accounts' figures" for
// one: the count and the possessive agree.
func TestServingAccountsSaysItsNumber(t *testing.T) {
	for n, want := range map[int]string{1: "serving 1 account's figures", 2: "serving 2 accounts' figures", 1200: "serving 1,200 accounts' figures"} {
		if got := servingAccounts(n); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}
