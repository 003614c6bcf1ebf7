package audit

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"go.uber.org/goleak"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var demoNow = time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC)

// harness is the screen on a demo account with the leaks, the commands it
// returns run by hand as the root would run them.
type harness struct {
	t      *testing.T
	srv    *demoserver.Server
	m      *Model
	status []shared.StatusMsg
	other  []tea.Msg
}

func newHarness(t *testing.T, key string, keys keymap.Bindings) *harness {
	return newHarnessOpts(t, key, keys, false)
}

func newHarnessOpts(t *testing.T, key string, keys keymap.Bindings, hostile bool) *harness {
	t.Helper()
	return newHarnessAt(t, demoNow, key, keys, hostile)
}

// newHarnessAt is the harness with the server's (and so the screen's)
// clock at now.
func newHarnessAt(t *testing.T, now time.Time, key string, keys keymap.Bindings, hostile bool) *harness {
	t.Helper()
	srv, err := demoserver.Start(demoserver.Options{Now: now, Contracts: 300, Leaks: true, Hostile: hostile, Threshold: -1,
		InstancesThreshold: -1, VolumesThreshold: -1, EndpointsThreshold: -1, WorkerGroupsThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	opts := []api.Option{api.WithHTTPClient(&http.Client{Transport: tr}), api.WithChargesThreshold(0), api.WithTimeout(5 * time.Second)}
	for _, p := range []string{api.InstancesPath, api.VolumesPath, api.EndpointJobsPath, api.WorkerGroupsPath} {
		opts = append(opts, api.WithEndpointThreshold(p, 0))
	}
	c, err := api.New(srv.URL(), key, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	svc := billing.New(ctx, c, billing.WithLocation(time.UTC), billing.WithClock(srv.Now))
	t.Cleanup(func() { cancel(); svc.Close() })
	m := New(screentest.Context(ctx, svc, screentest.Styles(theme.New(false)), screentest.Keys(keys)))
	m.SetSize(80, 20) // the screen's area in an 80×24 terminal
	h := &harness{t: t, srv: srv, m: m}
	h.read()
	return h
}

// read is the root's reading, handed to the screen, which is shown (as
// the root tells it on a switch to it): its so far is read from the
// charges.
func (h *harness) read() {
	h.t.Helper()
	a, err := leaks.Read(context.Background(), h.m.ctx.Billing)
	h.run(func() tea.Msg { return shared.AuditMsg{Audit: a, Err: err} })
	h.run(h.m.Shown(true))
}

// run runs cmd and every command the messages it yields lead to; an
// AuditReloadMsg is the root reading again.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case shared.StatusMsg:
			h.status = append(h.status, msg)
		case shared.AuditReloadMsg:
			h.other = append(h.other, msg)
			h.read()
		default:
			h.other = append(h.other, msg)
			queue = append(queue, h.m.Update(msg))
		}
	}
}

func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		default:
			r := []rune(k)[0]
			msg = tea.KeyPressMsg{Code: r, Text: k}
		}
		h.run(h.m.Update(msg))
	}
}

func (h *harness) view() string {
	h.t.Helper()
	v := h.m.View()
	golden.AssertFits(h.t, v, h.m.width, h.m.height)
	return ansi.Strip(v)
}

func (h *harness) lastStatus() string {
	if len(h.status) == 0 {
		return ""
	}
	return h.status[len(h.status)-1].Text
}

// The screen at 80×24 and 40×12: the total in the header, the increases
// first, then every leak; nothing wider than the terminal.
func TestAuditScreenGolden(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	golden.Check(t, "audit_80x20.golden", h.view())
	h.m.SetSize(40, 10)
	golden.Check(t, "audit_40x10.golden", h.view())
	a := h.m.audit
	if !strings.HasPrefix(h.view(), "Leaks "+a.Total.String()) {
		t.Errorf("the header does not lead with the total %s:\n%s", a.Total, h.view())
	}
}

// Every leak is reachable with ↓, and the screen scrolls to keep the
// cursor in view.
func TestAuditScreenScrolls(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	a := h.m.audit
	for range h.m.rows() + 3 {
		h.press("down")
	}
	last := a.Leaks[len(a.Leaks)-1]
	if h.m.cursor != h.m.rows()-1 || !strings.Contains(h.view(), "› "+kindText(last.Kind, false)) {
		t.Fatalf("cursor %d of %d; the last row is not shown selected:\n%s", h.m.cursor, h.m.rows(), h.view())
	}
}

// enter on a leak or an increase shows its contract on the Charges screen.
func TestAuditScreenReveals(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	h.press("enter")
	want := []tea.Msg{shared.RevealMsg{Source: "instance-" + strconv.FormatInt(h.m.audit.Increases[0].InstanceID, 10)}}
	for h.m.cursor < len(h.m.audit.Increases) {
		h.press("down")
	}
	h.press("enter")
	l0 := h.m.audit.Leaks[0]
	want = append(want, shared.RevealMsg{Source: l0.Source, What: l0.Kind.Title() + " " + l0.Label + " (" + strconv.FormatInt(l0.ID, 10) + ")"})
	// An idle endpoint asks for any of its workers' rows, named as the
	// row the user chose.
	for h.m.cursor < h.m.rows()-1 {
		if l, ok := h.m.leak(); ok && l.Kind == leaks.LeakIdleEndpoint {
			break
		}
		h.press("down")
	}
	ep, _ := h.m.leak()
	h.press("enter")
	want = append(want, shared.RevealMsg{Source: ep.Source, What: "idle endpoint " + ep.Label + " (" + strconv.FormatInt(ep.ID, 10) + ")", Endpoint: ep.ID})
	var got []tea.Msg
	for _, msg := range h.other {
		if r, ok := msg.(shared.RevealMsg); ok {
			got = append(got, r)
		}
	}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || ep.Kind != leaks.LeakIdleEndpoint {
		t.Fatalf("reveals %v, want %v", got, want)
	}
}

// A on an increase opens the confirmation, which takes the keyboard; n
// sends nothing; A then y sends the one answer and the audit is read again,
// the increase gone.
func TestAuditScreenAnswers(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	first := h.m.audit.Increases[0]
	h.press("A")
	if !h.m.Capturing() || !strings.Contains(h.view(), "Accept "+strconv.FormatInt(first.InstanceID, 10)+": "+first.OldPerHour.String()+" → "+first.NewPerHour.String()) {
		t.Fatalf("no confirmation:\n%s", h.view())
	}
	h.press("q", "5", "x") // typed into the prompt: none acts
	h.press("n")
	if h.m.Capturing() || len(h.srv.Decided()) != 0 || h.lastStatus() != "nothing sent" {
		t.Fatalf("n: capturing %v, decided %v, status %q", h.m.Capturing(), h.srv.Decided(), h.lastStatus())
	}
	h.srv.ResetRequests()
	h.press("A", "y")
	var puts int
	for _, r := range h.srv.Requests() {
		if r.Method == http.MethodPut {
			puts++
			if r.Path != api.AcceptPriceIncreasePath || string(r.Body) != `{"pending_price_increase_id":`+strconv.FormatInt(first.ID, 10)+`}` {
				t.Errorf("sent %s %s", r.Path, r.Body)
			}
		}
	}
	if puts != 1 || !h.srv.Decided()[first.ID] || !strings.HasPrefix(h.lastStatus(), "accepted the price increase of instance") {
		t.Fatalf("%d PUTs, decided %v, status %q", puts, h.srv.Decided(), h.lastStatus())
	}
	if len(h.m.audit.Increases) != 1 || h.m.audit.Increases[0].ID == first.ID {
		t.Fatalf("not read again: %+v", h.m.audit.Increases)
	}
	// X rejects the other, behind its own confirmation.
	h.press("X", "y")
	if len(h.m.audit.Increases) != 0 || !strings.HasPrefix(h.lastStatus(), "rejected the price increase") {
		t.Fatalf("reject: %+v, status %q", h.m.audit.Increases, h.lastStatus())
	}
	// On a leak A and X only say where to go.
	h.press("A")
	if h.m.Capturing() || h.lastStatus() != "move to a price increase to answer it" {
		t.Fatalf("A on a leak: %v %q", h.m.Capturing(), h.lastStatus())
	}
}

// A date in another year than the clock's carries its year, in the rows
// and in the question: late in December an increase from 2 January read
// "from 2 Jan 15:30", a day this year that has passed; early in January a
// leak since December read as this December's. (The clock is in the past:
// the client bounds start dates by the wall clock, and a later one would
// drop the instances.)
func TestAuditScreenDatesAcrossNewYear(t *testing.T) {
	h := newHarnessAt(t, time.Date(2025, 12, 30, 15, 30, 0, 0, time.UTC), demoserver.DemoKey, nil, false)
	v := h.view()
	for _, want := range []string{"from 2 Jan 2026", "from 5 Jan 2026", "10 Dec 15:30", "30 Nov 15:30"} {
		if !strings.Contains(v, want) {
			t.Errorf("on 30 Dec no %q:\n%s", want, v)
		}
	}
	h.press("A")
	if v := h.view(); !strings.Contains(v, "from 2 Jan 2026?") {
		t.Errorf("the question has no year:\n%s", v)
	}
	h.press("n")

	h = newHarnessAt(t, time.Date(2026, 1, 3, 15, 30, 0, 0, time.UTC), demoserver.DemoKey, nil, false)
	v = h.view()
	for _, want := range []string{"from 6 Jan 15:30", "from 9 Jan 15:30", "14 Dec 2025", "4 Dec 2025"} {
		if !strings.Contains(v, want) {
			t.Errorf("on 3 Jan no %q:\n%s", want, v)
		}
	}
}

// An answer the server refuses says why; one answered elsewhere meanwhile
// says it is no longer pending.
func TestAuditScreenAnswerRefused(t *testing.T) {
	h := newHarness(t, "key-no-instance-write", nil)
	h.srv.AddKey("key-no-instance-write", "nw", []string{"instance_read", "misc", "billing_read"})
	h.read()
	h.press("A", "y")
	if got := h.lastStatus(); got != "not accepted: this API key lacks the instance_write permission" {
		t.Fatalf("status %q", got)
	}
	// Answered elsewhere (the CLI, the web console) while this screen
	// still shows it.
	other, err := api.New(h.srv.URL(), demoserver.DemoKey)
	if err != nil {
		t.Fatal(err)
	}
	pc := h.m.audit.Increases[0]
	if err := other.RejectPriceIncrease(context.Background(), pc.ID); err != nil {
		t.Fatal(err)
	}
	h.srv.AddKey("key-no-instance-write", "nw", nil) // the key gains every permission
	h.press("A", "y")
	if got := h.lastStatus(); !strings.HasSuffix(got, "is no longer pending") {
		t.Fatalf("status %q", got)
	}
}

// A confirmation whose increase disappears from a new reading closes.
func TestAuditScreenPromptClosesWhenAnswered(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	h.press("A")
	a := *h.m.audit
	a.Increases = a.Increases[1:]
	h.run(func() tea.Msg { return shared.AuditMsg{Audit: a} })
	if h.m.Capturing() || h.lastStatus() != "that price increase is no longer pending" {
		t.Fatalf("capturing %v status %q", h.m.Capturing(), h.lastStatus())
	}
}

// A key that may read nothing: each section's line names the permission,
// and the header never says "none found".
func TestAuditScreenUnreadable(t *testing.T) {
	h := newHarness(t, demoserver.KeyReadOnly, nil)
	v := h.view()
	for _, want := range []string{"Leaks unknown", "⚠ instances: not read — this API key lacks the instance_read permission",
		"⚠ serverless endpoints: not read — this API key lacks the misc permission", "No leaks found in what could be read."} {
		if !strings.Contains(v, want) {
			t.Errorf("lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "none found") {
		t.Errorf("says none found:\n%s", v)
	}
}

// The keys are the table's: rebound, the screen follows, and the hints
// name them as bound.
func TestAuditScreenRebound(t *testing.T) {
	keys, err := keymap.Bind(map[string][]string{"answer-accept": {"Z"}, "prompt-yes": {"Y"}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, demoserver.DemoKey, keys)
	if !strings.Contains(h.view(), "Z accept increase") {
		t.Errorf("the hint does not name Z:\n%s", h.view())
	}
	h.press("A")
	if h.m.Capturing() {
		t.Fatal("A still accepts")
	}
	h.press("Z", "Y")
	if len(h.srv.Decided()) != 1 {
		t.Fatalf("decided %v", h.srv.Decided())
	}
}

// Labels and endpoint names are server text: whatever escapes they carry
// reach the terminal as visible text, never as sequences.
func TestAuditScreenHostile(t *testing.T) {
	h := newHarnessOpts(t, demoserver.DemoKey, nil, true)
	for _, w := range []int{80, 40} {
		h.m.SetSize(w, 20)
		v := h.m.View()
		golden.AssertFits(t, v, w, 20)
		// The styles write SGR only (ESC [ … m); a hostile label brings
		// OSC (ESC ]), C1 CSI and bidi overrides.
		if strings.Contains(v, "\x1b]") || strings.ContainsAny(v, "\u009b\u202e") {
			t.Fatalf("%d: raw control text reached the screen:\n%q", w, v)
		}
	}
}

// So far is an estimate (≈) until the screen is shown; then the charges
// are read for it once, and the disk items replace the estimate.
func TestAuditScreenReadsSoFarWhenShown(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	a, err := leaks.Read(context.Background(), h.m.ctx.Billing)
	if err != nil {
		t.Fatal(err)
	}
	a.AsOf = a.AsOf.Add(time.Minute) // a new reading
	if h.m.Shown(false) != nil || h.m.Update(shared.AuditMsg{Audit: a}) != nil || h.m.Update(shared.AuditMsg{Audit: a}) != nil || !strings.Contains(h.view(), "≈$22.") {
		t.Fatalf("hidden, it read the charges, or so far is not marked an estimate:\n%s", h.view())
	}
	h.srv.ResetRequests()
	cmd := h.m.Shown(true)
	if cmd == nil || h.m.Shown(true) != nil || !h.m.Loading() {
		t.Fatal("shown: no one read of the charges")
	}
	h.run(cmd)
	if h.m.Shown(true) != nil || h.m.Loading() || !h.m.audit.SoFarRead || strings.Contains(h.view(), "≈$22.") || !strings.Contains(h.view(), "$22.406") {
		t.Fatalf("so far not from the charges:\n%s", h.view())
	}
	n := 0
	for _, r := range h.srv.Requests() {
		if strings.HasPrefix(r.Path, "/api/v0/charges") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d charges requests", n)
	}
}

// The root tells the screen of a switch only: a reading that comes while
// it is shown gets its so far read without another word from the root, and
// one that comes while it is hidden waits for the next switch to it.
func TestAuditScreenReadsSoFarOfEachReadingWhileShown(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil) // shown, its first reading read
	a, err := leaks.Read(context.Background(), h.m.ctx.Billing)
	if err != nil {
		t.Fatal(err)
	}
	a.AsOf = a.AsOf.Add(time.Minute) // the refresh's next reading
	cmd := h.m.Update(shared.AuditMsg{Audit: a})
	if cmd == nil || !h.m.Loading() {
		t.Fatal("a new reading while shown: its so far is not read")
	}
	h.run(cmd)
	if !h.m.audit.SoFarRead || !h.m.audit.AsOf.Equal(a.AsOf) || strings.Contains(h.view(), "≈$22.") {
		t.Fatalf("the new reading's so far is still an estimate:\n%s", h.view())
	}
	h.m.Shown(false)
	a.AsOf = a.AsOf.Add(time.Minute)
	if h.m.Update(shared.AuditMsg{Audit: a}) != nil || h.m.Loading() {
		t.Fatal("hidden, a new reading read the charges")
	}
	if h.m.Shown(true) == nil {
		t.Fatal("shown again: the reading that came meanwhile is not read")
	}
}

// An answer whose response is lost is not sent again, and the status line
// says it may have been sent, while the audit read again shows whether
// it is still pending: not "no longer pending", nor an error that reads
// as if nothing happened.
func TestAuditScreenAnswerLost(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	first := h.m.audit.Increases[0]
	h.srv.ResetRequests()
	h.srv.AddFault(demoserver.Fault{Method: http.MethodPut, Path: strings.TrimSuffix(api.AcceptPriceIncreasePath, "/"), ResetAfterBytes: 3, Times: 1})
	h.press("A", "y")
	puts := 0
	for _, r := range h.srv.Requests() {
		if r.Method == http.MethodPut {
			puts++
		}
	}
	got := h.lastStatus()
	if puts != 1 || strings.Contains(got, "no longer pending") || !strings.Contains(got, "may have been sent") || !strings.Contains(got, "read again") {
		t.Fatalf("%d PUTs, status %q", puts, got)
	}
	if h.status[len(h.status)-1].Kind != shared.StatusWarn {
		t.Errorf("status kind %v, want a warning", h.status[len(h.status)-1].Kind)
	}
	if len(h.m.audit.Increases) != 1 || h.m.audit.Increases[0].ID == first.ID {
		t.Fatalf("not read again: %+v", h.m.audit.Increases)
	}
}

// The date column is the creation, named so ("SINCE" read as "leaking
// since" and $/h × the time since it disagreed with so far), with a note
// saying when a leak began is not in the API; the command's table uses
// the same word.
func TestCreatedColumnNamed(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	h.m.SetSize(100, 60)
	v := h.view()
	if strings.Contains(v, "SINCE") || !strings.Contains(v, "  "+leaks.CreatedHeader+"  ") {
		t.Errorf("the column is not named CREATED:\n%s", v)
	}
	if !strings.Contains(strings.Join(strings.Fields(v), " "), strings.Join(strings.Fields(leaks.CreatedNote), " ")) {
		t.Errorf("no note of what CREATED and SO FAR are:\n%s", v)
	}
}

// An answered increase leaves the list as the answer comes, not seconds
// later with the next reading; the reading the other screens share is
// left as it was.
func TestAnsweredIncreaseGoesAtOnce(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	shared := h.m.audit
	first := shared.Increases[0]
	n := len(shared.Increases)
	h.m.Update(answeredMsg{answer: answer{pc: first, accept: true}}) // its commands not run: no reading yet
	if got := h.m.audit.Increases; len(got) != n-1 || slices.ContainsFunc(got, func(p leaks.PriceChange) bool { return p.ID == first.ID }) {
		t.Fatalf("still listed: %+v", got)
	}
	if strings.Contains(h.view(), "› "+strconv.FormatInt(first.InstanceID, 10)) || len(shared.Increases) != n {
		t.Errorf("the answered row shows, or the shared reading was cut:\n%s", h.view())
	}
}
