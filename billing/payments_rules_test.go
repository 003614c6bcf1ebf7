package billing

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
)

// served is what a server that honours the query's creation range sends
// of recs.
func served(recs []api.Invoice, q api.InvoicesQuery) []api.Invoice {
	var out []api.Invoice
	for _, r := range recs {
		if r.Created >= q.From.Unix() && r.Created <= q.To.Unix() {
			out = append(out, r)
		}
	}
	return out
}

// Issue 27 item 5: a top-up created 11 days before the 1st and paid this
// month, and one paid before it was created. The records are queried by
// creation time; the statement asks from PaidSlack before its first month,
// so every record its months hold is read, and this month reads the same
// whatever the number of months.
func TestStatementMonthIsTheSameWhateverTheSpan(t *testing.T) {
	s := New(context.Background(), nil, WithClock(func() time.Time { return testNow }), WithLocation(time.UTC))
	defer s.Close()
	first := MonthStart(testNow, time.UTC)
	recs := []api.Invoice{
		rec("late", "credit", -70_000, first.AddDate(0, 0, -11), first.AddDate(0, 0, 2)),
		rec("early", "credit", -30_000, first.AddDate(0, 0, 5), first.AddDate(0, 0, 4)),
		rec("very-late", "credit", -5_000, first.AddDate(0, -3, 0), first.AddDate(0, 0, 1)), // paid 3 months on: counts at +31 days
	}
	var want Month
	for n := 1; n <= 4; n++ {
		from, to := LastMonths(testNow, time.UTC, n)
		pq, _ := s.StatementQueries(from)
		st := BuildStatement(StatementInput{Loc: time.UTC, Now: testNow, From: from, To: to, Credit: 100_000, Payments: served(recs, pq)})
		checkIdentity(t, st)
		cur := st.Months[len(st.Months)-1]
		if cur.MoneyIn != 100_000 {
			t.Errorf("%d months: this month's money in %v, want $100.000", n, cur.MoneyIn)
		}
		if n > 1 && (cur.MoneyIn != want.MoneyIn || cur.Opening != want.Opening || len(cur.Records) != len(want.Records)) {
			t.Errorf("%d months: this month %+v; %d months: %+v", n, cur, n-1, want)
		}
		want = cur
		if n >= 4 && st.Months[0].MoneyIn+st.Months[1].MoneyIn != 5_000 {
			t.Errorf("the record paid three months late counts 31 days after it was made: %+v", st.Months)
		}
	}
	if got := CountsAt(&recs[2]); got != recs[2].Created+int64(PaidSlack/time.Second) {
		t.Errorf("CountsAt of a payment three months late: %v", time.Unix(got, 0))
	}
}

// Issue 27 item 7: a record created and paid 40 days from now, and one
// created yesterday but paid 40 days ahead, count nowhere: listed apart,
// flagged, and the current month closes at the credit as before.
func TestStatementLeavesOutRecordsDatedInTheFuture(t *testing.T) {
	ahead, yesterday := testNow.AddDate(0, 0, 40), testNow.AddDate(0, 0, -1)
	recs := []api.Invoice{
		rec("ahead", "credit", -400_000, ahead, ahead),
		rec("paid-ahead", "credit", -410_000, yesterday, ahead),
		rec("ok", "credit", -1_000, yesterday, yesterday),
	}
	from, to := LastMonths(testNow, time.UTC, 2)
	st := BuildStatement(StatementInput{Loc: time.UTC, Now: testNow, From: from, To: to, Credit: 50_000, Payments: recs})
	checkIdentity(t, st)
	cur := st.Months[1]
	if cur.MoneyIn != 1_000 || cur.Opening != 49_000 || len(st.Future) != 2 || len(cur.Records) != 3 {
		t.Fatalf("in %v, opening %v, %d future, %d records", cur.MoneyIn, cur.Opening, len(st.Future), len(cur.Records))
	}
	tot := TotalPayments(recs, testNow)
	if tot.In != 1_000 || tot.Futures != 2 || tot.Future != 810_000 || !strings.Contains(tot.NotCounted(), "2 dated in the future ($810.000, not counted)") {
		t.Fatalf("totals %+v, %q", tot, tot.NotCounted())
	}
}

// Issue 27 item 4: records the server sent that could not be read are
// said by the statement, as by the payments feed: the figures leave them
// out.
func TestStatementCarriesTheFeedsWarnings(t *testing.T) {
	at := testNow.Add(-48 * time.Hour).Unix()
	body := demoserver.InvoicesPage([]demoserver.Invoice{{ID: "a", Created: at, Paid: at, Type: "credit", Amount: -25_000}}, demoserver.BrokenInvoices(at)...)
	srv, s := demoService(t, demoserver.Options{Contracts: 20}, demoserver.DemoKey, nil)
	srv.AddFault(demoserver.Fault{Path: "/api/v1/invoices", Status: 200, Body: body})
	from, to := LastMonths(s.Now(), time.UTC, 1)
	st, err := s.Statement(context.Background(), from, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Warnings) != 1 || !strings.HasPrefix(st.Warnings[0], "3 malformed entries skipped") || st.Months[0].MoneyIn != 25_000 {
		t.Fatalf("warnings %q, in %v", st.Warnings, st.Months[0].MoneyIn)
	}
}

// A month's spend is the same in a statement of one month and of twelve:
// each day's part of a contract does not depend on which other days are
// asked for (vastdash spend --month and the statement read the same
// October). Contracts here straddle every month boundary, at amounts whose
// thousandths do not divide evenly over their seconds.
func TestStatementSpendIsTheSameWhateverTheSpan(t *testing.T) {
	loc := loadZone(t, "Europe/Berlin")
	r := rand.New(rand.NewPCG(27, 5))
	var charges []api.Charge
	for i := 0; i < 300; i++ {
		start := testNow.AddDate(0, -11, 0).Unix() + r.Int64N(330*86400)
		charges = append(charges, api.Charge{Type: "instance", Source: fmt.Sprint("instance-", i), Start: start,
			End: start + 3600 + r.Int64N(90*86400), Amount: money.Amount(1 + r.Int64N(5_000_000))})
	}
	spendOf := func(n int) map[string]money.Amount {
		from, to := LastMonths(testNow, loc, n)
		st := BuildStatement(StatementInput{Loc: loc, Now: testNow, From: from, To: to, Credit: 100_000, Charges: charges})
		out := map[string]money.Amount{}
		for _, m := range st.Months {
			out[m.Label()] = m.Spend
		}
		return out
	}
	year := spendOf(12)
	for _, n := range []int{1, 2, 5} {
		for month, spend := range spendOf(n) {
			if year[month] != spend {
				t.Errorf("%s: %v in a statement of %d months, %v in one of 12", month, spend, n, year[month])
			}
		}
	}
}
