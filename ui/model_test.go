package ui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// testModel builds the real root and screens over a billing service whose
// feeds page through fake pages (one page of three contracts), so nothing
// touches a network.
func testModel(t *testing.T) *Model {
	t.Helper()
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	svc := billing.New(context.Background(), nil,
		billing.WithPages(func(api.ChargesQuery) billing.PageSource { return &onePage{} }),
		billing.WithClock(func() time.Time { return now }), billing.WithLocation(time.UTC))
	t.Cleanup(svc.Close)
	ctx := &shared.Context{Base: context.Background(), Billing: svc, Styles: theme.New(true), Location: time.UTC,
		Now: func() time.Time { return now }, DefaultRange: "30d"}
	m := New(ctx, Options{Dark: true, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	return m
}

// onePage is a page source with one page of three contracts.
type onePage struct {
	mu   sync.Mutex
	done bool
}

func (p *onePage) Next(context.Context) (api.ChargesPage, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return api.ChargesPage{}, api.ErrPagerDone
	}
	p.done = true
	end := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC).Unix()
	res := []api.Charge{
		{Type: "instance", Source: "instance-42", Start: end - 7200, End: end, Amount: 3 * money.Dollar},
		{Type: "instance", Source: "instance-43", Start: end - 3600, End: end, Amount: money.Dollar},
		{Type: "volume", Source: "volume-7", Start: end - 86400, End: end, Amount: 2 * money.Dollar},
	}
	return api.ChargesPage{Results: res, Total: 3, Count: 3}, nil
}

func (p *onePage) Done() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}

func (p *onePage) Total() int { return 3 }

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
	m := testModel(t)
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
		m := testModel(t)
		m.Update(shared.UserMsg{User: c.user})
		head := strings.Split(screenText(m), "\n")[0]
		if !strings.HasSuffix(strings.TrimRight(head, " "), c.want) {
			t.Errorf("credit %d: header %q does not end with %q", c.user.Credit, head, c.want)
		}
	}
}

func TestRejectedKeyInHeader(t *testing.T) {
	m := testModel(t)
	m.Update(shared.UserMsg{Err: &api.Error{Kind: api.ErrInvalidKey, Status: 404}})
	out := screenText(m)
	if !strings.Contains(strings.Split(out, "\n")[0], "API key rejected") {
		t.Fatalf("header does not say the key was rejected:\n%s", out)
	}
}

func TestScreenSwitching(t *testing.T) {
	m := testModel(t)
	for _, c := range []struct {
		key  string
		want screenID
	}{{"2", screenCharges}, {"3", screenPrefs}, {"tab", screenOverview}, {"shift+tab", screenPrefs}, {"1", screenOverview}} {
		m.Update(press(c.key))
		if m.active != c.want {
			t.Fatalf("after %s active = %d, want %d", c.key, m.active, c.want)
		}
	}
	// o (order) belongs to the charges screen: on the overview it must
	// not reach it.
	before := m.charges.Query()
	m.Update(press("o"))
	if m.charges.Query().OldestFirst != before.OldestFirst {
		t.Fatal("a key reached a screen that is not active")
	}
	if !strings.Contains(screenText(m), "[1 Overview]") {
		t.Fatalf("active tab not marked:\n%s", screenText(m))
	}
}

func TestQuitUnlessTyping(t *testing.T) {
	m := testModel(t)
	if _, cmd := m.Update(press("q")); !isQuit(cmd) {
		t.Fatal("q does not quit")
	}
	m.Update(press("2"))
	m.Update(press("c")) // the custom range field takes the keyboard
	if !m.charges.Capturing() {
		t.Fatal("c did not open the range field")
	}
	if _, cmd := m.Update(press("q")); isQuit(cmd) {
		t.Fatal("q quit while a text field had focus")
	}
	if _, cmd := m.Update(press("1")); m.active != screenCharges || isQuit(cmd) {
		t.Fatal("digits switched screens while typing")
	}
	if _, cmd := m.Update(press("ctrl+c")); !isQuit(cmd) {
		t.Fatal("ctrl+c must always quit")
	}
}

func TestRateLimitNote(t *testing.T) {
	m := testModel(t)
	m.Update(waitMsg{Kind: api.EventRateLimited, Wait: time.Hour})
	if !strings.Contains(screenText(m), "waiting for the rate limit") {
		t.Fatalf("no rate-limit note:\n%s", screenText(m))
	}
	m.Update(waitDoneMsg{until: m.waitUntil})
	if strings.Contains(screenText(m), "waiting for the rate limit") {
		t.Fatal("rate-limit note stays after the wait")
	}
}

// One status line: a screen's message shows there; an empty message of
// another source does not hide it; its own empty message or its TTL does.
func TestOneStatusLine(t *testing.T) {
	m := testModel(t)
	m.Update(shared.StatusMsg{Source: "charges", Kind: shared.StatusError, Text: "page 2 failed · r to retry"})
	if !strings.Contains(screenText(m), "page 2 failed") {
		t.Fatalf("status not shown:\n%s", screenText(m))
	}
	m.Update(shared.StatusMsg{Source: "prefs"})
	if !strings.Contains(screenText(m), "page 2 failed") {
		t.Fatal("another screen's clear hid the error")
	}
	m.Update(shared.StatusMsg{Source: "charges"})
	if strings.Contains(screenText(m), "page 2 failed") {
		t.Fatal("the screen's own clear left the line")
	}
	_, cmd := m.Update(shared.StatusMsg{Source: "prefs", Kind: shared.StatusOK, Text: "saved", TTL: time.Millisecond})
	if cmd == nil {
		t.Fatal("a status with a TTL schedules no expiry")
	}
	m.Update(statusExpiredMsg{seq: m.statusSeq})
	if strings.Contains(screenText(m), "saved") {
		t.Fatal("the status outlived its TTL")
	}
}

func TestFitsEverySize(t *testing.T) {
	m := testModel(t)
	m.Update(shared.UserMsg{User: api.User{Email: "someone.with.a.long.address@example.com", Credit: 99999999}})
	for _, id := range []string{"1", "2", "3"} {
		m.Update(press(id))
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
				t.Fatalf("screen %s %v: %d lines", id, sz, len(lines))
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w != sz[0] {
					t.Fatalf("screen %s %v: line %q is %d wide", id, sz, ansi.Strip(l), w)
				}
			}
		}
		m.Update(tea.WindowSizeMsg{Width: 20, Height: 5})
		if !strings.Contains(screenText(m), "$100,000.00") {
			t.Fatalf("at 20×5 the credit must stay visible:\n%s", screenText(m))
		}
	}
}

func TestRevealSwitchesToCharges(t *testing.T) {
	m := testModel(t)
	m.Update(shared.RevealMsg{Source: "instance-42"})
	if m.active != screenCharges {
		t.Fatalf("active screen %d, want the charges screen", m.active)
	}
	if !strings.Contains(screenText(m), "[2 Charges]") {
		t.Fatalf("the charges tab is not shown:\n%s", screenText(m))
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
		m := testModel(t)
		rw := spend.Runway{Tenths: c.tenths}
		if !c.known {
			rw.Reason = "charges still loading"
		}
		m.Update(shared.RunwayMsg{Runway: rw, OK: c.known})
		m.Update(shared.UserMsg{User: api.User{Credit: c.credit, BalanceThreshold: &th}})
		head := strings.TrimRight(strings.Split(screenText(m), "\n")[0], " ")
		if !strings.HasSuffix(head, c.want) {
			t.Errorf("credit %s, runway %d tenths (known %v): header %q, want it to end with %q",
				c.credit, c.tenths, c.known, head, c.want)
		}
	}
}

// The range reaches the overview as a message the charges screen sends,
// not by the root polling either screen.
func TestOverviewFollowsTheChargesRange(t *testing.T) {
	m := testModel(t)
	m.Update(press("2"))
	_, cmd := m.Update(press("d"))
	rng, ok := findMsg[shared.RangeMsg](cmd)
	if !ok {
		t.Fatal("changing the range sent no RangeMsg")
	}
	if !rng.Range.From.Equal(m.charges.Range().From) {
		t.Fatalf("RangeMsg %v, charges shows %v", rng.Range, m.charges.Range())
	}
	m.Update(rng)
	if v := ansi.Strip(m.overview.View()); !strings.Contains(v, "Spend "+rng.Range.String()) {
		t.Fatalf("the overview does not show the range %v after the RangeMsg:\n%s", rng.Range, v)
	}
}

// findMsg runs cmd (and the commands of its batches, skipping any that
// does not answer at once, such as a spinner tick or a feed listener) and
// returns the first message of type T.
func findMsg[T any](cmd tea.Cmd) (T, bool) {
	var zero T
	if cmd == nil {
		return zero, false
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-ch:
	case <-time.After(200 * time.Millisecond):
		return zero, false
	}
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			if v, ok := findMsg[T](c); ok {
				return v, true
			}
		}
		return zero, false
	}
	v, ok := msg.(T)
	return v, ok
}

// The spinner runs only while something loads: once nothing does, a tick
// schedules no further tick, so an idle dashboard wakes for nothing.
func TestNoTickWhenIdle(t *testing.T) {
	m := testModel(t)
	if !m.loading() {
		t.Fatal("the account is loading at start")
	}
	if cmd := m.spinCmd(); cmd == nil && !m.spinning {
		t.Fatal("no spinner while loading")
	}
	m.userLoading = false // the account arrived; Init was not run, so no feed loads
	if m.loading() {
		t.Fatal("something loads with no feed asked for")
	}
	if _, cmd := m.Update(spinner.TickMsg{}); cmd != nil {
		t.Fatal("a spinner tick with nothing loading scheduled another tick")
	}
	if m.spinning {
		t.Fatal("the spinner still counts as running")
	}
	if _, cmd := m.Update(press("j")); cmd != nil {
		if _, ok := findMsg[spinner.TickMsg](cmd); ok {
			t.Fatal("a key started the spinner with nothing loading")
		}
	}
}
