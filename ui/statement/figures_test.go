package statement

import (
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/shared"
)

// invoices is a server that answers recs, then raw records, whatever the
// query.
func invoices(recs []demoserver.Invoice, raw ...string) *demoserver.Fault {
	return &demoserver.Fault{Path: "/api/v1/invoices", Status: 200, Body: demoserver.InvoicesPage(recs, raw...)}
}

// topUp is a paid top-up of amount thousandths (the payer's sign).
func topUp(id string, created, paid time.Time, amount int64) demoserver.Invoice {
	return demoserver.Invoice{ID: id, Created: created.Unix(), Paid: paid.Unix(), Type: "credit", Source: "stripe", Description: "top-up " + id, Amount: amount}
}

// loaded is the screen with its year read, the account's credit known.
func loaded(t *testing.T, fault *demoserver.Fault) *harness {
	t.Helper()
	h := newHarness(t, demoserver.DemoKey, fault)
	h.m.Update(shared.UserMsg{User: h.userOf()})
	h.run(h.m.Shown(true))
	if h.m.Statement() == nil {
		t.Fatalf("no statement:\n%s", h.view())
	}
	return h
}

func (h *harness) userOf() (u api.User) {
	u.Credit = money.Amount(h.srv.Credit())
	return u
}

// Issue 27 item 4: three of four records could not be read (an amount
// "abc", no id, paid in the year 5138). The screen says so on the status
// line, as the commands do on stderr.
func TestStatementScreenSaysWhatWasSkipped(t *testing.T) {
	at := demoNow.Add(-48 * time.Hour)
	h := loaded(t, invoices([]demoserver.Invoice{topUp("good", at, at, -25_000)}, demoserver.BrokenInvoices(at.Unix())...))
	if s := h.lastStatus(); !strings.HasPrefix(s, "3 malformed entries skipped") {
		t.Fatalf("status %q", s)
	}
	if cur := h.m.Statement().Months[Months-1]; cur.MoneyIn != 25_000 {
		t.Errorf("money in %v", cur.MoneyIn)
	}
}

// Issue 27 item 7: a record created and paid 40 days from now, and one
// created yesterday but paid 40 days ahead, count nowhere: the screen
// lists them under the months, flagged, and this month's money in and the
// records' sums leave them out.
func TestStatementScreenFlagsRecordsDatedInTheFuture(t *testing.T) {
	ahead, yesterday := demoNow.AddDate(0, 0, 40), demoNow.AddDate(0, 0, -1)
	h := loaded(t, invoices([]demoserver.Invoice{
		topUp("ahead", ahead, ahead, -400_000), topUp("paid-ahead", yesterday, ahead, -410_000), topUp("ok", yesterday, yesterday, -1_005)}))
	v := h.view()
	if !strings.Contains(v, "2 records dated in the future, not counted:") || !strings.Contains(v, "$410.000") || !strings.Contains(v, "$400.000") {
		t.Fatalf("the future records are not listed apart:\n%s", v)
	}
	cur := h.m.Statement().Months[Months-1]
	if cur.MoneyIn != 1_005 {
		t.Errorf("this month's money in %v, want $1.005", cur.MoneyIn)
	}
	// This month's records: all three, the two flagged, the sum of what
	// counts at the rows' precision.
	h.press("enter")
	v = h.view()
	if !strings.Contains(v, "in $1.005 · out $0.000") || strings.Count(v, "dated in the future") != 2 || !strings.Contains(v, "$1.005") {
		t.Errorf("records pane:\n%s", v)
	}
}
