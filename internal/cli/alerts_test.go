package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

// alertInbox is a local server standing in for ntfy and a generic
// webhook: it keeps what it receives, and answers 503 while down.
type alertInbox struct {
	srv  *httptest.Server
	down atomic.Bool
	mu   sync.Mutex
	got  []string
}

func newAlertInbox(t *testing.T) *alertInbox {
	in := &alertInbox{}
	in.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if in.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var m struct{ Message string }
		if json.Unmarshal(b, &m) == nil && m.Message != "" {
			b = []byte(m.Message) // ntfy's JSON publish
		}
		in.mu.Lock()
		in.got = append(in.got, r.URL.Path+" "+string(b))
		in.mu.Unlock()
		_, _ = io.WriteString(w, "{}")
	}))
	t.Cleanup(in.srv.Close)
	return in
}

func (in *alertInbox) count(path, want string) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	n := 0
	for _, m := range in.got {
		if strings.HasPrefix(m, path+" ") && strings.Contains(m, want) {
			n++
		}
	}
	return n
}

func (in *alertInbox) all() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return strings.Join(in.got, "\n---\n")
}

const (
	cliTopic = "topic-SECRET-4711"
	cliHook  = "HOOK-SECRET-0815"
)

// alertsSetup is a demo server, an inbox, its two targets in
// VASTDASH_ALERTS_TO, a state folder kept across runs, and settings with
// a runway line the demo account is under (a month).
func alertsSetup(t *testing.T) (*demoserver.Server, *alertInbox, string) {
	srv := startServer(t, demoserver.Options{Contracts: 60, Leaks: true, InstancesThreshold: threshold,
		VolumesThreshold: threshold, EndpointsThreshold: threshold, WorkerGroupsThreshold: threshold})
	in := newAlertInbox(t)
	host := strings.TrimPrefix(in.srv.URL, "http://")
	t.Setenv("VASTDASH_ALERTS_TO", "ntfy://"+host+"/"+cliTopic+"?scheme=http,generic://"+host+"/hooks/"+cliHook+"?disabletls=yes")
	keepFolder(t, "XDG_STATE_HOME", filepath.Join(t.TempDir(), "state"))
	cfg := settingsFile(t, "[alerts]\nrunway = \"30d\"\nbudget = []\nprice_increases = false\n")
	return srv, in, cfg
}

// A runway alert and a leak alert arrive once, and only once, at an ntfy
// server and a generic webhook across repeated `alerts check` runs; no
// output holds a token.
func TestAlertsCheckSendsOnce(t *testing.T) {
	srv, in, cfg := alertsSetup(t)
	var outputs strings.Builder
	for i := range 3 {
		res := auditRun(t, srv, demoserver.DemoKey, nil, "--config", cfg, "alerts", "check")
		res.ok(t)
		outputs.WriteString(res.out + res.errOut)
		if i == 0 && (!strings.Contains(res.out, "sent runway: 2 deliveries") || !strings.Contains(res.out, "sent leak: 2 deliveries")) {
			t.Errorf("first run printed %q", res.out)
		}
		if i > 0 && res.out != "" {
			t.Errorf("run %d sent again: %q", i+1, res.out)
		}
	}
	for _, p := range []string{"/" + cliTopic, "/hooks/" + cliHook} {
		if n := in.count(p, "under your 30.0 days line"); n != 1 {
			t.Errorf("%s got the runway alert %d times, want once:\n%s", p, n, in.all())
		}
		if n := in.count(p, "See `vastdash audit`"); n != 1 {
			t.Errorf("%s got the leak alert %d times, want once", p, n)
		}
	}
	res := auditRun(t, srv, demoserver.DemoKey, nil, "--config", cfg, "alerts")
	res.ok(t)
	outputs.WriteString(res.out + res.errOut)
	// The account is named as the settings name it, not by its user id
	// ("account 200001 at …").
	if !strings.HasPrefix(res.out, "account default at ") {
		t.Errorf("vastdash alerts does not name the account: %q", strings.SplitN(res.out, "\n", 2)[0])
	}
	for _, want := range []string{"fired", "ntfy 127.0.0.1:", "generic 127.0.0.1:", "delivered so far: leak 2, runway 2"} {
		if !strings.Contains(res.out, want) {
			t.Errorf("vastdash alerts lacks %q:\n%s", want, res.out)
		}
	}
	res = auditRun(t, srv, demoserver.DemoKey, nil, "--config", cfg, "alerts", "test", "--json")
	res.ok(t)
	var sent []struct {
		Target string
		Sent   bool
	}
	if err := json.Unmarshal([]byte(res.out), &sent); err != nil || len(sent) != 2 || !sent[0].Sent || !strings.HasPrefix(sent[0].Target, "ntfy 127.0.0.1:") {
		t.Errorf("alerts test --json: %v, %q", err, res.out)
	}
	outputs.WriteString(res.out + res.errOut)
	res = auditRun(t, srv, demoserver.DemoKey, nil, "--config", cfg, "alerts", "digest")
	res.ok(t)
	outputs.WriteString(res.out + res.errOut)
	for _, want := range []string{"credit: $", "runway at the current rate: ", "spent in the last 24 hours: $", "this month: $", "money leaks: ", "price increases waiting: "} {
		if in.count("/"+cliTopic, want) != 1 {
			t.Errorf("the digest lacks %q:\n%s", want, in.all())
		}
	}
	if s := outputs.String(); strings.Contains(s, "SECRET") {
		t.Errorf("a token in the output:\n%s", s)
	}
}

// A target that is down makes check exit 1, says so once, and gets the
// alert once when it is back.
func TestAlertsCheckTargetDown(t *testing.T) {
	srv, in, cfg := alertsSetup(t)
	in.down.Store(true)
	res := auditRun(t, srv, demoserver.DemoKey, nil, "--config", cfg, "alerts", "check")
	if res.code != 1 || !strings.Contains(res.errOut, "fail") || !strings.Contains(res.errOut, "kept for the next run") {
		t.Fatalf("down: exit %d, stderr %q", res.code, res.errOut)
	}
	if strings.Contains(res.errOut, "SECRET") {
		t.Errorf("a token in stderr: %q", res.errOut)
	}
	in.down.Store(false)
	// The backoff's wait (30 s) has not passed on this clock: the run
	// after it delivers.
	tweak := func(e *env) { e.now = func() time.Time { return srv.Now().Add(time.Minute) } }
	res = auditRun(t, srv, demoserver.DemoKey, tweak, "--config", cfg, "alerts", "check")
	res.ok(t)
	res = auditRun(t, srv, demoserver.DemoKey, tweak, "--config", cfg, "alerts", "check")
	res.ok(t)
	if n := in.count("/"+cliTopic, "under your 30.0 days line"); n != 1 {
		t.Errorf("the target back got the alert %d times, want once:\n%s", n, in.all())
	}
}

// A URL no service knows is a settings error at its line, exit 2, before
// any request; no target is exit 2 saying how to add one.
func TestAlertsBadSettings(t *testing.T) {
	srv := startServer(t, demoserver.Options{})
	cfg := settingsFile(t, "range = \"7d\"\n[alerts]\nto = [\"nope://SECRET@x\"]\n")
	res := auditRun(t, srv, demoserver.DemoKey, nil, "--config", cfg, "alerts", "check")
	res.failed(t, 2, cfg+":3: alerts.to, target 1: unknown service \"nope\"")
	if strings.Contains(res.errOut, "SECRET") || len(srv.Requests()) != 0 {
		t.Errorf("stderr %q, %d requests", res.errOut, len(srv.Requests()))
	}
	res = headless(t, srv, demoserver.DemoKey, "alerts", "check")
	res.failed(t, 2, "no alert target: add [alerts]")
}

// serve sends the runway and leak alerts once, counts them in its
// metrics, and a restart of serve on the same account sends nothing
// again.
func TestServeSendsAlertsOnceAcrossARestart(t *testing.T) {
	srv, in, cfg := alertsSetup(t)
	for run := range 2 {
		s := startServe(t, srv, demoserver.DemoKey, "--listen", "127.0.0.1:0", "--config", cfg)
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(s.stderr.String(), "alerts checked") {
			if time.Now().After(deadline) {
				t.Fatalf("run %d: no alerts checked in the log:\n%s", run+1, s.stderr)
			}
			time.Sleep(10 * time.Millisecond)
		}
		_, body := s.get(t, "/metrics")
		want := "vast_alerts_sent_total{rule=\"runway\"} 2"
		if got := strings.Contains(body, want); got != (run == 0) {
			t.Errorf("run %d: %q in the metrics is %v:\n%s", run+1, want, got, body)
		}
		if !strings.Contains(body, "vast_alert_failures_total 0") {
			t.Errorf("run %d: no vast_alert_failures_total 0", run+1)
		}
		if code, _ := s.stop(t); code != 0 {
			t.Fatalf("serve exit %d", code)
		}
		if strings.Contains(s.stderr.String()+body, "SECRET") {
			t.Errorf("a token in the log or the metrics:\n%s", s.stderr)
		}
	}
	for _, p := range []string{"/" + cliTopic, "/hooks/" + cliHook} {
		if n := in.count(p, "under your 30.0 days line"); n != 1 {
			t.Errorf("%s got the runway alert %d times across two serves, want once", p, n)
		}
		if n := in.count(p, "See `vastdash audit`"); n != 1 {
			t.Errorf("%s got the leak alert %d times across two serves, want once", p, n)
		}
	}
}

// A check that cannot read the account (the API is down) still sends the
// alerts kept from an earlier run, found by the user id remembered for
// the key, and exits 1 for the failed read.
func TestAlertsCheckRetriesWhileAPIDown(t *testing.T) {
	srv, in, cfg := alertsSetup(t)
	// One user's runs: the identity file beside the ledgers stays.
	keepFolder(t, "XDG_DATA_HOME", filepath.Join(t.TempDir(), "data"))
	in.down.Store(true)
	res := auditRun(t, srv, demoserver.DemoKey, nil, "--config", cfg, "alerts", "check")
	if res.code != 1 || !strings.Contains(res.errOut, "kept for the next run") {
		t.Fatalf("target down: exit %d, stderr %q", res.code, res.errOut)
	}
	in.down.Store(false)
	srv.AddFault(demoserver.Fault{Status: http.StatusServiceUnavailable, Body: `{"error":"down"}`})
	tweak := func(e *env) { e.now = func() time.Time { return srv.Now().Add(time.Minute) } }
	res = auditRun(t, srv, demoserver.DemoKey, tweak, "--config", cfg, "alerts", "check")
	if res.code != 1 {
		t.Errorf("the account unread: exit %d, want 1; stderr %q", res.code, res.errOut)
	}
	if n := in.count("/"+cliTopic, "under your 30.0 days line"); n != 1 {
		t.Errorf("the alert kept was sent %d times while the API was down, want once:\n%s\nstdout %q stderr %q", n, in.all(), res.out, res.errOut)
	}
	if !strings.Contains(res.out, "sent runway") {
		t.Errorf("the run does not say what it sent: %q", res.out)
	}
}
