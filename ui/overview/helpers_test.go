package overview

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

var now = time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC)

func newCtx() *shared.Context {
	return screentest.Context(context.Background(), nil, screentest.Styles(theme.New(true)))
}

func ptr[T any](v T) *T { return &v }

func testUser() api.User {
	return api.User{
		ID:                      42,
		Email:                   "someone@example.com",
		Credit:                  1234567, // $1,234.567 → $1,234.57
		Balance:                 -12000,
		BalanceThreshold:        ptr(money.Amount(50000)),
		BalanceThresholdEnabled: ptr(true),
	}
}

func preset(t *testing.T, name string) spend.Range {
	t.Helper()
	r, err := spend.PresetRange(name, now, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// gated makes p wait for a token before every page; the channel is
// buffered so a test can hand out tokens without blocking.
func gated(p *billingtest.Pager[api.Charge]) *billingtest.Pager[api.Charge] {
	p.Gate = make(chan struct{}, 64)
	return p
}

// queries records the queries feeds were made for (each new feed, and each
// restart after a refused token, asks for a pager).
type queries struct {
	mu sync.Mutex
	qs []api.ChargesQuery
}

func (q *queries) add(x api.ChargesQuery) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.qs = append(q.qs, x)
}

func (q *queries) n() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.qs)
}

func (q *queries) at(i int) api.ChargesQuery {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.qs[i]
}

// newService is the billing layer over pages, on the test clock, closed
// (every loader stopped) when the test ends. The screen's Follow commands
// end with base, cancelled then too.
func newService(tb testing.TB, ctx *shared.Context, pages func(api.ChargesQuery) billing.Source[api.Charge], opts ...billing.Option) *billing.Service {
	tb.Helper()
	base, cancel := context.WithCancel(context.Background())
	opts = append([]billing.Option{
		billing.WithPages(pages),
		billing.WithClock(func() time.Time { return now }),
		billing.WithLocation(time.UTC),
		billing.WithRateWait(time.Millisecond),
	}, opts...)
	svc := billing.New(base, nil, opts...)
	tb.Cleanup(func() {
		cancel()
		svc.Close()
	})
	ctx.Base, ctx.Billing = base, svc
	return svc
}

// paged splits cs into pages of n.
func paged(cs []api.Charge, n int) [][]api.Charge {
	var out [][]api.Charge
	for len(cs) > n {
		out = append(out, cs[:n])
		cs = cs[n:]
	}
	return append(out, cs)
}

// fixture is a month of contracts ending at now, deterministic: a weekly
// rhythm of instances, volumes and serverless workers, two contracts of
// the same amount (the top list orders them by source), one that began
// before the range and one with a hostile label.
func fixture() []api.Charge {
	var cs []api.Charge
	for i := range 40 {
		end := now.Add(-time.Duration(i) * 17 * time.Hour)
		dur := time.Duration(4+(i%5)*11) * time.Hour
		amt := money.Amount((i%7+1)*23_457 + i)
		c := api.Charge{
			Type: "instance", Source: fmt.Sprintf("instance-%d", 1000+i),
			Start: end.Add(-dur).Unix(), End: end.Unix(), Amount: amt,
		}
		switch i % 3 {
		case 1:
			c.Type, c.Source = "volume", fmt.Sprintf("volume-%d", 2000+i)
			c.Items = []api.Charge{{Type: "disk", Amount: amt}}
		case 2:
			c.Meta.EndpointID, c.Meta.WorkergroupID = 7, 8
			c.Items = []api.Charge{{Type: "gpu", Amount: amt - 1000}, {Type: "bwd", Amount: 1000}}
		default:
			c.Items = []api.Charge{{Type: "gpu", Amount: amt - amt/5}, {Type: "disk", Amount: amt / 5}}
		}
		if i%4 == 0 {
			c.Meta.Label = fmt.Sprintf("job %d", i)
		}
		cs = append(cs, c)
	}
	big := func(src string, start, end time.Time, label string) api.Charge {
		return api.Charge{Type: "instance", Source: src, Start: start.Unix(), End: end.Unix(), Amount: 500_000,
			Meta: api.Metadata{Label: label}, Items: []api.Charge{{Type: "gpu", Amount: 500_000}}}
	}
	cs = append(cs,
		big("instance-3", now.Add(-50*time.Hour), now.Add(-20*time.Hour), "\x1b]0;pwned\x07train\x1b[2J"),
		big("instance-20", now.Add(-45*24*time.Hour), now.Add(-25*24*time.Hour), "began before the range"),
	)
	return cs
}

// driver runs a model's commands synchronously, feeding each message back
// into Update, and records what the screen tells the root: reveals, runway
// estimates and status lines. A Follow command blocks until its feed
// changes, which it does as long as the feed loads; with a gated pager a
// test stops the driver (runUntil) before it would wait for a page the test
// has not let through.
type driver struct {
	m        *Model
	queue    []tea.Cmd
	reveals  []shared.RevealMsg
	runways  []shared.RunwayMsg
	statuses []shared.StatusMsg
	alarms   []shared.AlarmMsg
}

func newDriver(m *Model) *driver { return &driver{m: m} }

// run executes cmd, the commands left over from runUntil, and everything
// they lead to, until nothing is left to run.
func (d *driver) run(tb testing.TB, cmd tea.Cmd) {
	tb.Helper()
	d.drive(tb, cmd, nil)
}

// runUntil is run that stops as soon as done reports true after a message,
// keeping the commands not yet run for the next run or runUntil.
func (d *driver) runUntil(tb testing.TB, cmd tea.Cmd, done func() bool) {
	tb.Helper()
	d.drive(tb, cmd, done)
	if !done() {
		tb.Fatal("the commands settled before the awaited state")
	}
}

func (d *driver) drive(tb testing.TB, cmd tea.Cmd, done func() bool) {
	tb.Helper()
	d.queue = append(d.queue, cmd)
	for steps := 0; len(d.queue) > 0; steps++ {
		if steps > 100_000 {
			tb.Fatal("the commands do not settle")
		}
		c := d.queue[0]
		d.queue = d.queue[1:]
		if c == nil {
			continue
		}
		switch msg := exec(tb, c).(type) {
		case nil:
		case tea.BatchMsg:
			d.queue = append(d.queue, msg...)
		case shared.RevealMsg:
			d.reveals = append(d.reveals, msg)
		case shared.RunwayMsg:
			d.runways = append(d.runways, msg)
		case shared.StatusMsg:
			d.statuses = append(d.statuses, msg)
		case shared.AlarmMsg:
			d.alarms = append(d.alarms, msg)
		default:
			d.queue = append(d.queue, d.m.Update(msg))
			if done != nil && done() {
				return
			}
		}
	}
}

// exec runs one command, failing the test instead of hanging when it
// blocks (a Follow on a feed that will not change: a bug).
func exec(tb testing.TB, c tea.Cmd) tea.Msg {
	tb.Helper()
	ch := make(chan tea.Msg, 1)
	go func() { ch <- c() }()
	select {
	case msg := <-ch:
		return msg
	case <-time.After(10 * time.Second):
		tb.Fatal("a command blocked for 10 s")
		return nil
	}
}

// feedMsg runs cmd (and the commands of any batch it returns) and returns
// the first FeedMsg among their messages, without handing it to the model:
// an answer that will arrive late.
func feedMsg(tb testing.TB, cmd tea.Cmd) shared.FeedMsg {
	tb.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := exec(tb, c).(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case shared.FeedMsg:
			return msg
		}
	}
	tb.Fatal("no feed message")
	return shared.FeedMsg{}
}

// key sends a key press and runs what follows.
func (d *driver) key(t *testing.T, k string) {
	t.Helper()
	var msg tea.KeyPressMsg
	switch k {
	case "enter":
		msg = tea.KeyPressMsg{Code: tea.KeyEnter}
	case "up":
		msg = tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		msg = tea.KeyPressMsg{Code: tea.KeyDown}
	default:
		msg = tea.KeyPressMsg{Code: rune(k[0]), Text: k}
	}
	d.run(t, d.m.Update(msg))
}

// send hands msg to the model and runs what follows.
func (d *driver) send(t *testing.T, msg tea.Msg) {
	t.Helper()
	d.run(t, d.m.Update(msg))
}

// plain is the view without styling, split in lines.
func plain(m *Model) []string { return strings.Split(ansi.Strip(m.View()), "\n") }

func view(m *Model) string { return ansi.Strip(m.View()) }

// lineWith finds the line holding s.
func lineWith(t *testing.T, m *Model, s string) string {
	t.Helper()
	for _, l := range plain(m) {
		if strings.Contains(l, s) {
			return l
		}
	}
	t.Fatalf("no line with %q in\n%s", s, view(m))
	return ""
}

func checkExact(t *testing.T, m *Model, w, h int) {
	t.Helper()
	golden.AssertFits(t, m.View(), w, h)
}

// checkSize sizes m to w×h and checks its view is exactly that, failing
// (not crashing the run) on a panic; name says which state.
func checkSize(t *testing.T, name string, m *Model, w, h int) {
	t.Helper()
	m.SetSize(w, h)
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s %d×%d: panic %v", name, w, h, r)
		}
	}()
	checkExact(t, m, w, h)
}
