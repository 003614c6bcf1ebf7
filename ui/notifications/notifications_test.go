package notifications

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
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/internal/hang"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// testKey must never reach the screen, even when a server echoes it.
const testKey = "sk-test-7f3a9c1e5b"

const userID = 42

const prefsPath = "/api/v0/users/42/notification-prefs/"

// What the fake server does after it has stored a PUT's document.
const (
	putAnswer  = iota // answer with the document (the normal case)
	putHang           // answer nothing until the client gives up (a timeout: see client)
	putReset          // close the connection without an answer
	putGateway        // answer 502 with a gateway's HTML page
	// putGatewayUnsaved answers 502 with the HTML page without storing
	// the document: the change did not take.
	putGatewayUnsaved
)

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
	// reply, when set, picks the document a successful PUT stores.
	reply func(sent string) string
	// putThen is what happens after a PUT is stored: putAnswer, putHang
	// or putReset.
	putThen int
	// getStatusAfterPut, when non-zero, answers every GET after the first
	// PUT with that status (the read after an unknown outcome fails too).
	getStatusAfterPut int
	reqs              []request
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
	status, out, then := f.answer(r, body)
	// The lock is not held here: a hung PUT must not hold up the read
	// that follows it.
	switch then {
	case putHang:
		<-r.Context().Done()
		return
	case putGateway, putGatewayUnsaved:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, "<html><body><h1>502 Bad Gateway</h1></body></html>")
		return
	case putReset:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, out)
}

// answer records the request and returns the status and body to send, or
// what to do instead of answering.
func (f *fakeServer) answer(r *http.Request, body []byte) (status int, out string, then int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	putBefore := f.countLocked(http.MethodPut) > 0
	f.reqs = append(f.reqs, request{r.Method, r.URL.Path, body})
	if r.Header.Get("Authorization") != "Bearer "+testKey {
		return http.StatusForbidden, `{"success":false,"error":"auth_error","msg":"login required"}`, putAnswer
	}
	if strings.TrimSuffix(r.URL.Path, "/")+"/" != prefsPath {
		return http.StatusNotFound, "", putAnswer
	}
	switch r.Method {
	case http.MethodGet:
		if f.getStatus != 0 {
			return f.getStatus, f.errBody, putAnswer
		}
		if f.getStatusAfterPut != 0 && putBefore {
			return f.getStatusAfterPut, `{"success":false,"msg":"down for a moment"}`, putAnswer
		}
	case http.MethodPut:
		if f.putStatus != 0 {
			return f.putStatus, f.errBody, putAnswer
		}
		var env struct {
			Prefs json.RawMessage `json:"notification_preferences"`
		}
		if err := json.Unmarshal(body, &env); err != nil || len(env.Prefs) == 0 {
			return http.StatusBadRequest, `{"success":false,"error":"bad_request","msg":"no notification_preferences"}`, putAnswer
		}
		if f.putThen == putGatewayUnsaved {
			return 0, "", f.putThen
		}
		f.doc = string(env.Prefs)
		if f.reply != nil {
			f.doc = f.reply(f.doc)
		}
		if f.putThen != putAnswer {
			return 0, "", f.putThen
		}
	default:
		return http.StatusMethodNotAllowed, "", putAnswer
	}
	return http.StatusOK, `{"success":true,"notification_preferences":` + f.doc + `}`, putAnswer
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

// lastPut returns the raw body of the last PUT.
func (f *fakeServer) lastPut() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.reqs) - 1; i >= 0; i-- {
		if f.reqs[i].method == http.MethodPut {
			return string(f.reqs[i].body)
		}
	}
	f.t.Fatal("no PUT")
	return ""
}

func (f *fakeServer) count(method string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.countLocked(method)
}

func (f *fakeServer) countLocked(method string) int {
	n := 0
	for _, r := range f.reqs {
		if r.method == method {
			n++
		}
	}
	return n
}

// newCtx builds the screens' context on a billing service over a client
// of url; opts go to the client after the tests' defaults.
func newCtx(t *testing.T, url string, opts ...api.Option) *shared.Context {
	t.Helper()
	opts = append([]api.Option{api.WithBackoff(time.Millisecond, time.Millisecond), api.WithTimeout(5 * time.Second)}, opts...)
	c, err := api.New(url, testKey, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	svc := newService(t, ctx, c)
	return screentest.Context(ctx, svc, screentest.Styles(theme.New(true)))
}

// newService is the billing layer the tests use: a fixed clock, UTC days,
// short waits. It is closed when the test ends.
func newService(t *testing.T, ctx context.Context, c *api.Client) *billing.Service {
	t.Helper()
	svc := billing.New(ctx, c,
		billing.WithClock(func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }),
		billing.WithLocation(time.UTC),
		billing.WithRateWait(time.Millisecond),
		billing.WithResolver(nil)) // no test looks a name up on the network
	t.Cleanup(svc.Close)
	return svc
}

func ptr[T any](v T) *T { return &v }

func testUser() api.User {
	return api.User{ID: userID, Credit: 12000, BalanceThreshold: ptr(money.Amount(50000)), BalanceThresholdEnabled: ptr(true)}
}

// screen drives a Model as the root would, synchronously. Every command
// the screen returns runs at once: status messages land on the status line
// (with the root's rules), and every other answer is held until deliver or
// step hands it to the screen. So between a key and deliver, the request
// has been made but the screen has not heard back: "in flight" for the
// screen, without any sleep.
type screen struct {
	*Model
	t *testing.T
	// status is the root's status line, as this screen's messages left it
	// (TTLs do not expire here).
	status shared.StatusMsg
	// said is every text the screen put on the status line, in order.
	said []string
	held []tea.Msg
}

func newScreen(t *testing.T, ctx *shared.Context) *screen {
	return &screen{Model: New(ctx), t: t}
}

// send hands msg to the screen, runs what it returns, and reports how many
// answers that added to the held ones.
func (s *screen) send(msg tea.Msg) int {
	s.t.Helper()
	n := len(s.held)
	s.exec(s.Update(msg))
	return len(s.held) - n
}

// press sends a key: see send.
func (s *screen) press(k string) int {
	s.t.Helper()
	return s.send(keyMsg(k))
}

// do presses k and delivers everything that follows.
func (s *screen) do(k string) {
	s.t.Helper()
	s.press(k)
	s.deliver()
}

func (s *screen) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			s.exec(c)
		}
	case shared.StatusMsg:
		if msg.Source != statusSource {
			s.t.Errorf("status from source %q", msg.Source)
		}
		if msg.Text == "" {
			if s.status.Source == msg.Source {
				s.status = shared.StatusMsg{}
			}
			return
		}
		s.status = msg
		s.said = append(s.said, msg.Text)
	default:
		s.held = append(s.held, msg)
	}
}

// step delivers the oldest held answer and reports how many new ones its
// commands added.
func (s *screen) step() int {
	s.t.Helper()
	if len(s.held) == 0 {
		s.t.Fatal("nothing in flight")
	}
	msg := s.held[0]
	s.held = s.held[1:]
	return s.send(msg)
}

// deliver hands every held answer, and every answer they lead to, to the
// screen.
func (s *screen) deliver() {
	s.t.Helper()
	for i := 0; len(s.held) > 0; i++ {
		if i > 20 {
			s.t.Fatal("command chain does not end")
		}
		s.step()
	}
}

// client is an HTTP client of f that gives up on a PUT f holds (putHang)
// after hang.Wait, as a client's timeout would; every other request has
// the tests' client timeout of seconds, so a loaded machine cannot turn a
// good answer into a timeout.
func (f *fakeServer) client() *http.Client {
	return &http.Client{Transport: &hang.Transport{Held: func(r *http.Request) bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return r.Method == http.MethodPut && f.putStatus == 0 && f.putThen == putHang
	}}}
}

// start builds the screen against f, delivers the account and runs the GET.
func start(t *testing.T, f *fakeServer, w, h int, opts ...api.Option) *screen {
	t.Helper()
	s := newScreen(t, newCtx(t, f.srv.URL, append([]api.Option{api.WithHTTPClient(f.client())}, opts...)...))
	s.SetSize(w, h)
	if s.Init() != nil {
		t.Fatal("Init should wait for the account")
	}
	if n := s.send(shared.UserMsg{User: testUser()}); n != 1 || !s.Loading() {
		t.Fatal("the account should start the GET")
	}
	s.deliver()
	return s
}

func keyMsg(k string) tea.KeyPressMsg {
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
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	}
	if c, ok := strings.CutPrefix(k, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	return tea.KeyPressMsg{Code: rune(k[0]), Text: k}
}

func view(s *screen) string { return ansi.Strip(s.View()) }

// stateOf returns the state text shown on the row of label.
func stateOf(t *testing.T, s *screen, label string) string {
	t.Helper()
	for _, l := range strings.Split(view(s), "\n") {
		// A webhooks switch whose alert goes nowhere says so after its
		// label (webhooks_test.go checks that).
		l, _, _ = strings.Cut(l, " · ! ")
		if strings.HasSuffix(strings.TrimRight(l, " "), " "+label) {
			st := strings.TrimPrefix(strings.TrimPrefix(l, "› "), "  ")
			return strings.TrimSpace(strings.TrimSuffix(strings.TrimRight(st, " "), label))
		}
	}
	t.Fatalf("no row %q in\n%s", label, view(s))
	return ""
}

// flat joins the words with single spaces, so a check does not depend on
// where a paragraph wraps.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// mustShow checks the screen's own area.
func mustShow(t *testing.T, s *screen, parts ...string) {
	t.Helper()
	v := view(s)
	for _, p := range parts {
		if !strings.Contains(flat(v), flat(p)) {
			t.Errorf("view lacks %q:\n%s", p, v)
		}
	}
}

// mustSay checks the status line the screen asked the root for.
func mustSay(t *testing.T, s *screen, kind shared.StatusKind, parts ...string) {
	t.Helper()
	if s.status.Kind != kind {
		t.Errorf("status kind %d, want %d: %q", s.status.Kind, kind, s.status.Text)
	}
	for _, p := range parts {
		if !strings.Contains(s.status.Text, p) {
			t.Errorf("status %q lacks %q", s.status.Text, p)
		}
	}
}

const (
	email    = "Low credit by email"
	webhooks = "Low credit by webhooks"
)

// fullDoc has contexts, types, channels and values vastdash does not show;
// a PUT must send them back untouched (1.50 stays 1.50).
const fullDoc = `{"client":{"low_credit":{"email":true,"webhooks":false},"invoice":{"email":true}},"host":{"machine_offline":{"email":false,"sms":true},"weight":1.50}}`

// body is the PUT body that carries doc.
func body(doc string) string { return `{"notification_preferences":` + doc + `}` }

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
		if got := keyMsg(k).String(); got != want {
			t.Errorf("keyMsg(%q).String() = %q", k, got)
		}
	}
}

func TestWaitsForAccountThenReads(t *testing.T) {
	f := newServer(t, fullDoc)
	s := newScreen(t, newCtx(t, f.srv.URL))
	s.SetSize(80, 20)
	mustShow(t, s, "loading account…")
	// An account error is shown, and nothing is requested.
	if n := s.send(shared.UserMsg{Err: &api.Error{Kind: api.ErrInvalidKey}}); n != 0 || f.count(http.MethodGet) != 0 {
		t.Fatal("no GET without a user id")
	}
	mustShow(t, s, "account not loaded — the preferences need its user id") // the root says why, once
	s.send(shared.UserMsg{User: testUser()})
	s.deliver()
	if got := stateOf(t, s, email); got != "[x] on" {
		t.Errorf("email = %q", got)
	}
	if got := stateOf(t, s, webhooks); got != "[ ] off" {
		t.Errorf("webhooks = %q", got)
	}
	if s.Loading() {
		t.Error("still loading after the GET")
	}
	// The document was read (the catalogue is read alongside, in either
	// order).
	f.mu.Lock()
	read := false
	for _, r := range f.reqs {
		read = read || (r.method == http.MethodGet && strings.TrimSuffix(r.path, "/")+"/" == prefsPath)
	}
	f.mu.Unlock()
	if !read {
		t.Error("the preferences were not read")
	}
	// The cursor starts on the first switch.
	if !strings.Contains(view(s), "› [x] on") {
		t.Errorf("cursor not on the first switch:\n%s", view(s))
	}
	mustShow(t, s, "low-balance threshold: $50.00 — alerts fire below it")
}

func TestToggleSendsWholeDocument(t *testing.T) {
	f := newServer(t, fullDoc)
	s := start(t, f, 80, 20)
	s.press("j")
	if n := s.press("space"); n != 1 {
		t.Fatal("space should save at once")
	}
	if got := stateOf(t, s, webhooks); got != "… saving on" || !s.Loading() {
		t.Errorf("during the save: %q, loading %v", got, s.Loading())
	}
	mustSay(t, s, shared.StatusInfo, "saving Low credit by webhooks on…")
	s.deliver()
	if n := f.count(http.MethodPut); n != 1 {
		t.Fatalf("%d PUTs", n)
	}
	// Everything the screen does not show goes back byte for byte.
	want := strings.Replace(fullDoc, `"webhooks":false`, `"webhooks":true`, 1)
	if got := f.lastPut(); got != body(want) {
		t.Errorf("PUT sent %s\nwant      %s", got, body(want))
	}
	if got := stateOf(t, s, webhooks); got != "[x] on" {
		t.Errorf("after the save: %q", got)
	}
	mustSay(t, s, shared.StatusOK, "saved: Low credit by webhooks on")
	if s.status.TTL <= 0 {
		t.Error("a success needs nothing of the user: it should pass")
	}
	// Enter toggles too.
	s.press("k")
	s.do("enter")
	want = strings.Replace(want, `"low_credit":{"email":true`, `"low_credit":{"email":false`, 1)
	if n := f.count(http.MethodPut); n != 2 || f.lastPut() != body(want) {
		t.Errorf("second PUT %s\nwant       %s", f.lastPut(), body(want))
	}
}

// The bug of issue 9: the screen saved the copy it read at start-up, so a
// change made meanwhile in the web console was reverted by the next toggle.
func TestSaveKeepsChangesMadeElsewhere(t *testing.T) {
	f := newServer(t, fullDoc)
	s := start(t, f, 100, 20)
	// Behind the screen's back: another category switched, and a new one
	// (with an escape and spacing vastdash never writes) added.
	console := strings.Replace(fullDoc, `"machine_offline":{"email":false`, `"machine_offline":{"email":true`, 1)
	console = strings.TrimSuffix(console, "}") + `, "team" : {"invit\u00e9":{"email":true}}}`
	f.set(func(f *fakeServer) { f.doc = console })
	if stateOf(t, s, email) != "[x] on" {
		t.Fatalf("before the toggle:\n%s", view(s))
	}
	s.do("space")
	want := body(strings.Replace(console, `"low_credit":{"email":true`, `"low_credit":{"email":false`, 1))
	if n := f.count(http.MethodPut); n != 1 {
		t.Fatalf("%d PUTs", n)
	}
	if got := f.lastPut(); got != want {
		t.Errorf("the save reverted a change made elsewhere:\nsent %s\nwant %s", got, want)
	}
	if stateOf(t, s, email) != "[ ] off" {
		t.Errorf("after the save:\n%s", view(s))
	}
	mustSay(t, s, shared.StatusOK, "saved: Low credit by email off")
}

func TestToggleFailureRollsBack(t *testing.T) {
	f := newServer(t, fullDoc)
	s := start(t, f, 100, 20)
	f.set(func(f *fakeServer) {
		f.putStatus = http.StatusBadRequest
		// A hostile body: escape sequences, and the key echoed back.
		f.errBody = `{"success":false,"error":"bad_request","msg":"body refused \u001b[2J for ` + testKey + `"}`
	})
	s.do("space")
	if got := stateOf(t, s, email); got != "[x] on" {
		t.Errorf("after a failed save email = %q, want the server's [x] on", got)
	}
	mustSay(t, s, shared.StatusError, "could not save Low credit by email:", "body refused", "still on")
	if s.status.TTL != 0 {
		t.Error("an error must stay until replaced")
	}
	for _, out := range []string{s.View(), s.status.Text} {
		if strings.Contains(out, testKey) || strings.Contains(out, "\x1b[2J") {
			t.Errorf("unsafe text: %q", out)
		}
	}
	if s.Loading() {
		t.Error("loading after the failure")
	}
}

func TestQueuedToggleRunsAfter(t *testing.T) {
	f := newServer(t, fullDoc)
	s := start(t, f, 100, 20)
	s.press("space") // email → off, its answer held: in flight
	s.press("down")
	if n := s.press("space"); n != 0 {
		t.Fatal("a second save started while one is in flight")
	}
	if got := stateOf(t, s, webhooks); got != "… queued on" {
		t.Errorf("queued row = %q", got)
	}
	mustSay(t, s, shared.StatusInfo, "queued: Low credit by webhooks on")
	if n := s.step(); n != 1 || f.count(http.MethodPut) != 2 {
		t.Fatalf("the queued save should start after the first: started=%d puts=%d", n, f.count(http.MethodPut))
	}
	s.deliver()
	puts := f.puts()
	if len(puts) != 2 {
		t.Fatalf("%d PUTs", len(puts))
	}
	// The queued save kept what the first one set.
	lc := puts[1]["client"].(map[string]any)["low_credit"].(map[string]any)
	if lc["email"] != false || lc["webhooks"] != true {
		t.Errorf("second PUT low_credit = %v", lc)
	}
	if stateOf(t, s, email) != "[ ] off" || stateOf(t, s, webhooks) != "[x] on" {
		t.Errorf("final states:\n%s", view(s))
	}
}

func TestSameSwitchTwiceDuringSave(t *testing.T) {
	// Two presses: off in flight, then on queued → two PUTs, ends on.
	f := newServer(t, fullDoc)
	s := start(t, f, 100, 20)
	s.press("space")
	if n := s.press("space"); n != 0 {
		t.Fatal("second press must queue")
	}
	if got := stateOf(t, s, email); got != "… saving off" {
		t.Errorf("row while saving with a queued change: %q", got)
	}
	s.deliver()
	if n := f.count(http.MethodPut); n != 2 {
		t.Fatalf("%d PUTs, want 2", n)
	}
	if got := stateOf(t, s, email); got != "[x] on" {
		t.Errorf("final email = %q, want on", got)
	}

	// Three presses: off in flight, on then off coalesce to off, which the
	// first save already confirmed → no second request.
	f2 := newServer(t, fullDoc)
	s2 := start(t, f2, 100, 20)
	s2.press("space")
	s2.press("space")
	s2.press("space")
	if got := stateOf(t, s2, email); got != "… saving off" {
		t.Errorf("row = %q", got)
	}
	gets := f2.count(http.MethodGet)
	s2.deliver()
	if n := f2.count(http.MethodPut); n != 1 || f2.count(http.MethodGet) != gets {
		t.Fatalf("%d PUTs, %d more GETs; want 1 and none", n, f2.count(http.MethodGet)-gets)
	}
	if got := stateOf(t, s2, email); got != "[ ] off" {
		t.Errorf("final email = %q, want off", got)
	}
}

func TestFailureDropsQueue(t *testing.T) {
	f := newServer(t, fullDoc)
	s := start(t, f, 120, 20)
	f.set(func(f *fakeServer) { f.putStatus, f.errBody = http.StatusBadRequest, `{"success":false,"msg":"no"}` })
	s.press("space")
	s.press("j")
	s.press("space")
	if n := s.step(); n != 0 {
		t.Fatal("a queued save ran after a failure")
	}
	mustSay(t, s, shared.StatusError, "(1 queued change dropped)")
	if got := stateOf(t, s, webhooks); got != "[ ] off" {
		t.Errorf("webhooks = %q", got)
	}
}

func TestServerAnswersOtherState(t *testing.T) {
	f := newServer(t, fullDoc)
	s := start(t, f, 100, 20)
	// The server keeps email on whatever it is sent.
	f.set(func(f *fakeServer) {
		f.reply = func(sent string) string {
			return strings.Replace(sent, `"email":false,"webhooks"`, `"email":true,"webhooks"`, 1)
		}
	})
	s.do("space")
	if got := stateOf(t, s, email); got != "[x] on" {
		t.Errorf("email = %q, want what the server says", got)
	}
	mustSay(t, s, shared.StatusWarn, "the server kept Low credit by email on (vastdash asked for off)")
}

func TestNothingToSave(t *testing.T) {
	// The web console switched email off after the screen read it; the
	// user, seeing on, asks for off: the server already holds that.
	f := newServer(t, fullDoc)
	s := start(t, f, 100, 20)
	f.set(func(f *fakeServer) {
		f.doc = strings.Replace(fullDoc, `"email":true,"webhooks"`, `"email":false,"webhooks"`, 1)
	})
	s.do("space")
	if n := f.count(http.MethodPut); n != 0 {
		t.Fatalf("%d PUTs for a switch already as asked", n)
	}
	if stateOf(t, s, email) != "[ ] off" {
		t.Errorf("the screen should show what the server holds:\n%s", view(s))
	}
	mustSay(t, s, shared.StatusOK, "nothing to save: the server already holds Low credit by email off")
}

// A save whose answer is lost (a timeout, a reset, a 502 after the
// request was sent) is an unknown outcome until the document is read
// again: the read says whether the change took (issue 27 item 9), and the
// switch shows what the server holds. Changes queued behind it go on when
// it took and are dropped when it did not, or when nobody can tell.
func TestUnknownOutcome(t *testing.T) {
	for _, tc := range []struct {
		name    string
		then    int
		failGet bool
		queue   bool // a change is queued behind the save
		// what the status says and the email row shows afterwards
		kind  shared.StatusKind
		say   []string
		state string
	}{
		{
			name: "timeout, took", then: putHang,
			kind: shared.StatusOK, say: []string{"saved: Low credit by email off — the save's answer was lost", "in time", "a read says the change took"},
			state: "[ ] off",
		},
		{
			name: "reset, took", then: putReset,
			kind: shared.StatusOK, say: []string{"saved: Low credit by email off", "cannot reach", "a read says the change took"},
			state: "[ ] off",
		},
		{
			name: "502 after saving, took", then: putGateway,
			kind: shared.StatusOK, say: []string{"saved: Low credit by email off", "(HTTP 502)", "a read says the change took"},
			state: "[ ] off",
		},
		{
			name: "502 without saving, did not take", then: putGatewayUnsaved, queue: true,
			kind: shared.StatusWarn, say: []string{"not saved: the answer to the save of Low credit by email off was lost", "(HTTP 502)",
				"read again, the server holds Low credit by email on", "(1 queued change dropped)"},
			state: "[x] on",
		},
		{
			name: "timeout, read fails too", then: putHang, failGet: true, queue: true,
			kind: shared.StatusError, say: []string{"no answer to the save of Low credit by email off, and reading again failed too", "its state is unknown, r to reload", "no response in time", "(1 queued change dropped)"},
			state: "[?] unknown",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newServer(t, fullDoc)
			s := start(t, f, 160, 20)
			// The server applies the PUT (or not), but its answer never
			// arrives whole.
			f.set(func(f *fakeServer) {
				f.putThen = tc.then
				if tc.failGet {
					f.getStatusAfterPut = http.StatusInternalServerError
				}
			})
			s.press("space")
			if tc.queue {
				s.press("j")
				s.press("space") // queued behind an outcome nobody knows yet
			}
			s.deliver()
			mustSay(t, s, tc.kind, tc.say...)
			if strings.Contains(s.status.Text, "still") {
				t.Errorf("status claims a state from the old copy: %q", s.status.Text)
			}
			if got := stateOf(t, s, email); got != tc.state {
				t.Errorf("email = %q, want %q", got, tc.state)
			}
			if got := stateOf(t, s, webhooks); got != "[ ] off" {
				t.Errorf("webhooks = %q", got)
			}
			if (s.status.TTL == 0) != (tc.kind != shared.StatusOK) {
				t.Errorf("TTL %v: a failure must stay until replaced, a confirmation fades", s.status.TTL)
			}
			if s.Loading() {
				t.Error("loading after the save")
			}
			if !tc.failGet {
				return
			}
			// r reads again and settles the state.
			f.set(func(f *fakeServer) { f.getStatusAfterPut = 0 })
			s.do("r")
			if got := stateOf(t, s, email); got != "[ ] off" {
				t.Errorf("after r: email = %q", got)
			}
		})
	}
}

func TestDocumentVastdashWouldDamage(t *testing.T) {
	// Behind the screen's back, "client" became something other than an
	// object: a save would destroy it, so nothing is sent.
	f := newServer(t, fullDoc)
	s := start(t, f, 120, 20)
	f.set(func(f *fakeServer) { f.doc = `{"client":"managed elsewhere","host":{}}` })
	s.do("space")
	if n := f.count(http.MethodPut); n != 0 {
		t.Fatalf("%d PUTs", n)
	}
	mustSay(t, s, shared.StatusError, "could not save Low credit by email:", `"client" is not an object`)
	if stateOf(t, s, email) != "[?] unknown" {
		t.Errorf("the screen should show the document the save read:\n%s", view(s))
	}
}

func TestGetUnavailableConfirmFlow(t *testing.T) {
	f := newServer(t, "{}")
	f.getStatus, f.errBody = http.StatusMethodNotAllowed, `{"detail":"Method \"GET\" not allowed."}`
	s := start(t, f, 100, 30)
	if stateOf(t, s, email) != "[?] unknown" || stateOf(t, s, webhooks) != "[?] unknown" {
		t.Fatalf("states should be unknown:\n%s", view(s))
	}
	mustShow(t, s, "Saving replaces every notification preference")
	mustSay(t, s, shared.StatusWarn, "this server does not let vastdash read the preferences")

	// n cancels without a PUT.
	if n := s.press("space"); n != 0 {
		t.Fatal("a save without confirmation")
	}
	mustShow(t, s, "replaces the server's whole preferences document",
		"Set Low credit by email to [x] on and replace all notification preferences?", "y save · n cancel")
	if n := s.press("n"); n != 0 {
		t.Fatal("n saved")
	}
	mustSay(t, s, shared.StatusInfo, "not saved")
	if f.count(http.MethodPut) != 0 {
		t.Fatal("a PUT after n")
	}

	// Space in the prompt flips the proposal; y sends exactly that switch.
	s.press("space")
	s.press("space")
	mustShow(t, s, "Set Low credit by email to [ ] off")
	s.do("y")
	puts := f.puts()
	if len(puts) != 1 || !reflect.DeepEqual(puts[0], decode(t, `{"client":{"low_credit":{"email":false}}}`)) {
		t.Fatalf("PUTs %v", puts)
	}
	if stateOf(t, s, email) != "[ ] off" || stateOf(t, s, webhooks) != "[?] unknown" {
		t.Errorf("after the save:\n%s", view(s))
	}

	// The server still cannot read: every save replaces the document, so
	// every save asks, proposing the other state of what the server
	// confirmed.
	if n := s.press("space"); n != 0 {
		t.Fatal("a replacing save without confirmation")
	}
	mustShow(t, s, "Set Low credit by email to [x] on and replace all notification preferences?")
	s.do("y")
	if f.count(http.MethodPut) != 2 || stateOf(t, s, email) != "[x] on" {
		t.Fatalf("second save:\n%s", view(s))
	}
	s.press("j")
	s.press("space")
	mustShow(t, s, "Set Low credit by webhooks to [x] on and replace all")
	s.press("esc")
	if f.count(http.MethodPut) != 2 {
		t.Fatal("esc saved")
	}
}

func TestReadableThenUnreadable(t *testing.T) {
	// The server loses its GET after the screen read the document: the
	// save refuses to replace the document blind, and the next toggle asks.
	f := newServer(t, fullDoc)
	s := start(t, f, 120, 30)
	f.set(func(f *fakeServer) { f.getStatus = http.StatusNotFound })
	s.do("space")
	if n := f.count(http.MethodPut); n != 0 {
		t.Fatalf("%d PUTs without confirmation", n)
	}
	mustSay(t, s, shared.StatusWarn, "not saved:", "cannot read the current notification preferences")
	s.press("space")
	mustShow(t, s, "Set Low credit by email to [ ] off and replace all notification preferences?")
	s.do("y")
	if got := f.lastPut(); got != body(`{"client":{"low_credit":{"email":false}}}`) {
		t.Errorf("forced save sent %s", got)
	}
}

func TestMissingSwitchAsksForValue(t *testing.T) {
	// A readable document without the webhooks switch: the state is
	// unknown, so the toggle asks which value, without the replace warning.
	doc := `{"client":{"low_credit":{"email":true}}}`
	f := newServer(t, doc)
	s := start(t, f, 100, 30)
	if stateOf(t, s, webhooks) != "[?] unknown" {
		t.Fatalf("webhooks:\n%s", view(s))
	}
	s.press("j")
	s.press("space")
	v := view(s)
	if !strings.Contains(v, "Set Low credit by webhooks to [x] on?") || strings.Contains(v, "replace all") {
		t.Errorf("prompt for a missing switch:\n%s", v)
	}
	s.do("y")
	if got := f.lastPut(); got != body(`{"client":{"low_credit":{"email":true,"webhooks":true}}}`) {
		t.Errorf("PUT %s", got)
	}
}

func TestPutPermissionMakesReadOnly(t *testing.T) {
	f := newServer(t, fullDoc)
	s := start(t, f, 100, 20)
	f.set(func(f *fakeServer) {
		f.putStatus = http.StatusUnauthorized
		f.errBody = `{"success":false,"error":"permission_denied","msg":"API key lacks permission user_write"}`
	})
	s.do("space")
	mustShow(t, s, "this API key lacks the user_write permission — switches are read-only")
	mustSay(t, s, shared.StatusError, "could not save Low credit by email: this API key lacks the user_write permission")
	if stateOf(t, s, email) != "[x] on" || stateOf(t, s, webhooks) != "[ ] off" {
		t.Errorf("states should be kept:\n%s", view(s))
	}
	if n := s.press("space"); n != 0 || f.count(http.MethodPut) != 1 {
		t.Error("a read-only switch saved again")
	}
	if s.Help().(KeyMap).Toggle.Enabled() {
		t.Error("help still offers toggling")
	}
}

// A key the server refuses the read to can still save, as `notifications
// --force` can: the screen asks first, as when the server has no GET, and
// the save holds only the switch asked for.
func TestGetPermission(t *testing.T) {
	f := newServer(t, fullDoc)
	f.getStatus, f.errBody = http.StatusUnauthorized, `{"success":false,"error":"permission_denied","msg":"missing permission user_read"}`
	s := start(t, f, 100, 30)
	mustSay(t, s, shared.StatusError, "this API key lacks the user_read permission — the preferences can't be read")
	if stateOf(t, s, email) != "[?] unknown" {
		t.Errorf("email = %q", stateOf(t, s, email))
	}
	mustShow(t, s, "Saving replaces every notification preference")
	if n := s.press("space"); n != 0 {
		t.Fatal("a save without confirmation")
	}
	mustShow(t, s, "replaces the server's whole preferences document")
	if f.count(http.MethodPut) != 0 {
		t.Fatal("a PUT before y")
	}
	s.do("y")
	puts := f.puts()
	if len(puts) != 1 || !reflect.DeepEqual(puts[0], decode(t, `{"client":{"low_credit":{"email":true}}}`)) {
		t.Fatalf("PUTs %v", puts)
	}
}

// A refusal that names no permission is not reported as a missing one.
func TestGetRefusedWithoutPermissionWording(t *testing.T) {
	f := newServer(t, fullDoc)
	f.getStatus, f.errBody = http.StatusForbidden, `{"detail":"Forbidden"}`
	s := start(t, f, 120, 30)
	mustSay(t, s, shared.StatusError, "the server refused access (HTTP 403): Forbidden")
	if strings.Contains(s.status.Text, "lacks the") {
		t.Errorf("status %q names a permission the server did not", s.status.Text)
	}
}

func TestGetErrorRetry(t *testing.T) {
	f := newServer(t, fullDoc)
	f.getStatus, f.errBody = http.StatusBadRequest, `{"success":false,"msg":"try later"}`
	s := start(t, f, 120, 20)
	mustSay(t, s, shared.StatusError, "could not read the preferences:", "try later", "r to reload")
	// Nothing to toggle from: no save.
	if n := s.press("space"); n != 0 {
		t.Fatal("a save after a failed read")
	}
	mustSay(t, s, shared.StatusError, "must be read before a save")
	f.set(func(f *fakeServer) { f.getStatus = 0 })
	if n := s.press("r"); n != 1 || !s.Loading() {
		t.Fatal("r should re-read")
	}
	s.deliver()
	if stateOf(t, s, email) != "[x] on" || s.status.Text != "" {
		t.Errorf("after the retry: status %q\n%s", s.status.Text, view(s))
	}
	if f.count(http.MethodPut) != 0 {
		t.Error("unexpected PUT")
	}
}

func TestReloadRereadsAndIgnoresStaleAnswers(t *testing.T) {
	f := newServer(t, fullDoc)
	s := start(t, f, 100, 20)
	f.set(func(f *fakeServer) { f.doc = strings.Replace(fullDoc, `"webhooks":false`, `"webhooks":true`, 1) })
	// The same account read again (a refresh of the credit) reads nothing.
	if n := s.send(shared.UserMsg{User: testUser()}); n != 0 {
		t.Fatal("the credit's refresh re-read the preferences")
	}
	if n := s.press("r"); n != 1 {
		t.Fatal("r should re-read")
	}
	// A second account (another key) arrives before the answer: the old
	// answer must not land on it.
	other := testUser()
	other.ID = 7
	s.send(shared.UserMsg{User: other})
	s.step()
	if !s.Loading() || stateOf(t, s, webhooks) != "[?] unknown" {
		t.Fatalf("a stale answer was applied:\n%s", view(s))
	}
	// User 7 has no preferences on this server (404): its own answer lands.
	s.deliver()
	mustSay(t, s, shared.StatusWarn, "this server does not let vastdash read the preferences")
}

func TestSmallSizes(t *testing.T) {
	f := newServer(t, "{}")
	f.getStatus = http.StatusNotFound
	s := start(t, f, 20, 5)
	s.press("space") // the prompt is the tallest state
	for w := 0; w <= 110; w++ {
		for _, h := range []int{0, 1, 2, 3, 5, 8, 24, 30} {
			s.SetSize(w, h)
			golden.AssertFits(t, s.View(), w, h)
		}
	}
	// At 20×5 the switches and the question stay; the long warning goes.
	s.SetSize(20, 5)
	v := view(s)
	if !strings.Contains(v, "[?] unknown") || !strings.Contains(v, "Set Low credit by") {
		t.Errorf("20×5:\n%s", v)
	}
	s.SetSize(1, 1)
	if got := view(s); ansi.StringWidth(got) != 1 {
		t.Errorf("1×1: %q", got)
	}
}

func TestHelpFollowsState(t *testing.T) {
	f := newServer(t, "{}")
	f.getStatus = http.StatusNotFound
	s := start(t, f, 100, 20)
	k := s.Help().(KeyMap)
	if !k.Toggle.Enabled() || k.Yes.Enabled() {
		t.Error("outside the prompt: toggle, not y")
	}
	s.press("space")
	k = s.Help().(KeyMap)
	if k.Toggle.Enabled() || !k.Yes.Enabled() || !k.No.Enabled() || k.Up.Enabled() {
		t.Error("in the prompt: y/n only")
	}
	if s.Capturing() {
		t.Error("no text field")
	}
}

func TestNoStatusInView(t *testing.T) {
	// One status channel: what the screen says goes to the root's line,
	// never into the screen's own area.
	f := newServer(t, fullDoc)
	s := start(t, f, 100, 20)
	s.do("space")
	if s.status.Text == "" || strings.Contains(view(s), s.status.Text) {
		t.Errorf("status %q drawn in the screen:\n%s", s.status.Text, view(s))
	}
}

func TestGolden(t *testing.T) {
	f := newServer(t, fullDoc)
	s := start(t, f, 100, 30)
	s.press("down")
	s.do("space")
	golden.Check(t, "notifications_100x30.golden", view(s))

	g := newServer(t, "{}")
	g.getStatus = http.StatusMethodNotAllowed
	s = start(t, g, 100, 30)
	s.press("space")
	golden.Check(t, "notifications_confirm_100x30.golden", view(s))
}
