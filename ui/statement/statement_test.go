package statement

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"go.uber.org/goleak"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// The feeds' loaders run in goroutines; none may outlive the tests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var demoNow = time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC)

// harness is the screen on a demo server, with the messages its commands
// send fed back to it, as the program loop would.
type harness struct {
	t      *testing.T
	srv    *demoserver.Server
	m      *Model
	status []shared.StatusMsg
	other  []tea.Msg // messages for the program (the clipboard)
}

func newHarness(t *testing.T, key string, fault *demoserver.Fault) *harness {
	return newHarnessOpts(t, key, fault, false)
}

func newHarnessOpts(t *testing.T, key string, fault *demoserver.Fault, hostile bool) *harness {
	t.Helper()
	srv, err := demoserver.Start(demoserver.Options{Now: demoNow, Contracts: 1200, Threshold: -1, InvoicesThreshold: -1, Hostile: hostile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if fault != nil {
		srv.AddFault(*fault)
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := api.New(srv.URL(), key, api.WithHTTPClient(&http.Client{Transport: tr}), api.WithChargesThreshold(0),
		api.WithEndpointThreshold(api.InvoicesPath, 0), api.WithBackoff(time.Millisecond, 2*time.Millisecond), api.WithTimeout(15*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	svc := billing.New(ctx, c, billing.WithLocation(time.UTC), billing.WithClock(srv.Now), billing.WithRateWait(time.Millisecond))
	t.Cleanup(func() { cancel(); svc.Close() })
	m := New(screentest.Context(ctx, svc, screentest.Styles(theme.New(false))))
	m.SetSize(80, 20) // the screen's area in an 80×24 terminal
	return &harness{t: t, srv: srv, m: m}
}

// run runs cmd and every command the messages it yields lead to.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 10_000 {
			h.t.Fatal("the screen keeps sending commands")
		}
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
		default:
			h.other = append(h.other, msg)
			queue = append(queue, h.m.Update(msg))
		}
	}
}

func (h *harness) press(k string) {
	r := []rune(k)
	code := r[0]
	if k == "enter" {
		code = tea.KeyEnter
	}
	h.run(h.m.Update(tea.KeyPressMsg{Code: code, Text: map[bool]string{true: "", false: k}[k == "enter"]}))
}

// typeKey sends a key to the open find field; its commands (the cursor's
// blink timer) are the program loop's, not the test's.
func (h *harness) typeKey(k string) {
	code := []rune(k)[0]
	switch k {
	case "enter":
		code = tea.KeyEnter
	case "esc":
		code = tea.KeyEscape
	case "backspace":
		code = tea.KeyBackspace
	}
	text := k
	if len([]rune(k)) > 1 {
		text = ""
	}
	h.m.Update(tea.KeyPressMsg{Code: code, Text: text})
}

func (h *harness) view() string { return ansi.Strip(h.m.View()) }

// Nothing is fetched until the screen is shown; then both feeds load side
// by side, the statement appears with its months, the enter key lists the
// selected month's records, and the view fills its area exactly.
func TestLoadsWhenShown(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	h.run(h.m.Init())
	h.run(h.m.Shown(false))
	if n := len(h.srv.Requests()); n != 0 || h.m.Loading() {
		t.Fatalf("%d requests before the screen was shown", n)
	}
	u, err := h.m.ctx.Billing.Account(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h.m.Update(shared.UserMsg{User: u})
	cmd := h.m.Shown(true)
	if !strings.Contains(h.view(), "loading the year: payments") {
		t.Fatalf("no progress while loading:\n%s", h.view())
	}
	h.run(cmd)
	if h.m.Shown(true) != nil {
		t.Fatal("a second Shown loads again")
	}
	st := h.m.Statement()
	if st == nil || len(st.Months) != Months || st.Months[Months-1].Closing != u.Credit || st.Incomplete {
		t.Fatalf("statement %+v", st)
	}
	golden.AssertFits(t, h.m.View(), 80, 20)
	golden.Check(t, "statement_80x24.golden", h.view())
	if !strings.Contains(h.view(), "1 pending, not counted") || !strings.Contains(h.view(), "reconstructed from today's credit") {
		t.Errorf("no pending list or reconstruction note:\n%s", h.view())
	}
	// Back one month and open its records.
	h.press("k")
	h.press("enter")
	golden.Check(t, "statement_records_80x24.golden", h.view())
	if want := st.Months[Months-2].Label() + ": " + itoa(len(st.Months[Months-2].Records)) + " payment records"; !strings.Contains(h.view(), want) {
		t.Errorf("no %q:\n%s", want, h.view())
	}
	for _, size := range [][2]int{{40, 12}, {1, 1}, {200, 60}, {80, 3}} {
		h.m.SetSize(size[0], size[1])
		golden.AssertFits(t, h.m.View(), size[0], size[1])
	}
}

// A failure shows on the status line with the server's words, the months
// a stopped feed did not reach are marked, and r resumes.
func TestFailureMarksMonthsAndRetries(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, &demoserver.Fault{Path: "/api/v1/invoices", Status: 200, Times: 1,
		Body: `{"success":false,"error":"Invalid date range"}`})
	h.m.Update(shared.UserMsg{User: api.User{Credit: 1000}})
	h.run(h.m.Shown(true))
	st := h.m.Statement()
	if st == nil || !st.Incomplete || !st.Months[0].Incomplete || !strings.Contains(h.view(), "? incomplete") {
		t.Fatalf("statement %+v\n%s", st, h.view())
	}
	if len(h.status) == 0 || h.status[len(h.status)-1].Kind != shared.StatusError ||
		!strings.Contains(h.status[len(h.status)-1].Text, "Invalid date range") {
		t.Fatalf("status %+v", h.status)
	}
	h.press("r")
	if st := h.m.Statement(); st == nil || st.Incomplete || h.status[len(h.status)-1].Text != "" {
		t.Fatalf("after r: %+v, status %+v", st, h.status[len(h.status)-1])
	}
}

func (h *harness) lastStatus() string {
	if len(h.status) == 0 {
		return ""
	}
	return h.status[len(h.status)-1].Text
}

// e writes the statement as `vastdash statement --output csv` does, to a
// new 0600 file, never over an existing one, and refuses an incomplete
// statement; y copies the selected month's figures.
func TestExportAndCopy(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	h.m.exportDir = t.TempDir()
	h.press("e")
	if !strings.Contains(h.lastStatus(), "nothing to export yet") {
		t.Fatalf("status %q", h.lastStatus())
	}
	h.m.Update(shared.UserMsg{User: api.User{Credit: 123_456}})
	h.run(h.m.Shown(true))
	var want strings.Builder
	if err := export.WriteStatementCSV(&want, *h.m.Statement()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"vastdash-statement-2025-12..2026-11.csv", "vastdash-statement-2025-12..2026-11-2.csv"} {
		h.press("e")
		path := filepath.Join(h.m.exportDir, name)
		b, err := os.ReadFile(path)
		if err != nil || string(b) != want.String() || !strings.Contains(h.lastStatus(), path) {
			t.Fatalf("%s: %v, status %q\n%s", name, err, h.lastStatus(), b)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v", fi.Mode())
		}
		if !strings.HasPrefix(string(b), "month,opening,money_in,money_out,spend,closing,pending\n2025-12,") {
			t.Errorf("csv %q", b)
		}
	}
	h.press("y")
	mo := h.m.Statement().Months[Months-1]
	row := "2026-11\t" + mo.Opening.Decimal() + "\t"
	found := false
	for _, msg := range h.other {
		found = found || strings.Contains(fmt.Sprint(msg), row)
	}
	if !found || !strings.Contains(h.lastStatus(), "copied 2026-11") {
		t.Errorf("clipboard %v, status %q", h.other, h.lastStatus())
	}
	// An incomplete statement is not written.
	h.m.st.Incomplete = true
	h.press("e")
	if !strings.Contains(h.lastStatus(), "not exported") {
		t.Errorf("status %q", h.lastStatus())
	}
	if files, _ := os.ReadDir(h.m.exportDir); len(files) != 2 {
		t.Errorf("%d files", len(files))
	}
}

// / finds records of the whole year as typed (enter keeps, esc clears; q is
// typed, not quit), s orders them by amount, the title sums what counts.
func TestFindAndSortRecords(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	h.m.Update(shared.UserMsg{User: api.User{Credit: 123_456}})
	h.run(h.m.Shown(true))
	h.typeKey("/")
	if !h.m.Capturing() {
		t.Fatal("the find field does not have the keyboard")
	}
	for _, k := range "transfer" {
		h.typeKey(string(k))
	}
	if !strings.Contains(h.view(), `find "transfer": 2 records of the year · in $50.000 · out $20.000`) {
		t.Fatalf("find:\n%s", h.view())
	}
	h.typeKey("enter")
	if h.m.Capturing() || !strings.Contains(h.view(), `find "transfer": 2 records`) {
		t.Fatalf("after enter:\n%s", h.view())
	}
	h.typeKey("/")
	for range len("transfer") {
		h.typeKey("backspace")
	}
	h.typeKey("q")
	h.typeKey("enter")
	if h.m.find != "q" {
		t.Fatalf("find %q: q must be typed into the field", h.m.find)
	}
	h.typeKey("/")
	h.typeKey("esc")
	if h.m.find != "" || h.m.Capturing() {
		t.Fatal("esc did not clear the filter")
	}
	h.press("s")
	recs := h.m.shownRecords()
	if h.m.order != byAmount || len(recs) < 2 || !strings.Contains(h.view(), "· by amount") {
		t.Fatalf("sort %d, %d records:\n%s", h.m.order, len(recs), h.view())
	}
	for i := 1; i < len(recs); i++ {
		if effect(&recs[i]) > effect(&recs[i-1]) {
			t.Fatalf("not largest first: %+v", recs)
		}
	}
}

// The demo's hostile mode puts escape sequences, bidi overrides and C1
// controls in every description: the records and the pending list show
// them harmlessly, at the screen's exact size.
func TestHostileRecords(t *testing.T) {
	h := newHarnessOpts(t, demoserver.DemoKey, nil, true)
	h.m.SetSize(100, 26)
	h.m.Update(shared.UserMsg{User: api.User{Credit: 1}})
	h.run(h.m.Shown(true))
	frames := []string{h.m.View()}
	h.press("/")
	h.m.finding = false // keep the filter, as enter would
	h.m.find = "bitpay"
	frames = append(frames, h.m.View())
	for i, raw := range frames {
		golden.AssertFits(t, raw, 100, 26)
		rest := regexp.MustCompile(`\x1b\[[0-9;:]*m`).ReplaceAllString(raw, "")
		for _, r := range rest {
			if r != '\n' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)) {
				t.Fatalf("frame %d: %U reached the screen:\n%q", i, r, rest)
			}
		}
	}
	if !strings.Contains(ansi.Strip(frames[1]), "BitPay payment") {
		t.Fatalf("no record found:\n%s", ansi.Strip(frames[1]))
	}
}

// Without the credit there is nothing to run back from: the screen says
// so instead of loading forever.
func TestNoCreditNoStatement(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	h.m.Update(shared.UserMsg{Err: &api.Error{Kind: api.ErrPermission, Permission: "user_read"}})
	h.run(h.m.Shown(true))
	if h.m.Statement() != nil || h.m.Loading() || !strings.Contains(h.view(), "no statement: the statement runs back from the credit") ||
		!strings.Contains(h.lastStatus(), "user_read") {
		t.Fatalf("loading %v, status %q:\n%s", h.m.Loading(), h.lastStatus(), h.view())
	}
}
