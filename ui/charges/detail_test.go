package charges

import (
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// detailEntries: a running contract with a long description and an emoji
// label, then finished ones.
func detailEntries() []api.Charge {
	es := contracts(1, 30)
	es[0].Description = "2x RTX 4090 on machine 31337 in Quebec, CA, with 64 GB of RAM, 2 TB of NVMe and a 10 Gbps uplink"
	es[0].Meta.Label = "👩‍🔬 lab notebook"
	es[0].Meta.TemplateID = 4242
	es[0].End = testNow.Unix() // the report's time: still running
	return es
}

// TestDetailPane: i opens the pane of the row under the cursor, with the
// year in its dates, running or ended, ids and items; esc closes it; an
// item's pane names its contract's source.
func TestDetailPane(t *testing.T) {
	hs := newHarness(t, 80, 24, servePages(detailEntries(), 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.press("i"))
	v := hs.view()
	for _, want := range []string{"details: instance-1", "source       instance-1", "template     4242",
		" Nov 2026 ", "(still running)", "state        running", "items (4)", "50 GB storage", "uplink"} {
		if !strings.Contains(v, want) {
			t.Errorf("pane lacks %q:\n%s", want, v)
		}
	}
	assertFits(t, v, 80, 24)
	hs.settle(hs.press("esc"))
	if hs.m.mode != modeTree || strings.Contains(hs.view(), "details:") {
		t.Fatalf("esc must close the pane:\n%s", hs.view())
	}
	hs.settle(hs.press("j", "enter", "j", "i")) // the gpu item of instance-2
	v = hs.view()
	if !strings.Contains(v, "source       instance-2 (its contract)") || !strings.Contains(v, "type         gpu") ||
		strings.Contains(v, "state") {
		t.Fatalf("item pane:\n%s", v)
	}
	hs.settle(hs.press("esc", "k", "i"))
	if v := hs.view(); !strings.Contains(v, "state        ended") {
		t.Fatalf("a finished contract must say ended:\n%s", v)
	}
}

// TestRunning: an end at or after a minute before now (or none) is running.
func TestRunning(t *testing.T) {
	now := testNow
	start := now.Add(-time.Hour).Unix()
	for _, c := range []struct {
		end  int64
		want bool
	}{
		{0, true}, {now.Unix(), true}, {now.Add(-59 * time.Second).Unix(), true},
		{now.Add(-61 * time.Second).Unix(), false}, {now.Add(time.Hour).Unix(), true},
	} {
		if got := running(&api.Charge{Start: start, End: c.end}, now); got != c.want {
			t.Errorf("end %d: running %v, want %v", c.end-now.Unix(), got, c.want)
		}
	}
}

func TestGoldenDetail80x24(t *testing.T) {
	hs := newHarness(t, 80, 24, servePages(detailEntries(), 100))
	hs.m.ctx.Styles = theme.New(true)
	hs.settle(hs.m.Init())
	hs.settle(hs.press("i"))
	checkGolden(t, hs.m, "detail_80x24.golden")
}

func TestGoldenDetail120x40(t *testing.T) {
	es := append([]api.Charge{serverlessEndpoint(7, 2, 2)}, detailEntries()...)
	hs := newHarness(t, 120, 40, servePages(es, 100))
	hs.m.ctx.Styles = theme.New(true)
	hs.settle(hs.m.Init())
	hs.settle(hs.press("f"))
	hs.settle(hs.press("enter", "j", "enter", "j", "i")) // a worker contract
	checkGolden(t, hs.m, "detail_120x40.golden")
}

// TestCopySource: y sends the row's source to the clipboard (an item sends
// its contract's) and says so.
func TestCopySource(t *testing.T) {
	hs := newHarness(t, 80, 24, servePages(detailEntries(), 100))
	hs.settle(hs.m.Init())
	var status string
	copied := func(cmd tea.Cmd) string {
		t.Helper()
		clip := ""
		for _, msg := range flatten(cmd) {
			// tea.SetClipboard's message type is unexported: compare
			// with what it sends.
			if v := reflect.ValueOf(msg); v.Type() == reflect.TypeOf(tea.SetClipboard("")()) {
				clip = v.String()
			}
			if s, ok := msg.(shared.StatusMsg); ok {
				status = s.Text
			}
		}
		return clip
	}
	if got := copied(hs.m.Update(keyMsg("y"))); got != "instance-1" {
		t.Fatalf("copied %q", got)
	}
	hs.settle(hs.press("enter", "j"))
	if got := copied(hs.m.Update(keyMsg("y"))); got != "instance-1" {
		t.Fatalf("item copied %q, want its contract's source", got)
	}
	if status != "copied instance-1 to the clipboard" {
		t.Fatalf("status %q", status)
	}
}

// flatten runs cmd and the batches it returns, collecting their messages
// (only for commands that return at once).
func flatten(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, flatten(c)...)
		}
		return out
	case nil:
		return nil
	default:
		return []tea.Msg{msg}
	}
}

// TestRowsMarkRunningAndOtherYears: a running contract says running in
// place of its end; a date of another year shows the year in place of the
// time, in the one short form every screen writes (day, month, time).
func TestRowsMarkRunningAndOtherYears(t *testing.T) {
	es := detailEntries()
	es[2].Start = time.Date(2025, 12, 30, 14, 0, 0, 0, time.UTC).Unix()
	hs := newHarness(t, 120, 24, servePages(es, 100))
	hs.settle(hs.m.Init())
	lines := hs.lines()
	if !strings.Contains(lines[2], "13 Nov 00:00 → running") {
		t.Errorf("running row %q", lines[2])
	}
	if !strings.Contains(lines[3], "12 Nov 22:02") || strings.Contains(lines[3], "running") {
		t.Errorf("ended row %q", lines[3])
	}
	if !strings.Contains(lines[4], " 30 Dec 2025 → 12 Nov 16:03") {
		t.Errorf("last year's row %q", lines[4])
	}
}
