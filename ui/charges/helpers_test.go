package charges

import (
	"context"
	"fmt"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// testNow is the fixed clock of the tests: the 30d range is 23 Oct – 21 Nov.
var testNow = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

// contract builds instance contract id with its four items. k varies the
// times and amounts so rows differ.
func contract(id, k int) api.Charge {
	start := testNow.Add(-time.Duration(200+k*7) * time.Hour).Unix()
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

// fakePager hands out prepared pages; fail makes the call with that index
// (0-based, counting every call) fail instead.
type fakePager struct {
	q     api.ChargesQuery
	pages []api.ChargesPage
	fail  map[int]error
	calls int
	next  int
	ctxs  []context.Context
}

func (p *fakePager) Next(ctx context.Context) (api.ChargesPage, error) {
	call := p.calls
	p.calls++
	p.ctxs = append(p.ctxs, ctx)
	if err := p.fail[call]; err != nil {
		return api.ChargesPage{}, err
	}
	if p.next >= len(p.pages) {
		return api.ChargesPage{}, api.ErrPagerDone
	}
	pg := p.pages[p.next]
	p.next++
	return pg, nil
}

func (p *fakePager) Done() bool { return p.next >= len(p.pages) }

func (p *fakePager) Total() int {
	if p.next == 0 {
		return -1
	}
	return p.pages[0].Total
}

// pagesOf cuts entries into pages of size per, with Total set to len(entries).
func pagesOf(entries []api.Charge, per int) []api.ChargesPage {
	var out []api.ChargesPage
	for i := 0; i < len(entries); i += per {
		j := min(i+per, len(entries))
		out = append(out, api.ChargesPage{Count: j - i, Total: len(entries), Results: entries[i:j]})
	}
	if len(out) == 0 {
		out = append(out, api.ChargesPage{})
	}
	return out
}

// harness is a model whose pagers are fakes made by mk; pagers records them.
type harness struct {
	t      *testing.T
	m      *Model
	pagers []*fakePager
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
	return &shared.Context{
		Base:         context.Background(),
		Styles:       styles,
		Location:     time.UTC,
		Now:          func() time.Time { return testNow },
		DefaultRange: "30d",
	}
}

// newHarness builds a w×h screen whose every pager serves mk(query).
func newHarness(t *testing.T, w, h int, mk func(q api.ChargesQuery) *fakePager) *harness {
	hs := &harness{t: t}
	hs.m = New(testContext(plainStyles()))
	hs.m.newPager = func(q api.ChargesQuery) pageSource {
		p := mk(q)
		p.q = q
		hs.pagers = append(hs.pagers, p)
		return p
	}
	hs.m.SetSize(w, h)
	return hs
}

// servePages makes every pager serve entries in pages of per.
func servePages(entries []api.Charge, per int) func(api.ChargesQuery) *fakePager {
	return func(api.ChargesQuery) *fakePager { return &fakePager{pages: pagesOf(entries, per)} }
}

// run executes cmd (a page fetch) and feeds its message back, returning
// the next command.
func (hs *harness) run(cmd tea.Cmd) tea.Cmd {
	hs.t.Helper()
	if cmd == nil {
		hs.t.Fatal("expected a command, got nil")
	}
	return hs.m.Update(cmd())
}

// settle runs fetches until none is issued.
func (hs *harness) settle(cmd tea.Cmd) {
	for i := 0; cmd != nil; i++ {
		if i > 1000 {
			hs.t.Fatal("fetches never stop")
		}
		cmd = hs.run(cmd)
	}
}

// press sends keys (names as tea prints them: "j", "enter", "space", "G").
func (hs *harness) press(keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		cmd = hs.m.Update(keyMsg(k))
	}
	return cmd
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

// typeText types s into whatever has the keyboard.
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
