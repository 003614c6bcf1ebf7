package ui

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// testModel builds the real root and screens over a billing service whose
// feeds page through fake pages (one page of three contracts), so nothing
// touches a network.
func testModel(t *testing.T) *Model { return buildModel(t, nil, 100) }

// buildModel is testModel with client under the billing layer (nil: none)
// and the window width.
func buildModel(t *testing.T, client *api.Client, width int) *Model {
	return buildModelPaging(t, client, width, func() billing.Source[api.Charge] { return onePage() })
}

// buildModelPaging is buildModel whose feeds page through what pages
// makes, one source a load.
func buildModelPaging(t *testing.T, client *api.Client, width int, pages func() billing.Source[api.Charge]) *Model {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	return buildModelAt(t, client, width, pages, func() time.Time { return now })
}

// buildModelAt is buildModelPaging on clock: the billing service's, which
// every screen and the root read.
func buildModelAt(t *testing.T, client *api.Client, width int, pages func() billing.Source[api.Charge], clock func() time.Time) *Model {
	t.Helper()
	svc := billing.New(context.Background(), client,
		billing.WithPages(func(api.ChargesQuery) billing.Source[api.Charge] { return pages() }),
		billing.WithClock(clock), billing.WithLocation(time.UTC))
	t.Cleanup(svc.Close)
	// Listeners and timers end with the test (in a synctest bubble, the
	// test waits for them).
	base, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ctx := screentest.Context(base, svc, screentest.Styles(theme.New(true)))
	m := New(ctx, Options{Dark: true, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: width, Height: 30})
	return m
}

// onePage is a page source with one page of three contracts.
func onePage() *billingtest.Pager[api.Charge] {
	end := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC).Unix()
	return billingtest.Paged([]api.Charge{
		{Type: "instance", Source: "instance-42", Start: end - 7200, End: end, Amount: 3 * money.Dollar},
		{Type: "instance", Source: "instance-43", Start: end - 3600, End: end, Amount: money.Dollar},
		{Type: "volume", Source: "volume-7", Start: end - 86400, End: end, Amount: 2 * money.Dollar},
	}, 3)
}

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
		{api.User{Credit: 12000, BalanceThreshold: &th}, "$12.00 low · under your $50.00 alert"},
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

// TestRejectedKeySaidOnce: a refused key is said once on every screen —
// on the status line, with what to do (sign in again, vastdash auth
// status) — and nothing offers a retry, which cannot help; with no status
// line (a short terminal) the header says it.
func TestRejectedKeySaidOnce(t *testing.T) {
	m := testModel(t)
	m.Update(shared.UserMsg{Err: &api.Error{Kind: api.ErrInvalidKey, Status: 404}})
	for _, k := range []string{"1", "2", "3", "4"} {
		m.Update(tea.KeyPressMsg{Code: rune(k[0]), Text: k})
		out := screenText(m)
		if n := strings.Count(out, "rejected"); n != 1 {
			t.Errorf("screen %s says rejected %d times:\n%s", k, n, out)
		}
		if strings.Contains(out, "to reload") {
			t.Errorf("screen %s offers a retry:\n%s", k, out)
		}
		if !strings.Contains(flatten(out), "sign in again with vastdash auth login; vastdash auth status shows the key in use") {
			t.Errorf("screen %s does not say what to do:\n%s", k, out)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 6})
	if out := screenText(m); !strings.Contains(strings.Split(out, "\n")[0], "API key rejected") {
		t.Fatalf("without a status line the header does not say it:\n%s", out)
	}
}

// flatten joins a screen's lines, for words that wrapped.
func flatten(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString(strings.TrimSpace(l))
		b.WriteByte(' ')
	}
	return b.String()
}

func TestScreenSwitching(t *testing.T) {
	m := testModel(t)
	for _, c := range []struct {
		key  string
		want screenID
	}{{"2", screenCharges}, {"3", screenPrefs}, {"tab", screenStatement}, {"tab", screenAudit}, {"tab", screenOverview},
		{"shift+tab", screenAudit}, {"shift+tab", screenStatement}, {"5", screenAudit}, {"4", screenStatement}, {"1", screenOverview}} {
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

// What a key just started is said with a rate-limit wait, not hidden
// behind it: the first e seemed to do nothing for seconds.
func TestRateLimitKeepsWhatStarted(t *testing.T) {
	m := testModel(t)
	m.Update(shared.StatusMsg{Source: "charges", Kind: shared.StatusInfo, Text: "exporting: loading the rest of the range first: page 2…"})
	m.Update(waitMsg{Kind: api.EventRateLimited, Wait: time.Hour})
	if s := screenText(m); !strings.Contains(s, "exporting: loading the rest") || !strings.Contains(s, "waiting for the rate limit") {
		t.Fatalf("the export is not said with the wait:\n%s", s)
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
		{100 * money.Dollar, 29, true, "$100.00 low · 2.9 days left"},
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

// The range the Charges screen's picker chooses is on the Overview in the
// same update: the root reads it after the key and sets it, no message
// between the screens.
func TestOverviewFollowsTheChargesRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := testModel(t)
		m.Update(press("2"))
		m.Update(press("d"))
		r := m.charges.Range()
		if r.Preset != "90d" || m.rng != r {
			t.Fatalf("charges shows %v, the root's range is %v", r, m.rng)
		}
		if v := ansi.Strip(m.overview.View()); !strings.Contains(v, "Spend "+r.String()) {
			t.Fatalf("the overview does not show the range %v:\n%s", r, v)
		}
	})
}

// The range is the root's: it starts as the Charges filters were restored
// (the state file remembers it per account) and is on the Overview from
// Init, with no message between the screens; a range the picker chooses
// is kept by the root and set on the screens that follow it.
func TestTheRootOwnsTheRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
		svc := billing.New(context.Background(), nil,
			billing.WithPages(func(api.ChargesQuery) billing.Source[api.Charge] { return onePage() }),
			billing.WithClock(func() time.Time { return now }), billing.WithLocation(time.UTC))
		defer svc.Close()
		base, cancel := context.WithCancel(context.Background())
		defer cancel()
		ctx := screentest.Context(base, svc, screentest.Styles(theme.New(true)))
		ctx.Remembered.Range = "7d"
		m := New(ctx, Options{Dark: true, Theme: "dark"})
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		m.Init()
		if m.rng.Preset != "7d" || m.charges.Range().Preset != "7d" {
			t.Fatalf("the root's range %v, the Charges' %v, want the remembered 7d", m.rng, m.charges.Range())
		}
		if v := ansi.Strip(m.overview.View()); !strings.Contains(v, "Spend "+m.rng.String()) {
			t.Fatalf("the Overview does not show the remembered range %v from the start:\n%s", m.rng, v)
		}
		m.Update(press("2"))
		m.Update(press("d"))
		m.Update(press("d"))
		m.Update(press("D")) // quick choices: the last one holds
		if m.rng.Preset != "30d" || m.charges.Range().Preset != "30d" {
			t.Fatalf("the root's range %v, the Charges' %v", m.rng, m.charges.Range())
		}
		if v := ansi.Strip(m.overview.View()); !strings.Contains(v, "Spend "+m.rng.String()) {
			t.Fatalf("the Overview does not follow the root's range %v:\n%s", m.rng, v)
		}
	})
}

// A screen hears of a switch, and only of a switch: the Audit reads the
// charges for its reading's so far once shown, not while hidden; a switch
// from the help pane tells the screen too (the Statement starts its year).
func TestScreensHearOfASwitch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := testModel(t)
		m.Update(shared.AuditMsg{Audit: leaks.Audit{AsOf: time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)}})
		if m.audit.Loading() {
			t.Fatal("hidden, the Audit read the charges for its so far")
		}
		m.Update(press("5"))
		if !m.audit.Loading() {
			t.Fatal("shown, the Audit does not read the charges for its so far")
		}
		m.Update(press("?"))
		if m.stmt.Loading() {
			t.Fatal("the Statement loads before it is shown")
		}
		m.Update(press("4"))
		if m.active != screenStatement || !m.helpOpen || !m.stmt.Loading() {
			t.Fatalf("4 from the help: active %d, help %v, the Statement loading %v", m.active, m.helpOpen, m.stmt.Loading())
		}
	})
}

// awaitMsg runs cmd, and every command of its batches at once, until one
// yields a T or within seconds: for what must come (a listener fires when
// its feed changes, later on a loaded machine).
func awaitMsg[T any](cmd tea.Cmd) (T, bool) {
	found := make(chan T, 1)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				go run(c)
			}
		case T:
			select {
			case found <- msg:
			default:
			}
		}
	}
	go run(cmd)
	select {
	case v := <-found:
		return v, true
	case <-time.After(10 * time.Second):
		var zero T
		return zero, false
	}
}

// findMsg runs cmd (and the commands of its batches, skipping any that
// cannot answer without a further event, such as a feed listener or the
// refresh timer) and returns the first message of type T. Call it inside a
// synctest bubble only: there its 200 ms is the bubble's clock, which moves
// only once every goroutine of the test is blocked, so it gives up exactly
// when the command is waiting for something that will not come by itself —
// never earlier because the machine is loaded. A spinner tick (a timer of
// a twelfth of a second) does answer.
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
	synctest.Test(t, func(t *testing.T) {
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
	})
}

// footer is the last line of the frame, the one-line help.
func footer(m *Model) string {
	lines := strings.Split(screenText(m), "\n")
	return strings.TrimRight(lines[len(lines)-1], " ")
}

// The footer starts with "? help" and ends with "q quit" on every screen at
// every width: they were listed last and cut first, even at 200 columns.
func TestFooterKeepsHelpAndQuit(t *testing.T) {
	m := testModel(t)
	for _, id := range []string{"1", "2", "3"} {
		m.Update(press(id))
		for _, w := range []int{80, 100, 200} {
			m.Update(tea.WindowSizeMsg{Width: w, Height: 24})
			f := footer(m)
			if !strings.HasPrefix(f, "? help") || !strings.HasSuffix(f, "q quit") {
				t.Errorf("screen %s at %d columns: footer %q", id, w, f)
			}
			if ansi.StringWidth(f) > w {
				t.Errorf("screen %s at %d columns: footer %q is too wide", id, w, f)
			}
		}
		// At 200 columns there is room for every short key of the
		// Overview and Notifications: nothing cut.
		if f := footer(m); id != "2" && strings.Contains(f, "…") {
			t.Errorf("screen %s at 200 columns cuts keys: %q", id, f)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(press("2"))
	if f := footer(m); !strings.Contains(f, "…") || !strings.Contains(f, "↑/k up") {
		t.Errorf("at 80 columns the charges keys are cut from the middle: %q", f)
	}
}

// While a text field has the keyboard, ? and q are typed into it: the
// footer must not offer them, nor tab.
func TestFooterWhileTyping(t *testing.T) {
	m := testModel(t)
	m.Update(press("2"))
	m.Update(press("c"))
	if !m.charges.Capturing() {
		t.Fatal("c did not open the range field")
	}
	f := footer(m)
	for _, bad := range []string{"? help", "q quit", "tab"} {
		if strings.Contains(f, bad) {
			t.Errorf("footer %q offers %q while typing", f, bad)
		}
	}
	if !strings.Contains(f, "esc") {
		t.Errorf("footer %q does not say how to leave the field", f)
	}
}

// helpText opens the help pane and reads all of it, scrolling with j to the
// end; it returns the text and how many times it scrolled.
func helpText(t *testing.T, m *Model) (string, int) {
	t.Helper()
	m.Update(press("?"))
	if !m.helpOpen {
		t.Fatal("? did not open the help")
	}
	bodyH := m.bodyHeight()
	var seen []string
	scrolls := 0
	for {
		lines := strings.Split(screenText(m), "\n")
		seen = append(seen, lines[m.topHeight():m.topHeight()+bodyH]...)
		if m.helpTop >= m.helpMaxTop() {
			break
		}
		m.Update(press("j"))
		scrolls++
		if scrolls > 200 {
			t.Fatal("the help does not reach its end")
		}
	}
	return strings.Join(seen, "\n"), scrolls
}

// ? shows every key of the active screen and the global ones at 80×24, in
// columns, scrolling with j when it must; esc and ? close it.
func TestHelpShowsEveryKey(t *testing.T) {
	m := testModel(t)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for i, id := range []string{"1", "2", "3"} {
		m.Update(press(id))
		text, _ := helpText(t, m)
		var want []key.Binding
		for _, g := range m.screen(m.active).Help().FullHelp() {
			want = append(want, g...)
		}
		for _, g := range m.keys.FullHelp() {
			want = append(want, g...)
		}
		for _, b := range want {
			if !shown(b) {
				continue
			}
			if !strings.Contains(text, b.Help().Key) || !strings.Contains(text, b.Help().Desc) {
				t.Errorf("screen %s: help lacks %q %q:\n%s", id, b.Help().Key, b.Help().Desc, text)
			}
		}
		closer := []string{"esc", "?", "esc"}[i]
		if closer == "esc" {
			m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
		} else {
			m.Update(press("?"))
		}
		if m.helpOpen || strings.Contains(screenText(m), "Everywhere") {
			t.Fatalf("screen %s: %s did not close the help", id, closer)
		}
	}
}

// The help is laid out in columns: at 120 columns the charges keys fit
// side by side without scrolling, and at 80×24 every line fits the width.
func TestHelpColumns(t *testing.T) {
	m := testModel(t)
	m.Update(press("2"))
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if _, scrolls := helpText(t, m); scrolls != 0 {
		t.Fatalf("at 120×40 the charges help scrolls %d lines", scrolls)
	}
	m.Update(press("?"))
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(press("?"))
	lines := strings.Split(screenText(m), "\n")
	body := lines[m.topHeight() : m.topHeight()+m.bodyHeight()]
	if !strings.Contains(body[0], "Charges keys") {
		t.Fatalf("the help does not start with the screen's keys:\n%s", screenText(m))
	}
	if len(m.helpLines()) > 2*m.bodyHeight() {
		t.Fatalf("the help is %d lines for a %d-line body: not in columns", len(m.helpLines()), m.bodyHeight())
	}
}

// While the help is open it has the keyboard: a screen key does nothing to
// the hidden screen, q still quits, and a screen key switches the help.
func TestHelpTakesTheKeyboard(t *testing.T) {
	m := testModel(t)
	m.Update(press("2"))
	m.Update(press("?"))
	before := m.charges.Query().OldestFirst
	m.Update(press("o"))
	if m.charges.Query().OldestFirst != before {
		t.Fatal("o reached the charges screen under the help")
	}
	m.Update(press("1"))
	if m.active != screenOverview || !m.helpOpen || !strings.Contains(screenText(m), "Overview keys") {
		t.Fatalf("1 in the help did not show the Overview's keys:\n%s", screenText(m))
	}
	if f := footer(m); !strings.HasPrefix(f, "?/esc close help") || !strings.HasSuffix(f, "q quit") {
		t.Fatalf("footer in the help: %q", f)
	}
	if _, cmd := m.Update(press("q")); !isQuit(cmd) {
		t.Fatal("q does not quit from the help")
	}
}

// The help pane scrolls with pgdn, G, k and g, within its content, and says
// how much is below while there is more.
func TestHelpScrollKeys(t *testing.T) {
	m := testModel(t)
	m.Update(press("2"))
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 14})
	m.Update(press("?"))
	maxTop := m.helpMaxTop()
	if maxTop == 0 {
		t.Fatal("at 40×14 the charges help should scroll")
	}
	if !strings.Contains(screenText(m), "more lines") {
		t.Fatalf("no sign of the lines below:\n%s", screenText(m))
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyPgDown})
	if m.helpTop == 0 {
		t.Fatal("pgdn did not scroll")
	}
	m.Update(press("G"))
	if m.helpTop != maxTop || strings.Contains(screenText(m), "more lines") {
		t.Fatalf("G: top %d, want %d", m.helpTop, maxTop)
	}
	m.Update(press("j"))
	if m.helpTop != maxTop {
		t.Fatal("j scrolled past the end")
	}
	m.Update(press("k"))
	if m.helpTop != maxTop-1 {
		t.Fatal("k did not scroll up")
	}
	m.Update(press("g"))
	if m.helpTop != 0 {
		t.Fatal("g did not go to the top")
	}
}

// testModelAt is testModel with a billing layer whose client talks to
// baseURL (never dialled: the tests send the messages the loads would).
func testModelAt(t *testing.T, baseURL string) *Model {
	t.Helper()
	c, err := api.New(baseURL, "test-key")
	if err != nil {
		t.Fatal(err)
	}
	return buildModel(t, c, 120)
}

// statusLine is the line above the footer.
func statusLine(m *Model) string {
	lines := strings.Split(screenText(m), "\n")
	return strings.TrimRight(lines[len(lines)-2], " ")
}

// An unreachable server read "server busy, retrying…" and then a raw Go
// error: the retry note and the error say the server cannot be reached,
// which host, and what to check.
func TestUnreachableServer(t *testing.T) {
	m := testModelAt(t, "http://127.0.0.1:9")
	m.Update(waitMsg{Kind: api.EventRetry, Op: "GET /api/v0/users/current/", Wait: time.Hour, Attempt: 1})
	if s := statusLine(m); strings.Contains(s, "busy") || !strings.Contains(s, "cannot reach 127.0.0.1:9, retrying") {
		t.Fatalf("retry note: %q", s)
	}
	m.Update(waitDoneMsg{until: m.waitUntil})
	m.Update(shared.UserMsg{Err: &api.Error{Kind: api.ErrTransport, Op: "GET /api/v0/users/current/",
		Err: errors.New("dial tcp 127.0.0.1:9: connect: connection refused")}})
	s := statusLine(m)
	for _, want := range []string{"cannot reach 127.0.0.1:9", "check the URL (--url / VAST_URL) and the network", "r to reload"} {
		if !strings.Contains(s, want) {
			t.Errorf("status %q lacks %q", s, want)
		}
	}
	if strings.Contains(s, "dial tcp") {
		t.Errorf("status %q shows the raw error", s)
	}
}

// The header said "credit $1,234.57 low" in amber with nothing saying why:
// it names the reason, and drops it (never the amount) when narrow.
func TestLowCreditSaysWhy(t *testing.T) {
	th := money.Amount(10 * money.Dollar)
	m := testModel(t)
	m.Update(shared.UserMsg{User: api.User{Email: "me@example.com", Credit: 123457 * money.Dollar / 100, BalanceThreshold: &th}})
	m.Update(shared.RunwayMsg{Runway: spend.Runway{Tenths: 21}, OK: true})
	m.userLoading = false // no spinner: the test reads the text
	for _, c := range []struct {
		width int
		want  string
	}{
		{80, "credit $1,234.57 low · 2.1 days left"},
		{40, "credit $1,234.57 low"},
	} {
		m.Update(tea.WindowSizeMsg{Width: c.width, Height: 24})
		head := strings.TrimRight(strings.Split(screenText(m), "\n")[0], " ")
		if !strings.HasSuffix(head, c.want) || !strings.HasPrefix(head, "vastdash") {
			t.Errorf("at %d columns: header %q, want it to end with %q", c.width, head, c.want)
		}
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(shared.RunwayMsg{Runway: spend.Runway{Tenths: 300}, OK: true})
	m.Update(shared.UserMsg{User: api.User{Credit: 5 * money.Dollar, BalanceThreshold: &th}})
	if head := strings.TrimRight(strings.Split(screenText(m), "\n")[0], " "); !strings.HasSuffix(head, "credit $5.00 low · under your $10.00 alert") {
		t.Errorf("under the threshold: header %q", head)
	}
}

// r re-read the credit only on the Overview: on every screen it now reads
// the account again, and the screen still gets the key.
func TestReloadReadsTheCreditEverywhere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, id := range []string{"1", "2", "3"} {
			var loads atomic.Int32
			m := buildModelPaging(t, nil, 100, func() billing.Source[api.Charge] { loads.Add(1); return onePage() })
			m.Update(shared.UserMsg{User: api.User{ID: 7, Email: "me@example.com", Credit: money.Dollar}})
			m.Update(press(id))
			before := loads.Load()
			_, cmd := m.Update(press("r"))
			if !m.userLoading {
				t.Errorf("screen %s: r does not reload the credit", id)
			}
			if _, ok := awaitMsg[shared.UserMsg](cmd); !ok {
				t.Errorf("screen %s: r sent no account request", id)
			}
			// The Charges screen loads its range again: a new page source (r
			// on Notifications makes none). Whether a FeedMsg follows depends
			// on whether the one page was folded while the key was handled.
			if id == "2" && loads.Load() == before {
				t.Error("r on Charges did not reach the screen: no load followed")
			}
			if id == "3" && !m.notifications.Loading() {
				t.Error("r on Notifications did not reach the screen")
			}
			// A second r while the account loads asks once.
			if _, cmd := m.Update(press("r")); cmd != nil {
				if _, ok := findMsg[shared.UserMsg](cmd); ok {
					t.Errorf("screen %s: a second r asked for the account again", id)
				}
			}
		}
	})
}

// A click on a tab switches to it, at the columns tabsView draws it; a
// click in the body reaches the screen with Y counted from its first line.
func TestMouseClickTabs(t *testing.T) {
	m := testModel(t)
	row := strings.Split(screenText(m), "\n")[1]
	for _, c := range []struct {
		name string
		want screenID
	}{{"Charges", screenCharges}, {"Notifications", screenPrefs}, {"Overview", screenOverview}} {
		x := ansi.StringWidth(row[:strings.Index(row, c.name)])
		m.Update(tea.MouseClickMsg{X: x, Y: 1, Button: tea.MouseLeft})
		if m.active != c.want {
			t.Fatalf("a click on %q (column %d) shows screen %d", c.name, x, m.active)
		}
		row = strings.Split(screenText(m), "\n")[1]
	}
	// Between the tabs and past the last one: nothing.
	m.Update(tea.MouseClickMsg{X: 99, Y: 1, Button: tea.MouseLeft})
	if m.active != screenOverview {
		t.Fatal("a click past the tabs switched screens")
	}
	for i := range screenNames {
		left := 0
		for j := range i {
			left += ansi.StringWidth(tabLabel(j)) + 3
		}
		if id, ok := m.tabAt(left + 1); !ok || id != screenID(i) {
			t.Errorf("tabAt(%d) = %d %v, want %d", left+1, id, ok, i)
		}
	}
}

// What reaches a screen: clicks in its area, moved to its coordinates, and
// the wheel wherever it turns; while the help is open the wheel scrolls it.
func TestMouseInTheBody(t *testing.T) {
	m := testModel(t) // 100×30: header and tabs above, status and footer below
	ev, ok := m.bodyMouse(tea.MouseClickMsg{X: 3, Y: 2, Button: tea.MouseLeft})
	if c, is := ev.(tea.MouseClickMsg); !ok || !is || c.Y != 0 || c.X != 3 {
		t.Fatalf("a click on the first body line reaches the screen as %#v %v", ev, ok)
	}
	if ev, ok := m.bodyMouse(tea.MouseReleaseMsg{X: 3, Y: 27}); !ok || ev.(tea.MouseReleaseMsg).Y != 25 {
		t.Fatalf("a release on the last body line: %#v %v", ev, ok)
	}
	for _, y := range []int{0, 1, 28, 29} {
		if _, ok := m.bodyMouse(tea.MouseClickMsg{X: 3, Y: y}); ok {
			t.Errorf("a click on chrome line %d reached the screen", y)
		}
	}
	if _, ok := m.bodyMouse(tea.MouseWheelMsg{Y: 29, Button: tea.MouseWheelDown}); !ok {
		t.Error("the wheel over the footer did not reach the screen")
	}
	m.Update(press("2"))
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 14})
	m.Update(press("?"))
	m.Update(tea.MouseWheelMsg{X: 3, Y: 5, Button: tea.MouseWheelDown})
	if m.helpTop == 0 {
		t.Fatal("the wheel does not scroll the help")
	}
}

// mouse = false in the settings leaves the mouse to the terminal.
func TestNoMouse(t *testing.T) {
	m := testModel(t)
	if v := m.View(); v.MouseMode != tea.MouseModeCellMotion {
		t.Fatalf("mouse mode %v by default", v.MouseMode)
	}
	m.opts.NoMouse = true
	if v := m.View(); v.MouseMode != tea.MouseModeNone {
		t.Fatalf("mouse mode %v with NoMouse", v.MouseMode)
	}
}

// "waiting for the rate limit…" showed through every normal paced load: it
// is for a 429 being waited out only.
func TestPacingIsNoProblem(t *testing.T) {
	m := testModel(t)
	m.Update(waitMsg{Kind: api.EventPacing, Op: "GET /api/v0/charges/", Wait: time.Hour})
	if s := statusLine(m); s != "" {
		t.Fatalf("regular pacing shows %q", s)
	}
	m.Update(waitMsg{Kind: api.EventRateLimited, Op: "GET /api/v0/charges/", Wait: time.Hour, Attempt: 1})
	if s := statusLine(m); !strings.Contains(s, "waiting for the rate limit") {
		t.Fatalf("a 429 wait shows %q", s)
	}
}

// The help pane fits every size exactly, as the screens do.
func TestHelpFitsEverySize(t *testing.T) {
	m := testModel(t)
	m.Update(press("2"))
	m.Update(press("?"))
	for _, sz := range [][2]int{{200, 60}, {120, 40}, {80, 24}, {40, 12}, {20, 5}, {1, 1}, {3, 200}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		m.Update(press("G"))
		lines := strings.Split(m.render(), "\n")
		if len(lines) != sz[1] {
			t.Fatalf("%v: %d lines", sz, len(lines))
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w != sz[0] {
				t.Fatalf("%v: line %q is %d wide", sz, ansi.Strip(l), w)
			}
		}
	}
}

// TestLongStatusWraps: a message longer than the status line wraps at
// words, up to three lines, rather than being cut with nothing to show the
// rest; the screen gets the rest of the height and the frame stays exact.
// Only a message longer than three lines is cut, on the third; a short
// terminal keeps one line.
func TestLongStatusWraps(t *testing.T) {
	m := testModel(t)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	bodyBefore := m.bodyHeight()
	long := "could not save Low credit by email: this API key lacks the user_write permission — make a key with it at cloud.vast.ai"
	m.Update(shared.StatusMsg{Source: "prefs", Kind: shared.StatusError, Text: long})
	out := screenText(m)
	golden.AssertFits(t, m.render(), 80, 24)
	if !strings.Contains(flatten(out), "✗ "+long) {
		t.Fatalf("the message is not whole:\n%s", out)
	}
	if ls := strings.Split(out, "\n"); strings.Contains(strings.Join(ls[21:23], ""), "…") {
		t.Errorf("a message of two lines was cut:\n%s", out)
	}
	if m.bodyHeight() != bodyBefore-1 || strings.Count(m.overview.View(), "\n")+1 != bodyBefore-1 {
		t.Errorf("the screen was not given the rest: body %d, was %d", m.bodyHeight(), bodyBefore)
	}

	huge := strings.Repeat("word ", 60)
	m.Update(shared.StatusMsg{Source: "prefs", Kind: shared.StatusError, Text: huge})
	lines := strings.Split(screenText(m), "\n")
	golden.AssertFits(t, m.render(), 80, 24)
	if m.statusH != statusMax || !strings.HasSuffix(strings.TrimRight(lines[24-2], " "), "…") {
		t.Errorf("a message beyond three lines: %d lines, last %q", m.statusH, lines[24-2])
	}

	m.Update(shared.StatusMsg{Source: "prefs", Text: ""})
	if m.bodyHeight() != bodyBefore {
		t.Errorf("the screen did not get its lines back: %d, want %d", m.bodyHeight(), bodyBefore)
	}
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 8})
	m.Update(shared.StatusMsg{Source: "prefs", Kind: shared.StatusError, Text: long})
	golden.AssertFits(t, m.render(), 40, 8)
	if m.statusH != 1 {
		t.Errorf("at 40×8 the status takes %d lines", m.statusH)
	}
}

// A state file that could not be read is said on the status line in the
// words it came in (file:line: what is wrong) and stays there, above the
// passing words of the screens, until the next key: it vanished in two
// seconds, said by the Charges screen before the user ever saw it.
func TestStateFileErrorStays(t *testing.T) {
	base := testModel(t)
	base.ctx.StateErr = errors.New("/x/state.toml:2: a value is missing or not in quotes")
	m := New(base.ctx, Options{Dark: true, Theme: "dark"})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	const want = "state file ignored: /x/state.toml:2: a value is missing or not in quotes"
	if !strings.Contains(screenText(m), want) {
		t.Fatalf("not said:\n%s", screenText(m))
	}
	m.Update(shared.StatusMsg{Source: "overview", Kind: shared.StatusInfo, Text: "loading charges…", TTL: 2 * time.Second})
	if !strings.Contains(screenText(m), want) {
		t.Fatalf("a passing word hid it:\n%s", screenText(m))
	}
	m.Update(press("j"))
	if strings.Contains(screenText(m), "state file ignored") {
		t.Fatalf("still said after a key:\n%s", screenText(m))
	}
}
