package prefs

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// testKey must never reach the screen, even when a server echoes it.
const testKey = "sk-test-7f3a9c1e5b"

const userID = 42

const prefsPath = "/api/v0/users/42/notification-prefs/"

// fakeServer serves the preferences endpoints of one user and records
// every request it received.
type fakeServer struct {
	t   *testing.T
	srv *httptest.Server

	mu  sync.Mutex
	doc string // the stored document, JSON
	// getStatus / putStatus, when non-zero, answer with that status and
	// errBody instead of the document.
	getStatus, putStatus int
	errBody              string
	// reply, when set, picks the document a successful PUT answers with.
	reply func(sent string) string
	reqs  []request
}

type request struct {
	method, path string
	body         []byte
}

func newServer(t *testing.T, doc string) *fakeServer {
	f := &fakeServer{t: t, doc: doc}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, request{r.Method, r.URL.Path, body})
	if r.Header.Get("Authorization") != "Bearer "+testKey {
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"success":false,"error":"auth_error","msg":"login required"}`)
		return
	}
	if strings.TrimSuffix(r.URL.Path, "/")+"/" != prefsPath {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.Method {
	case http.MethodGet:
		if f.getStatus != 0 {
			w.WriteHeader(f.getStatus)
			_, _ = io.WriteString(w, f.errBody)
			return
		}
	case http.MethodPut:
		if f.putStatus != 0 {
			w.WriteHeader(f.putStatus)
			_, _ = io.WriteString(w, f.errBody)
			return
		}
		var env struct {
			Prefs json.RawMessage `json:"notification_preferences"`
		}
		if err := json.Unmarshal(body, &env); err != nil || len(env.Prefs) == 0 {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"success":false,"error":"bad_request","msg":"no notification_preferences"}`)
			return
		}
		f.doc = string(env.Prefs)
		if f.reply != nil {
			f.doc = f.reply(f.doc)
		}
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	_, _ = io.WriteString(w, `{"success":true,"notification_preferences":`+f.doc+`}`)
}

func (f *fakeServer) set(fn func(f *fakeServer)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

// puts returns the documents the server received in PUTs, in order.
func (f *fakeServer) puts() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []map[string]any
	for _, r := range f.reqs {
		if r.method != http.MethodPut {
			continue
		}
		var env struct {
			Prefs map[string]any `json:"notification_preferences"`
		}
		dec := json.NewDecoder(bytes.NewReader(r.body))
		dec.UseNumber()
		if err := dec.Decode(&env); err != nil {
			f.t.Fatalf("PUT body %q: %v", r.body, err)
		}
		out = append(out, env.Prefs)
	}
	return out
}

func (f *fakeServer) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.reqs {
		if r.method == method {
			n++
		}
	}
	return n
}

func newCtx(t *testing.T, url string) *shared.Context {
	t.Helper()
	c, err := api.New(url, testKey, api.WithBackoff(time.Millisecond, time.Millisecond), api.WithTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &shared.Context{Base: ctx, Client: c, Styles: theme.New(true), Location: time.UTC}
}

func ptr[T any](v T) *T { return &v }

func testUser() api.User {
	return api.User{ID: userID, Credit: 12000, BalanceThreshold: ptr(money.Amount(50000)), BalanceThresholdEnabled: ptr(true)}
}

// start builds the screen against f, delivers the account and runs the GET.
func start(t *testing.T, f *fakeServer, w, h int) *Model {
	t.Helper()
	m := New(newCtx(t, f.srv.URL))
	m.SetSize(w, h)
	if m.Init() != nil {
		t.Fatal("Init should wait for the account")
	}
	cmd := m.Update(shared.UserMsg{User: testUser()})
	if cmd == nil || !m.Loading() {
		t.Fatal("the account should start the GET")
	}
	run(t, m, cmd)
	return m
}

// run executes cmd and every command its result leads to, synchronously.
func run(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	for i := 0; cmd != nil; i++ {
		if i > 20 {
			t.Fatal("command chain does not end")
		}
		cmd = m.Update(cmd())
	}
}

func press(k string) tea.KeyPressMsg {
	switch k {
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	}
	return tea.KeyPressMsg{Code: rune(k[0]), Text: k}
}

func view(m *Model) string { return ansi.Strip(m.View()) }

// stateOf returns the state text shown on the row of label.
func stateOf(t *testing.T, m *Model, label string) string {
	t.Helper()
	for _, l := range strings.Split(view(m), "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " "), " "+label) {
			s := strings.TrimPrefix(strings.TrimPrefix(l, "› "), "  ")
			return strings.TrimSpace(strings.TrimSuffix(strings.TrimRight(s, " "), label))
		}
	}
	t.Fatalf("no row %q in\n%s", label, view(m))
	return ""
}

// flat joins the view's words with single spaces, so a check does not
// depend on where a paragraph wraps.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

func mustContain(t *testing.T, m *Model, parts ...string) {
	t.Helper()
	v := view(m)
	for _, p := range parts {
		if !strings.Contains(flat(v), flat(p)) {
			t.Errorf("view lacks %q:\n%s", p, v)
		}
	}
}

const (
	email    = "low credit by email"
	webhooks = "low credit by webhooks"
)

// fullDoc has contexts, types, channels and values vastdash does not show;
// a PUT must send them back untouched (1.50 stays 1.50).
const fullDoc = `{"client":{"low_credit":{"email":true,"webhooks":false},"invoice":{"email":true}},"host":{"machine_offline":{"email":false,"sms":true},"weight":1.50}}`

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestKeyStrings(t *testing.T) {
	// The bindings match on String(); make sure the fakes produce the
	// strings a terminal would.
	for k, want := range map[string]string{"space": "space", "enter": "enter", "esc": "esc", "y": "y", "up": "up"} {
		if got := press(k).String(); got != want {
			t.Errorf("press(%q).String() = %q", k, got)
		}
	}
}

func TestWaitsForAccountThenReads(t *testing.T) {
	f := newServer(t, fullDoc)
	m := New(newCtx(t, f.srv.URL))
	m.SetSize(80, 20)
	mustContain(t, m, "loading account…")
	// An account error is shown, and nothing is requested.
	if cmd := m.Update(shared.UserMsg{Err: &api.Error{Kind: api.ErrInvalidKey}}); cmd != nil {
		t.Fatal("no GET without a user id")
	}
	mustContain(t, m, "account not loaded: the API key was rejected")
	run(t, m, m.Update(shared.UserMsg{User: testUser()}))
	if got := stateOf(t, m, email); got != "[x] on" {
		t.Errorf("email = %q", got)
	}
	if got := stateOf(t, m, webhooks); got != "[ ] off" {
		t.Errorf("webhooks = %q", got)
	}
	if m.Loading() {
		t.Error("still loading after the GET")
	}
	f.mu.Lock()
	r := f.reqs[len(f.reqs)-1]
	f.mu.Unlock()
	if r.method != http.MethodGet || strings.TrimSuffix(r.path, "/")+"/" != prefsPath {
		t.Errorf("request %s %s", r.method, r.path)
	}
	// The cursor starts on the first switch.
	if !strings.Contains(view(m), "› [x] on") {
		t.Errorf("cursor not on the first switch:\n%s", view(m))
	}
	mustContain(t, m, "Low credit alerts fire below $50.00 (threshold enabled).")
}

func TestToggleSendsWholeDocument(t *testing.T) {
	f := newServer(t, fullDoc)
	m := start(t, f, 80, 20)
	m.Update(press("j"))
	cmd := m.Update(press("space"))
	if cmd == nil {
		t.Fatal("space should save at once")
	}
	if got := stateOf(t, m, webhooks); got != "… saving on" || !m.Loading() {
		t.Errorf("during the save: %q, loading %v", got, m.Loading())
	}
	run(t, m, cmd)
	puts := f.puts()
	if len(puts) != 1 {
		t.Fatalf("%d PUTs", len(puts))
	}
	want := decode(t, strings.Replace(fullDoc, `"webhooks":false`, `"webhooks":true`, 1))
	if !reflect.DeepEqual(puts[0], want) {
		t.Errorf("PUT sent %v\nwant      %v", puts[0], want)
	}
	f.mu.Lock()
	raw := string(f.reqs[len(f.reqs)-1].body)
	f.mu.Unlock()
	if !strings.Contains(raw, "1.50") {
		t.Errorf("a number the screen does not know was rewritten: %s", raw)
	}
	if got := stateOf(t, m, webhooks); got != "[x] on" {
		t.Errorf("after the save: %q", got)
	}
	mustContain(t, m, "✓ saved: low credit by webhooks on")
	// Enter toggles too, on the confirmed document.
	m.Update(press("k"))
	run(t, m, m.Update(press("enter")))
	puts = f.puts()
	want = decode(t, strings.Replace(strings.Replace(fullDoc, `"webhooks":false`, `"webhooks":true`, 1), `"low_credit":{"email":true`, `"low_credit":{"email":false`, 1))
	if len(puts) != 2 || !reflect.DeepEqual(puts[1], want) {
		t.Errorf("second PUT %v\nwant       %v", puts[len(puts)-1], want)
	}
}

func TestToggleFailureRollsBack(t *testing.T) {
	f := newServer(t, fullDoc)
	m := start(t, f, 100, 20)
	f.set(func(f *fakeServer) {
		f.putStatus = http.StatusBadRequest
		// A hostile body: escape sequences, and the key echoed back.
		f.errBody = `{"success":false,"error":"bad_request","msg":"body refused \u001b[2J for ` + testKey + `"}`
	})
	run(t, m, m.Update(press("space")))
	if got := stateOf(t, m, email); got != "[x] on" {
		t.Errorf("after a failed save email = %q, want the confirmed [x] on", got)
	}
	mustContain(t, m, "✗ could not save low credit by email:", "body refused", "still on")
	out := m.View()
	if strings.Contains(out, testKey) || strings.Contains(out, "\x1b[2J") {
		t.Errorf("unsafe text on screen: %q", out)
	}
	if m.Loading() {
		t.Error("loading after the failure")
	}
}

func TestQueuedToggleRunsAfter(t *testing.T) {
	f := newServer(t, fullDoc)
	m := start(t, f, 100, 20)
	first := m.Update(press("space")) // email → off, held in flight
	m.Update(press("down"))
	if cmd := m.Update(press("space")); cmd != nil {
		t.Fatal("a second save started while one is in flight")
	}
	if got := stateOf(t, m, webhooks); got != "… queued on" {
		t.Errorf("queued row = %q", got)
	}
	mustContain(t, m, "queued: low credit by webhooks on")
	second := m.Update(first())
	if second == nil || f.count(http.MethodPut) != 1 {
		t.Fatalf("the queued save should start after the first: next=%v puts=%d", second != nil, f.count(http.MethodPut))
	}
	run(t, m, second)
	puts := f.puts()
	if len(puts) != 2 {
		t.Fatalf("%d PUTs", len(puts))
	}
	// The queued save ran on the document the first save confirmed.
	lc := puts[1]["client"].(map[string]any)["low_credit"].(map[string]any)
	if lc["email"] != false || lc["webhooks"] != true {
		t.Errorf("second PUT low_credit = %v", lc)
	}
	if stateOf(t, m, email) != "[ ] off" || stateOf(t, m, webhooks) != "[x] on" {
		t.Errorf("final states:\n%s", view(m))
	}
}

func TestSameSwitchTwiceDuringSave(t *testing.T) {
	// Two presses: off in flight, then on queued → two PUTs, ends on.
	f := newServer(t, fullDoc)
	m := start(t, f, 100, 20)
	first := m.Update(press("space"))
	if m.Update(press("space")) != nil {
		t.Fatal("second press must queue")
	}
	if got := stateOf(t, m, email); got != "… saving off" {
		t.Errorf("row while saving with a queued change: %q", got)
	}
	run(t, m, m.Update(first()))
	if n := f.count(http.MethodPut); n != 2 {
		t.Fatalf("%d PUTs, want 2", n)
	}
	if got := stateOf(t, m, email); got != "[x] on" {
		t.Errorf("final email = %q, want on", got)
	}

	// Three presses: off in flight, on then off coalesce to off, which the
	// first save already confirmed → no second PUT.
	f2 := newServer(t, fullDoc)
	m2 := start(t, f2, 100, 20)
	first = m2.Update(press("space"))
	m2.Update(press("space"))
	m2.Update(press("space"))
	if got := stateOf(t, m2, email); got != "… saving off" {
		t.Errorf("row = %q", got)
	}
	run(t, m2, m2.Update(first()))
	if n := f2.count(http.MethodPut); n != 1 {
		t.Fatalf("%d PUTs, want 1", n)
	}
	if got := stateOf(t, m2, email); got != "[ ] off" {
		t.Errorf("final email = %q, want off", got)
	}
}

func TestFailureDropsQueue(t *testing.T) {
	f := newServer(t, fullDoc)
	m := start(t, f, 120, 20)
	f.set(func(f *fakeServer) { f.putStatus, f.errBody = http.StatusBadRequest, `{"success":false,"msg":"no"}` })
	first := m.Update(press("space"))
	m.Update(press("j"))
	m.Update(press("space"))
	if cmd := m.Update(first()); cmd != nil {
		t.Fatal("a queued save ran after a failure")
	}
	mustContain(t, m, "(1 queued change dropped)")
	if got := stateOf(t, m, webhooks); got != "[ ] off" {
		t.Errorf("webhooks = %q", got)
	}
}

func TestServerAnswersOtherState(t *testing.T) {
	f := newServer(t, fullDoc)
	m := start(t, f, 100, 20)
	// The server keeps email on whatever it is sent.
	f.set(func(f *fakeServer) {
		f.reply = func(sent string) string {
			return strings.Replace(sent, `"email":false,"webhooks"`, `"email":true,"webhooks"`, 1)
		}
	})
	run(t, m, m.Update(press("space")))
	if got := stateOf(t, m, email); got != "[x] on" {
		t.Errorf("email = %q, want what the server says", got)
	}
	mustContain(t, m, "! the server kept low credit by email on (vastdash asked for off)")
}

func TestGetUnavailableConfirmFlow(t *testing.T) {
	f := newServer(t, "{}")
	f.getStatus, f.errBody = http.StatusMethodNotAllowed, `{"detail":"Method \"GET\" not allowed."}`
	m := start(t, f, 100, 30)
	if stateOf(t, m, email) != "[?] unknown" || stateOf(t, m, webhooks) != "[?] unknown" {
		t.Fatalf("states should be unknown:\n%s", view(m))
	}
	mustContain(t, m, "Saving replaces every notification preference")

	// n cancels without a PUT.
	if cmd := m.Update(press("space")); cmd != nil {
		t.Fatal("a save without confirmation")
	}
	mustContain(t, m, "replaces the server's whole preferences document",
		"Set low credit by email to [x] on and replace all notification preferences?", "y save · n cancel")
	if m.Update(press("n")) != nil {
		t.Fatal("n saved")
	}
	mustContain(t, m, "not saved")
	if f.count(http.MethodPut) != 0 {
		t.Fatal("a PUT after n")
	}

	// Space in the prompt flips the proposal; y sends exactly that switch.
	m.Update(press("space"))
	m.Update(press("space"))
	mustContain(t, m, "Set low credit by email to [ ] off")
	run(t, m, m.Update(press("y")))
	puts := f.puts()
	if len(puts) != 1 || !reflect.DeepEqual(puts[0], decode(t, `{"client":{"low_credit":{"email":false}}}`)) {
		t.Fatalf("PUTs %v", puts)
	}
	if stateOf(t, m, email) != "[ ] off" || stateOf(t, m, webhooks) != "[?] unknown" {
		t.Errorf("after the save:\n%s", view(m))
	}

	// The document is now the server's: email toggles at once; webhooks,
	// still missing from it, asks for a value but no longer warns.
	run(t, m, m.Update(press("space")))
	if f.count(http.MethodPut) != 2 || stateOf(t, m, email) != "[x] on" {
		t.Fatalf("email toggle after a confirmed document:\n%s", view(m))
	}
	m.Update(press("j"))
	m.Update(press("space"))
	v := view(m)
	if !strings.Contains(v, "Set low credit by webhooks to [x] on?") || strings.Contains(v, "replace all") {
		t.Errorf("prompt for a missing switch:\n%s", v)
	}
	m.Update(press("esc"))
	if f.count(http.MethodPut) != 2 {
		t.Fatal("esc saved")
	}
}

func TestPutPermissionMakesReadOnly(t *testing.T) {
	f := newServer(t, fullDoc)
	m := start(t, f, 100, 20)
	f.set(func(f *fakeServer) {
		f.putStatus = http.StatusUnauthorized
		f.errBody = `{"success":false,"error":"permission_denied","msg":"API key lacks permission user_write"}`
	})
	run(t, m, m.Update(press("space")))
	mustContain(t, m, "this API key lacks the user_write permission — switches are read-only")
	if stateOf(t, m, email) != "[x] on" || stateOf(t, m, webhooks) != "[ ] off" {
		t.Errorf("states should be kept:\n%s", view(m))
	}
	if cmd := m.Update(press("space")); cmd != nil || f.count(http.MethodPut) != 1 {
		t.Error("a read-only switch saved again")
	}
	if m.Help().(KeyMap).Toggle.Enabled() {
		t.Error("help still offers toggling")
	}
}

func TestGetPermission(t *testing.T) {
	f := newServer(t, fullDoc)
	f.getStatus, f.errBody = http.StatusUnauthorized, `{"success":false,"error":"permission_denied","msg":"missing permission user_read"}`
	m := start(t, f, 100, 20)
	mustContain(t, m, "this API key lacks the user_read permission — the preferences can't be read")
	if stateOf(t, m, email) != "[?] unknown" {
		t.Errorf("email = %q", stateOf(t, m, email))
	}
}

func TestGetErrorRetry(t *testing.T) {
	f := newServer(t, fullDoc)
	f.getStatus, f.errBody = http.StatusBadRequest, `{"success":false,"msg":"try later"}`
	m := start(t, f, 120, 20)
	mustContain(t, m, "could not read the preferences:", "try later", "r to retry")
	// No save may overwrite a document that could not be read.
	if cmd := m.Update(press("space")); cmd != nil {
		t.Fatal("a save after a failed read")
	}
	mustContain(t, m, "must be read before a save")
	f.set(func(f *fakeServer) { f.getStatus = 0 })
	cmd := m.Update(press("r"))
	if cmd == nil || !m.Loading() {
		t.Fatal("r should re-read")
	}
	run(t, m, cmd)
	if stateOf(t, m, email) != "[x] on" || strings.Contains(view(m), "r to retry") {
		t.Errorf("after the retry:\n%s", view(m))
	}
	if f.count(http.MethodPut) != 0 {
		t.Error("unexpected PUT")
	}
}

func TestReloadRereadsAndIgnoresStaleAnswers(t *testing.T) {
	f := newServer(t, fullDoc)
	m := start(t, f, 100, 20)
	f.set(func(f *fakeServer) { f.doc = strings.Replace(fullDoc, `"webhooks":false`, `"webhooks":true`, 1) })
	stale := m.Update(shared.UserMsg{User: testUser()})
	if stale == nil {
		t.Fatal("a reload should re-read")
	}
	// A second account (another key) arrives before the answer: the old
	// answer must not land on it.
	other := testUser()
	other.ID = 7
	fresh := m.Update(shared.UserMsg{User: other})
	m.Update(stale())
	if !m.Loading() || stateOf(t, m, webhooks) != "[?] unknown" {
		t.Fatalf("a stale answer was applied:\n%s", view(m))
	}
	// User 7 has no preferences on this server (404): its own answer lands.
	run(t, m, fresh)
	mustContain(t, m, "this server does not let vastdash read the preferences")
}

func TestSmallSizes(t *testing.T) {
	f := newServer(t, "{}")
	f.getStatus = http.StatusNotFound
	m := start(t, f, 20, 5)
	m.Update(press("space")) // the prompt is the tallest state
	for w := 0; w <= 110; w += 1 {
		for _, h := range []int{0, 1, 2, 3, 5, 8, 24, 30} {
			m.SetSize(w, h)
			out := m.View()
			if w == 0 || h == 0 {
				if out != "" {
					t.Fatalf("%d×%d: %q", w, h, out)
				}
				continue
			}
			lines := strings.Split(out, "\n")
			if len(lines) != h {
				t.Fatalf("%d×%d: %d lines", w, h, len(lines))
			}
			for _, l := range lines {
				if ansi.StringWidth(l) != w {
					t.Fatalf("%d×%d: line %q", w, h, ansi.Strip(l))
				}
			}
		}
	}
	// At 20×5 the switches and the question stay; the long warning goes.
	m.SetSize(20, 5)
	v := view(m)
	if !strings.Contains(v, "[?] unknown") || !strings.Contains(v, "Set low credit by") {
		t.Errorf("20×5:\n%s", v)
	}
	m.SetSize(1, 1)
	if got := view(m); ansi.StringWidth(got) != 1 {
		t.Errorf("1×1: %q", got)
	}
}

func TestHelpFollowsState(t *testing.T) {
	f := newServer(t, "{}")
	f.getStatus = http.StatusNotFound
	m := start(t, f, 100, 20)
	k := m.Help().(KeyMap)
	if !k.Toggle.Enabled() || k.Yes.Enabled() {
		t.Error("outside the prompt: toggle, not y")
	}
	m.Update(press("space"))
	k = m.Help().(KeyMap)
	if k.Toggle.Enabled() || !k.Yes.Enabled() || !k.No.Enabled() || k.Up.Enabled() {
		t.Error("in the prompt: y/n only")
	}
	if m.Capturing() {
		t.Error("no text field")
	}
}

func TestGolden(t *testing.T) {
	f := newServer(t, fullDoc)
	m := start(t, f, 100, 30)
	m.Update(press("down"))
	run(t, m, m.Update(press("space")))
	checkGolden(t, "prefs_100x30.golden", view(m))

	g := newServer(t, "{}")
	g.getStatus = http.StatusMethodNotAllowed
	m = start(t, g, 100, 30)
	m.Update(press("space"))
	checkGolden(t, "prefs_confirm_100x30.golden", view(m))
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, name, got)
}
