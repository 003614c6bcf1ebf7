package charges

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// testNow is the fixed clock of the tests: the 30d range is 23 Oct – 21 Nov.
var testNow = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

// contract builds instance contract id with its four items. k varies the
// times and amounts so rows differ; the times repeat every 5,000 contracts
// so that even the benchmarks' 100,000 stay within the years billing
// accepts as plausible.
func contract(id, k int) api.Charge {
	start := testNow.Add(-time.Duration(200+k%5000*7) * time.Hour).Unix()
	end := start + int64(3600*(3+k%50)) + int64(60*(k%60))
	items := []api.Charge{
		{Type: "gpu", Start: start, End: end, Description: fmt.Sprintf("%dx RTX 4090 @ $0.400/h", 1+k%4), Amount: money.Amount(1000 + 37*k)},
		{Type: "disk", Start: start, End: end, Description: "50 GB storage @ $0.10/GB/month", Amount: money.Amount(100 + k%9)},
		{Type: "bwd", Start: start, End: end, Description: "2.5 GB download", Amount: money.Amount(10 + k%5)},
		{Type: "bwu", Start: start, End: end, Description: "0.4 GB upload", Amount: 0},
	}
	var sum money.Amount
	for _, it := range items {
		sum += it.Amount
	}
	return api.Charge{
		Type: "instance", Source: fmt.Sprintf("instance-%d", id), Start: start, End: end,
		Description: "RTX 4090 instance", Amount: sum,
		Meta:  api.Metadata{Label: fmt.Sprintf("job-%d", id)},
		Items: items,
	}
}

// serverlessEndpoint builds an endpoint wrapper holding groups workergroups
// of per contracts each (tree format).
func serverlessEndpoint(ep, groups, per int) api.Charge {
	e := api.Charge{Type: "serverless", Source: fmt.Sprintf("endpoint-%d", ep), Description: "endpoint"}
	for g := 0; g < groups; g++ {
		wg := api.Charge{Type: "serverless", Source: fmt.Sprintf("workergroup-%d", ep*10+g), Description: "workergroup"}
		for c := 0; c < per; c++ {
			ct := contract(ep*100+g*per+c, c)
			ct.Type, ct.Source = "serverless", fmt.Sprintf("serverless-%d", ep*100+g*per+c)
			ct.Meta = api.Metadata{EndpointID: int64(ep), WorkergroupID: int64(ep*10 + g)}
			wg.Items = append(wg.Items, ct)
			wg.Amount += ct.Amount
			if wg.Start == 0 || ct.Start < wg.Start {
				wg.Start = ct.Start
			}
			wg.End = max(wg.End, ct.End)
		}
		e.Items = append(e.Items, wg)
		e.Amount += wg.Amount
		if e.Start == 0 || wg.Start < e.Start {
			e.Start = wg.Start
		}
		e.End = max(e.End, wg.End)
	}
	return e
}

// contracts builds n contracts with ids from first.
func contracts(first, n int) []api.Charge {
	out := make([]api.Charge, n)
	for i := range out {
		out[i] = contract(first+i, first+i)
	}
	return out
}

// harness is a screen on a billing layer whose pagers are fakes made by
// mk; pagers records them in the order the feeds asked for them. It plays
// the root's part: it runs the screen's commands, hands their messages back
// and keeps the status line the screen asked for.
type harness struct {
	t   *testing.T
	m   *Model
	svc *billing.Service

	mu      sync.Mutex // the feeds ask for pagers from their loaders too
	pagers  []*billingtest.Pager[api.Charge]
	queries []api.ChargesQuery // the query of each pager

	status   shared.StatusMsg   // the status line as the root shows it
	statuses []shared.StatusMsg // every status message, in order
}

// plainStyles renders nothing: the View then holds no escape sequences at
// all, so tests can compare text and catch any escape that leaks through.
func plainStyles() *theme.Styles {
	s := theme.New(true)
	p := lipgloss.NewStyle()
	s.Title, s.Header, s.TabActive, s.TabIdle, s.Muted, s.Accent, s.Bold = p, p, p, p, p, p, p
	s.Credit, s.CreditLow, s.CreditNeg, s.Amount, s.Selected, s.ColHeader = p, p, p, p, p, p
	s.Error, s.Warning, s.OK, s.StatusLine, s.Border = p, p, p, p, p
	return s
}

func testContext(styles *theme.Styles) *shared.Context {
	return screentest.Context(context.Background(), nil, screentest.Styles(styles))
}

// testService is a billing layer at testNow whose feeds page through pages.
// It is closed when the test ends, and with it every loader.
func testService(tb testing.TB, base context.Context, pages func(api.ChargesQuery) billing.Source[api.Charge]) *billing.Service {
	svc := billing.New(base, nil,
		billing.WithPages(pages),
		billing.WithClock(func() time.Time { return testNow }),
		billing.WithLocation(time.UTC),
		billing.WithRateWait(time.Millisecond))
	tb.Cleanup(svc.Close)
	return svc
}

// newHarness builds a w×h screen whose every pager serves mk(query).
func newHarness(t *testing.T, w, h int, mk func(q api.ChargesQuery) *billingtest.Pager[api.Charge]) *harness {
	hs := &harness{t: t}
	ctx := testContext(plainStyles())
	base, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // a listener still waiting ends with the test
	ctx.Base = base
	ctx.Billing = testService(t, base, func(q api.ChargesQuery) billing.Source[api.Charge] {
		p := mk(q)
		hs.mu.Lock()
		hs.pagers = append(hs.pagers, p)
		hs.queries = append(hs.queries, q)
		hs.mu.Unlock()
		return p
	})
	hs.svc = ctx.Billing
	hs.m = New(ctx)
	hs.m.SetSize(w, h)
	return hs
}

// pager returns the i-th pager made.
func (hs *harness) pager(i int) *billingtest.Pager[api.Charge] {
	hs.t.Helper()
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if i >= len(hs.pagers) {
		hs.t.Fatalf("pager %d asked for; only %d made", i, len(hs.pagers))
	}
	return hs.pagers[i]
}

// query returns the query the i-th pager was made for.
func (hs *harness) query(i int) api.ChargesQuery {
	hs.t.Helper()
	hs.pager(i) // fails the test when there is none
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return hs.queries[i]
}

// numPagers is how many pagers the feeds made.
func (hs *harness) numPagers() int {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	return len(hs.pagers)
}

// servePages makes every pager serve entries in pages of per.
func servePages(entries []api.Charge, per int) func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
	return func(api.ChargesQuery) *billingtest.Pager[api.Charge] { return billingtest.Paged(entries, per) }
}

// run executes cmd — a Follow blocks until the feed changes, which it does
// when it is loading — and hands what it sends to the screen as the root
// would, returning the commands that leads to.
func (hs *harness) run(cmd tea.Cmd) tea.Cmd {
	hs.t.Helper()
	if cmd == nil {
		hs.t.Fatal("expected a command, got nil")
	}
	return deliver(cmd(), hs.m.Update, hs.root)
}

// root is the root's part for the messages a screen sends it.
func (hs *harness) root(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case shared.StatusMsg:
		hs.statuses = append(hs.statuses, msg)
		if msg.Text != "" {
			hs.status = msg
		} else if hs.status.Source == msg.Source {
			hs.status = shared.StatusMsg{}
		}
		return true
	}
	return false
}

// deliver hands msg to update, running a batch's commands one after
// another; root sees each message first and keeps those it handles itself.
func deliver(msg tea.Msg, update func(tea.Msg) tea.Cmd, root func(tea.Msg) bool) tea.Cmd {
	switch msg := msg.(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var next []tea.Cmd
		for _, c := range msg {
			if c != nil {
				next = append(next, deliver(c(), update, root))
			}
		}
		return tea.Batch(next...)
	}
	if root != nil && root(msg) {
		return nil
	}
	return update(msg)
}

// settle runs commands until none is left: every page the screen asked for
// has arrived and the feed is idle.
func (hs *harness) settle(cmd tea.Cmd) {
	hs.t.Helper()
	for i := 0; cmd != nil; i++ {
		if i > 1000 {
			hs.t.Fatal("commands never stop")
		}
		cmd = hs.run(cmd)
	}
}

// statusText is the status line as the root shows it.
func (hs *harness) statusText() string { return hs.status.Text }

// sentStatus reports that the screen sent a status line containing s.
func (hs *harness) sentStatus(s string) bool {
	for _, m := range hs.statuses {
		if strings.Contains(m.Text, s) {
			return true
		}
	}
	return false
}

// press sends keys (names as tea prints them: "j", "enter", "space", "G")
// and returns their commands, not run.
func (hs *harness) press(keys ...string) tea.Cmd {
	var cmds []tea.Cmd
	for _, k := range keys {
		cmds = append(cmds, hs.m.Update(keyMsg(k)))
	}
	return tea.Batch(cmds...)
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "ctrl+d":
		return tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	case "ctrl+u":
		return tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl}
	}
	r := []rune(k)
	if len(r) != 1 {
		panic("unknown test key " + k)
	}
	return tea.KeyPressMsg{Code: r[0], Text: k}
}

// typeText types s into whatever has the keyboard. The commands are not
// run: typing loads nothing, and the field's cursor blinks forever.
func (hs *harness) typeText(s string) {
	for _, r := range s {
		hs.m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// lines is the View split into lines, escape sequences removed.
func (hs *harness) lines() []string {
	return strings.Split(ansi.Strip(hs.m.View()), "\n")
}

// view is the View without escape sequences.
func (hs *harness) view() string { return ansi.Strip(hs.m.View()) }

// cursorLine returns the line holding the cursor marker.
func (hs *harness) cursorLine() string {
	hs.t.Helper()
	for _, l := range hs.lines() {
		if strings.HasPrefix(l, "› ") {
			return l
		}
	}
	hs.t.Fatalf("no cursor row in view:\n%s", hs.view())
	return ""
}

// rowNames lists the visible-row list as "depth:source-or-type".
func (hs *harness) rowNames() []string { return rowsOf(hs.m.tree) }

// assertFits checks the View is exactly h lines of exactly w cells.
func assertFits(t *testing.T, view string, w, h int) {
	t.Helper()
	golden.AssertFits(t, view, w, h)
}
