package overview

import (
	"context"
	"fmt"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

var now = time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC)

func newCtx() *shared.Context {
	return &shared.Context{
		Styles:       theme.New(true),
		Location:     time.UTC,
		Now:          func() time.Time { return now },
		DefaultRange: "30d",
	}
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

// fakePager hands out fixed pages; errs holds an error to return once
// instead of the page of that index. Cmds run synchronously in the tests,
// so it needs no lock.
type fakePager struct {
	pages [][]api.Charge
	total int
	next  int
	errs  map[int]error
	calls int
}

func (p *fakePager) Next(ctx context.Context) (api.ChargesPage, error) {
	p.calls++
	if err := ctx.Err(); err != nil {
		return api.ChargesPage{}, err
	}
	if err, ok := p.errs[p.next]; ok {
		delete(p.errs, p.next)
		return api.ChargesPage{}, err
	}
	if p.next >= len(p.pages) {
		return api.ChargesPage{}, api.ErrPagerDone
	}
	pg := api.ChargesPage{Results: p.pages[p.next], Total: p.total, Count: len(p.pages[p.next])}
	p.next++
	return pg, nil
}

func (p *fakePager) Done() bool { return p.next >= len(p.pages) }

func (p *fakePager) Total() int {
	if p.next == 0 {
		return -1
	}
	return p.total
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
// into Update until nothing is left to run. Ticks (rate-limit retries) are
// recorded instead of waited for.
type driver struct {
	m       *Model
	reveals []shared.RevealMsg
	ticks   []tick
}

type tick struct {
	d   time.Duration
	msg tea.Msg
}

func newDriver(m *Model) *driver {
	d := &driver{m: m}
	m.after = func(wait time.Duration, msg tea.Msg) tea.Cmd {
		d.ticks = append(d.ticks, tick{wait, msg})
		return nil
	}
	return d
}

// run executes cmd and everything it leads to.
func (d *driver) run(t *testing.T, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 100_000 {
			t.Fatal("the commands do not settle")
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
		case shared.RevealMsg:
			d.reveals = append(d.reveals, msg)
		default:
			queue = append(queue, d.m.Update(msg))
		}
	}
}

// step runs the one command cmd (not a batch) and returns its message
// without handing it to the model.
func step(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command to run")
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		t.Fatalf("want one command, got a batch of %d", len(b))
	}
	return msg
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
