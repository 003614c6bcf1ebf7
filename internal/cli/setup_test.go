package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"net/netip"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/internal/testhome"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"go.uber.org/goleak"
)

// threshold is the pacing of the test servers and clients: real pacing,
// short enough for fast tests.
const threshold = 20 * time.Millisecond

// demoNow is where the test data ends: fixed, so day boundaries are too.
var demoNow = time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC)

func startServer(t *testing.T, o demoserver.Options) *demoserver.Server {
	t.Helper()
	if o.Threshold == 0 {
		o.Threshold = threshold
	}
	if o.Now.IsZero() {
		o.Now = demoNow
	}
	srv, err := demoserver.Start(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// result is what one run printed and returned.
type result struct {
	code        int
	out, errOut string
}

// headless runs vastdash against srv with key, the way a user with
// --url and VAST_API_KEY would, the client paced like the server.
func headless(t *testing.T, srv *demoserver.Server, key string, args ...string) result {
	t.Helper()
	return headlessWith(t, srv, key, nil, args...)
}

func headlessWith(t *testing.T, srv *demoserver.Server, key string, tweak func(*env), args ...string) result {
	t.Helper()
	return runAgainst(t, srv, key, tweak, append([]string{"--url", srv.URL()}, args...)...)
}

// runAgainst is headlessWith without the --url: tweak says where the
// server is (VAST_URL), for the commands whose own --url shadows it.
func runAgainst(t *testing.T, srv *demoserver.Server, key string, tweak func(*env), args ...string) result {
	t.Helper()
	isolate(t)
	t.Setenv("VAST_API_KEY", key)
	var out, errb bytes.Buffer
	r := testEnv(&out, &errb)
	r.clientOptions = []api.Option{api.WithChargesThreshold(threshold)}
	r.now = srv.Now
	r.context = func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
	if tweak != nil {
		tweak(r)
	}
	code := run(args, r)
	return result{code, out.String(), errb.String()}
}

func (res result) ok(t *testing.T) {
	t.Helper()
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.errOut)
	}
}

// oneLine asserts a failure: the exit code, one line on stderr containing
// want, nothing on stdout.
func (res result) failed(t *testing.T, code int, want string) {
	t.Helper()
	if res.code != code {
		t.Errorf("exit %d, want %d (stderr %q)", res.code, code, res.errOut)
	}
	if res.out != "" {
		t.Errorf("stdout %q, want nothing", res.out)
	}
	if !strings.HasPrefix(res.errOut, "vastdash: ") || !strings.HasSuffix(res.errOut, "\n") || strings.Count(res.errOut, "\n") != 1 {
		t.Errorf("stderr %q, want one line starting with vastdash:", res.errOut)
	}
	if !strings.Contains(res.errOut, want) {
		t.Errorf("stderr %q, want it to mention %q", res.errOut, want)
	}
}

// chargesRequests are the requests to the charges endpoint.
func chargesRequests(srv *demoserver.Server) []demoserver.Request {
	var out []demoserver.Request
	for _, r := range srv.Requests() {
		if strings.TrimSuffix(r.Path, "/") == "/api/v0/charges" {
			out = append(out, r)
		}
	}
	return out
}

// pagingRequests are the charges requests of the feeds' paging, and
// probes the ones that learnt the amount rule: billing asks one whole UTC
// day when a contract reaches outside the range asked and the figures
// spread amounts over days — oldest first, or newest first like the page
// its contracts came from, and then it is not the range paged.
func pagingRequests(srv *demoserver.Server) (paging, probes []demoserver.Request) {
	first := ""
	for _, r := range chargesRequests(srv) {
		var sf struct {
			Day struct{ Gte, Lte int64 } `json:"day"`
		}
		filter := r.Query.Get("select_filters")
		if first == "" {
			first = filter
		}
		_ = json.Unmarshal([]byte(filter), &sf)
		if (r.Query.Get("latest_first") == "false" || filter != first) && sf.Day.Gte%86400 == 0 && sf.Day.Lte == sf.Day.Gte+86399 {
			probes = append(probes, r)
			continue
		}
		paging = append(paging, r)
	}
	return paging, probes
}

// wholeSpan is a range holding every contract of a test server.
func wholeSpan() []string {
	return []string{"--from", demoNow.AddDate(-1, 0, -2).Format(time.DateOnly), "--to", demoNow.Format(time.DateOnly), "--utc"}
}

func wholeSpanFilter(t *testing.T) demoserver.Filter {
	t.Helper()
	rng, err := spend.ParseRange(demoNow.AddDate(-1, 0, -2).Format(time.DateOnly)+".."+demoNow.Format(time.DateOnly), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return demoserver.Filter{Gte: rng.From.Unix(), Lte: rng.To.Unix()}
}

func readCSV(t *testing.T, s string) [][]string {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("stdout is not CSV: %v", err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != "start,end,type,source,label,description,amount,template_id,endpoint_id,workergroup_id" {
		t.Fatalf("CSV header %v", rows)
	}
	return rows[1:]
}

func parseAmount(t *testing.T, s string) money.Amount {
	t.Helper()
	a, err := money.Parse(s)
	if err != nil {
		t.Fatalf("amount %q: %v", s, err)
	}
	return a
}

// isolate points every key, settings, ledger, state and cache location at
// an empty temp home (HOME and every XDG folder under it).
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for _, f := range testhome.Folders {
		t.Setenv(f.Name, filepath.Join(home, f.Under))
	}
	if kept, ok := keptFolders.Load(t); ok {
		for name, dir := range kept.(map[string]string) {
			t.Setenv(name, dir)
		}
	}
	t.Setenv("VAST_API_KEY", "")
	t.Setenv("VAST_URL", "")
	t.Setenv("VASTDASH_ACCOUNT", "")
	return home
}

// keptFolders holds, per test, the folders its runs share (keepFolder):
// each run is otherwise isolated in folders of its own.
var keptFolders sync.Map

// keepFolder makes every run of t use dir for the folder variable name
// (XDG_STATE_HOME, …), as runs of one user on one machine do: what one
// run keeps there the next one reads.
func keepFolder(t *testing.T, name, dir string) {
	t.Helper()
	m := map[string]string{}
	if kept, ok := keptFolders.Load(t); ok {
		m = kept.(map[string]string)
	}
	m[name] = dir
	keptFolders.Store(t, m)
	t.Cleanup(func() { keptFolders.Delete(t) })
	t.Setenv(name, dir)
}

// testEnv is the process's env writing to out and errOut.
func testEnv(out, errOut io.Writer) *env {
	e := processEnv("")
	e.stdout, e.stderr = out, errOut
	e.ledger = false // the ledger's tests turn it on (ledger_test.go)
	// No test looks a name up on the network, and none reads the
	// terminal's stdin: the test process's may be a terminal.
	e.resolve = func(context.Context, string) ([]netip.Addr, error) { return nil, errors.New("no network in tests") }
	e.stdin = strings.NewReader("")
	e.readSecret = func(context.Context) (string, error) { return "", errors.New("no terminal in tests") }
	return e
}

func runMain(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, testEnv(&out, &errb))
	return code, out.String(), errb.String()
}

// No run may leave a goroutine behind: every request ends with its command.
// Nor may a test read or write the user's own folders: testhome stands empty
// folders in for them and fails the run if a test wrote there (one that
// forgot isolate).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(testhome.Wrap(m))
}

// hasJSONFields reports whether out is a JSON object holding every field of
// want (a JSON object) with the same value, numbers as written.
func hasJSONFields(t *testing.T, out, want string) bool {
	t.Helper()
	var got, w map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not a JSON object: %v: %q", err, out)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want: %v", err)
	}
	for k, v := range w {
		var a, b bytes.Buffer
		if json.Compact(&a, got[k]) != nil || json.Compact(&b, v) != nil || a.String() != b.String() {
			return false
		}
	}
	return true
}
