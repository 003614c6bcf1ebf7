package charges

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/config"
)

// rememberingHarness is a harness whose screen was built with a state
// store in a temporary folder, having read st (and err) at start.
func rememberingHarness(t *testing.T, st config.State, err error) (*harness, string) {
	hs := newHarness(t, 120, 20, servePages(contracts(1, 30), 100))
	p := filepath.Join(t.TempDir(), "vastdash", "state.toml")
	ctx := hs.m.ctx
	ctx.State, ctx.Remembered, ctx.StateErr = config.NewStateStore(p), st, err
	hs.m = New(ctx)
	hs.m.SetSize(120, 20)
	hs.settle(hs.m.Init())
	return hs, p
}

// TestStateRestored: the filters and sort remembered come back at start,
// and the first request asks for them.
func TestStateRestored(t *testing.T) {
	hs, p := rememberingHarness(t, config.State{Range: "7d", Types: []string{"volume", "instance"}, Format: "tree", Order: "oldest", Sort: "amount"}, nil)
	bar := hs.lines()[0]
	for _, want := range []string{"range 7d", "types instance+volume", "format tree", "sort amount"} {
		if !strings.Contains(bar, want) {
			t.Errorf("filter bar %q lacks %q", bar, want)
		}
	}
	// The remembered sort lands once the range is loaded, quietly: the
	// bar names it, and a "sorted by" nobody asked for this run would
	// show on whatever screen is open.
	if !hs.m.sorted || hs.sentStatus("sorted by") {
		t.Errorf("remembered sort applied %v, statuses %v", hs.m.sorted, hs.statuses)
	}
	q := hs.query(0)
	if q.Format != api.FormatTree || !q.OldestFirst || len(q.Types) != 2 || q.To.Sub(q.From) > 7*24*3600e9 {
		t.Errorf("first query %+v", q)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the state was written back unchanged: %v", err)
	}
	// Sorted, the bar names the sort in the order's place; back in the
	// server's order it names the order remembered.
	hs.settle(hs.press("s", "s"))
	if bar := hs.lines()[0]; !strings.Contains(bar, "oldest first") {
		t.Errorf("filter bar %q lacks the remembered order", bar)
	}
}

// TestStateSavedOnChange: each change of the filters or the sort is
// written, and only a change: the next start reads it back.
func TestStateSavedOnChange(t *testing.T) {
	hs, p := rememberingHarness(t, config.State{}, nil)
	hs.settle(hs.press("j", "k")) // moving changes nothing remembered
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("written without a change: %v", err)
	}
	hs.settle(hs.press("d", "f"))
	hs.press("c", "ctrl+u")
	hs.typeText("2026-11-01..")
	hs.settle(hs.press("enter"))
	hs.settle(hs.press("s"))
	st, err := config.NewStateStore(p).Load()
	want := config.State{Range: "2026-11-01..", Format: "tree", Order: "newest", Sort: "amount"}
	if err != nil || st.Range != want.Range || st.Format != want.Format || st.Order != want.Order || st.Sort != want.Sort || len(st.Types) != 0 {
		t.Fatalf("state %+v (%v), want %+v", st, err, want)
	}
	if info, err := os.Stat(p); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("state file %v %v", info, err)
	}
	// The next run starts where this one left off, the range still open.
	next, _ := rememberingHarness(t, st, nil)
	if r := next.m.Range(); !r.Open || r.From.Format("2006-01-02") != "2026-11-01" {
		t.Fatalf("next run's range %+v", r)
	}
}

// TestStateBadValuesSkipped: a value the screen does not know is skipped
// and named on the status line; the rest of the state still applies.
func TestStateBadValuesSkipped(t *testing.T) {
	hs, _ := rememberingHarness(t, config.State{Range: "1y", Types: []string{"gpu"}, Format: "tree", Sort: "random"}, nil)
	if !strings.Contains(hs.lines()[0], "format tree") || hs.m.Range().Preset != "30d" || hs.m.sort != sortServer {
		t.Fatalf("bar %q, range %q, sort %v", hs.lines()[0], hs.m.Range().Preset, hs.m.sort)
	}
	for _, want := range []string{`range "1y"`, `types ["gpu"]`, `sort "random"`} {
		if !strings.Contains(hs.statusText(), want) {
			t.Errorf("status %q does not name %s", hs.statusText(), want)
		}
	}
}

// TestStateUnreadableSaid: a state file that could not be read leaves the
// screen at the defaults; the root says it (until the next key), not the
// screen's passing notice.
func TestStateUnreadableSaid(t *testing.T) {
	hs, _ := rememberingHarness(t, config.State{}, errors.New("/x/state.toml: is a symbolic link"))
	if s := hs.statusText(); strings.Contains(s, "state file ignored") {
		t.Fatalf("said twice: status %q", s)
	}
	if hs.m.Range().Preset != "30d" || !slices.Equal(hs.query(0).Types, nil) {
		t.Fatalf("not the defaults: %+v", hs.query(0))
	}
}
