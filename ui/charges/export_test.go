package charges

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/ui/shared"
)

// TestExportWritesWhatIsShown: e on a partly loaded range loads the rest
// first and says so, then writes the find filter's entries, in the command's
// CSV format, to a new 0600 file named after the range; a second e does not
// overwrite it.
func TestExportWritesWhatIsShown(t *testing.T) {
	es := findEntries()
	hs := newHarness(t, 100, 24, gated(es, 100)) // the second page waits for the test
	hs.m.exportDir = t.TempDir()
	cmd := hs.m.Init()
	hs.pager(0).Allow(1)
	hs.settle(cmd)
	hs.m.Update(keyMsg("/"))
	hs.typeText("a100")
	hs.settle(hs.press("enter"))
	hs.m.fl.Unlisten() // typeText dropped the listener with the blink
	cmd = hs.press("e")
	// The status line the screen sent with e (not yet run).
	if !strings.HasPrefix(hs.m.sent.text, "exporting: loading the rest of the range first: page 2") {
		t.Errorf("status %q", hs.m.sent.text)
	}
	hs.pager(0).Allow(5)
	hs.settle(cmd)
	name := "vastdash-charges-2026-10-23..2026-11-21.csv"
	path := filepath.Join(hs.m.exportDir, name)
	if got := hs.statusText(); got != "exported 3 entries to "+path {
		t.Fatalf("status %q", got)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := export.WriteCSV(&want, []api.Charge{es[3], es[40], es[120]}, false, time.UTC); err != nil {
		t.Fatal(err)
	}
	if string(b) != want.String() {
		t.Fatalf("file:\n%s\nwant:\n%s", b, want.String())
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	hs.settle(hs.press("e"))
	if got := hs.statusText(); !strings.HasSuffix(got, strings.TrimSuffix(name, ".csv")+"-2.csv") {
		t.Fatalf("second export: %q", got)
	}
}

// e while the feed waits out a rate limit is answered at once: the
// status line said only the wait, and the first e seemed to do nothing
// for seconds.
func TestExportSaidDuringRateWait(t *testing.T) {
	hs := newHarness(t, 100, 24, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return billingtest.Paged(contracts(1, 300), 100).With(map[int]error{1: &api.Error{Kind: api.ErrRateLimited, Status: 429, Threshold: time.Minute}})
	})
	hs.m.exportDir = t.TempDir()
	hs.settle(hs.m.Init())
	// The second page is refused: the feed waits out the minute (the
	// test's end stops it), and the screen takes the wait.
	f := hs.m.fl.Feed()
	f.WantAll()
	ctx, cancel := context.WithTimeout(hs.m.ctx.Base, 10*time.Second)
	defer cancel()
	for st := f.State(); st.WaitUntil.IsZero(); st = f.Wait(ctx, st.Version) {
		if ctx.Err() != nil {
			t.Fatal("the feed never waited out the 429")
		}
	}
	hs.m.Update(shared.FeedMsg{Feed: f})
	if s := hs.m.wantedStatus(); s.text != msgRateWait {
		t.Fatalf("before e: %q", s.text)
	}
	hs.m.exporting = true
	if s := hs.m.wantedStatus(); !strings.HasPrefix(s.text, "exporting: ") || !strings.Contains(s.text, msgRateWait) {
		t.Errorf("e during the wait: %q", s.text)
	}
}
