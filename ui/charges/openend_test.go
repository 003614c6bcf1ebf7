package charges

import (
	"strings"
	"testing"
	"time"
)

// TestCustomRangeOpenEnd: "2026-11-01.." in the range field loads from that
// day to the end of the screen's today, the bar shows it as typed, and c
// opens the field with it as typed again (not with today's date filled in).
func TestCustomRangeOpenEnd(t *testing.T) {
	hs := newHarness(t, 100, 20, servePages(contracts(1, 3), 100))
	hs.settle(hs.m.Init())
	hs.press("c", "ctrl+u")
	hs.typeText("2026-11-01..")
	hs.settle(hs.press("enter"))
	r := hs.m.Range()
	today := hs.m.ctx.Clock().In(hs.m.ctx.Loc()).Format(time.DateOnly)
	if hs.m.Capturing() || !r.Open || r.From.Format(time.DateOnly) != "2026-11-01" || r.To.Format(time.DateOnly) != today {
		t.Fatalf("after enter: capturing %v, range %v..%v open %v (today %s)", hs.m.Capturing(), r.From, r.To, r.Open, today)
	}
	if got := hs.query(hs.numPagers() - 1); !got.To.Equal(r.To) || !got.From.Equal(r.From) {
		t.Fatalf("requested %v..%v, want %v..%v", got.From, got.To, r.From, r.To)
	}
	if l := hs.lines()[0]; !strings.HasPrefix(l, "range 2026-11-01.. · ") {
		t.Errorf("filter bar %q", l)
	}
	hs.press("c")
	if v := hs.view(); !strings.Contains(v, "custom range: 2026-11-01..") || strings.Contains(v, "custom range: 2026-11-01.."+today) {
		t.Fatalf("the field does not show the open range as typed:\n%s", v)
	}
	hs.press("ctrl+u")
	hs.typeText("2099-01-01..")
	if v := hs.view(); !strings.Contains(v, "after today") {
		t.Fatalf("a start after today is not flagged:\n%s", v)
	}
}
