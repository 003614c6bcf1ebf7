package statement

import (
	"context"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
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
	if !strings.Contains(lines[0], "  change ") {
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
		if strings.Contains(head, "change") != kept || !strings.Contains(head, "spend") {
			t.Errorf("%d columns: %q", w, head)
		}
	}
}
