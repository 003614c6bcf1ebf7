package ui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui/accounts"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// rollUpTable is a roll-up as internal/cli hands it: two accounts, a
// second key of the first, and a revoked one.
func rollUpTable(at time.Time) accounts.Table {
	return accounts.Table{AsOf: at, Rows: []accounts.Row{
		{Name: "default", Email: "me@example.com", Credit: "$822.54", Now: "$3.649/h", Runway: "9.3 d", Month: "$617.73", Forecast: "$1,440.01", Budget: "—", Leaks: "$0.219/h"},
		{Name: "lab", Email: "lab@example.com", Credit: "$225.72", Now: "$3.426/h", Runway: "2.7 d", Month: "$168.68", Forecast: "$947.87", Budget: "—", Leaks: "$0.158/h"},
		{Name: "old", Err: "the API key was rejected (invalid or revoked key)"},
		{Name: "scoped", Email: "me@example.com", SameAs: "default", Credit: "$822.54", Now: "$3.649/h", Runway: "9.3 d", Month: "$617.73", Forecast: "$1,440.01", Budget: "—", Leaks: "$0.219/h"},
	}, Total: accounts.Row{Name: "total (2 accounts), without the ✗", Credit: "$1,048.26", Now: "$7.074/h", Runway: "6.1 d", Month: "$786.41", Forecast: "$2,387.88", Budget: "—", Leaks: "$0.378/h"}}
}

// accountsModel is the root with the Accounts screen over read, at 80×24,
// the account record read.
func accountsModel(t *testing.T, read func(context.Context, bool) accounts.Table) *Model {
	t.Helper()
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	svc := billing.New(context.Background(), nil,
		billing.WithPages(func(api.ChargesQuery) billing.Source[api.Charge] { return onePage() }),
		billing.WithClock(func() time.Time { return now }), billing.WithLocation(time.UTC))
	t.Cleanup(svc.Close)
	base, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ctx := screentest.Context(base, svc, screentest.Styles(theme.New(true)))
	m := New(ctx, Options{Dark: true, Theme: "dark", Host: "default @ 127.0.0.1:8080",
		Accounts: &accounts.Options{Current: "default", Read: read}})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(shared.UserMsg{User: api.User{ID: 1, Email: "me@example.com", Credit: 822_540}})
	return m
}

// The roll-up at 80×24: the tab first, a row per account (the open one
// marked, the revoked one saying why, the second key of an account
// naming the first), the total; the columns that do not fit give way.
// The accounts are read once, when the screen is first shown.
func TestAccountsScreen80x24(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var reads atomic.Int32
		m := accountsModel(t, func(_ context.Context, fresh bool) accounts.Table {
			reads.Add(1)
			return rollUpTable(time.Date(2026, 11, 21, 14, 58, 0, 0, time.UTC))
		})
		if reads.Load() != 0 {
			t.Fatal("the accounts were read before the screen was shown")
		}
		if !strings.Contains(strings.Split(screenText(m), "\n")[1], " 0 Acc") {
			t.Fatalf("no Accounts tab:\n%s", screenText(m))
		}
		_, cmd := m.Update(press("0"))
		settle(m, cmd)
		golden.Check(t, "accounts-80x24.golden", screenText(m))
		if n := reads.Load(); n != 1 {
			t.Errorf("%d readings, want 1", n)
		}
		// Another screen and back: the reading is kept.
		_, cmd = m.Update(press("1"))
		settle(m, cmd)
		_, cmd = m.Update(press("0"))
		settle(m, cmd)
		if n := reads.Load(); n != 1 {
			t.Errorf("%d readings after coming back, want 1", n)
		}
	})
}

// enter on an account ends the program naming it (Run's SwitchAccount);
// on the open one it shows the Overview; on one that could not be read it
// says why and stays.
func TestAccountsEnterSwitches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := accountsModel(t, func(context.Context, bool) accounts.Table { return rollUpTable(time.Time{}) })
		_, cmd := m.Update(press("0"))
		settle(m, cmd)
		if !strings.Contains(cursorLine(m), "default ●") {
			t.Fatalf("the cursor does not start on the open account:\n%s", screenText(m))
		}
		// enter on the open account: its figures are already here.
		_, cmd = m.Update(press("enter"))
		settle(m, cmd)
		if m.active != screenOverview || m.SwitchTo() != "" {
			t.Fatalf("enter on the open account: screen %v, switch %q", m.active, m.SwitchTo())
		}
		_, cmd = m.Update(press("0"))
		settle(m, cmd)
		m.Update(press("j"))
		m.Update(press("j"))
		_, cmd = m.Update(press("enter"))
		settle(m, cmd)
		if m.SwitchTo() != "" || !strings.Contains(screenText(m), "not opened: old could not be read") {
			t.Fatalf("enter on the revoked account: switch %q\n%s", m.SwitchTo(), screenText(m))
		}
		m.Update(press("k"))
		_, cmd = m.Update(press("enter"))
		quit := false
		for _, msg := range msgsOf(cmd) {
			if sw, ok := msg.(accounts.SwitchMsg); ok {
				_, next := m.Update(sw)
				for _, msg := range msgsOf(next) {
					_, q := msg.(tea.QuitMsg)
					quit = quit || q
				}
			}
		}
		if !quit || m.SwitchTo() != "lab" {
			t.Fatalf("enter on lab: quit %v, switch %q; want the program to end naming lab", quit, m.SwitchTo())
		}
	})
}

// Without the Accounts option there is no tab 0, and 0 does nothing.
func TestNoAccountsScreenWithOneAccount(t *testing.T) {
	m := testModel(t)
	m.Update(press("0"))
	if m.active != screenOverview || strings.Contains(screenText(m), "Accounts") {
		t.Fatalf("0 without accounts:\n%s", screenText(m))
	}
}

// cursorLine is the Accounts row under the cursor.
func cursorLine(m *Model) string {
	for _, l := range strings.Split(screenText(m), "\n") {
		if strings.HasPrefix(l, "▸ ") {
			return l
		}
	}
	return ""
}

// msgsOf runs cmd and the commands of its batches, and returns their
// messages (inside a synctest bubble: a spinner's tick is the bubble's
// time).
func msgsOf(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var all []tea.Msg
		for _, c := range b {
			all = append(all, msgsOf(c)...)
		}
		return all
	}
	return []tea.Msg{msg}
}
