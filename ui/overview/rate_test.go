package overview

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui/shared"
)

// testRate is a reading with three running instances, two stopped ones
// holding storage, and more than the panel lists.
func testRate() billing.CurrentRate {
	r := billing.CurrentRate{AsOf: now}
	// In billing's order: running by rate, then storage by cost.
	for _, in := range []api.Instance{
		{ID: 1040001, Status: "running", NumGPUs: 8, GPUName: "H100 SXM", DPHTotal: 17_280_000, Label: "\x1b[31mpretrain"},
		{ID: 1041012, Status: "running", NumGPUs: 1, GPUName: "A100 SXM4", DPHTotal: 1_171_000},
		{ID: 1041585, Status: "running", NumGPUs: 2, GPUName: "RTX 4090", DPHTotal: 842_666, Label: "vllm llama3-70b"},
		{ID: 1038000, Status: "stopped", StorageTotalCost: 40_000, Label: "datasets"},
		{ID: 1039000, Status: "exited", StorageTotalCost: 12_500},
		{ID: 1037000, Status: "exited", StorageTotalCost: 1_000},
		{ID: 1036000, Status: "exited", StorageTotalCost: 900},
	} {
		if in.Running() {
			r.PerHour += in.DPHTotal
			r.Running++
		} else {
			r.Storage += in.StorageTotalCost
			r.Stored++
		}
		r.Billing = append(r.Billing, in)
		r.Read++
	}
	return r
}

// rated is the loaded screen at w×h with a rate reading.
func rated(t *testing.T, w, h int, msg shared.RateMsg) *Model {
	t.Helper()
	m, d := loaded(t, w, h, fixture())
	d.send(t, msg)
	return m
}

// The panel: the current rate, the runway at it beside the 7-day one,
// the storage of stopped instances marked as an estimate, and the billing
// instances listed with their $/h.
func TestRatePanel(t *testing.T) {
	m := rated(t, 120, 40, shared.RateMsg{Rate: testRate()})
	head := lineWith(t, m, "Now ")
	// $19.293666/h: $1,234.567 lasts 2.6 days.
	for _, want := range []string{"$19.294/h", "3 running", "≈ 2.6 days (until 24 Nov) at this rate", "(7-day: ≈ 6.4 days)"} {
		if !strings.Contains(head, want) {
			t.Errorf("headline %q lacks %q", head, want)
		}
	}
	if l := lineWith(t, m, "storage of"); !strings.Contains(l, "+$0.054/h storage of 4 stopped instances (estimate)") {
		t.Errorf("storage line %q", l)
	}
	v := view(m)
	for _, want := range []string{"1041585  running  2× RTX 4090", "$0.843/h  vllm llama3-70b", "1039000  exited   storage (est.)", "+2 more instances billing"} {
		if !strings.Contains(v, want) {
			t.Errorf("the list lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(m.View(), "\x1b[31mpretrain") {
		t.Error("a label's escape sequence reached the screen")
	}
}

// At 80×24 (20 rows for the screen) the headline and the storage line stay
// with the credit and runway; at 40×12 the headline still says the rate
// and the runway at it. The layout is a golden at 80×24.
func TestRatePanelSmall(t *testing.T) {
	m := rated(t, 80, 20, shared.RateMsg{Rate: testRate()})
	checkGolden(t, "overview_rate_80x20.golden", view(m))
	for _, want := range []string{"Now    $19.294/h", "at this rate", "storage of 4 stopped", "Top 5 contracts"} {
		if !strings.Contains(view(m), want) {
			t.Errorf("80×20 lacks %q:\n%s", want, view(m))
		}
	}
	m.SetSize(40, 8)
	v := view(m)
	if l := lineWith(t, m, "Now "); !strings.Contains(l, "$19.294/h") || !strings.Contains(l, "≈ 2.6 days at it") {
		t.Errorf("40×8 headline %q:\n%s", l, v)
	}
	if !strings.Contains(v, "Credit $1,234.57") || !strings.Contains(v, "Runway") {
		t.Errorf("40×8 lost the credit or runway:\n%s", v)
	}
	checkExact(t, m, 40, 8)
}

// A key without instance_read: the panel says so, everything else works.
func TestRatePanelNeedsInstanceRead(t *testing.T) {
	m := rated(t, 100, 30, shared.RateMsg{Rate: billing.CurrentRate{NeedsPermission: billing.NeedsInstanceRead}})
	if l := lineWith(t, m, "Now "); !strings.Contains(l, "needs instance_read") {
		t.Errorf("headline %q", l)
	}
	if v := view(m); !strings.Contains(v, "Runway ≈ 6.4 days") || !strings.Contains(v, "Top 5 contracts") {
		t.Errorf("the rest of the screen went:\n%s", v)
	}
}

// A failed reading says so with the retry key, and the last good reading
// stays below it.
func TestRatePanelError(t *testing.T) {
	m := rated(t, 100, 40, shared.RateMsg{Rate: testRate()})
	newDriver(m).send(t, shared.RateMsg{Err: &api.Error{Kind: api.ErrServer, Status: 502, Op: "GET /api/v1/instances/"}})
	v := view(m)
	if !strings.Contains(v, "✗ current rate stopped (r to reload):") || !strings.Contains(v, "$19.294/h") {
		t.Errorf("error:\n%s", v)
	}
	m2 := rated(t, 100, 40, shared.RateMsg{Err: errors.New("boom")})
	if v := view(m2); !strings.Contains(v, "✗ current rate") {
		t.Errorf("first reading failed:\n%s", v)
	}
}

// Nothing running and nothing stored: a zero rate, and no runway figure
// at it.
func TestRatePanelNothingBilling(t *testing.T) {
	m := rated(t, 100, 30, shared.RateMsg{Rate: billing.CurrentRate{AsOf: now}})
	if l := lineWith(t, m, "Now "); !strings.Contains(l, "$0.000/h") || !strings.Contains(l, "nothing is billing now") {
		t.Errorf("headline %q", l)
	}
}

// Every size is exact with the panel in each of its states.
func TestRatePanelEverySizeExact(t *testing.T) {
	for name, msg := range map[string]shared.RateMsg{
		"rate":   {Rate: testRate()},
		"denied": {Rate: billing.CurrentRate{NeedsPermission: billing.NeedsInstanceRead}},
		"error":  {Err: errors.New("boom")},
	} {
		m := rated(t, 1, 1, msg)
		for w := 0; w <= 100; w += 3 {
			for _, h := range []int{0, 1, 2, 5, 8, 12, 20, 24, 40} {
				checkSize(t, name, m, w, h)
			}
		}
	}
}

// When the top contracts do not all fit (80×21's body, the chart at its
// readable height above them), the rows drawn follow the cursor and the
// heading says which show: j went below the last row drawn and enter
// showed a contract never seen.
func TestTopRowsFollowCursor(t *testing.T) {
	m := rated(t, 80, 17, shared.RateMsg{Rate: testRate()})
	d := newDriver(m)
	if len(m.top) != 5 {
		t.Fatalf("top %d", len(m.top))
	}
	head := lineWith(t, m, "Top 5 contracts")
	if !strings.Contains(head, "1–") || !strings.Contains(head, " shown") {
		t.Fatalf("the heading does not say which rows show: %q\n%s", head, view(m))
	}
	for i := range m.top {
		if i > 0 {
			d.key(t, "j")
		}
		cur := lineWith(t, m, "› ")
		if !strings.Contains(cur, m.top[i].source) {
			t.Errorf("row %d (%s) is not the cursor's line %q:\n%s", i+1, m.top[i].source, cur, view(m))
		}
		h := lineWith(t, m, "Top 5 contracts")
		_, after, _ := strings.Cut(h, " · ")
		var first, last int
		if _, err := fmt.Sscanf(strings.Replace(after, "–", " ", 1), "%d %d shown", &first, &last); err != nil || first > i+1 || last < i+1 {
			t.Errorf("heading %q does not include row %d", h, i+1)
		}
	}
	checkExact(t, m, 80, 17)
	m.SetSize(100, 40)
	if h := lineWith(t, m, "Top 5 contracts"); strings.Contains(h, "shown") {
		t.Errorf("all rows fit, yet %q", h)
	}
}
