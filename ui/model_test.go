package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// fakeScreen records what the root routes to it.
type fakeScreen struct {
	name      string
	keys      []string
	msgs      int
	capturing bool
	w, h      int
}

func (f *fakeScreen) Init() tea.Cmd { return nil }
func (f *fakeScreen) Update(msg tea.Msg) tea.Cmd {
	f.msgs++
	if k, ok := msg.(tea.KeyPressMsg); ok {
		f.keys = append(f.keys, k.String())
	}
	return nil
}
func (f *fakeScreen) SetSize(w, h int) { f.w, f.h = w, h }
func (f *fakeScreen) View() string {
	lines := make([]string, f.h)
	for i := range lines {
		lines[i] = f.name
	}
	return shared.Block(lines, f.w, f.h)
}
func (f *fakeScreen) Help() help.KeyMap { return fakeKeys{} }
func (f *fakeScreen) Capturing() bool   { return f.capturing }
func (f *fakeScreen) Loading() bool     { return false }

// fakeOverview is a fake screen that follows a range and tells a runway,
// like the overview.
type fakeOverview struct {
	*fakeScreen
	rng       spend.Range
	setRanges []spend.Range
	runway    spend.Runway
	runwayOK  bool
}

func (f *fakeOverview) Range() spend.Range { return f.rng }
func (f *fakeOverview) SetRange(r spend.Range) tea.Cmd {
	f.rng = r
	f.setRanges = append(f.setRanges, r)
	return func() tea.Msg { return rangeLoadMsg{r} }
}
func (f *fakeOverview) Runway() (spend.Runway, bool) { return f.runway, f.runwayOK }

// rangeLoadMsg stands for the load the overview starts for a range.
type rangeLoadMsg struct{ r spend.Range }

// fakeCharges is a fake screen with a range and Reveal, like the charges
// screen; the key "d" moves its range a day back.
type fakeCharges struct {
	*fakeScreen
	rng     spend.Range
	reveals []string
}

func (f *fakeCharges) Range() spend.Range { return f.rng }
func (f *fakeCharges) Reveal(source string) tea.Cmd {
	f.reveals = append(f.reveals, source)
	return nil
}
func (f *fakeCharges) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok && k.String() == "d" {
		f.rng.From = f.rng.From.AddDate(0, 0, -1)
		f.rng.Preset = ""
	}
	return f.fakeScreen.Update(msg)
}

type fakeKeys struct{}

func (fakeKeys) ShortHelp() []key.Binding {
	return []key.Binding{key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "fake"))}
}
func (fakeKeys) FullHelp() [][]key.Binding { return [][]key.Binding{fakeKeys{}.ShortHelp()} }

func testModel(t *testing.T) (*Model, []*fakeScreen) {
	t.Helper()
	client, err := api.New("http://127.0.0.1:1", "test-key")
	if err != nil {
		t.Fatal(err)
	}
	return testModelWith(t, client)
}

// testModelWith builds the root over fake screens (the overview and
// charges fakes speak the root's extra interfaces) and client.
func testModelWith(t *testing.T, client *api.Client) (*Model, []*fakeScreen) {
	t.Helper()
	fakes := []*fakeScreen{{name: "OVERVIEW"}, {name: "CHARGES"}, {name: "PREFS"}}
	r30, err := spend.PresetRange("30d", time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	screens := []shared.Screen{&fakeOverview{fakeScreen: fakes[0]}, &fakeCharges{fakeScreen: fakes[1], rng: r30}, fakes[2]}
	ctx := &shared.Context{Base: context.Background(), Client: client, Styles: theme.New(true), Location: time.UTC, Now: time.Now, DefaultRange: "30d"}
	m := newModel(ctx, Options{Dark: true, Theme: "dark"}, screens, []string{"Overview", "Charges", "Notifications"})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	return m, fakes
}

func overviewOf(m *Model) *fakeOverview { return m.screens[screenOverview].(*fakeOverview) }
func chargesOf(m *Model) *fakeCharges   { return m.screens[screenCharges].(*fakeCharges) }

func press(s string) tea.KeyPressMsg {
	switch s {
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "shift+tab":
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	return tea.KeyPressMsg{Code: rune(s[0]), Text: s}
}

func screenText(m *Model) string { return ansi.Strip(m.render()) }

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

func TestCreditShowsAsSoonAsUserArrives(t *testing.T) {
	m, _ := testModel(t)
	if !strings.Contains(screenText(m), "credit …") {
		t.Fatalf("before the account arrives the header should say credit is loading:\n%s", screenText(m))
	}
	m.Update(shared.UserMsg{User: api.User{ID: 1, Email: "me@example.com", Credit: 1234567}})
	head := strings.Split(screenText(m), "\n")[0]
	if !strings.Contains(head, "credit $1,234.57") || !strings.Contains(head, "me@example.com") {
		t.Fatalf("header = %q", head)
	}
}

func TestCreditStates(t *testing.T) {
	th := money.Amount(50 * money.Dollar)
	off := false
	cases := []struct {
		user api.User
		want string
	}{
		{api.User{Credit: 12000, BalanceThreshold: &th}, "$12.00 low"},
		{api.User{Credit: 12000, BalanceThreshold: &th, BalanceThresholdEnabled: &off}, "$12.00"},
		{api.User{Credit: 0}, "$0.00 empty"},
		{api.User{Credit: -3200}, "-$3.20 empty"},
		{api.User{Credit: 80000, BalanceThreshold: &th}, "$80.00"},
	}
	for _, c := range cases {
		m, _ := testModel(t)
		m.Update(shared.UserMsg{User: c.user})
		head := strings.Split(screenText(m), "\n")[0]
		if !strings.HasSuffix(strings.TrimRight(head, " "), c.want) {
			t.Errorf("credit %d: header %q does not end with %q", c.user.Credit, head, c.want)
		}
	}
}

func TestRejectedKeyInHeader(t *testing.T) {
	m, _ := testModel(t)
	m.Update(shared.UserMsg{Err: &api.Error{Kind: api.ErrInvalidKey, Status: 404}})
	out := screenText(m)
	if !strings.Contains(strings.Split(out, "\n")[0], "API key rejected") {
		t.Fatalf("header does not say the key was rejected:\n%s", out)
	}
}

func TestScreenSwitching(t *testing.T) {
	m, fakes := testModel(t)
	for _, c := range []struct {
		key  string
		want int
	}{{"2", 1}, {"3", 2}, {"tab", 0}, {"shift+tab", 2}, {"1", 0}} {
		m.Update(press(c.key))
		if m.active != c.want {
			t.Fatalf("after %s active = %d, want %d", c.key, m.active, c.want)
		}
	}
	m.Update(press("j"))
	if len(fakes[0].keys) != 1 || fakes[0].keys[0] != "j" {
		t.Fatalf("screen keys go to the active screen only: %v", fakes[0].keys)
	}
	if len(fakes[1].keys) != 0 {
		t.Fatalf("inactive screen got keys %v", fakes[1].keys)
	}
	if !strings.Contains(screenText(m), "[1 Overview]") {
		t.Fatalf("active tab not marked:\n%s", screenText(m))
	}
}

func TestQuitUnlessTyping(t *testing.T) {
	m, fakes := testModel(t)
	if _, cmd := m.Update(press("q")); !isQuit(cmd) {
		t.Fatal("q does not quit")
	}
	fakes[0].capturing = true
	if _, cmd := m.Update(press("q")); isQuit(cmd) {
		t.Fatal("q quit while a text field had focus")
	}
	if got := fakes[0].keys; len(got) != 1 || got[0] != "q" {
		t.Fatalf("q was not typed into the field: %v", got)
	}
	if _, cmd := m.Update(press("2")); m.active != 0 || isQuit(cmd) {
		t.Fatal("digits switched screens while typing")
	}
	if _, cmd := m.Update(press("ctrl+c")); !isQuit(cmd) {
		t.Fatal("ctrl+c must always quit")
	}
}

func TestBroadcastReachesEveryScreen(t *testing.T) {
	m, fakes := testModel(t)
	type someMsg struct{}
	m.Update(someMsg{})
	for _, f := range fakes {
		if f.msgs != 1 {
			t.Fatalf("screen %s got %d messages, want 1", f.name, f.msgs)
		}
	}
}

func TestRateLimitNote(t *testing.T) {
	m, _ := testModel(t)
	m.Update(waitMsg{Kind: api.EventRateLimited, Wait: time.Hour})
	if !strings.Contains(screenText(m), "waiting for the rate limit") {
		t.Fatalf("no rate-limit note:\n%s", screenText(m))
	}
	m.Update(waitDoneMsg{until: m.waitUntil})
	if strings.Contains(screenText(m), "waiting for the rate limit") {
		t.Fatal("rate-limit note stays after the wait")
	}
}

func TestFitsEverySize(t *testing.T) {
	m, fakes := testModel(t)
	m.Update(shared.UserMsg{User: api.User{Email: "someone.with.a.long.address@example.com", Credit: 99999999}})
	for _, sz := range [][2]int{{100, 30}, {80, 24}, {40, 12}, {20, 5}, {1, 1}, {0, 0}, {3, 200}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		out := m.render()
		if sz[0] == 0 || sz[1] == 0 {
			if out != "" {
				t.Fatalf("%v: want nothing, got %q", sz, out)
			}
			continue
		}
		lines := strings.Split(out, "\n")
		if len(lines) != sz[1] {
			t.Fatalf("%v: %d lines", sz, len(lines))
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w != sz[0] {
				t.Fatalf("%v: line %q is %d wide", sz, ansi.Strip(l), w)
			}
		}
		if fakes[0].h < 0 || fakes[0].h > sz[1] {
			t.Fatalf("%v: screen given height %d", sz, fakes[0].h)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 20, Height: 5})
	if fakes[0].h != 4 {
		t.Fatalf("at 20×5 the screen gets %d lines, want 4", fakes[0].h)
	}
	if !strings.Contains(screenText(m), "$100,000.00") {
		t.Fatalf("at 20×5 the credit must stay visible:\n%s", screenText(m))
	}
}

func TestRevealSwitchesToCharges(t *testing.T) {
	m, fakes := testModel(t)
	before := fakes[0].msgs + fakes[2].msgs
	m.Update(shared.RevealMsg{Source: "instance-42"})
	if m.active != screenCharges {
		t.Fatalf("active screen %d, want the charges screen", m.active)
	}
	if got := chargesOf(m).reveals; len(got) != 1 || got[0] != "instance-42" {
		t.Fatalf("charges screen asked to reveal %v", got)
	}
	if !strings.Contains(screenText(m), "[2 Charges]") {
		t.Fatalf("the charges tab is not shown:\n%s", screenText(m))
	}
	if fakes[0].msgs+fakes[2].msgs != before {
		t.Error("the reveal was broadcast to the other screens")
	}
}

func TestRunwayUnderThreeDaysIsLow(t *testing.T) {
	th := money.Amount(50 * money.Dollar)
	cases := []struct {
		credit money.Amount
		tenths int64
		known  bool
		want   string
	}{
		{100 * money.Dollar, 29, true, "$100.00 low"},
		{100 * money.Dollar, 30, true, "$100.00"},
		{100 * money.Dollar, 5, false, "$100.00"}, // no estimate: no claim
		{0, 0, true, "$0.00 empty"},
		{-2 * money.Dollar, 0, true, "-$2.00 empty"},
	}
	for _, c := range cases {
		m, _ := testModel(t)
		ov := overviewOf(m)
		ov.runway, ov.runwayOK = spend.Runway{Tenths: c.tenths}, c.known
		if !c.known {
			ov.runway.Reason = "charges still loading"
		}
		m.Update(shared.UserMsg{User: api.User{Credit: c.credit, BalanceThreshold: &th}})
		head := strings.TrimRight(strings.Split(screenText(m), "\n")[0], " ")
		if !strings.HasSuffix(head, c.want) {
			t.Errorf("credit %s, runway %d tenths (known %v): header %q, want it to end with %q",
				c.credit, c.tenths, c.known, head, c.want)
		}
	}
}

func TestOverviewFollowsTheChargesRange(t *testing.T) {
	m, _ := testModel(t)
	ov, ch := overviewOf(m), chargesOf(m)
	cmd := m.Init()
	if len(ov.setRanges) != 1 || ov.rng != ch.rng {
		t.Fatalf("Init: overview given %v, want the charges range %v", ov.setRanges, ch.rng)
	}
	if !batchHolds(cmd, rangeLoadMsg{ch.rng}) {
		t.Fatal("Init dropped the overview's load")
	}
	m.Update(press("2"))
	_, cmd = m.Update(press("d"))
	if len(ov.setRanges) != 2 || !ov.rng.From.Equal(ch.rng.From) {
		t.Fatalf("after d: overview ranges %v, charges %v", ov.setRanges, ch.rng)
	}
	if !batchHolds(cmd, rangeLoadMsg{ch.rng}) {
		t.Fatal("the key's command dropped the overview's load")
	}
	m.Update(press("j"))
	type someMsg struct{}
	m.Update(someMsg{})
	if len(ov.setRanges) != 2 {
		t.Fatalf("the overview was given an unchanged range again: %v", ov.setRanges)
	}
}

// batchHolds runs cmd and reports whether it, or a command of its batch,
// yields want.
func batchHolds(cmd tea.Cmd, want tea.Msg) bool {
	if cmd == nil {
		return false
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			if batchHolds(c, want) {
				return true
			}
		}
	case rangeLoadMsg:
		w, ok := want.(rangeLoadMsg)
		return ok && msg.r.From.Equal(w.r.From) && msg.r.To.Equal(w.r.To) && msg.r.Preset == w.r.Preset
	}
	return false
}

// r anywhere drops the pages the client kept, so the reload reaches the
// server; keys typed into a field do not.
func TestReloadClearsThePageCache(t *testing.T) {
	srv, err := demoserver.Start(demoserver.Options{Contracts: 50, Threshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0), api.WithPageCache(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := spend.PresetRange("30d", srv.Now(), time.UTC)
	q := api.ChargesQuery{From: r.From, To: r.To, Limit: api.MaxLimit}
	charges := func() int {
		t.Helper()
		if _, err := client.Charges(context.Background(), q, ""); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, req := range srv.Requests() {
			if strings.HasPrefix(req.Path, "/api/v0/charges") {
				n++
			}
		}
		return n
	}
	m, fakes := testModelWith(t, client)
	if n := charges(); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
	fakes[1].capturing = true
	m.Update(press("2"))
	m.Update(press("r")) // typed into the charges screen's field
	if n := charges(); n != 1 {
		t.Fatalf("r typed into a field cleared the cache: %d requests", n)
	}
	fakes[1].capturing = false
	for i, screen := range []string{"2", "3", "1"} {
		m.Update(press(screen))
		m.Update(press("r"))
		if n := charges(); n != 2+i {
			t.Fatalf("r on screen %s: %d requests, want %d (the page fetched again)", screen, n, 2+i)
		}
	}
	if !m.userLoading {
		t.Error("r on the overview no longer re-reads the account")
	}
}
