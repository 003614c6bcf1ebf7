package statement

import (
	"context"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/shared"
)

// shown is the screen on the demo key, shown and loaded.
func shown(t *testing.T) *harness {
	t.Helper()
	h := newHarness(t, demoserver.DemoKey, nil)
	u, err := h.m.ctx.Billing.Account(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h.m.Update(shared.UserMsg{User: u})
	h.run(h.m.Shown(true))
	return h
}

// Each month's row shows its spend against the month before's, as billing
// computes it; the first month shown has none before it. On a narrow
// terminal the change gives way after the money out and the opening, and
// before the spend itself.
func TestChangeColumn(t *testing.T) {
	h := shown(t)
	st := h.m.Statement()
	h.m.SetSize(120, 30)
	lines := strings.Split(h.view(), "\n")
	if !strings.Contains(lines[0], "  CHANGE ") {
		t.Fatalf("no change column:\n%s", h.view())
	}
	for i, mo := range st.Months {
		want := "—"
		if i > 0 {
			pm, ok := billing.SpendChange(st.Months[i-1].Spend, mo.Spend)
			if !ok {
				t.Fatalf("%s: no change from %v to %v", mo.Label(), st.Months[i-1].Spend, mo.Spend)
			}
			want = billing.ChangeText(pm, ok)
		}
		if row := lines[1+i]; !strings.HasPrefix(row, mo.Label()) || !strings.Contains(row, mo.Spend.String()+" "+strings.Repeat(" ", changeWidth-len([]rune(want)))+want+" ") {
			t.Errorf("%s row %q lacks the change %s", mo.Label(), row, want)
		}
	}
	for w, kept := range map[int]bool{80: true, 60: false} {
		h.m.SetSize(w, 20)
		golden.AssertFits(t, h.m.View(), w, 20)
		head := strings.Split(h.view(), "\n")[0]
		if strings.Contains(head, "CHANGE") != kept || !strings.Contains(head, "SPEND") {
			t.Errorf("%d columns: %q", w, head)
		}
	}
}

// The screen names its columns with the command's words (one list, in
// export), draws its legend whole at 80 columns (it was "▀ in ▄ s…") and
// writes a change of +32,843.5 % grouped and with its "%" ("+32843.…").
func TestWordsLegendAndLargeChange(t *testing.T) {
	h := shown(t)
	st := *h.m.Statement()
	st.Months = append([]billing.Month(nil), st.Months...)
	n := len(st.Months)
	st.Months[n-2].Spend = 1000 // $1.000
	st.Months[n-1].Spend = 329435
	h.m.st = &st
	h.m.SetSize(80, 24)
	v := h.view()
	golden.AssertFits(t, h.m.View(), 80, 24)
	lines := strings.Split(v, "\n")
	for _, c := range []string{export.ColMonth, export.ColMoneyIn, export.ColMoneyOut, export.ColSpend, export.ColClosing} {
		if !strings.Contains(lines[0], strings.ToUpper(c)) {
			t.Errorf("the header lacks the command's %q: %q", strings.ToUpper(c), lines[0])
		}
	}
	if !strings.Contains(v, legend) || strings.Contains(v, "…\n") {
		t.Errorf("the legend %q is not whole:\n%s", legend, v)
	}
	if pm, ok := billing.SpendChange(1000, 329435); !ok || pm != 328435 {
		t.Fatalf("change %d %v", pm, ok)
	}
	if !strings.Contains(lines[n], "+32,843 %") {
		t.Errorf("the change is not whole with its %%: %q", lines[n])
	}
	for pm, want := range map[int64]string{123: "+12.3 %", -1000: "-100.0 %", 12345: "+1,234 %", 1234567: "×1,235"} {
		if got := changeCell(pm, true, changeWidth); got != want || shared.Width(got) > changeWidth {
			t.Errorf("changeCell(%d) = %q, want %q", pm, got, want)
		}
	}
}
