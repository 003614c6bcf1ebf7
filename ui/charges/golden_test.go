package charges

import (
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/theme"
)

// checkGolden compares the View, rendered with the real styles and then
// stripped of them (so the files do not depend on colours), with
// testdata/name.
func checkGolden(t *testing.T, m *Model, name string) {
	t.Helper()
	golden.Check(t, name, ansi.Strip(m.View())+"\n")
}

// TestGolden80x24: the table format, one contract open, the first of two
// pages loaded.
func TestGolden80x24(t *testing.T) {
	es := contracts(1, 150)
	es[1].Meta.Label = "訓練ジョブ"
	hs := newHarness(t, 80, 24, servePages(es, 100))
	hs.m.ctx.Styles = theme.New(true)
	hs.settle(hs.m.Init())
	hs.settle(hs.press("j", "enter", "j", "j"))
	checkGolden(t, hs.m, "charges_80x24.golden")
}

// TestGolden100x30: the tree format with an endpoint, its workergroup and a
// worker contract open, the cursor on one of the worker's items.
func TestGolden100x30(t *testing.T) {
	es := append([]api.Charge{serverlessEndpoint(7, 2, 2)}, contracts(1, 40)...)
	es[3].Meta.Label = "🚀 deploy"
	hs := newHarness(t, 100, 30, func(q api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return billingtest.Paged(es, 100)
	})
	hs.m.ctx.Styles = theme.New(true)
	hs.settle(hs.m.Init())
	hs.settle(hs.press("f"))
	hs.settle(hs.press("enter", "j", "enter", "j", "enter", "j", "j"))
	checkGolden(t, hs.m, "charges_100x30.golden")
}

// TestGolden120x40: the table format at 120 columns, the full start → end
// and the description beside each label, one contract open.
func TestGolden120x40(t *testing.T) {
	es := contracts(1, 150)
	es[1].Meta.Label = "訓練ジョブ"
	es[0].End = testNow.Unix() // still running
	hs := newHarness(t, 120, 40, servePages(es, 100))
	hs.m.ctx.Styles = theme.New(true)
	hs.settle(hs.m.Init())
	hs.settle(hs.press("j", "enter", "j", "j"))
	checkGolden(t, hs.m, "charges_120x40.golden")
}
