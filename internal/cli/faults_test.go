package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/notices"
	"github.com/vastdash/vastdash/money"
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
	res := headlessWith(t, srv, canaryKey, func(r *env) {
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
	invoices, statement := "/api/v1/invoices", []string{"statement", "--utc"}
	rows := []struct {
		name  string
		fault demoserver.Fault
		args  []string
		want  string
	}{
		{"500", demoserver.Fault{Path: charges, Status: 500, Body: `{"success":false,"msg":"boom"}`}, allCharges, "server error"},
		{"503 after retries", demoserver.Fault{Path: charges, Status: 503, Body: "unavailable"}, allCharges, "server error"},
		{"hang", demoserver.Fault{Path: charges, Hang: true}, allCharges, "in time — check the network"},
		{"html with 200", demoserver.Fault{Path: charges, Status: 200, ContentType: "text/html", Body: "<html>\x1b]0;pwned\x07login</html>"}, allCharges, "unexpected response"},
		{"empty body", demoserver.Fault{Path: charges, Status: 200, Body: ""}, allCharges, "unexpected response"},
		{"truncated json", demoserver.Fault{Path: charges, Mutate: func(b []byte) []byte { return b[:len(b)/2] }}, allCharges, "unexpected response"},
		{"echoes the key", demoserver.Fault{Path: "/api/v0/users/current", Status: 500, Body: `{"msg":"bad key ` + canaryKey + `"}`}, []string{"credit"}, "server error"},
		{"put 400", demoserver.Fault{Method: "PUT", Status: 400, Body: `{"success":false,"error":"invalid_request","msg":"nope"}`}, []string{"notifications", "--email", "off"}, "nope"},
		{"invoices success:false", demoserver.Fault{Path: invoices, Status: 200, Body: `{"success":false,"error":"Invalid date range \u001b[2J"}`}, statement, "Invalid date range"},
		{"invoices 500", demoserver.Fault{Path: invoices, Status: 500, Body: `{"msg":"boom"}`}, statement, "server error"},
		{"invoices hang", demoserver.Fault{Path: invoices, Hang: true}, []string{"payments"}, "in time — check the network"},
		{"invoices truncated", demoserver.Fault{Path: invoices, Mutate: func(b []byte) []byte { return b[:len(b)/2] }}, statement, "unexpected response"},
		{"invoices html", demoserver.Fault{Path: invoices, Status: 200, ContentType: "text/html", Body: "<html>\x1b]0;pwned\x07</html>"}, []string{"payments"}, "unexpected response"},
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

// A save whose answer is lost (no answer in time, an answer cut short, a
// 502 from a gateway) is an unknown outcome: the preferences are read
// again, printed, and the line says whether the change took. A change
// that did not take fails (exit 1); one the read confirms is the answer
// asked for (exit 0), with the lost answer said on stderr (issue 27 item
// 9).
func TestHeadlessSaveOutcomeUnknown(t *testing.T) {
	rows := []struct {
		name  string
		fault demoserver.Fault
		code  int
		// out is what the server holds afterwards.
		out, want string
	}{
		{"put hangs", demoserver.Fault{Method: "PUT", Hang: true}, exitRuntime,
			"Low credit by email: on\nLow credit by webhooks: off\n", "in time — check the network (--timeout sets how long to wait)); read again, the server does not hold the change: not saved"},
		{"put lands, answer garbled", demoserver.Fault{Method: "PUT", Mutate: func(b []byte) []byte { return b[:len(b)/2] }}, exitOK,
			"Low credit by email: off\nLow credit by webhooks: off\n", "unexpected response from the server: the response is cut short); read again, the server holds the change: saved"},
		{"put lands, a gateway answers 502 in HTML", demoserver.Fault{Method: "PUT", Applied: true, Status: 502,
			ContentType: "text/html", Body: "<html><h1>502 Bad Gateway</h1></html>"}, exitOK,
			"Low credit by email: off\nLow credit by webhooks: off\n", "(HTTP 502)"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			res, srv := runFast(t, row.fault, "notifications", "--email", "off")
			if res.code != row.code {
				t.Errorf("exit %d, want %d", res.code, row.code)
			}
			if res.out != row.out {
				t.Errorf("stdout %q, want what the server holds %q", res.out, row.out)
			}
			if strings.Count(res.errOut, "\n") != 1 || !strings.HasPrefix(res.errOut, "vastdash: ") ||
				!strings.Contains(res.errOut, "answer was lost") || !strings.Contains(res.errOut, row.want) {
				t.Errorf("stderr %q, want one line saying the answer was lost and whether the change took (%s)", res.errOut, row.want)
			}
			// What was printed is what the server holds.
			if got := "Low credit by email: " + notices.SwitchState(api.NewPrefs(srv.Prefs()), api.LowCreditEmail) + "\n"; !strings.HasPrefix(res.out, got) {
				t.Errorf("the server holds %q, stdout says %q", got, res.out)
			}
		})
	}
}

// A save whose answer is lost, on a stdout that cannot take what the
// server holds now, is still one line, and says both.
func TestHeadlessSaveOutcomeUnknownStdoutFull(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	srv.AddFault(demoserver.Fault{Method: "PUT", Hang: true})
	res := headlessWith(t, srv, demoserver.DemoKey, func(r *env) {
		r.stdout = &fullWriter{}
		r.clientOptions = append(r.clientOptions,
			api.WithTimeout(300*time.Millisecond), api.WithBackoff(2*time.Millisecond, 10*time.Millisecond))
	}, "notifications", "--email", "off")
	res.failed(t, exitRuntime, "cannot be written: no space left on device")
	if !strings.Contains(res.errOut, "the save's answer was lost") || !strings.Contains(res.errOut, "not saved") {
		t.Errorf("stderr %q does not say the answer was lost and the change did not take", res.errOut)
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
	// A request refused with 429 is the pacer's (a loaded machine delays
	// one request's departure and not the next's): what the reset costs
	// is one request more, whatever the pace did.
	n := 0
	for _, r := range chargesRequests(srv) {
		if r.Status != http.StatusTooManyRequests {
			n++
		}
	}
	if n != 4 {
		t.Fatalf("%d charges requests answered, want 4 (3 pages and one retry)", n)
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

// runFast runs args against a fault server and fails the test when the run
// takes longer than a sane answer may: a value that makes the program walk
// a billion days or page forever shows here, not as a hung test suite.
func runFast(t *testing.T, f demoserver.Fault, args ...string) (result, *demoserver.Server) {
	t.Helper()
	return runFastTimeout(t, f, 300*time.Millisecond, args...)
}

// runValues is runFast for a fault that changes what the server sends, not
// when: with a request timeout of seconds, a machine slowed by the race
// detector and other builds cannot turn a late answer into a failure the
// row is not about (seen: "no response in time" at a load of 10 on 2 cores).
func runValues(t *testing.T, f demoserver.Fault, args ...string) (result, *demoserver.Server) {
	t.Helper()
	return runFastTimeout(t, f, 5*time.Second, args...)
}

func runFastTimeout(t *testing.T, f demoserver.Fault, timeout time.Duration, args ...string) (result, *demoserver.Server) {
	t.Helper()
	start := time.Now()
	res, srv := faultRunTimeout(t, &f, timeout, args...)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("%v took %s: a broken value must be refused at once", args, d.Round(time.Millisecond))
	}
	return res, srv
}

// Values the program must refuse to believe: each entry holding one is
// left out of the output and the totals, and a warning says how many; the
// rest of the answer is exact. The server sends 1,200 contracts, newest
// first, 500 a page; the first page's first entries are the first of
// srv.Contracts.
func TestHeadlessRefusesInsaneValues(t *testing.T) {
	charges := "/api/v0/charges"
	setFirst := func(n int, field, value string) func(*testing.T) demoserver.Fault {
		return func(t *testing.T) demoserver.Fault {
			return demoserver.Fault{Path: charges, Mutate: demoserver.MutateFirstPage(func(page demoserver.Page) {
				page.SetField(0, n, field, value)
			})}
		}
	}
	rows := []struct {
		name  string
		fault func(*testing.T) demoserver.Fault
		// dropped are the indexes in srv.Contracts of the entries the
		// answer must leave out.
		dropped []int
		// warning is the state whose warnings stderr must hold, and
		// mentions what they must say.
		warning  billing.State
		mentions string
	}{
		{"end at unix 1e18", setFirst(1, "end", "1000000000000000000"), []int{0}, billing.State{Skipped: 1}, "1 malformed entry skipped"},
		{"end on 9999-12-31", setFirst(1, "end", "253402214400"), []int{0}, billing.State{Skipped: 1}, "1 malformed entry skipped"},
		{"start at -2^63", setFirst(1, "start", "-9223372036854775808"), []int{0}, billing.State{Skipped: 1}, "1 malformed entry skipped"},
		{"amount of the wrong type", setFirst(1, "amount", `"lots"`), []int{0}, billing.State{Skipped: 1}, "1 malformed entry skipped"},
		// Twelve of them would wrap an int64 of thousandths to a negative
		// total; each is beyond any plausible charge.
		{"twelve amounts of 1e15", setFirst(12, "amount", "1000000000000000"),
			[]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, billing.State{Skipped: 12}, "12 malformed entries skipped"},
		{"the same contract on two pages", func(t *testing.T) demoserver.Fault {
			var first json.RawMessage
			return demoserver.Fault{Path: charges, Mutate: demoserver.MutatePages(func(n int, page demoserver.Page) {
				rs := page.Results()
				switch n {
				case 0:
					first = rs[0]
				case 1:
					rs[0] = first // in place of the 501st contract
					page.SetResults(rs)
				}
			})}
		}, []int{api.MaxLimit}, billing.State{Duplicates: 1}, "1 repeated contract dropped"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			res, srv := runValues(t, row.fault(t), allCharges...)
			res.ok(t)
			all := srv.Contracts(wholeSpanFilter(t))
			var want []demoserver.Contract
			for i, c := range all {
				if !slices.Contains(row.dropped, i) {
					want = append(want, c)
				}
			}
			rows := readCSV(t, res.out)
			if len(rows) != len(want) {
				t.Fatalf("%d rows, want %d", len(rows), len(want))
			}
			var sum int64
			for i, r := range rows {
				if r[3] != want[i].Source || r[6] != money.Amount(want[i].Amount).Decimal() {
					t.Fatalf("row %d: %q, want %s %s", i, r, want[i].Source, money.Amount(want[i].Amount).Decimal())
				}
				sum += want[i].Amount
			}
			wantErr := fmt.Sprintf("%s contracts · %s\n", money.Group(int64(len(want))), money.Amount(sum))
			for _, w := range row.warning.Warnings() {
				wantErr += "vastdash: " + w + "\n"
			}
			if res.errOut != wantErr {
				t.Errorf("stderr\n%q\nwant\n%q", res.errOut, wantErr)
			}
			if !strings.Contains(res.errOut, row.mentions) {
				t.Errorf("stderr %q does not say %q", res.errOut, row.mentions)
			}
		})
	}
}

// A server that pages in a circle or past its own total is stopped with an
// error, fast: no endless paging, no half-written answer.
func TestHeadlessStopsRunawayPaging(t *testing.T) {
	charges := "/api/v0/charges"
	rows := []struct {
		name  string
		fault func(*testing.T) demoserver.Fault
		want  string
	}{
		{"token cycle A→B→A", func(t *testing.T) demoserver.Fault {
			var a json.RawMessage
			return demoserver.Fault{Path: charges, Mutate: demoserver.MutatePages(func(n int, page demoserver.Page) {
				switch n {
				case 0:
					a = page["next_token"]
				case 2:
					// The third page leads back to the second.
					page["next_token"] = a
				}
			})}
		}, "repeat"},
		{"rows beyond the total", func(t *testing.T) demoserver.Fault {
			return demoserver.Fault{Path: charges, Mutate: demoserver.MutatePages(func(_ int, page demoserver.Page) {
				page["total"] = json.RawMessage("1")
			})}
		}, "total"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			res, _ := runValues(t, row.fault(t), allCharges...)
			res.failed(t, exitRuntime, row.want)
		})
	}
}

// credit --runway with a charge in the burn window that no server could
// mean answers at once, without a runway: the note says charges could not
// be read rather than overstating how long the credit lasts.
func TestHeadlessRunwayRefusesInsaneTimes(t *testing.T) {
	for _, c := range []struct{ field, value string }{
		{"end", "253402214400"}, // 9999-12-31
		{"end", "1000000000000000000"},
		{"start", "-9223372036854775808"},
	} {
		t.Run(c.field+"="+c.value, func(t *testing.T) {
			f := demoserver.Fault{Path: "/api/v0/charges", Mutate: demoserver.MutateFirstPage(func(page demoserver.Page) {
				page.SetField(0, 1, c.field, c.value)
			})}
			res, srv := runValues(t, f, "credit", "--json", "--runway", "--utc")
			res.ok(t)
			if len(chargesRequests(srv)) == 0 {
				t.Fatal("no charges read")
			}
			var got map[string]json.RawMessage
			if err := json.Unmarshal([]byte(res.out), &got); err != nil {
				t.Fatalf("%v: %q", err, res.out)
			}
			if string(got["runway_days"]) != "null" || string(got["runway_note"]) != `"1 charge could not be read"` {
				t.Errorf("stdout %s, want no runway and a note that a charge could not be read", res.out)
			}
			if res.errOut != "" {
				t.Errorf("stderr %q", res.errOut)
			}
		})
	}
}

// fullWriter is a stdout that takes room bytes and then fails the way a
// full disk does.
type fullWriter struct{ room int }

func (w *fullWriter) Write(p []byte) (int, error) {
	if len(p) <= w.room {
		w.room -= len(p)
		return len(p), nil
	}
	n := w.room
	w.room = 0
	return n, &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
}

// An answer that cannot be written is a failure (exit 1, one line saying
// so), whatever the command and however much of it got out: a script must
// not take exit 0 for "the answer is in the file".
func TestHeadlessStdoutFull(t *testing.T) {
	text := append([]string{"charges", "--items"}, wholeSpan()...)
	rows := []struct {
		args []string
		room int
	}{
		{[]string{"credit"}, 0},
		{[]string{"credit", "--json"}, 0},
		{[]string{"credit", "--runway", "--json"}, 10},
		{[]string{"notifications"}, 0},
		{[]string{"notifications", "--webhooks", "on"}, 0},
		{allCharges, 0},
		{append([]string{"charges", "--output", "json"}, wholeSpan()...), 0},
		{text, 0},
		// Full in the middle of a long table.
		{text, 100_000},
		{[]string{"charges", "--help"}, 0},
		{[]string{"--help"}, 0},
		{[]string{"help"}, 0},
		{[]string{"help", "credit"}, 0},
		{[]string{"--version"}, 0},
		{[]string{"completion", "bash"}, 0},
		{[]string{"completion", "zsh"}, 1000},
		{[]string{"man"}, 0},
	}
	for _, row := range rows {
		t.Run(fmt.Sprintf("%s/room %d", strings.Join(row.args, " "), row.room), func(t *testing.T) {
			srv := startServer(t, demoserver.Options{Contracts: 600})
			res := headlessWith(t, srv, demoserver.DemoKey, func(r *env) {
				r.stdout = &fullWriter{room: row.room}
			}, row.args...)
			res.failed(t, exitRuntime, "cannot write the answer: no space left on device")
		})
	}
}

// A preferences read the server refuses without naming a permission is not
// reported as a missing permission, and the two front ends agree on what
// follows: no save without --force (the dashboard asks instead), a forced
// save holding only the switches given.
func TestHeadlessPrefsReadRefused(t *testing.T) {
	refuse := demoserver.Fault{Method: "GET", Path: "/api/v0/users/", Status: 403, Body: `{"detail":"Forbidden"}`}
	prefsOnly := func(f demoserver.Fault, srv *demoserver.Server) demoserver.Fault {
		f.Path = "/api/v0/users/" + fmt.Sprint(srv.UserID()) + "/notification-prefs"
		return f
	}
	srv := startServer(t, demoserver.Options{Contracts: 10})
	srv.AddFault(prefsOnly(refuse, srv))
	res := headless(t, srv, demoserver.DemoKey, "notifications", "--email", "off")
	res.failed(t, exitRuntime, "refused access (HTTP 403): Forbidden")
	if strings.Contains(res.errOut, "lacks the") || !strings.Contains(res.errOut, "--force") {
		t.Errorf("stderr %q: names a permission the server did not, or no --force advice", res.errOut)
	}
	for _, r := range srv.Requests() {
		if r.Method == "PUT" {
			t.Fatal("saved without --force")
		}
	}
	res = headless(t, srv, demoserver.DemoKey, "notifications", "--email", "off", "--force")
	res.ok(t)
	if got := srv.Prefs(); !reflectEqualJSON(got, `{"client":{"low_credit":{"email":false}}}`) {
		t.Errorf("the forced save left %v", got)
	}
}

func reflectEqualJSON(got map[string]any, want string) bool {
	a, _ := json.Marshal(got)
	var w any
	_ = json.Unmarshal([]byte(want), &w)
	b, _ := json.Marshal(w)
	return string(a) == string(b)
}

// A 429 storm whose threshold reads as huge (342 s) does not keep a run
// waiting whatever the user asked: --deadline ends it, promptly, with one
// line saying so and nothing on stdout.
func TestHeadlessDeadlineEndsA429Storm(t *testing.T) {
	f := demoserver.Fault{Path: "/api/v0/charges", Status: 429,
		Body: `{"detail":"API requests too frequent endpoint threshold=342"}`}
	start := time.Now()
	res, _ := faultRun(t, &f, append([]string{"--deadline", "1500ms"}, allCharges...)...)
	if d := time.Since(start); d > 6*time.Second {
		t.Errorf("the run took %s with a 1.5 s deadline", d.Round(time.Millisecond))
	}
	res.failed(t, exitRuntime, "gave up: the --deadline passed")
}

func TestHeadlessDeadlineMustBePositive(t *testing.T) {
	res, _ := faultRun(t, nil, "--deadline", "-1s", "credit")
	res.failed(t, exitUsage, "--deadline must be positive")
}

// auth status through faults, with the canary key: when nothing answers it
// fails in one line naming where the key came from; a fault on one probe
// leaves that permission unknown, saying why, and the key never shows.
func TestHeadlessAuthStatusFaults(t *testing.T) {
	echo := `{"msg":"bad key ` + canaryKey + ` \u001b[2J"}`
	rows := []struct {
		name  string
		fault demoserver.Fault
		code  int
		want  string
	}{
		{"every probe echoes the key", demoserver.Fault{Status: 500, Body: echo}, exitRuntime, "the key from the environment variable VAST_API_KEY: GET /api/"},
		{"every probe hangs", demoserver.Fault{Hang: true}, exitRuntime, "in time — check the network"},
		{"html", demoserver.Fault{Status: 200, ContentType: "text/html", Body: "<html>\x1b]0;pwned\x07</html>"}, exitRuntime, "unexpected response"},
		{"one probe echoes the key", demoserver.Fault{Path: "/api/v1/instances", Status: 500, Body: echo}, exitOK, "— GET /api/v1/instances/: server error (HTTP 500): bad key [redacted]"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			res, _ := faultRun(t, &row.fault, "auth", "status")
			if row.code != exitOK {
				res.failed(t, row.code, row.want)
			} else if res.code != exitOK || !strings.Contains(res.out, row.want) {
				t.Fatalf("exit %d, stdout %q", res.code, res.out)
			}
			if strings.ContainsAny(res.out+res.errOut, "\x1b\x07") {
				t.Errorf("a control character was printed: %q %q", res.out, res.errOut)
			}
		})
	}
}
