package ui

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/shared"
)

// liveModel is testModel with refresh and bell as given and a clock the
// test moves.
func liveModel(t *testing.T, refresh time.Duration, noBell bool) (*Model, *time.Time) {
	t.Helper()
	clock := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	m := buildModelAt(t, nil, 100, func() billing.Source[api.Charge] { return onePage() }, func() time.Time { return clock })
	m.opts.Refresh, m.opts.NoBell = refresh, noBell
	return m, &clock
}

// lowUser is an account with credit and a $50 alert.
func lowUser(credit money.Amount) shared.UserMsg {
	th, on := money.Amount(50_000), true
	return shared.UserMsg{User: api.User{ID: 1, Email: "a@example.com", Credit: credit, BalanceThreshold: &th, BalanceThresholdEnabled: &on}}
}

// oneDollar is a reading of $1/h.
func oneDollar(asOf time.Time) shared.RateMsg {
	return shared.RateMsg{Rate: billing.CurrentRate{PerHour: 1_000_000, Running: 1, AsOf: asOf}}
}

// round is one round of readings: the refresh firing (or Init), then the
// credit, the rate and the audit (an empty one) landing. It returns every
// command the round made.
func round(m *Model, u shared.UserMsg, r shared.RateMsg) []tea.Cmd {
	m.userLoading, m.live.rateLoading, m.live.auditLoading = true, true, true
	_, c1 := m.Update(u)
	_, c2 := m.Update(r)
	_, c3 := m.Update(shared.AuditMsg{Audit: leaks.Audit{AsOf: r.Rate.AsOf}})
	return []tea.Cmd{c1, c2, c3}
}

// settle runs cmds and what their messages lead to, feeding each message
// back, until nothing answers: the screens' own reads (the prefs document
// after the account) land. Spinner ticks and the refresh timer are not fed
// back. Call it inside a synctest bubble only: there its 300 ms is the
// bubble's clock, which moves only once every goroutine of the test is
// blocked, so a command is given up exactly when it waits for something
// that will not come by itself, however loaded the machine.
func settle(m *Model, cmds ...tea.Cmd) {
	queue := cmds
	for steps := 0; len(queue) > 0 && steps < 100; steps++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		ch := make(chan tea.Msg, 1)
		go func() { ch <- c() }()
		select {
		case msg := <-ch:
			switch msg := msg.(type) {
			case tea.BatchMsg:
				queue = append(queue, msg...)
			case nil, spinner.TickMsg, refreshMsg:
			default:
				_, next := m.Update(msg)
				queue = append(queue, next)
			}
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// rings counts the BELs in cmds (findMsg: inside a synctest bubble).
func rings(cmds []tea.Cmd) int {
	n := 0
	for _, c := range cmds {
		if raw, ok := findMsg[tea.RawMsg](c); ok && raw.Msg == bel {
			n++
		}
	}
	return n
}

// With refresh on, one timer waits once both readings are in, and no
// second one is ever started beside it; when it fires an interval later,
// both are read again. With refresh 0 there is no timer at all.
func TestRefreshTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, clock := liveModel(t, time.Minute, false)
		round(m, lowUser(100_000), oneDollar(*clock))
		if !m.live.timer {
			t.Fatal("no refresh timer after the readings")
		}
		if cmd := m.refreshTimer(); cmd != nil {
			t.Fatal("a second timer beside the first")
		}
		// An r meanwhile read everything: the timer, firing early for that
		// reading, waits out the rest instead of reading again at once.
		*clock = clock.Add(20 * time.Second)
		m.Update(lowUser(100_000))
		*clock = clock.Add(50 * time.Second)
		m.Update(refreshMsg{})
		if m.userLoading || m.live.rateLoading || !m.live.timer {
			t.Fatal("the refresh read again sooner than an interval after the last reading")
		}
		*clock = clock.Add(time.Minute)
		m.Update(refreshMsg{})
		if !m.userLoading || !m.live.rateLoading || m.live.timer {
			t.Fatalf("the refresh did not read the credit and the rate (user %v rate %v timer %v)", m.userLoading, m.live.rateLoading, m.live.timer)
		}

		off, clock := liveModel(t, 0, false)
		cmds := round(off, lowUser(100_000), oneDollar(*clock))
		if off.live.timer {
			t.Fatal("refresh 0 started a timer")
		}
		for _, c := range cmds {
			if _, ok := findMsg[refreshMsg](c); ok {
				t.Fatal("refresh 0 scheduled a refresh")
			}
		}
	})
}

// The idle budget holds with refresh on: once the readings are in, the
// spinner stops and the only wake left is the one refresh timer.
func TestNoTickWhenIdleWithRefresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, clock := liveModel(t, time.Minute, false)
		settle(m, round(m, lowUser(100_000), oneDollar(*clock))...)
		if m.loading() {
			t.Fatal("something loads after the readings")
		}
		if _, cmd := m.Update(spinner.TickMsg{}); cmd != nil {
			t.Fatal("a spinner tick with nothing loading scheduled something")
		}
		if !m.live.timer {
			t.Fatal("no refresh timer")
		}
		// A second refresh round ends idle the same way.
		*clock = clock.Add(time.Minute)
		_, cmd := m.Update(refreshMsg{})
		if !m.userLoading || !m.live.rateLoading || !m.live.auditLoading {
			t.Fatal("the refresh reads nothing")
		}
		// Its readings do not turn the spinner: the refresh wakes the program
		// once, when they land, and no more.
		if m.loading() || m.spinning {
			t.Fatal("a refresh's readings count as loading")
		}
		if _, ok := findMsg[spinner.TickMsg](cmd); ok {
			t.Fatal("a refresh started the spinner")
		}
		_, c1 := m.Update(lowUser(100_000))
		_, c2 := m.Update(oneDollar(*clock))
		_, c3 := m.Update(shared.AuditMsg{Audit: leaks.Audit{AsOf: *clock}})
		settle(m, c1, c2, c3)
		if m.loading() || !m.live.timer {
			t.Fatal("not idle after the second round")
		}
		if _, cmd := m.Update(spinner.TickMsg{}); cmd != nil {
			t.Fatal("the spinner kept ticking after the refresh")
		}
	})
}

// The credit crossing below the alert rings once and says so on the
// status line; later rounds still below do not ring again; the runway at
// the current rate dropping under a day rings once more. bell = false
// keeps the line and drops the ring.
func TestBellRingsOncePerCrossing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, clock := liveModel(t, time.Minute, false)
		if n := rings(round(m, lowUser(100_000), oneDollar(*clock))); n != 0 {
			t.Fatalf("%d rings at start", n)
		}
		if n := rings(round(m, lowUser(45_000), oneDollar(*clock))); n != 1 {
			t.Fatalf("%d rings crossing the alert, want 1", n)
		}
		if s := statusLine(m); !strings.Contains(s, "credit $45.00 fell below your $50.00 low-balance alert") {
			t.Errorf("status %q", s)
		}
		for _, c := range []money.Amount{44_000, 43_000} {
			if n := rings(round(m, lowUser(c), oneDollar(*clock))); n != 0 {
				t.Fatalf("%d rings while still below", n)
			}
		}
		// A failed refresh in between is not a crossing either.
		m.userLoading, m.live.rateLoading = true, true
		m.Update(shared.UserMsg{Err: &api.Error{Kind: api.ErrServer, Status: 502}})
		if _, cmd := m.Update(shared.RateMsg{Err: &api.Error{Kind: api.ErrServer, Status: 502}}); rings([]tea.Cmd{cmd}) != 0 {
			t.Fatal("a failed refresh rang")
		}
		if n := rings(round(m, lowUser(20_000), oneDollar(*clock))); n != 1 {
			t.Fatalf("%d rings when the runway at $1/h fell under a day, want 1", n)
		}
		if s := m.status.Text; !strings.Contains(s, "lasts under a day") {
			t.Errorf("status %q", s)
		}

		quiet, clock := liveModel(t, time.Minute, true)
		round(quiet, lowUser(100_000), oneDollar(*clock))
		if n := rings(round(quiet, lowUser(45_000), oneDollar(*clock))); n != 0 {
			t.Fatal("bell = false rang")
		}
		if s := statusLine(quiet); !strings.Contains(s, "fell below your $50.00") {
			t.Errorf("bell = false lost the status line: %q", s)
		}
	})
}

// The header says how old the credit is, in words that stay true until
// the next wake.
func TestHeaderAge(t *testing.T) {
	m, clock := liveModel(t, time.Minute, false)
	round(m, lowUser(100_000), oneDollar(*clock))
	if h := strings.SplitN(screenText(m), "\n", 2)[0]; !strings.Contains(h, "updated <1 min ago · credit $100.00") {
		t.Errorf("header %q", h)
	}
	*clock = clock.Add(3*time.Minute + 20*time.Second) // the refreshes failed
	if h := strings.SplitN(screenText(m), "\n", 2)[0]; !strings.Contains(h, "updated 3 min ago") {
		t.Errorf("header %q", h)
	}
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 12})
	if h := strings.SplitN(screenText(m), "\n", 2)[0]; strings.Contains(h, "updated") || !strings.Contains(h, "credit $100.00") {
		t.Errorf("40 columns: the age goes before the credit: %q", h)
	}
}

func TestAgeText(t *testing.T) {
	at := time.Date(2026, 11, 21, 15, 4, 0, 0, time.UTC)
	for _, c := range []struct {
		age, interval time.Duration
		want          string
	}{
		{0, time.Minute, "<1 min ago"},
		{59 * time.Second, time.Minute, "<1 min ago"},
		{30 * time.Second, 90 * time.Second, "<2 min ago"},
		{5 * time.Second, 10 * time.Second, "<10 s ago"},
		{15 * time.Second, 10 * time.Second, "15 s ago"},
		{90 * time.Second, time.Minute, "1 min ago"},
		{2*time.Hour + 5*time.Minute, time.Minute, "2 h ago"},
		{time.Hour, 0, "at 15:04"},
	} {
		if got := ageText(c.age, c.interval, at); got != c.want {
			t.Errorf("ageText(%v, %v) = %q, want %q", c.age, c.interval, got, c.want)
		}
	}
}

// The whole frame at 80×24 with the billing-now panel: the header's age,
// the panel under the runway, a running instance listed.
func TestGoldenBillingNow80x24(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, clock := liveModel(t, time.Minute, false)
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		rate := billing.CurrentRate{AsOf: *clock, PerHour: 2_013_666, Storage: 52_500, Running: 2, Stored: 2, Read: 5,
			Billing: []api.Instance{
				{ID: 1041012, Status: "running", NumGPUs: 1, GPUName: "A100 SXM4", DPHTotal: 1_171_000, Label: "train"},
				{ID: 1041585, Status: "running", NumGPUs: 2, GPUName: "RTX 4090", DPHTotal: 842_666},
				{ID: 1038000, Status: "stopped", StorageTotalCost: 40_000, Label: "datasets"},
				{ID: 1039000, Status: "exited", StorageTotalCost: 12_500},
			}}
		settle(m, append(round(m, lowUser(100_000), shared.RateMsg{Rate: rate}), m.overview.Init())...)
		golden.Check(t, "billing-now-80x24.golden", screenText(m))
	})
}

// A rejected key stops the refresh, and a key without instance_read is not
// asked for the instances again on every refresh (r still asks).
func TestRefreshStopsForARejectedKey(t *testing.T) {
	m, clock := liveModel(t, time.Minute, false)
	m.userLoading, m.live.rateLoading = true, true
	m.Update(shared.UserMsg{Err: &api.Error{Kind: api.ErrInvalidKey, Status: 401}})
	m.Update(oneDollar(*clock))
	if m.live.timer {
		t.Fatal("a refresh timer for a rejected key")
	}

	m, clock = liveModel(t, time.Minute, false)
	round(m, lowUser(100_000), shared.RateMsg{Rate: billing.CurrentRate{NeedsPermission: billing.NeedsInstanceRead}})
	*clock = clock.Add(time.Minute)
	m.Update(refreshMsg{})
	if !m.userLoading || m.live.rateLoading {
		t.Fatalf("refresh without instance_read: user %v rate %v", m.userLoading, m.live.rateLoading)
	}
	m.Update(lowUser(100_000))
	m.Update(press("r"))
	if !m.live.rateLoading {
		t.Fatal("r did not ask for the rate again")
	}
}

// A screen's alarm (the month's budget crossed) is said on the status line
// and rings once when it asks to, unless bell = false.
func TestAlarmMsgRings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			ring, noBell bool
			want         int
		}{{true, false, 1}, {false, false, 0}, {true, true, 0}} {
			m, _ := liveModel(t, 0, c.noBell)
			_, cmd := m.Update(shared.AlarmMsg{Source: "budget", Text: "budget: November heads to $4,141.172", Ring: c.ring})
			if n := rings([]tea.Cmd{cmd}); n != c.want {
				t.Errorf("ring %v, bell off %v: %d rings, want %d", c.ring, c.noBell, n, c.want)
			}
			if s := statusLine(m); !strings.Contains(s, "budget: November heads to $4,141.172") {
				t.Errorf("status %q", s)
			}
		}
	})
}

// An answer's reload asked while a reading of the audit is in flight (the
// refresh's, begun before the answer landed) is owed, not dropped: the
// reading that lands is followed by another, so the screen does not keep
// showing the increase pending. Once paid, nothing more is read.
func TestAuditReloadOwedWhileReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, clock := liveModel(t, time.Minute, false)
		m.live.auditLoading = true // the refresh's reading, begun before the PUT landed
		m.Update(shared.AuditReloadMsg{})
		_, cmd := m.Update(shared.AuditMsg{Audit: leaks.Audit{AsOf: *clock}})
		if !m.live.auditLoading {
			t.Fatal("the reload asked during a reading was dropped")
		}
		if _, ok := findMsg[shared.AuditMsg](cmd); !ok {
			t.Fatal("no reading of the audit after the stale one landed")
		}
		m.Update(shared.AuditMsg{Audit: leaks.Audit{AsOf: *clock}})
		if m.live.auditLoading {
			t.Fatal("read again with no reload owed")
		}
	})
}
