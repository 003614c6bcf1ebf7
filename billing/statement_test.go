package billing

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/money"
)

func rec(id, typ string, amount money.Amount, created, paid time.Time) api.Invoice {
	in := api.Invoice{ID: id, Type: typ, Amount: amount, Created: created.Unix()}
	if !paid.IsZero() {
		in.Paid = paid.Unix()
	}
	return in
}

// Each sign rule: the payer's sign of the server turned into the effect on
// the credit, and what counts nowhere.
func TestEffectSignRules(t *testing.T) {
	at := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		in      api.Invoice
		effect  money.Amount
		counted bool
		note    string
	}{
		{"paid top-up adds", rec("1", "credit", -25_000, at, at), 25_000, true, ""},
		{"refund takes away", rec("2", "refund", 10_000, at, at), -10_000, true, ""},
		{"reserved prepay takes away", rec("3", "reserved", 120_000, at, at), -120_000, true, ""},
		{"transfer received adds", rec("4", "transfer", 50_000, at, at), 50_000, true, ""},
		{"transfer sent takes away", rec("5", "transfer", -20_000, at, at), -20_000, true, ""},
		{"payout takes away", rec("6", "payout", -15_000, at, at), -15_000, true, ""},
		{"pending top-up counts nowhere", rec("7", "credit", -100_000, at, time.Time{}), 100_000, false, "pending: counted once paid"},
		{"unknown type counts nowhere", rec("8", "chargeback", 5_000, at, at), 0, false, "unknown type: not counted"},
		{"a top-up paid 40 days ahead counts nowhere", rec("9", "credit", -400_000, at, at.Add(40*24*time.Hour)), 400_000, false, "dated in the future: not counted"},
		{"a top-up made 40 days ahead counts nowhere", rec("10", "credit", -410_000, at.Add(40*24*time.Hour), at.Add(40*24*time.Hour)), 410_000, false, "dated in the future: not counted"},
		{"a top-up paid within the clocks' slack counts", rec("11", "credit", -1_000, at, at.Add(FutureSlack)), 1_000, true, ""},
	} {
		e, known := Effect(&tc.in)
		st := StandingOf(&tc.in, at)
		if e != tc.effect || (st == Counted) != tc.counted || known != (tc.note != "unknown type: not counted") || st.Note() != tc.note {
			t.Errorf("%s: effect %v known %v standing %v note %q", tc.name, e, known, st, st.Note())
		}
	}
}

func checkIdentity(t *testing.T, st Statement) {
	t.Helper()
	for i, m := range st.Months {
		if m.Opening != m.Closing-m.MoneyIn+m.MoneyOut+m.Spend {
			t.Errorf("%s: opening %v ≠ %v − %v + %v + %v", m.Label(), m.Opening, m.Closing, m.MoneyIn, m.MoneyOut, m.Spend)
		}
		if i > 0 && st.Months[i-1].Closing != m.Opening {
			t.Errorf("%s opens at %v, %s closed at %v", m.Label(), m.Opening, st.Months[i-1].Label(), st.Months[i-1].Closing)
		}
	}
}

// The current month closes at the credit now; each month in, out, spend
// and pending; the identity exact in thousandths; records of the months
// before the first are not counted.
func TestStatementReconstructsFromTheCredit(t *testing.T) {
	d := func(m time.Month, day, h int) time.Time { return time.Date(2026, m, day, h, 0, 0, 0, time.UTC) }
	in := StatementInput{
		Loc: time.UTC, Now: d(11, 21, 15), From: d(9, 5, 0), To: d(11, 1, 0), Credit: 412_386,
		Payments: []api.Invoice{
			rec("a", "credit", -200_000, d(9, 2, 0), d(9, 2, 0)),      // September
			rec("b", "credit", -100_001, d(10, 3, 0), d(10, 3, 0)),    // October
			rec("c", "refund", 10_000, d(10, 9, 0), d(10, 10, 0)),     // October out
			rec("d", "transfer", 50_000, d(11, 1, 0), d(11, 1, 0)),    // November in
			rec("e", "transfer", -20_000, d(11, 2, 0), d(11, 2, 0)),   // November out
			rec("f", "credit", -99_000, d(11, 20, 0), time.Time{}),    // pending
			rec("g", "mystery", -1_000_000, d(11, 3, 0), d(11, 3, 0)), // unknown
			rec("h", "credit", -7_000, d(8, 1, 0), d(8, 1, 0)),        // before the first month
			rec("i", "credit", -3_000, d(8, 31, 0), d(9, 1, 2)),       // made in August, paid in September
		},
		Charges: []api.Charge{
			{Source: "instance-1", Type: "instance", Start: d(9, 30, 12).Unix(), End: d(10, 1, 12).Unix(), Amount: 24_001},
			{Source: "instance-2", Type: "instance", Start: d(11, 21, 10).Unix(), End: d(11, 21, 15).Unix(), Amount: 5_555},
		},
	}
	st := BuildStatement(in)
	if len(st.Months) != 3 || st.Months[0].Label() != "2026-09" || st.Months[2].Label() != "2026-11" || !st.Reconstructed {
		t.Fatalf("months %+v", st.Months)
	}
	checkIdentity(t, st)
	sep, oct, nov := st.Months[0], st.Months[1], st.Months[2]
	if nov.Closing != 412_386 {
		t.Errorf("November closes at %v, not the credit", nov.Closing)
	}
	if sep.MoneyIn != 203_000 || oct.MoneyIn != 100_001 || oct.MoneyOut != 10_000 || nov.MoneyIn != 50_000 || nov.MoneyOut != 20_000 {
		t.Errorf("in/out: sep %v, oct %v/%v, nov %v/%v", sep.MoneyIn, oct.MoneyIn, oct.MoneyOut, nov.MoneyIn, nov.MoneyOut)
	}
	// The contract across midnight on 30 Sep is split exactly: 12 h each side.
	if sep.Spend+oct.Spend != 24_001 || sep.Spend != 12_000 && sep.Spend != 12_001 || nov.Spend != 5_555 {
		t.Errorf("spend sep %v oct %v nov %v", sep.Spend, oct.Spend, nov.Spend)
	}
	if nov.Pending != 99_000 || len(st.Pending) != 1 || len(st.Unknown) != 1 || len(nov.Records) != 4 {
		t.Errorf("pending %v (%d), unknown %d, November records %d", nov.Pending, len(st.Pending), len(st.Unknown), len(nov.Records))
	}
	// An earlier To still reconstructs from today: September's closing is
	// the same figure.
	in.To = d(9, 30, 0)
	st2 := BuildStatement(in)
	if len(st2.Months) != 1 || st2.Months[0].Closing != sep.Closing {
		t.Errorf("September alone: %+v, want closing %v", st2.Months, sep.Closing)
	}
}

// A time zone east of UTC: a top-up paid at 20:00 UTC on 31 October is
// November's in Tokyo (05:00 on 1 November), October's in UTC.
func TestStatementEastOfUTC(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip(err)
	}
	paid := time.Date(2026, 10, 31, 20, 0, 0, 0, time.UTC)
	now := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		loc   *time.Location
		month string
	}{{tokyo, "2026-11"}, {time.UTC, "2026-10"}} {
		st := BuildStatement(StatementInput{Loc: tc.loc, Now: now, From: now.AddDate(0, -1, 0), To: now, Credit: 1000,
			Payments: []api.Invoice{rec("x", "credit", -25_000, paid, paid)}})
		checkIdentity(t, st)
		for _, m := range st.Months {
			if (m.MoneyIn == 25_000) != (m.Label() == tc.month) {
				t.Errorf("%s: %s has in %v", tc.loc, m.Label(), m.MoneyIn)
			}
		}
	}
}

// Months across a daylight-saving change: March 2026 in Berlin has 743
// hours (clocks go forward on the 29th). A contract of the last 2 hours of
// March and the first 2 of April splits its amount 1:1 by the calendar, and
// a contract on the short day stays in March.
func TestStatementAcrossDST(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip(err)
	}
	at := func(m time.Month, d, h int) time.Time { return time.Date(2026, m, d, h, 0, 0, 0, berlin) }
	st := BuildStatement(StatementInput{Loc: berlin, Now: at(4, 15, 12), From: at(3, 1, 0), To: at(4, 1, 0), Credit: 50_000,
		Charges: []api.Charge{
			{Source: "instance-1", Start: at(3, 31, 22).Unix(), End: at(4, 1, 2).Unix(), Amount: 4_000},
			{Source: "instance-2", Start: at(3, 29, 1).Unix(), End: at(3, 29, 4).Unix(), Amount: 2_000},
			{Source: "instance-3", Start: at(2, 28, 23).Unix(), End: at(3, 1, 1).Unix(), Amount: 3_000}, // half before the first month
		},
		Payments: []api.Invoice{rec("p", "credit", -10_000, at(3, 1, 0), at(3, 1, 0).Add(-time.Second))}})
	checkIdentity(t, st)
	mar, apr := st.Months[0], st.Months[1]
	if mar.Start.UTC() != time.Date(2026, 2, 28, 23, 0, 0, 0, time.UTC) || apr.Start.UTC() != time.Date(2026, 3, 31, 22, 0, 0, 0, time.UTC) {
		t.Fatalf("month starts %v %v", mar.Start.UTC(), apr.Start.UTC())
	}
	if mar.Spend != 2_000+2_000+1_500 || apr.Spend != 2_000 {
		t.Errorf("spend March %v April %v", mar.Spend, apr.Spend)
	}
	if mar.MoneyIn != 0 {
		t.Errorf("a payment a second before March counted in March: %v", mar.MoneyIn)
	}
}

// A feed that stopped part-way: the months it did not reach (and, the
// statement running back from today, every earlier one) are incomplete;
// later months are not.
func TestStatementMarksUnreachedMonths(t *testing.T) {
	d := func(m time.Month, day int) time.Time { return time.Date(2026, m, day, 12, 0, 0, 0, time.UTC) }
	in := StatementInput{Loc: time.UTC, Now: d(11, 21), From: d(7, 1), To: d(11, 1), Credit: 1,
		Payments: []api.Invoice{rec("a", "credit", -1000, d(9, 10), d(9, 10)), rec("b", "credit", -1000, d(11, 2), d(11, 2))},
		Charges:  []api.Charge{{Source: "instance-1", Start: d(10, 1).Unix(), End: d(10, 2).Unix(), Amount: 10}}}
	in.PaymentsStopped = true
	st := BuildStatement(in)
	got := ""
	for _, m := range st.Months {
		if m.Incomplete {
			got += m.Label() + " "
		}
	}
	if got != "2026-07 2026-08 2026-09 " || !st.Incomplete {
		t.Errorf("payments stopped at 10 Sep: incomplete %q", got)
	}
	in.PaymentsStopped, in.ChargesStopped = false, true
	st = BuildStatement(in)
	if !st.Months[3].Incomplete || st.Months[4].Incomplete {
		t.Errorf("charges stopped at 1 Oct: %+v", st.Months)
	}
	in.ChargesStopped = false
	if st = BuildStatement(in); st.Incomplete {
		t.Error("complete feeds, incomplete statement")
	}
}

func TestStatementMonthsBounds(t *testing.T) {
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	for _, bad := range [][2]time.Time{
		{now, now.AddDate(0, -1, 0)},
		{now, now.AddDate(0, 1, 0)},
		{time.Date(2014, 12, 1, 0, 0, 0, 0, time.UTC), now},
		{now.AddDate(0, -MaxStatementMonths, 0), now},
	} {
		if StatementMonths(bad[0], bad[1], now, time.UTC) == nil {
			t.Errorf("%v..%v accepted", bad[0], bad[1])
		}
	}
	if err := StatementMonths(now.AddDate(0, -MaxStatementMonths+1, 0), now, now, time.UTC); err != nil {
		t.Error(err)
	}
}

func payService(t *testing.T, src func() *billingtest.Pager[api.Invoice]) *Service {
	t.Helper()
	s := New(context.Background(), nil, withPaymentPages(func(api.InvoicesQuery) Source[api.Invoice] { return src() }),
		WithClock(func() time.Time { return testNow }), WithLocation(time.UTC), WithRateWait(time.Millisecond))
	t.Cleanup(s.Close)
	return s
}

func payQuery() api.InvoicesQuery {
	return api.InvoicesQuery{From: testNow.AddDate(0, -1, 0), To: testNow}
}

// A repeated invoice_id is dropped and said; the effects are summed once.
func TestPaymentsFeedDropsRepeatedRecords(t *testing.T) {
	at := testNow.Add(-time.Hour)
	a, b := rec("a", "credit", -25_000, at, at), rec("b", "refund", 5_000, at, at)
	src := &billingtest.Pager[api.Invoice]{Pages: [][]api.Invoice{{a, b}, {a}}, Matching: 4}
	s := payService(t, func() *billingtest.Pager[api.Invoice] { return src })
	f := s.PaymentsFeed(payQuery())
	defer f.Release()
	got, st, err := f.All(context.Background(), nil)
	if err != nil || len(got) != 2 || st.Duplicates != 1 || st.Amount != 20_000 || st.Pages != 2 {
		t.Fatalf("%d records, %+v, %v", len(got), st, err)
	}
	if w := strings.Join(st.Warnings(), "; "); !strings.Contains(w, "1 repeated payment record dropped") {
		t.Fatalf("warnings %q", w)
	}
}

// A refused token pages again from the first page, keeping each record
// once; a second refusal is the error.
func TestPaymentsFeedRestartsOnARefusedToken(t *testing.T) {
	at := testNow.Add(-time.Hour)
	recs := []api.Invoice{rec("a", "credit", -1000, at, at), rec("b", "credit", -2000, at, at)}
	refused := &api.Error{Kind: api.ErrInvalidToken, Status: 400}
	n := 0
	s := payService(t, func() *billingtest.Pager[api.Invoice] {
		n++
		if n == 1 {
			return billingtest.Paged(recs, 1).With(map[int]error{1: refused})
		}
		return billingtest.Paged(recs, 1)
	})
	f := s.PaymentsFeed(payQuery())
	defer f.Release()
	got, st, err := f.All(context.Background(), nil)
	if err != nil || len(got) != 2 || !st.Restarted || st.Duplicates != 0 || st.Amount != 3000 {
		t.Fatalf("%d records, %+v, %v", len(got), st, err)
	}
}

// Against the demo server: both feeds side by side need ⌈records/100⌉ +
// ⌈contracts/500⌉ requests and no 429, at the real thresholds on a fake
// clock the two feeds wait on (each leaves it when it ends); the statement's
// identity holds and the current month closes at the account's credit.
func TestStatementFromDemo(t *testing.T) {
	for _, window := range []bool{false, true} {
		t.Run(ruleName(window), func(t *testing.T) {
			clk := demoserver.NewClock(2)
			srv, s := demoService(t, demoserver.Options{Contracts: 1200, Threshold: time.Second, InvoicesThreshold: 3 * time.Second,
				WindowAmounts: window}, demoserver.DemoKey, clk)
			testStatementFromDemo(t, srv, s, clk)
		})
	}
}

func testStatementFromDemo(t *testing.T, srv *demoserver.Server, s *Service, clk *demoserver.Clock) {
	now := s.Now()
	var last StatementProgress
	var left [2]bool
	st, err := s.Statement(context.Background(), now.AddDate(0, -11, 0), now, func(p StatementProgress) {
		last = p
		for i, st := range []State{p.Payments, p.Charges} {
			if (st.Done || st.Err != nil) && !left[i] {
				left[i] = true
				clk.Leave()
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	checkIdentity(t, st)
	if len(st.Months) != 12 || st.Months[11].Closing != money.Amount(srv.Credit()) || len(st.Pending) != 1 {
		t.Fatalf("%d months, closing %v (credit %v), %d pending", len(st.Months), st.Months[len(st.Months)-1].Closing, srv.Credit(), len(st.Pending))
	}
	inv, chg := srv.CountPath(api.InvoicesPath), srv.CountPath("/api/v0/charges")
	wantInv := (last.Payments.Entries + 99) / 100
	wantChg := (last.Charges.Contracts + 499) / 500
	if s.AmountRule() != RuleUnknown {
		wantChg++ // a contract reaches back before the first month: the rule was asked, with one day
	}
	if inv != wantInv || chg != wantChg || srv.CountStatus(http.StatusTooManyRequests) != 0 {
		t.Fatalf("%d invoices and %d charges requests, want %d and %d; %d 429s", inv, chg, wantInv, wantChg, srv.CountStatus(429))
	}
	if !strings.HasPrefix(last.String(), "payments 1 of 1 · charges ") {
		t.Errorf("progress %q", last)
	}

	// A key without billing_read names it.
	_, nb := demoService(t, demoserver.Options{}, demoserver.KeyNoBilling, nil)
	_, err = nb.Statement(context.Background(), now, now, nil)
	var ae *api.Error
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "billing_read") {
		t.Fatalf("err %v", err)
	}
}

// demoService starts a demo server with opts and a service on it for key,
// paced at the server's thresholds, on clk when not nil.
func demoService(t *testing.T, opts demoserver.Options, key string, clk *demoserver.Clock) (*demoserver.Server, *Service) {
	t.Helper()
	var onClock []api.Option
	if clk != nil {
		opts.Clock = clk.Now
		onClock = append(onClock, api.WithClock(clk))
	}
	if opts.Threshold == 0 {
		opts.Threshold = -1
	}
	if opts.InvoicesThreshold == 0 {
		opts.InvoicesThreshold = -1
	}
	opts.Now = time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC)
	srv, s, _ := startDemo(t, opts, key, append(onClock, api.WithChargesThreshold(max(opts.Threshold, 0)),
		api.WithEndpointThreshold(api.InvoicesPath, max(opts.InvoicesThreshold, 0)), api.WithTimeout(5*time.Second))...)
	return srv, s
}

// ctrl+c mid-load: the statement returns at once with the cancellation,
// its months marked incomplete, and no loader outlives it (goleak).
func TestStatementCancelled(t *testing.T) {
	srv, s := demoService(t, demoserver.Options{Contracts: 2000, Threshold: 50 * time.Millisecond, InvoicesThreshold: 50 * time.Millisecond}, demoserver.DemoKey, nil)
	ctx, cancel := context.WithCancel(context.Background())
	now := s.Now()
	atCancel := -1
	st, err := s.Statement(ctx, now.AddDate(0, -11, 0), now, func(p StatementProgress) {
		if p.Charges.Pages >= 1 && atCancel < 0 {
			atCancel = len(srv.Requests())
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || !st.Incomplete {
		t.Fatalf("err %v, incomplete %v", err, st.Incomplete)
	}
	// Close waits for every loader: it returns, and goleak finds none left.
	s.Close()
	// Each of the two feeds may have one request on the wire when the
	// cancellation lands (a loaded machine delays its arrival); none may
	// leave after it.
	if n := len(srv.Requests()); n > atCancel+2 {
		t.Errorf("%d requests, %d when cancelled: the cancellation did not stop the feeds", n, atCancel)
	}
}

// TotalPayments sums by the effect rules: a paid top-up in, a refund and a
// transfer sent out, a pending record and an unknown type counted apart.
func TestTotalPayments(t *testing.T) {
	paid := int64(1_700_000_000)
	recs := []api.Invoice{
		{Type: "credit", Amount: -25 * money.Dollar, Paid: paid},
		{Type: "refund", Amount: 10 * money.Dollar, Paid: paid},
		{Type: "transfer", Amount: -3 * money.Dollar, Paid: paid},
		{Type: "credit", Amount: -7 * money.Dollar},            // pending
		{Type: "bonus", Amount: -9 * money.Dollar, Paid: paid}, // unknown
	}
	got := TotalPayments(recs, time.Unix(paid, 0))
	want := PaymentTotals{Records: 5, In: 25 * money.Dollar, Out: 13 * money.Dollar, Pending: 7 * money.Dollar, Pendings: 1, Unknown: 1}
	if got != want {
		t.Fatalf("totals %+v, want %+v", got, want)
	}
	if (TotalPayments(nil, time.Unix(paid, 0)) != PaymentTotals{}) {
		t.Fatal("no records, yet totals")
	}
}

// The records listed as counting nowhere are those of the months shown,
// the same set the months' PENDING adds up: a record pending since before
// the first month (read for the slack) or of a month past the last shown
// is listed nowhere, so the list and the column agree.
func TestStatementListsOnlyTheMonthsShown(t *testing.T) {
	d := func(m time.Month, day int) time.Time { return time.Date(2026, m, day, 12, 0, 0, 0, time.UTC) }
	in := StatementInput{
		Loc: time.UTC, Now: d(11, 21), From: d(9, 1), To: d(10, 1), Credit: 500_000,
		Payments: []api.Invoice{
			rec("aug", "credit", -140_000, d(8, 20), time.Time{}), // pending since August, read for the slack
			rec("sep", "credit", -10_000, d(9, 3), time.Time{}),   // September, shown
			rec("oct", "credit", -20_000, d(10, 3), time.Time{}),  // October, shown
			rec("nov", "credit", -40_000, d(11, 3), time.Time{}),  // November, not shown
			rec("x", "mystery", -1_000, d(11, 4), d(11, 4)),       // November, not shown
			rec("fut", "credit", -5_000, d(12, 30), d(12, 30)),    // the current month's, not shown
			rec("oldx", "mystery", -1_000, d(8, 25), d(8, 25)),    // before the first month
		},
	}
	st := BuildStatement(in)
	var column, list money.Amount
	for _, m := range st.Months {
		column += m.Pending
	}
	var ids []string
	for i := range st.Pending {
		e, _ := Effect(&st.Pending[i])
		list += e
		ids = append(ids, st.Pending[i].ID)
	}
	if column != 30_000 || list != column || strings.Join(ids, ",") != "sep,oct" {
		t.Errorf("PENDING column %v, list %v %v: want both $30.000 (sep, oct)", column, list, ids)
	}
	if len(st.Future) != 0 || len(st.Unknown) != 0 {
		t.Errorf("future %v, unknown %v: records of months not shown", st.Future, st.Unknown)
	}
}

// A month range a statement cannot cover comes back typed, naming which
// end is at fault and why, so that the command names its flag without
// checking the months itself.
func TestStatementMonthsSaysWhich(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	m := func(y int, mo time.Month) time.Time { return time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC) }
	rows := []struct {
		from, to time.Time
		problem  MonthsProblem
		last     bool
	}{
		{m(2026, 12), m(2026, 12), MonthNotBegun, false},
		{m(2026, 10), m(2026, 12), MonthNotBegun, true},
		{m(2026, 12), m(2026, 10), MonthNotBegun, false}, // not begun is said before reversed
		{m(2026, 10), m(2026, 9), MonthsReversed, false},
		{m(2016, 11), m(2026, 1), MonthTooFarBack, false},
	}
	for _, row := range rows {
		err := StatementMonths(row.from, row.to, now, time.UTC)
		var me *MonthsError
		if !errors.As(err, &me) || !errors.Is(err, ErrRange) || me.Problem != row.problem || me.Last != row.last {
			t.Errorf("%s..%s: %#v", row.from.Format("2006-01"), row.to.Format("2006-01"), err)
		}
	}
	err := StatementMonths(m(2016, 11), m(2016, 12), now, time.UTC)
	if me := (*MonthsError)(nil); !errors.As(err, &me) || me.Earliest != m(2016, 12) {
		t.Errorf("the earliest month: %v", err)
	}
	if err := StatementMonths(m(2016, 12), now, now, time.UTC); err != nil {
		t.Errorf("120 months: %v", err)
	}
}
