package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"go.uber.org/goleak"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/charges"
	"github.com/vastdash/vastdash/ui/internal/hang"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
)

// TestMain fails the package when any test leaves a goroutine behind: the
// program, its commands, the client's connections and the demo server must
// all be gone when a test returns.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// canaryKey is the key every fault test runs with; no rendered screen may
// ever show it.
const canaryKey = "CANARY-key-5f2a"

const chargesPath = "/api/v0/charges"

// rig is the real program, the real client and the demo server of one fault
// test, with every screen the program rendered.
type rig struct {
	t      *testing.T
	srv    *demoserver.Server
	hangs  *hangs
	ctx    *shared.Context
	model  *Model
	prog   *tea.Program
	done   chan error
	ended  bool
	mu     sync.Mutex
	screen string
	seen   chan struct{}
	// ever holds every distinct screen, for "at some point" checks.
	ever []string
	// hostile is set when a frame held the server's escape sequence.
	hostile bool
}

// fprobe publishes each rendered screen to its rig.
type fprobe struct {
	*Model
	r *rig
}

func (p fprobe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.Model.Update(msg)
	raw := p.Model.render()
	text := ansi.Strip(raw)
	p.r.mu.Lock()
	// The escape sequence in the 5xx body of TestFaultServerErrors must never reach the
	// terminal: stripping styles from the screen would hide it, so look at
	// the raw frame.
	p.r.hostile = p.r.hostile || strings.Contains(raw, "\x1b[31mservice down")
	if text != p.r.screen {
		p.r.ever = append(p.r.ever, text)
	}
	p.r.screen = text
	p.r.mu.Unlock()
	select {
	case p.r.seen <- struct{}{}:
	default:
	}
	return p, cmd
}

// startRig starts a demo server (faults added by setup before the first
// request) and the dashboard on it with short timeouts, backoffs and
// thresholds, so a fault costs milliseconds.
func startRig(t *testing.T, opts demoserver.Options, setup func(*demoserver.Server)) *rig {
	t.Helper()
	return startRigHang(t, opts, setup)
}

// startRigHang is startRig whose client gives up after hang.Wait on the
// requests the Hang faults among faults hold (added to the server, like the
// others, before the first request).
func startRigHang(t *testing.T, opts demoserver.Options, setup func(*demoserver.Server), faults ...demoserver.Fault) *rig {
	t.Helper()
	if opts.Contracts == 0 {
		opts.Contracts = 3000
	}
	if opts.Threshold == 0 {
		opts.Threshold = 20 * time.Millisecond
	}
	srv, err := demoserver.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv.AddKey(canaryKey, "canary", nil)
	if setup != nil {
		setup(srv)
	}
	tr := &http.Transport{}
	held := &hangs{}
	for _, f := range faults {
		srv.AddFault(f)
		if f.Hang {
			held.add(f)
		}
	}
	events := &Events{}
	client, err := api.New(srv.URL(), canaryKey,
		api.WithHTTPClient(&http.Client{Transport: &hang.Transport{Base: tr, Held: held.held}}),
		api.WithTimeout(15*time.Second), api.WithBackoff(5*time.Millisecond, 20*time.Millisecond),
		api.WithChargesThreshold(opts.Threshold), api.WithObserver(events.Observe))
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	base, cancel := context.WithCancel(context.Background())
	r := &rig{t: t, srv: srv, hangs: held, seen: make(chan struct{}, 1), done: make(chan error, 1)}
	svc := billing.New(base, client, billing.WithLocation(time.UTC), billing.WithClock(srv.Now), billing.WithRateWait(opts.Threshold))
	r.ctx = screentest.Context(base, svc, screentest.Range("90d"))
	r.model = New(r.ctx, Options{Demo: true, Theme: "dark", Dark: true})
	r.prog = newProgram(base, fprobe{Model: r.model, r: r}, events,
		tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(100, 30), tea.WithoutSignalHandler())
	go func() { _, err := r.prog.Run(); r.done <- err }()
	t.Cleanup(func() {
		if !r.ended {
			cancel()
			<-r.done
		}
		cancel()
		svc.Close()
		srv.Close()
		tr.CloseIdleConnections()
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.hostile {
			t.Error("a frame held an escape sequence from the server's answer")
		}
		for _, s := range r.ever {
			if strings.Contains(strings.ToLower(s), "canary") || strings.Contains(s, "5f2a") {
				t.Errorf("a screen showed the API key:\n%s", s)
				break
			}
		}
	})
	return r
}

// waitFor blocks until the screen satisfies cond.
func (r *rig) waitFor(what string, cond func(string) bool) string {
	r.t.Helper()
	// Only a real failure waits this long: on a machine loaded with other
	// builds, loading every page has taken more than 15 s.
	deadline := time.After(time.Minute)
	for {
		r.mu.Lock()
		s := r.screen
		r.mu.Unlock()
		if cond(s) {
			return s
		}
		select {
		case <-r.seen:
		case <-deadline:
			r.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
	}
}

// everShown reports whether some screen so far satisfied cond.
func (r *rig) everShown(cond func(string) bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.ever {
		if cond(s) {
			return true
		}
	}
	return false
}

func (r *rig) press(keys ...string) {
	for _, k := range keys {
		switch k {
		case "space":
			r.prog.Send(keyPress(tea.KeySpace, " "))
		default:
			r.prog.Send(keyPress(rune(k[0]), k))
		}
	}
}

// quit presses q and waits for the program to end without error (a panic
// would end it with one).
func (r *rig) quit() {
	r.t.Helper()
	r.press("q")
	select {
	case err := <-r.done:
		r.ended = true
		if err != nil {
			r.t.Fatalf("program ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		r.t.Fatal("q did not quit")
	}
}

// chargesModel is the real charges screen; read it only after quit.
func (r *rig) chargesModel() *charges.Model {
	return r.model.charges
}

// truth is the server's rows of the charges screen's final query.
func (r *rig) truth() []demoserver.Contract {
	q := r.chargesModel().Query()
	f := demoserver.Filter{Gte: q.From.Unix(), Lte: q.To.Unix(), OldestFirst: q.OldestFirst}
	for _, ty := range q.Types {
		f.Types = append(f.Types, string(ty))
	}
	return r.srv.Contracts(f)
}

// checkAllLoaded asserts the charges screen holds exactly the server's rows
// of its query: the count and the sum match, so no row is missing, doubled
// or left from another filter.
func (r *rig) checkAllLoaded(final string) {
	r.t.Helper()
	want := r.truth()
	var sum int64
	for _, c := range want {
		sum += c.Amount
	}
	tot := r.chargesModel().Totals()
	if tot.Contracts != len(want) || tot.Total != money.Amount(sum) {
		r.t.Errorf("charges screen holds %d rows summing %s; the server has %d summing %s",
			tot.Contracts, tot.Total, len(want), money.Amount(sum))
	}
	if n := money.Group(int64(len(want))); !strings.Contains(final, n+" of "+n+" contracts") {
		r.t.Errorf("footer does not count the %s contracts:\n%s", n, final)
	}
}

func allLoaded(s string) bool {
	return strings.Contains(s, "[2 Charges]") && strings.Contains(s, "all loaded")
}

// loadedRows reports rows on the charges screen (the footer counts more than
// zero contracts).
func loadedRows(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if i := strings.Index(line, " of "); i > 0 && strings.Contains(line, "contracts ·") {
			n := strings.TrimSpace(line[:i])
			return n != "0" && strings.Contains(s, "[2 Charges]")
		}
	}
	return false
}

// errorScreen reports a failure shown anywhere.
func errorScreen(s string) bool {
	return strings.Contains(s, "r to reload") || strings.Contains(s, "rate limited by the server")
}

// Row 1: a stretch of 429s is waited out; the rows load and no error shows.
func TestFault429ThenNormal(t *testing.T) {
	r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) {
		srv.AddFault(demoserver.Fault{Path: chargesPath, Status: 429,
			Body:  `{"detail":"API requests too frequent endpoint threshold=0.02"}`,
			Until: time.Now().Add(300 * time.Millisecond)})
	})
	r.press("2", "G")
	final := r.waitFor("all rows", allLoaded)
	r.quit()
	if r.srv.CountStatus(429) == 0 {
		t.Fatal("the fault never answered; the test proves nothing")
	}
	if r.everShown(errorScreen) {
		t.Error("a 429 showed as an error")
	}
	r.checkAllLoaded(final)
}

// Row 2: 5xx answers are retried (502–504), then said plainly with r to
// retry; r after the server recovers loads the rows.
func TestFaultServerErrors(t *testing.T) {
	for _, status := range []int{500, 502, 503, 504} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) {
				srv.AddFault(demoserver.Fault{Path: chargesPath, Status: status, Body: `{"error":"boom","msg":"\u001b[31mservice down"}`})
			})
			r.press("2")
			r.waitFor("the error", func(s string) bool {
				return strings.Contains(s, "[2 Charges]") && strings.Contains(s, "server error (HTTP "+strconv.Itoa(status)+")") &&
					strings.Contains(s, "service down") &&
					strings.Contains(s, "r to reload")
			})
			if n := r.srv.CountStatus(status); status != 500 && n < 2 {
				t.Errorf("%d answered %d times; a GET should be retried", status, n)
			}
			r.srv.ClearFaults()
			r.press("r", "G")
			final := r.waitFor("the rows after r", allLoaded)
			r.quit()
			r.checkAllLoaded(final)
		})
	}
}

// secondCharges makes f apply to the second charges request only: a
// pass-through fault takes the first.
func secondCharges(srv *demoserver.Server, f demoserver.Fault) {
	srv.AddFault(demoserver.Fault{Path: chargesPath, Times: 1})
	f.Path, f.Times = chargesPath, 1
	srv.AddFault(f)
}

// Row 3: a connection cut mid-body on the second page is retried; no half
// page is kept.
func TestFaultResetMidBody(t *testing.T) {
	r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) {
		secondCharges(srv, demoserver.Fault{ResetAfterBytes: 2000})
	})
	r.press("2", "G")
	s := r.waitFor("all rows", allLoaded)
	r.quit()
	r.checkAllLoaded(s)
	if r.everShown(errorScreen) {
		t.Error("the cut page showed as an error; the client should have retried it")
	}
	// The cut page was asked for again.
	asked := map[string]int{}
	again := false
	for _, q := range r.srv.Requests() {
		if strings.HasPrefix(q.Path, chargesPath) {
			asked[q.Query.Encode()]++
			again = again || asked[q.Query.Encode()] > 1
		}
	}
	if !again {
		t.Error("no charges page was requested twice; the cut never happened")
	}
}

// Row 4: a hanging server times out, the screen says so and the dashboard
// stays usable.
func TestFaultHang(t *testing.T) {
	r := startRigHang(t, demoserver.Options{}, nil, demoserver.Fault{Path: chargesPath, Hang: true})
	r.press("2")
	r.waitFor("the timeout", func(s string) bool {
		return strings.Contains(s, "[2 Charges]") && strings.Contains(s, "did not answer GET /api/v0/charges/ in time") && strings.Contains(s, "r to reload")
	})
	r.press("3")
	r.waitFor("the switches", contains("Low credit by email"))
	r.press("1")
	r.waitFor("the overview", contains("[1 Overview]"))
	r.quit()
}

// Row 5: a body that is not the expected JSON reads as an unexpected
// response.
func TestFaultMalformedBody(t *testing.T) {
	cases := map[string]demoserver.Fault{
		"truncated": {Mutate: func(b []byte) []byte { return b[:len(b)/2] }},
		"html":      {Mutate: func([]byte) []byte { return []byte("<html><body>Bad gateway</body></html>") }, ContentType: "text/html"},
		"empty":     {Mutate: func([]byte) []byte { return nil }},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			f.Path = chargesPath
			r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) { srv.AddFault(f) })
			r.press("2")
			r.waitFor("the error", func(s string) bool {
				return strings.Contains(s, "[2 Charges]") && strings.Contains(s, "unexpected response from the server")
			})
			r.quit()
		})
	}
}

var amountRE = regexp.MustCompile(`"amount":\s*[0-9.]+`)

// Row 6: one entry with a wrongly typed amount is skipped and counted.
func TestFaultWrongTypeSkipped(t *testing.T) {
	r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) {
		srv.AddFault(demoserver.Fault{Path: chargesPath, Times: 1, Mutate: func(b []byte) []byte {
			loc := amountRE.FindIndex(b)
			if loc == nil {
				return b
			}
			return append(append(append([]byte{}, b[:loc[0]]...), `"amount":"12.5"`...), b[loc[1]:]...)
		}})
	})
	r.press("2")
	r.waitFor("the skipped entry", func(s string) bool {
		return loadedRows(s) && strings.Contains(s, "1 malformed skipped")
	})
	r.quit()
}

// Row 7: a pagination token the server refuses mid-way restarts the pager;
// the rows shown stay, none is doubled, and the user is told.
func TestFaultInvalidToken(t *testing.T) {
	refuse := func(srv *demoserver.Server) {
		secondCharges(srv, demoserver.Fault{Status: 400,
			Body: `{"success":false,"error":"invalid_token","msg":"Invalid pagination token."}`})
	}
	// At start the overview and the charges screen share pages, so either
	// may be refused; both must end with every row once.
	r := startRig(t, demoserver.Options{}, refuse)
	r.press("2", "G")
	first := r.waitFor("all rows", allLoaded)
	// The model is read only after quit; the footer shows the count now.
	if n := money.Group(int64(len(r.srv.Contracts(demoserver.Filter{Gte: r.ctx.Clock().AddDate(0, 0, -89).Truncate(24 * time.Hour).Unix(), Lte: r.ctx.Clock().Unix()})))); !strings.Contains(first, n+" of "+n+" contracts") {
		t.Errorf("footer does not count the %s contracts:\n%s", n, first)
	}
	r.press("1")
	r.waitFor("the runway", runwayShown)
	if r.srv.CountStatus(400) != 1 {
		t.Fatalf("%d requests got the 400; want 1", r.srv.CountStatus(400))
	}
	// The oldest-first order is the charges screen's alone (the overview
	// follows the range only), so its pager meets the refusal.
	refuse(r.srv)
	r.press("2", "o", "G")
	final := r.waitFor("all rows oldest first", func(s string) bool { return allLoaded(s) && strings.Contains(s, "oldest first") })
	r.quit()
	if r.srv.CountStatus(400) != 2 {
		t.Fatalf("%d requests got the 400; want 2", r.srv.CountStatus(400))
	}
	if !r.everShown(contains("pagination restarted")) {
		t.Error("the screen never said the pagination restarted")
	}
	r.checkAllLoaded(final)
	if v := r.model.overview.View(); strings.Contains(v, "r to reload") {
		t.Errorf("the overview stopped on the refused token:\n%s", v)
	}
}

// Row 8: a key revoked mid-session reads as rejected after r, with a
// bounded number of requests, and the other screens keep their data.
func TestFaultKeyRevoked(t *testing.T) {
	r := startRig(t, demoserver.Options{}, nil)
	r.press("2", "G")
	r.waitFor("all rows", allLoaded)
	r.press("3")
	r.waitFor("the switches", contains("Low credit by email"))
	r.press("1")
	r.waitFor("the runway", runwayShown)
	r.srv.RevokeKey(canaryKey)
	r.srv.ResetRequests()
	r.press("r")
	r.waitFor("the rejected key", contains("the API key was rejected"))
	r.press("2")
	final := r.waitFor("the charges rows still shown", allLoaded)
	r.press("3")
	r.waitFor("the switches still shown", contains("Low credit by email"))
	r.quit()
	if n := len(r.srv.Requests()); n > 5 {
		t.Errorf("%d requests after the key was revoked; want at most 5", n)
	}
	r.checkAllLoaded(final)
}

// switchLine is the line of the low-credit email switch.
func switchLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, "Low credit by email") {
			return line
		}
	}
	return ""
}

func switchState(on bool) string {
	if on {
		return "[x] on"
	}
	return "[ ] off"
}

// Row 9: a failed PUT puts the switch back and leaves the server's document
// alone.
func TestFaultPutFails(t *testing.T) {
	cases := map[string]demoserver.Fault{
		"400":     {Status: 400, Body: `{"success":false,"error":"bad_request","msg":"nope"}`},
		"401":     {Status: 401, Body: `{"success":false,"error":"permission_denied","msg":"no"}`},
		"500":     {Status: 500, Body: `{"error":"oops"}`},
		"timeout": {Hang: true},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			f.Method = http.MethodPut
			r := startRigHang(t, demoserver.Options{}, nil, f)
			before := r.srv.Prefs()
			on, _ := api.NewPrefs(before).Get(api.LowCreditEmail)
			r.press("3")
			r.waitFor("the switches", func(s string) bool { return strings.Contains(switchLine(s), switchState(on)) })
			r.press("space")
			r.waitFor("the failure", func(s string) bool {
				// A timeout's or a 500's outcome is unknown: the screen
				// reads the document again, shows what the server holds
				// and says the change did not take.
				failed := strings.Contains(s, "could not save") || strings.Contains(s, "lacks the user_write permission") ||
					strings.Contains(s, "not saved: the answer to the save")
				return failed && strings.Contains(switchLine(s), switchState(on)) && !strings.Contains(s, "saving")
			})
			r.quit()
			if after := r.srv.Prefs(); !equalJSON(t, before, after) {
				t.Errorf("the server's preferences changed:\n got %v\nwant %v", after, before)
			}
		})
	}
}

func equalJSON(t *testing.T, a, b map[string]any) bool {
	t.Helper()
	x, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(x, y)
}

// Row 10: when the PUT's answer disagrees with what was sent, the screen
// shows the server's word.
func TestFaultPutAnswerDisagrees(t *testing.T) {
	var on bool
	r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) {
		on, _ = api.NewPrefs(srv.Prefs()).Get(api.LowCreditEmail)
		srv.AddFault(demoserver.Fault{Method: http.MethodPut, Mutate: func(b []byte) []byte {
			var doc map[string]any
			if err := json.Unmarshal(b, &doc); err != nil {
				return b
			}
			p, _ := doc["notification_preferences"].(map[string]any)
			// The server claims the switch did not move.
			doc["notification_preferences"] = mustWith(t, api.NewPrefs(p), api.LowCreditEmail, on).Document()
			out, _ := json.Marshal(doc)
			return out
		}})
	})
	r.press("3")
	r.waitFor("the switches", func(s string) bool { return strings.Contains(switchLine(s), switchState(on)) })
	r.press("space")
	r.waitFor("the server's word", func(s string) bool {
		return strings.Contains(s, "the server kept Low credit by email") && strings.Contains(switchLine(s), switchState(on))
	})
	r.quit()
	if len(putsOf(r.srv)) != 1 {
		t.Fatalf("%d PUTs, want 1", len(putsOf(r.srv)))
	}
	// The server did store the change; only its answer said otherwise.
	if stored, _ := api.NewPrefs(r.srv.Prefs()).Get(api.LowCreditEmail); stored == on {
		t.Fatal("the PUT did not change the server's document; the test proves nothing")
	}
}

func putsOf(srv *demoserver.Server) []demoserver.Request {
	var out []demoserver.Request
	for _, q := range srv.Requests() {
		if q.Method == http.MethodPut && q.Status != 0 {
			out = append(out, q)
		}
	}
	return out
}

// Row 11: filters changed faster than pages arrive end with the final
// filter's rows only.
func TestFaultRapidFilters(t *testing.T) {
	r := startRig(t, demoserver.Options{Latency: 30 * time.Millisecond}, nil)
	r.press("2")
	r.waitFor("rows", loadedRows)
	for i := 0; i < 5; i++ {
		r.press("d", "f", "o", "G")
	}
	r.press("f", "G") // end on the table format, which the footer counts in contracts
	final := r.waitFor("all rows of the final filter", allLoaded)
	r.quit()
	r.checkAllLoaded(final)
}

// Row 12: a 1×1 terminal does not panic, and the layout comes back.
func TestFaultTinyTerminal(t *testing.T) {
	r := startRig(t, demoserver.Options{}, nil)
	r.waitFor("the credit", contains("credit $"))
	r.prog.Send(tea.WindowSizeMsg{Width: 1, Height: 1})
	r.waitFor("one cell", func(s string) bool { return len([]rune(s)) <= 1 })
	for _, k := range []string{"2", "G", "j", "3", "space", "1"} {
		r.press(k)
	}
	r.prog.Send(tea.WindowSizeMsg{Width: 0, Height: 0})
	r.prog.Send(tea.WindowSizeMsg{Width: 100, Height: 30})
	r.waitFor("the full header", func(s string) bool {
		head := strings.SplitN(s, "\n", 2)[0]
		return strings.Contains(head, "vastdash") && strings.Contains(head, "credit $") && strings.Contains(s, "[1 Overview]")
	})
	r.quit()
}

// Row 13: values the program must refuse to believe, on the first page an
// overview and the charges screen share: an end at unix 1e18, an end on
// 9999-12-31, a start at -2^63, amounts of $1e15. Each entry is skipped and
// counted; nothing allocates without bound, nothing wraps to a negative
// total, and the rest of the range loads.
func TestFaultImplausibleValues(t *testing.T) {
	r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) {
		srv.AddFault(demoserver.Fault{Path: chargesPath, Mutate: demoserver.MutateFirstPage(func(p demoserver.Page) {
			p.SetField(0, 1, "end", "1000000000000000000")
			p.SetField(1, 2, "end", "253402214400")
			p.SetField(2, 3, "start", "-9223372036854775808")
			p.SetField(3, 15, "amount", "1000000000000000")
		})})
	})
	r.press("2", "G")
	final := r.waitFor("every page, with the skipped entries counted", func(s string) bool {
		return allLoaded(s) && strings.Contains(s, "15 malformed skipped")
	})
	r.press("1")
	overview := r.waitFor("the overview loaded", contains("Spend 90d"))
	r.quit()
	want := len(r.truth()) - 15
	if n := money.Group(int64(want)); !strings.Contains(final, n+" of ") {
		t.Errorf("the footer does not count the %s good contracts:\n%s", n, final)
	}
	for _, s := range []string{final, overview} {
		if strings.Contains(s, "-$") {
			t.Errorf("a negative figure appeared (a wrapped sum?):\n%s", s)
		}
	}
}

// Row 14: the same contract on two pages is kept once, and the screen says
// the server repeated itself.
func TestFaultRepeatedContract(t *testing.T) {
	r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) {
		var first json.RawMessage
		srv.AddFault(demoserver.Fault{Path: chargesPath, Mutate: demoserver.MutatePages(func(n int, p demoserver.Page) {
			rs := p.Results()
			switch {
			case n == 0 && len(rs) > 0:
				first = rs[0]
			case n == 1 && len(rs) > 0:
				rs[0] = first
				p.SetResults(rs)
			}
		})})
	})
	r.press("2", "G")
	final := r.waitFor("every page, the repeat dropped", func(s string) bool {
		return allLoaded(s) && strings.Contains(s, "1 duplicate dropped")
	})
	r.quit()
	if tot := r.chargesModel().Totals(); tot.Contracts != len(r.truth())-1 {
		t.Errorf("the screen holds %d contracts; the server's %d less the one it overwrote with a repeat", tot.Contracts, len(r.truth())-1)
	}
	_ = final
}

// Row 15: a server whose page tokens go round in a circle (A→B→A) is
// stopped with an error a user can read, after a bounded number of
// requests, instead of paging forever.
func TestFaultTokenCycle(t *testing.T) {
	r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) {
		var a json.RawMessage
		srv.AddFault(demoserver.Fault{Path: chargesPath, Mutate: demoserver.MutatePages(func(n int, p demoserver.Page) {
			switch n {
			case 0:
				a = p["next_token"]
			case 2:
				p["next_token"] = a // the third page leads back to the second
			}
		})})
	})
	r.press("2", "G")
	r.waitFor("the failure reported", contains("r to reload"))
	r.quit()
	// The line is cut at 100 columns; the whole message names the cause.
	if msg := r.model.status.Text; !strings.Contains(msg, "page tokens repeat") {
		t.Errorf("status %q does not name the cycle", msg)
	}
	n := 0
	for _, req := range r.srv.Requests() {
		if strings.HasPrefix(req.Path, chargesPath) {
			n++
		}
	}
	if n > 6 {
		t.Errorf("%d charges requests for a three-page cycle; the feed must stop at the repeat", n)
	}
}

const (
	typesPath    = "/api/v0/notification-types"
	settingsPath = "/api/v0/users"
	currentPath  = "/api/v0/users/current"
)

// thresholdRow is the Notifications screen's threshold line.
func thresholdRow(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, "low-balance threshold:") {
			return line
		}
	}
	return ""
}

// Row 16: a notification catalogue that is missing, failing, garbage or
// huge costs only the names: every switch of the document is listed under
// its raw key, none is locked, and a switch still saves.
func TestFaultCatalogue(t *testing.T) {
	cases := map[string]demoserver.Fault{
		"404":     {Status: 404, Body: `{"detail":"Not found."}`},
		"500":     {Status: 500, Body: `{"error":"\u001b[31mservice down"}`},
		"garbage": {Mutate: func([]byte) []byte { return []byte(`{"success":true,"notification_types":"\u001b]0;x\u0007"}`) }},
		"huge":    {HugeBody: 64 << 20},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			f.Path = typesPath
			r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) { srv.AddFault(f) })
			want := len(api.NewPrefs(r.srv.Prefs()).Paths())
			r.press("3")
			s := r.waitFor("the raw keys", func(s string) bool {
				return strings.Contains(s, "payment_failed by email") && strings.Contains(s, "Raw keys shown")
			})
			if strings.Contains(s, "locked") {
				t.Errorf("a lock without a catalogue:\n%s", s)
			}
			r.press("space")
			r.waitFor("the save", contains("saved: Low credit by email"))
			r.quit()
			if n := len(r.model.notifications.Help().FullHelp()); n == 0 {
				t.Error("no help")
			}
			if got := countSwitches(r.model); got != want {
				t.Errorf("%d switches listed, the document holds %d", got, want)
			}
		})
	}
}

// countSwitches reads, after quit, how many switches the screen lists, on
// an area tall enough to hold them all.
func countSwitches(m *Model) int {
	m.notifications.SetSize(100, 200)
	n := 0
	for _, line := range strings.Split(ansi.Strip(m.notifications.View()), "\n") {
		if strings.Contains(line, " by ") && (strings.Contains(line, "] on") || strings.Contains(line, "] off") || strings.Contains(line, "locked")) {
			n++
		}
	}
	return n
}

// typeThreshold opens the threshold field, types amount over it and
// presses enter.
func (r *rig) typeThreshold(amount string) {
	r.press("b")
	r.waitFor("the field", contains("enter saves · esc cancels"))
	r.prog.Send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	for _, c := range amount {
		r.press(string(c))
	}
	r.prog.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
}

// Row 17: the threshold PUT refused for lack of user_write: said plainly,
// the screen turns read-only, the server's threshold is untouched.
func TestFaultThresholdRefused(t *testing.T) {
	r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) {
		srv.AddFault(demoserver.Fault{Method: http.MethodPut, Path: settingsPath, Status: 403,
			Body: `{"success":false,"error":"permission_denied","msg":"API key lacks permission user_write"}`})
	})
	r.press("3")
	r.waitFor("the threshold", func(s string) bool { return strings.Contains(thresholdRow(s), "$50.00") })
	r.typeThreshold("20")
	r.waitFor("the refusal", func(s string) bool {
		return strings.Contains(s, "could not save the threshold") && strings.Contains(s, "switches are read-only") &&
			strings.Contains(thresholdRow(s), "$50.00")
	})
	r.quit()
	if th, on := r.srv.BalanceThreshold(); th != 50000 || !on {
		t.Fatalf("server holds %d %v", th, on)
	}
}

// Row 18: a threshold PUT that never answers has an unknown outcome: the
// account is read again, the row shows what the server holds, and the
// line says the change did not take.
func TestFaultThresholdTimeout(t *testing.T) {
	r := startRigHang(t, demoserver.Options{}, nil, demoserver.Fault{Method: http.MethodPut, Path: settingsPath, Hang: true})
	r.press("3")
	r.waitFor("the threshold", func(s string) bool { return strings.Contains(thresholdRow(s), "$50.00") })
	before := 0
	for _, q := range r.srv.Requests() {
		if strings.HasPrefix(q.Path, currentPath) {
			before++
		}
	}
	r.typeThreshold("20")
	r.waitFor("the re-read", func(s string) bool {
		return strings.Contains(s, "not saved: the threshold save's answer was lost; read again, the server holds $50.00") &&
			strings.Contains(thresholdRow(s), "[x] on") && strings.Contains(thresholdRow(s), "$50.00")
	})
	r.quit()
	after := 0
	for _, q := range r.srv.Requests() {
		if strings.HasPrefix(q.Path, currentPath) {
			after++
		}
	}
	if after != before+1 {
		t.Errorf("%d account reads after the timeout, want 1", after-before)
	}
}

var thresholdRE = regexp.MustCompile(`"balance_threshold":\s*[-0-9.e]+`)

// setThreshold rewrites the account record's balance_threshold.
func setThreshold(raw string) func([]byte) []byte {
	return func(b []byte) []byte { return thresholdRE.ReplaceAll(b, []byte(`"balance_threshold":`+raw)) }
}

// Row 19: the account read after the save holds another value than the
// one sent: the row shows the server's, and the status line says both.
func TestFaultThresholdRereadDiffers(t *testing.T) {
	r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) {
		// The first account read is the start-up's; the one after the PUT
		// is rewritten.
		srv.AddFault(demoserver.Fault{Method: http.MethodGet, Path: currentPath, Times: 1})
		srv.AddFault(demoserver.Fault{Method: http.MethodGet, Path: currentPath, Mutate: setThreshold("30.00")})
	})
	r.press("3")
	r.waitFor("the threshold", func(s string) bool { return strings.Contains(thresholdRow(s), "$50.00") })
	r.typeThreshold("20")
	r.waitFor("the server's word", func(s string) bool {
		return strings.Contains(s, "the server holds the threshold $30.00, enabled (vastdash sent $20.00)") &&
			strings.Contains(thresholdRow(s), "$30.00")
	})
	r.quit()
	if th, _ := r.srv.BalanceThreshold(); th != 20000 {
		t.Fatalf("the PUT did not reach the server (%d); the test proves nothing", th)
	}
}

// Row 20: a threshold the program must not believe — negative, 1e308 — is
// shown as such; the credit still shows, nothing reads as low, and a new
// amount can still be saved.
func TestFaultThresholdImplausible(t *testing.T) {
	for raw, says := range map[string]string{"-5": "a negative amount (-$5.00)", "1e308": "a value that is not an amount"} {
		t.Run(raw, func(t *testing.T) {
			r := startRig(t, demoserver.Options{}, func(srv *demoserver.Server) {
				srv.AddFault(demoserver.Fault{Method: http.MethodGet, Path: currentPath, Times: 1, Mutate: setThreshold(raw)})
			})
			r.waitFor("the credit", contains("credit $"))
			r.press("3")
			r.waitFor("the refusal to believe it", func(s string) bool {
				row := thresholdRow(s)
				return strings.Contains(row, "[?] unknown") && strings.Contains(row, says)
			})
			r.typeThreshold("25")
			r.waitFor("the new amount", func(s string) bool { return strings.Contains(thresholdRow(s), "$25.00 — alerts fire below it") })
			r.quit()
			if strings.Contains(strings.ToLower(r.model.render()), "below your threshold") {
				t.Error("a threshold not believed made the credit read low")
			}
		})
	}
}

// instancesPath is the instances endpoint as faults match it.
const instancesPath = "/api/v1/instances"

// rateLine is the line of the "billing now" panel's headline.
func rateLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "Now ") || strings.HasPrefix(line, "       ✗ current rate") {
			return line
		}
	}
	return ""
}

// Row 21: a key without instance_read: the panel says so, and the credit,
// the charges and the runway all still work.
func TestFaultInstancesDenied(t *testing.T) {
	r := startRig(t, demoserver.Options{Contracts: 300}, func(srv *demoserver.Server) {
		srv.AddKey(canaryKey, "canary", []string{"misc", "user_read", "user_write", "billing_read"})
	})
	r.waitFor("the panel's note and the rest loaded", func(s string) bool {
		return strings.Contains(rateLine(s), "needs instance_read") && runwayShown(s) && strings.Contains(s, "contracts loaded")
	})
	r.quit()
}

// Row 22: instances whose values are well-typed but not sane — $1e9/h, a
// negative rate, a start in year 9999, storage of $1e300 — are left out
// and counted; the rate is the rest's exact sum and no figure wraps.
func TestFaultInstancesImplausible(t *testing.T) {
	var truth []demoserver.InstanceTruth
	r := startRig(t, demoserver.Options{Contracts: 300}, func(srv *demoserver.Server) {
		truth = srv.Instances()
		srv.AddFault(demoserver.Fault{Path: instancesPath, Mutate: func(b []byte) []byte {
			var doc map[string]any
			if json.Unmarshal(b, &doc) != nil {
				return b
			}
			list, _ := doc["instances"].([]any)
			fields := []string{"dph_total", "dph_total", "start_date", "storage_total_cost"}
			values := []any{1e9, -2.5, 253402214400.0, 1e300}
			for i := 0; i < len(list) && i < len(fields); i++ {
				if e, ok := list[i].(map[string]any); ok {
					e[fields[i]] = values[i]
				}
			}
			out, _ := json.Marshal(doc)
			return out
		}})
	})
	var rate api.Rate
	for _, in := range truth[4:] {
		if in.Status == "running" {
			rate += api.Rate(in.DPH)
		}
	}
	s := r.waitFor("the rate without the refused instances", func(s string) bool {
		return strings.Contains(rateLine(s), "Now    "+rate.String()) && strings.Contains(s, "4 instances the server sent could not be read")
	})
	r.quit()
	if strings.Contains(s, "-$") {
		t.Errorf("a negative figure:\n%s", s)
	}
}

// Row 23: the instances endpoint failing (a 500 with an escape sequence,
// then a hang) says so in the panel with r to retry, the rest of the
// screen works, and r reads the rate again once the server is back.
func TestFaultInstancesFail(t *testing.T) {
	for name, f := range map[string]demoserver.Fault{
		"500":  {Path: instancesPath, Status: 500, Body: `{"error":"boom","msg":"\u001b[31mservice down"}`},
		"hang": {Path: instancesPath, Hang: true},
	} {
		t.Run(name, func(t *testing.T) {
			r := startRigHang(t, demoserver.Options{Contracts: 300}, nil, f)
			r.waitFor("the failure in the panel, the rest loaded", func(s string) bool {
				return strings.Contains(s, "✗ current rate") && strings.Contains(s, "r to reload") && runwayShown(s)
			})
			r.clearFaults()
			r.press("r")
			r.waitFor("the rate after r", func(s string) bool {
				return strings.HasPrefix(rateLine(s), "Now    $") && !strings.Contains(s, "✗ current rate")
			})
			r.quit()
		})
	}
}

// Row 24: the credit falling below the alert between two readings says so
// on the status line (the ring itself is TestBellRingsOncePerCrossing's).
func TestFaultCreditCrossesAlert(t *testing.T) {
	r := startRig(t, demoserver.Options{Contracts: 300}, nil)
	r.waitFor("the first readings", func(s string) bool {
		return strings.HasPrefix(rateLine(s), "Now    $") && strings.Contains(s, "updated")
	})
	r.srv.AddFault(demoserver.Fault{Path: "/api/v0/users/current", Mutate: func(b []byte) []byte {
		var doc map[string]any
		if json.Unmarshal(b, &doc) != nil {
			return b
		}
		doc["credit"] = 12.5
		doc["balance_threshold"] = 50.0
		doc["balance_threshold_enabled"] = true
		out, _ := json.Marshal(doc)
		return out
	}})
	r.press("r")
	r.waitFor("the alarm on the status line", contains("credit $12.50 fell below your $50.00 low-balance alert"))
	r.quit()
}

// clearFaults removes every fault from the server, and with them the short
// wait of the requests a Hang fault held.
func (r *rig) clearFaults() {
	r.srv.ClearFaults()
	r.hangs.clear()
}

// hangs are the Hang faults of a rig, which its client gives up on after
// hang.Wait.
type hangs struct {
	mu     sync.Mutex
	faults []demoserver.Fault
}

func (h *hangs) add(f demoserver.Fault) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.faults = append(h.faults, f)
}

func (h *hangs) clear() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.faults = nil
}

// held reports a request a Hang fault matches, as the server matches it.
func (h *hangs) held(req *http.Request) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, f := range h.faults {
		if (f.Method == "" || f.Method == req.Method) && (f.Path == "" || f.Path == strings.TrimSuffix(req.URL.Path, "/")) {
			return true
		}
	}
	return false
}
