package overview

import (
	"strings"
	"testing"

	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/ui/shared"
)

// readableBars is the fewest bar rows that show a month of days as more
// than a step.
const readableBars = 5

// barRows counts the chart's bar rows: the lines on its dollar axis.
func barRows(v string) int {
	n := 0
	for _, l := range strings.Split(v, "\n") {
		if strings.Contains(l, " ┤") || strings.HasPrefix(strings.TrimLeft(l, " "), "│") {
			n++
		}
	}
	return n
}

// At 80×24 (the screen's 20 rows) with every panel the demo shows — the
// credit with its threshold, the burn, the runway, Now with its storage,
// the leaks and the month with its forecast — the daily chart is readable
// (five bar rows, not three), the five top contracts all show, and as the
// cursor walks them its row is always on screen. At 80×22 and 40×12 the
// rows that do not fit are said, and the cursor's row stays.
func TestOverviewAt80x24ChartReadableCursorSeen(t *testing.T) {
	m, d, _ := monthScreen(t, 80, 20, 0, testRate())
	d.send(t, shared.AuditMsg{Audit: leaks.Audit{
		Leaks:     []leaks.Leak{{Kind: leaks.LeakIdleGPU, PerHour: 2_962_200, PerHourKnown: true}},
		Total:     2_962_200,
		Increases: []leaks.PriceChange{{ID: 1}},
	}})
	v := view(m)
	for _, want := range []string{"Credit $1,234.57", "Burn   ", "Runway ≈", "Now    $19.294/h", "Leaks  ", "Month  ", "Spend 30d"} {
		if !strings.Contains(v, want) {
			t.Errorf("80×24 lacks %q:\n%s", want, v)
		}
	}
	if n := barRows(v); n < readableBars {
		t.Errorf("80×24: the chart has %d bar rows, want at least %d:\n%s", n, readableBars, v)
	}
	if h := lineWith(t, m, "Top 5 contracts"); strings.Contains(h, "shown") {
		t.Errorf("80×24: all five contracts fit, yet %q:\n%s", h, v)
	}
	for i := range m.top {
		if i > 0 {
			d.key(t, "j")
		}
		if cur := lineWith(t, m, "› "); !strings.Contains(cur, m.top[i].source) {
			t.Errorf("80×24 row %d: the cursor's line is %q:\n%s", i+1, cur, view(m))
		}
	}
	checkExact(t, m, 80, 20)

	// Two rows fewer: the chart keeps its height, the top rows that fit
	// follow the cursor (now on the last) and the heading says which.
	m.SetSize(80, 18)
	v = view(m)
	if n := barRows(v); n < readableBars {
		t.Errorf("80×22: the chart has %d bar rows:\n%s", n, v)
	}
	if h := lineWith(t, m, "Top 5 contracts"); !strings.Contains(h, "–5 shown") || !strings.Contains(lineWith(t, m, "› "), m.top[4].source) {
		t.Errorf("80×22: heading %q, cursor on the fifth:\n%s", h, v)
	}

	// 40×12: the figures, the title and the cursor's row, said as one of
	// five.
	m.SetSize(40, 8)
	v = view(m)
	for _, want := range []string{"Credit $1,234.57", "Burn ", "Runway", "Now ", "Top 5 contracts"} {
		if !strings.Contains(v, want) {
			t.Errorf("40×12 lacks %q:\n%s", want, v)
		}
	}
	if cur := lineWith(t, m, "› "); !strings.Contains(cur, m.top[4].source) || !strings.Contains(v, "5 of 5 shown") {
		t.Errorf("40×12: the cursor's row %q, or the count, is missing:\n%s", cur, v)
	}
	checkExact(t, m, 40, 8)
}
