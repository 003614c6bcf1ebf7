package statement

import (
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui/internal/golden"
	"github.com/vastdash/vastdash/ui/shared"
)

// At 40 columns the note keeps today's credit whole, the records title
// its sums and each record its amount: they were cut ("credit $2,98…",
// "in $1,299.…") or pushed off the line by a pending record's note.
func TestAmountsWholeWhenNarrow(t *testing.T) {
	h := shown(t)
	st := h.m.Statement()
	if st == nil || len(st.Pending) == 0 {
		t.Fatalf("the demo should have a pending record: %+v", st)
	}
	h.m.SetSize(40, 20)
	if v := h.view(); !strings.Contains(v, st.Credit.Credit()) {
		t.Errorf("the note cuts the credit %s:\n%s", st.Credit.Credit(), v)
	}
	// The month of a pending record, its records open.
	made := time.Unix(st.Pending[0].Created, 0)
	for i := range st.Months {
		if !st.Months[i].Start.After(made) {
			h.m.cursor = i
		}
	}
	h.press("enter")
	v := h.view()
	golden.AssertFits(t, h.m.View(), 40, 20)
	var sums billing.PaymentTotals
	recs := h.m.shownRecords()
	for i := range recs {
		sums.Add(&recs[i], h.m.ctx.Clock())
		if _, _, amount, _ := h.m.recordLine(&recs[i]); amount != "" && !strings.Contains(v, amount) {
			t.Errorf("record amount %s cut:\n%s", amount, v)
		}
	}
	if !strings.Contains(v, "pending") || !strings.Contains(v, "in "+sums.In.String()) {
		t.Errorf("no pending mark or sum %s:\n%s", sums.In, v)
	}
	if strings.Contains(v, "$…") || strings.Contains(v, ".…") {
		t.Errorf("an amount is cut:\n%s", v)
	}
}

// / while the year loads opens the find field where it can be seen: the
// footer offered "enter keep the filter" while what was typed showed
// nowhere.
func TestFindWhileLoadingShows(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	h.m.Update(shared.UserMsg{User: api.User{Credit: 1000}})
	cmd := h.m.Shown(true)
	h.press("/")
	for _, k := range "coin" {
		h.typeKey(string(k))
	}
	if v := h.view(); !strings.Contains(v, "loading the year") || !strings.Contains(v, "coin") {
		t.Fatalf("the find field is not shown while loading:\n%s", v)
	}
	h.run(cmd)
	h.typeKey("enter")
	if v := h.view(); !strings.Contains(v, `find "coin"`) {
		t.Errorf("the text typed while loading did not filter:\n%s", v)
	}
}

// The records of the first month, last December, carry their year: the
// pane showed "29 Dec 03:04", which reads as this December.
func TestLastYearsRecordsShowTheYear(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	h.m.Update(shared.UserMsg{User: api.User{Credit: 1000}})
	h.run(h.m.Shown(true))
	st := h.m.Statement()
	if st == nil || st.Months[0].Start.Year() == demoNow.Year() || len(st.Months[0].Records) == 0 {
		t.Fatalf("the demo's first month should be last year's, with records: %+v", st)
	}
	h.m.cursor = 0
	h.press("enter")
	v := h.view()
	last := itoa(st.Months[0].Start.Year())
	if n := strings.Count(v, " Dec  "+last); n != len(st.Months[0].Records) {
		t.Errorf("%d of %d records show %s:\n%s", n, len(st.Months[0].Records), last, v)
	}
	h.m.cursor = Months - 1
	if v := h.view(); strings.Contains(v, itoa(demoNow.Year())+" ") {
		t.Errorf("this year's records show the year:\n%s", v)
	}
}

// esc clears a kept find text, as on the Charges rows, and the help says
// so: the only way out was / then esc, which nothing told.
func TestEscClearsKeptFind(t *testing.T) {
	h := newHarness(t, demoserver.DemoKey, nil)
	h.m.Update(shared.UserMsg{User: api.User{Credit: 1000}})
	h.run(h.m.Shown(true))
	h.press("/")
	for _, k := range "coin" {
		h.typeKey(string(k))
	}
	h.typeKey("enter")
	if v := h.view(); !strings.Contains(v, `find "coin"`) {
		t.Fatalf("no kept filter:\n%s", v)
	}
	if hint := shared.Hint(h.m.Help().ShortHelp()...); !strings.Contains(hint, "esc clear the filter") {
		t.Errorf("the help does not offer esc: %q", hint)
	}
	h.typeKey("esc")
	if v := h.view(); strings.Contains(v, `find "coin"`) || h.m.find != "" {
		t.Errorf("esc did not clear the kept filter:\n%s", v)
	}
	if hint := shared.Hint(h.m.Help().ShortHelp()...); strings.Contains(hint, "esc") {
		t.Errorf("esc offered with nothing to clear: %q", hint)
	}
}
