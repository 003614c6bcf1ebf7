package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
)

// The tests of issue 27's payment and statement figures: each serves the
// hostile or unusual answer the issue describes and checks that no figure
// is printed as sure when it is not.

// inv is a paid top-up of amount (thousandths, the payer's sign) as the
// demo server writes it; paid zero is pending.
func inv(id string, created, paid time.Time, amount int64) demoserver.Invoice {
	in := demoserver.Invoice{ID: id, Created: created.Unix(), Type: "credit", Source: "stripe", Service: "stripe_payments", Amount: amount}
	if !paid.IsZero() {
		in.Paid = paid.Unix()
	}
	return in
}

// invoicesServer is a demo server (credit, charges) whose invoices
// endpoint answers body, whatever the query: a hostile server.
func invoicesServer(t *testing.T, o demoserver.Options, body string) *demoserver.Server {
	t.Helper()
	o.InvoicesThreshold = threshold
	srv := startServer(t, o)
	srv.AddFault(demoserver.Fault{Path: "/api/v1/invoices", Status: 200, Body: body})
	return srv
}

func statementJSONOf(t *testing.T, res result) statementJSON {
	t.Helper()
	res.ok(t)
	var st statementJSON
	if err := json.Unmarshal([]byte(res.out), &st); err != nil {
		t.Fatalf("%v: %s", err, res.out)
	}
	return st
}

// Item 1: in Asunción clocks jump from 00:00 to 01:00 on 1 October 2023.
// September to November is September, October and November, each once;
// October alone is October.
func TestStatementAcrossAMidnightThatDoesNotExist(t *testing.T) {
	loc, err := time.LoadLocation("America/Asuncion")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2023, 11, 20, 12, 0, 0, 0, loc)
	srv := startServer(t, demoserver.Options{Contracts: 200, Now: now, InvoicesThreshold: threshold})
	zone := func(args ...string) string {
		res := headlessWith(t, srv, demoserver.DemoKey, func(e *env) {
			withTimezone(t, "America/Asuncion")(e)
			e.clientOptions = append(e.clientOptions, api.WithEndpointThreshold(api.InvoicesPath, threshold))
		}, append([]string{"statement", "--output", "csv"}, args...)...)
		res.ok(t)
		rows, err := csv.NewReader(strings.NewReader(res.out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		var ms []string
		for _, r := range rows[1:] {
			ms = append(ms, r[0])
		}
		return strings.Join(ms, " ")
	}
	if got := zone("--from", "2023-09", "--to", "2023-11"); got != "2023-09 2023-10 2023-11" {
		t.Errorf("--from 2023-09 --to 2023-11 in Asunción: months %q", got)
	}
	if got := zone("--from", "2023-10", "--to", "2023-10"); got != "2023-10" {
		t.Errorf("--from 2023-10 --to 2023-10 in Asunción: months %q", got)
	}
	if got := zone("--months", "3"); got != "2023-09 2023-10 2023-11" {
		t.Errorf("--months 3 in Asunción: months %q", got)
	}
}

// Item 4: of four records, three are malformed (an amount "abc", no id,
// paid in the year 5138). payments and statement both say so on stderr,
// and the statement's JSON carries the warning.
func TestStatementSaysWhatItSkipped(t *testing.T) {
	at := demoNow.Add(-48 * time.Hour)
	body := demoserver.InvoicesPage([]demoserver.Invoice{inv("good", at, at, -25_000)}, demoserver.BrokenInvoices(at.Unix())...)
	srv := invoicesServer(t, demoserver.Options{Contracts: 50}, body)
	for _, args := range [][]string{{"payments", "--utc"}, {"statement", "--months", "1", "--utc"}} {
		res := paidRun(t, srv, demoserver.DemoKey, args...)
		res.ok(t)
		if !strings.Contains(res.errOut, "vastdash: 3 malformed entries skipped") {
			t.Errorf("%v: stderr %q says nothing of the three records skipped", args, res.errOut)
		}
	}
	st := statementJSONOf(t, paidRun(t, srv, demoserver.DemoKey, "statement", "--months", "1", "--utc", "--output", "json"))
	if len(st.Warnings) != 1 || !strings.HasPrefix(st.Warnings[0], "3 malformed entries skipped") {
		t.Errorf("JSON warnings %q", st.Warnings)
	}
}

// Item 5: a top-up created 11 days before the 1st and confirmed this month,
// and one paid before it was created. This month reads the same whether
// one, two or three months are asked for.
func TestStatementMonthDoesNotDependOnTheSpan(t *testing.T) {
	first := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	srv := startServer(t, demoserver.Options{Contracts: 50, InvoicesThreshold: threshold, Invoices: []demoserver.Invoice{
		inv("late", first.AddDate(0, 0, -11), first.AddDate(0, 0, 2), -70_000),
		inv("early", first.AddDate(0, 0, 5), first.AddDate(0, 0, 4), -30_000),
	}})
	var last monthJSON
	for n := 1; n <= 3; n++ {
		st := statementJSONOf(t, paidRun(t, srv, demoserver.DemoKey, "statement", "--months", fmt.Sprint(n), "--utc", "--output", "json"))
		nov := st.Months[len(st.Months)-1]
		if nov.Month != "2026-11" || nov.MoneyIn != 100_000 {
			t.Errorf("--months %d: %s money in %v, want $100.000 (both top-ups paid in November)", n, nov.Month, nov.MoneyIn)
		}
		if n > 1 && nov != last {
			t.Errorf("--months %d reads November %+v, --months %d %+v", n, nov, n-1, last)
		}
		last = nov
	}
}

// Item 6: three top-ups of $1.005. The rows and the totals are at one
// precision, so the rows add up to the totals: payments' "in", the
// statement's pending.
func TestPaymentRowsAddUpToTheTotals(t *testing.T) {
	at := demoNow.Add(-24 * time.Hour)
	var recs []demoserver.Invoice
	for i := range 3 {
		recs = append(recs, inv(fmt.Sprint("paid", i), at, at, -1_005), inv(fmt.Sprint("pending", i), at, time.Time{}, -2_005))
	}
	srv := startServer(t, demoserver.Options{Contracts: 50, InvoicesThreshold: threshold, Invoices: recs})
	res := paidRun(t, srv, demoserver.DemoKey, "payments", "--utc", "--output", "csv")
	res.ok(t)
	rows, err := csv.NewReader(strings.NewReader(res.out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var in, pending money.Amount
	for _, r := range rows[1:] {
		a := parseAmount(t, r[8])
		if r[3] == "pending" {
			pending += a
		} else {
			in += a
		}
	}
	if in != 3_015 || !strings.Contains(res.errOut, "in "+in.String()+" ·") || !strings.Contains(res.errOut, "3 pending ("+pending.String()+", not counted)") {
		t.Errorf("rows: in %v, pending %v; totals %q", in, pending, res.errOut)
	}
	st := statementJSONOf(t, paidRun(t, srv, demoserver.DemoKey, "statement", "--months", "1", "--utc", "--output", "json"))
	var rowsPending money.Amount
	for _, r := range st.Pending {
		rowsPending += *r.Amount
	}
	if nov := st.Months[0]; nov.Pending != rowsPending || nov.MoneyIn != in {
		t.Errorf("statement: pending %v, its rows %v; in %v, payments' rows %v", nov.Pending, rowsPending, nov.MoneyIn, in)
	}
	text := paidRun(t, srv, demoserver.DemoKey, "statement", "--months", "1", "--utc")
	text.ok(t)
	if strings.Count(text.out, "  2.005\n") != 3 || !strings.Contains(text.out, "$6.015") {
		t.Errorf("statement text: pending rows and total at different precisions:\n%s", text.out)
	}
}

// Item 7: a record created and paid 40 days from now, and one created
// yesterday but paid 40 days ahead. Neither counts; both are listed,
// flagged, by payments and by the statement.
func TestPaymentsDatedInTheFutureDoNotCount(t *testing.T) {
	ahead, yesterday := demoNow.Add(40*24*time.Hour), demoNow.Add(-24*time.Hour)
	body := demoserver.InvoicesPage([]demoserver.Invoice{
		inv("ahead", ahead, ahead, -400_000), inv("paid-ahead", yesterday, ahead, -410_000), inv("now", yesterday, yesterday, -1_000)})
	srv := invoicesServer(t, demoserver.Options{Contracts: 50}, body)
	res := paidRun(t, srv, demoserver.DemoKey, "payments", "--utc", "--output", "json")
	res.ok(t)
	var rows []paymentRow
	if err := json.Unmarshal([]byte(res.out), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("%v: %s", err, res.out)
	}
	flagged := 0
	for _, r := range rows {
		if r.Note == "dated in the future: not counted" {
			flagged++
		}
	}
	if flagged != 2 || !strings.Contains(res.errOut, "in $1.000 ·") || !strings.Contains(res.errOut, "2 dated in the future ($810.000, not counted)") {
		t.Errorf("%d flagged; totals %q", flagged, res.errOut)
	}
	st := statementJSONOf(t, paidRun(t, srv, demoserver.DemoKey, "statement", "--months", "1", "--utc", "--output", "json"))
	if nov := st.Months[0]; nov.MoneyIn != 1_000 || len(st.Future) != 2 || nov.Closing != money.Amount(srv.Credit()) {
		t.Errorf("statement: in %v, %d future records, closing %v", nov.MoneyIn, len(st.Future), nov.Closing)
	}
	text := paidRun(t, srv, demoserver.DemoKey, "statement", "--months", "1", "--utc")
	text.ok(t)
	if !strings.Contains(text.out, "Dated in the future, not counted:") || !strings.Contains(text.out, "-410.000") && !strings.Contains(text.out, "410.000") {
		t.Errorf("statement text lists no future records:\n%s", text.out)
	}
}

// Item 2: a grouping by day from 2015-01-01 answered an empty list, exit
// 0, its days past the first 3,660 dropped. It is refused with the limit,
// exit 2, before any request; ten years by day answer every day that has
// spend, the last one included.
func TestGroupByDayNeverAnswersEmpty(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 40})
	res := headless(t, srv, demoserver.DemoKey, "charges", "--from", "2015-01-01", "--group-by", "day", "--utc", "--output", "json")
	res.failed(t, exitUsage, "a grouping by day covers at most 3,660 days (ten years); 2015-01-01 to 2026-11-21 is 4,343 days")
	if n := len(chargesRequests(srv)); n != 0 {
		t.Errorf("%d charges requests before the refusal", n)
	}
	from := demoNow.AddDate(0, 0, -3659).Format(time.DateOnly)
	res = headless(t, srv, demoserver.DemoKey, "charges", "--from", from, "--group-by", "day", "--utc", "--output", "json")
	res.ok(t)
	var got struct {
		Groups []groupJSON  `json:"groups"`
		Total  money.Amount `json:"total"`
	}
	if err := json.Unmarshal([]byte(res.out), &got); err != nil || len(got.Groups) == 0 || got.Groups[len(got.Groups)-1].Group != "2026-11-21" || got.Total <= 0 {
		t.Fatalf("%v: %s", err, res.out)
	}
}

// Item 8: an account record with "credit": null, or no credit field. The
// credit is not $0.00: credit fails naming the field (text and JSON), and
// statement, which runs back from the credit, fails too.
func TestNoCreditIsAnError(t *testing.T) {
	for _, null := range []bool{true, false} {
		srv := startServer(t, demoserver.Options{Contracts: 20, InvoicesThreshold: threshold})
		srv.AddFault(demoserver.DropCredit(null))
		for _, args := range [][]string{{"credit"}, {"credit", "--json"}, {"credit", "--runway", "--rate"}} {
			headless(t, srv, demoserver.DemoKey, args...).failed(t, exitRuntime, `the account record holds no credit figure (field "credit")`)
		}
		paidRun(t, srv, demoserver.DemoKey, "statement", "--months", "1").failed(t, exitRuntime, `credit: the account record holds no credit figure (field "credit")`)
	}
}

// Item 9, the threshold: a PUT the server applied and a gateway answered
// 502 with an HTML page. The account is read again and printed; the change
// took, so the answer is whole (exit 0) and stderr says the answer was
// lost.
func TestThresholdSaveAnswered502IsReadAgain(t *testing.T) {
	srv := alertServer(t)
	srv.AddFault(demoserver.Fault{Method: "PUT", Path: "/api/v0/users", Applied: true, Status: 502, ContentType: "text/html", Body: "<html>502 Bad Gateway</html>"})
	res := headless(t, srv, demoserver.DemoKey, "notifications", "--threshold", "25")
	if res.code != exitOK || res.out != "low-balance threshold: $25.00, enabled\n" ||
		!strings.Contains(res.errOut, "the threshold save's answer was lost") || !strings.Contains(res.errOut, "(HTTP 502)") ||
		!strings.Contains(res.errOut, "read again, the server holds it: saved") {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.out, res.errOut)
	}
}

// Item 10: --threshold with switches. Switches the server refuses (400)
// after the threshold was saved: exit 1, the threshold printed as the
// server holds it, and the line says the threshold was saved and the
// switches were not. A switch refused before any write saves nothing.
func TestThresholdAndSwitchesBothOrNeither(t *testing.T) {
	srv := alertServer(t)
	res := headless(t, srv, demoserver.DemoKey, "notifications", "--threshold", "25", "--set", "client.instance_outbd.email=off")
	res.failed(t, exitRuntime, "hold no switch client.instance_outbd.email")
	if puts := putsTo(srv, "/"); len(puts) != 0 {
		t.Fatalf("a switch that cannot be saved, yet %d PUTs", len(puts))
	}
	if th, _ := srv.BalanceThreshold(); th != 50_000 {
		t.Fatalf("the threshold changed to %d", th)
	}

	srv.AddFault(demoserver.Fault{Method: "PUT", Path: fmt.Sprintf("/api/v0/users/%d/notification-prefs", srv.UserID()), Status: 400,
		Body: `{"success":false,"error":"bad_request","msg":"webhooks are not set up"}`})
	res = headless(t, srv, demoserver.DemoKey, "notifications", "--threshold", "25", "--webhooks", "on")
	if res.code != exitRuntime || res.out != "low-balance threshold: $25.00, enabled\n" ||
		!strings.Contains(res.errOut, "the low-balance threshold ($25.00, enabled) was saved; the switches were not: ") ||
		!strings.Contains(res.errOut, "webhooks are not set up") || strings.Count(res.errOut, "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.code, res.out, res.errOut)
	}
	if th, _ := srv.BalanceThreshold(); th != 25_000 {
		t.Fatalf("the server holds %d", th)
	}
}
