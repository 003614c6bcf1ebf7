package alerting

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/notify"
)

// fakeSender keeps what it is given.
type fakeSender struct {
	mu   sync.Mutex
	sent []notify.Message
}

func (f *fakeSender) Send(_ context.Context, _ notify.Target, m notify.Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sent = append(f.sent, m)
	return nil
}

func (f *fakeSender) count(want string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, m := range f.sent {
		if strings.Contains(m.Title+"\n"+m.Body, want) {
			n++
		}
	}
	return n
}

func fakeAlerter(t *testing.T, c *clock, rules config.Alerts) (*Alerter, *fakeSender) {
	tg, err := notify.Parse("ntfy://ntfy.sh/topic")
	if err != nil {
		t.Fatal(err)
	}
	rules.To = []notify.Target{tg}
	fs := &fakeSender{}
	return New(Options{Rules: rules, Path: filepath.Join(t.TempDir(), "a.json"), Location: time.UTC, Sender: fs, Now: c.now}), fs
}

// The credit rule takes the account's threshold when on, fires once, and
// re-arms only a tenth (at least $1) above the line.
func TestCreditRuleUsesTheThresholdWithAMargin(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)}
	a, fs := fakeAlerter(t, c, config.DefaultAlerts())
	on, th := true, money.Amount(50_000)
	at := func(credit money.Amount) {
		c.t = c.t.Add(time.Minute)
		f := &Figures{UserID: 1, Host: "h", AsOf: c.t, User: &api.User{ID: 1, Credit: credit, BalanceThreshold: &th, BalanceThresholdEnabled: &on}}
		if _, err := a.Check(context.Background(), f, false); err != nil {
			t.Fatal(err)
		}
	}
	for _, cr := range []money.Amount{49_000, 48_000, 52_000, 49_000} { // $52 is within the $5 margin
		at(cr)
	}
	if n := fs.count("under the account's low-balance threshold $50.00"); n != 1 {
		t.Fatalf("%d credit alerts, want 1", n)
	}
	at(56_000) // past $55: re-armed
	at(40_000)
	if n := fs.count("credit under $50.00"); n != 2 {
		t.Errorf("%d credit alerts after recovery and fall, want 2", n)
	}
	on = false
	at(60_000)
	at(10_000)
	if n := fs.count("credit under"); n != 2 {
		t.Errorf("the threshold off still alerts: %d", n)
	}
}

// Each share of the budget is told once a month, the highest crossed in
// one message; a new month tells them again. A price increase is told
// once while it waits.
func TestBudgetSharesOnceAMonthAndIncreasesOnce(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)}
	a, fs := fakeAlerter(t, c, config.DefaultAlerts())
	at := func(spend money.Amount, incr ...leaks.PriceChange) {
		c.t = c.t.Add(time.Hour)
		f := &Figures{UserID: 1, Host: "h", AsOf: c.t, User: &api.User{ID: 1, Credit: 1_000_000},
			Month:  &billing.MonthSpend{Start: time.Date(c.t.Year(), c.t.Month(), 1, 0, 0, 0, 0, time.UTC), Spend: spend},
			Budget: 100_000, Audit: &leaks.Audit{Increases: incr}}
		if _, err := a.Check(context.Background(), f, false); err != nil {
			t.Fatal(err)
		}
	}
	inc := leaks.PriceChange{ID: 5, InstanceID: 77}
	at(70_000, inc)
	at(85_000, inc)
	at(86_000, inc)
	at(120_000)
	at(130_000)
	if n := fs.count("passed 80.0 % of the budget"); n != 1 {
		t.Errorf("80 %%: %d alerts, want 1", n)
	}
	if n := fs.count("passed 100.0 % of the budget"); n != 1 {
		t.Errorf("100 %%: %d alerts, want 1", n)
	}
	if n := fs.count("instance 77"); n != 1 {
		t.Errorf("the price increase told %d times, want once", n)
	}
	c.t = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	at(120_000)
	if n := fs.count("December passed 100.0 % of the budget"); n != 1 {
		t.Errorf("a new month's crossing: %d alerts, want 1", n)
	}
}
