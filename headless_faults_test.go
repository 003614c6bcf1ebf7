package main

import (
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// canaryKey is a key the fault servers accept, so every row below runs with
// a real, recognisable secret that must appear in no output.
const canaryKey = "CANARY-fault-key-7f3a9c"

// faultRun runs args against a fresh server with fault f installed, a short
// timeout and fast backoff, and the canary key.
func faultRun(t *testing.T, f *demoserver.Fault, args ...string) (result, *demoserver.Server) {
	return faultRunTimeout(t, f, 300*time.Millisecond, args...)
}

func faultRunTimeout(t *testing.T, f *demoserver.Fault, timeout time.Duration, args ...string) (result, *demoserver.Server) {
	t.Helper()
	srv := startServer(t, demoserver.Options{Contracts: 1200})
	srv.AddKey(canaryKey, "canary", nil)
	if f != nil {
		srv.AddFault(*f)
	}
	res := headlessWith(t, srv, canaryKey, func(r *runner) {
		r.clientOptions = append(r.clientOptions,
			api.WithTimeout(timeout), api.WithBackoff(2*time.Millisecond, 10*time.Millisecond))
	}, args...)
	if strings.Contains(res.out+res.errOut, "CANARY") {
		t.Fatalf("%v: the key leaked: %q %q", args, res.out, res.errOut)
	}
	return res, srv
}

var allCharges = append([]string{"charges", "--output", "csv"}, wholeSpan()...)

// Every failure ends with exit 1, one sanitized line on stderr, nothing on
// stdout (no half-written CSV), and never the key.
func TestHeadlessFaultMatrix(t *testing.T) {
	charges := "/api/v0/charges"
	rows := []struct {
		name  string
		fault demoserver.Fault
		args  []string
		want  string
	}{
		{"500", demoserver.Fault{Path: charges, Status: 500, Body: `{"success":false,"msg":"boom"}`}, allCharges, "server error"},
		{"503 after retries", demoserver.Fault{Path: charges, Status: 503, Body: "unavailable"}, allCharges, "server error"},
		{"hang", demoserver.Fault{Path: charges, Hang: true}, allCharges, "no response in time"},
		{"html with 200", demoserver.Fault{Path: charges, Status: 200, ContentType: "text/html", Body: "<html>\x1b]0;pwned\x07login</html>"}, allCharges, "unexpected response"},
		{"empty body", demoserver.Fault{Path: charges, Status: 200, Body: ""}, allCharges, "unexpected response"},
		{"truncated json", demoserver.Fault{Path: charges, Mutate: func(b []byte) []byte { return b[:len(b)/2] }}, allCharges, "unexpected response"},
		{"echoes the key", demoserver.Fault{Path: "/api/v0/users/current", Status: 500, Body: `{"msg":"bad key ` + canaryKey + `"}`}, []string{"credit"}, "server error"},
		{"put 400", demoserver.Fault{Method: "PUT", Status: 400, Body: `{"success":false,"error":"invalid_request","msg":"nope"}`}, []string{"notifications", "--email", "off"}, "nope"},
		{"put hangs", demoserver.Fault{Method: "PUT", Hang: true}, []string{"notifications", "--email", "off"}, "no response in time"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			res, srv := faultRun(t, &row.fault, row.args...)
			res.failed(t, exitRuntime, row.want)
			if strings.ContainsAny(res.errOut, "\x1b\x07") {
				t.Errorf("a control character reached stderr: %q", res.errOut)
			}
			if row.args[0] == "notifications" {
				// The failed save left the server's document alone.
				if on, _ := api.NewPrefs(srv.Prefs()).Get(api.LowCreditEmail); !on {
					t.Error("the failed PUT changed the email switch")
				}
			}
		})
	}
}

// A 50 MB answer is refused at the 32 MiB cap, not read into memory; the
// timeout is long enough for the race detector to stream it.
func TestHeadlessHugeBodyRefused(t *testing.T) {
	f := demoserver.Fault{Path: "/api/v0/charges", HugeBody: 50 << 20}
	res, _ := faultRunTimeout(t, &f, 20*time.Second, allCharges...)
	res.failed(t, exitRuntime, "too large")
}

// A reset in the middle of a body is retried and no half page is written:
// the CSV has every contract exactly once.
func TestHeadlessResetMidBodyRetried(t *testing.T) {
	f := demoserver.Fault{Path: "/api/v0/charges", ResetAfterBytes: 2000, Times: 1}
	res, srv := faultRun(t, &f, allCharges...)
	res.ok(t)
	// Three pages of 500, plus the one whose body was cut and asked again.
	if n := len(chargesRequests(srv)); n != 4 {
		t.Fatalf("%d charges requests, want 4 (3 pages and one retry)", n)
	}
	rows := readCSV(t, res.out)
	want := srv.Contracts(wholeSpanFilter(t))
	if len(rows) != len(want) {
		t.Fatalf("%d rows after a reset, want %d", len(rows), len(want))
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r[3]] {
			t.Fatalf("%s written twice", r[3])
		}
		seen[r[3]] = true
	}
}

// 429 for a while, then normal: the command waits and finishes.
func TestHeadlessRateLimitStormRecovers(t *testing.T) {
	f := demoserver.Fault{Path: "/api/v0/charges", Status: 429,
		Body: `{"detail":"API requests too frequent endpoint threshold=0.02"}`, Until: time.Now().Add(60 * time.Millisecond)}
	res, _ := faultRun(t, &f, allCharges...)
	res.ok(t)
}

// A revoked key is said once, without a retry storm.
func TestHeadlessRevokedKey(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	srv.AddKey(canaryKey, "canary", nil)
	srv.RevokeKey(canaryKey)
	res := headless(t, srv, canaryKey, "credit")
	res.failed(t, exitRuntime, "rejected")
	if strings.Contains(res.errOut, "CANARY") {
		t.Fatal("key leaked")
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests for a rejected key, want 1", n)
	}
}
