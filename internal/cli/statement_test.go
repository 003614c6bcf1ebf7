package cli

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
)

// paidRun runs a command against a server paced at threshold on both
// endpoints, the client likewise, with the canary key.
func paidRun(t *testing.T, srv *demoserver.Server, key string, args ...string) result {
	t.Helper()
	res := headlessWith(t, srv, key, func(r *env) {
		r.clientOptions = append(r.clientOptions, api.WithEndpointThreshold(api.InvoicesPath, threshold),
			api.WithTimeout(15*time.Second), api.WithBackoff(2*time.Millisecond, 10*time.Millisecond))
	}, args...)
	if strings.Contains(res.out+res.errOut, "CANARY") {
		t.Fatalf("%v: the key leaked", args)
	}
	return res
}

func paidServer(t *testing.T) *demoserver.Server {
	t.Helper()
	srv := startServer(t, demoserver.Options{Contracts: 1200, InvoicesThreshold: threshold})
	srv.AddKey(canaryKey, "canary", nil)
	return srv
}

// The amount column is the effect on the credit: a top-up positive, a
// refund, a prepay, a transfer sent and a payout negative; the pending
// record says so and the totals line leaves it out.
func TestPaymentsCSVSignsAndStatus(t *testing.T) {
	srv := paidServer(t)
	res := paidRun(t, srv, canaryKey, "payments", "--from", "2025-11-01", "--to", "2026-11-21", "--utc", "--output", "csv")
	res.ok(t)
	rows, err := csv.NewReader(strings.NewReader(res.out)).ReadAll()
	if err != nil || strings.Join(rows[0], ",") != "invoice_id,created,paid,status,type,service,source,description,amount,note" {
		t.Fatalf("%v %v", err, rows[:1])
	}
	truth := map[string]demoserver.Invoice{}
	for _, in := range srv.Invoices() {
		truth[in.ID] = in
	}
	var in, out money.Amount
	pending := 0
	for _, r := range rows[1:] {
		tr, ok := truth[r[0]]
		if !ok {
			t.Fatalf("unknown record %v", r)
		}
		amt, err := money.Parse(r[8])
		if err != nil {
			t.Fatalf("amount %q", r[8])
		}
		want := money.Amount(-tr.Amount)
		if tr.Type == "transfer" || tr.Type == "payout" {
			want = money.Amount(tr.Amount)
		}
		if amt != want {
			t.Errorf("%s %s: amount %v, want %v", tr.Type, tr.ID, amt, want)
		}
		switch {
		case r[3] == "pending":
			pending++
			if r[2] != "" || r[9] == "" || tr.Paid != 0 {
				t.Errorf("pending row %v", r)
			}
		case amt > 0:
			in += amt
		default:
			out -= amt
		}
	}
	if pending != 1 || !strings.Contains(res.errOut, "in "+in.String()+" · out "+out.String()+" · 1 pending") {
		t.Errorf("%d pending; stderr %q, want in %v out %v", pending, res.errOut, in, out)
	}
	// --type keeps only those types.
	res = paidRun(t, srv, canaryKey, "payments", "--from", "2025-11-01", "--utc", "--type", "refund,reserved", "--output", "json")
	res.ok(t)
	var got []paymentRow
	if err := json.Unmarshal([]byte(res.out), &got); err != nil || len(got) != 2 {
		t.Fatalf("%v: %s", err, res.out)
	}
	for _, r := range got {
		if r.Type != "refund" && r.Type != "reserved" || r.Amount == nil || *r.Amount >= 0 {
			t.Errorf("row %+v", r)
		}
	}
}

// The statement's JSON: the months asked for, exact 3-decimal numbers, the
// identity in every month, the current month closing at the credit, the
// reconstruction said; ⌈records/100⌉ + ⌈contracts/500⌉ requests.
func TestStatementJSON(t *testing.T) {
	srv := paidServer(t)
	res := paidRun(t, srv, canaryKey, "statement", "--months", "12", "--utc", "--output", "json")
	res.ok(t)
	var raw struct {
		Reconstructed bool              `json:"reconstructed"`
		Months        []json.RawMessage `json:"months"`
		Pending       []paymentRow      `json:"pending"`
	}
	if err := json.Unmarshal([]byte(res.out), &raw); err != nil {
		t.Fatal(err)
	}
	if !raw.Reconstructed || len(raw.Months) != 12 || len(raw.Pending) != 1 {
		t.Fatalf("reconstructed %v, %d months, %d pending", raw.Reconstructed, len(raw.Months), len(raw.Pending))
	}
	var prevClosing money.Amount
	for i, m := range raw.Months {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(m, &fields); err != nil {
			t.Fatal(err)
		}
		a := map[string]money.Amount{}
		for _, k := range []string{"opening", "money_in", "money_out", "spend", "closing", "pending"} {
			s := string(fields[k])
			if i := strings.IndexByte(s, '.'); i < 0 || len(s)-i != 4 {
				t.Fatalf("%s %s = %s: not 3 decimals", string(fields["month"]), k, s)
			}
			a[k] = parseAmount(t, s)
		}
		if a["opening"] != a["closing"]-a["money_in"]+a["money_out"]+a["spend"] {
			t.Errorf("month %d: identity broken %v", i, a)
		}
		if i > 0 && a["opening"] != prevClosing {
			t.Errorf("month %d opens at %v, the one before closed at %v", i, a["opening"], prevClosing)
		}
		prevClosing = a["closing"]
	}
	if prevClosing != money.Amount(srv.Credit()) {
		t.Errorf("the current month closes at %v, the credit is %v", prevClosing, srv.Credit())
	}
	paging, probes := pagingRequests(srv)
	inv, chg := srv.CountPath(api.InvoicesPath), len(paging)
	if inv != 1 || chg != 3 || len(probes) > 1 || srv.CountStatus(429) != 0 {
		t.Errorf("%d invoices and %d charges requests (%d for the amount rule), %d 429s", inv, chg, len(probes), srv.CountStatus(429))
	}
	if !strings.Contains(res.errOut, "reconstructed") {
		t.Errorf("stderr %q does not say the figures are reconstructed", res.errOut)
	}
}

// Text: an aligned table with the note, said once (it was said on stdout
// and again on stderr); CSV: the JSON's columns, the note on stderr.
func TestStatementTextAndCSV(t *testing.T) {
	srv := paidServer(t)
	res := paidRun(t, srv, canaryKey, "statement", "--from", "2026-09", "--to", "2026-10", "--utc")
	res.ok(t)
	lines := strings.Split(res.out, "\n")
	if !strings.HasPrefix(lines[0], "MONTH") || !strings.HasPrefix(lines[1], "2026-09") || !strings.HasPrefix(lines[2], "2026-10") ||
		!strings.Contains(res.out, "Reconstructed back from the credit") || len(lines[0]) != len(lines[1]) {
		t.Fatalf("text:\n%s", res.out)
	}
	if n := strings.Count(strings.ToLower(res.out+res.errOut), "reconstructed back from the credit"); n != 1 {
		t.Errorf("text says it is reconstructed %d times:\n%s\nstderr:\n%s", n, res.out, res.errOut)
	}
	res = paidRun(t, srv, canaryKey, "statement", "--output", "csv", "--utc")
	res.ok(t)
	if !strings.Contains(res.errOut, "reconstructed back from the credit") {
		t.Errorf("CSV's stderr %q does not say the figures are reconstructed", res.errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(res.out)).ReadAll()
	if err != nil || len(rows) != 4 || strings.Join(rows[0], ",") != "month,opening,money_in,money_out,spend,closing,pending" || rows[3][0] != "2026-11" {
		t.Fatalf("%v %q", err, res.out)
	}
}

// Bad input and failure: usage errors send nothing; success:false shows
// the server's words; a key without billing_read names it; a feed failing
// part-way leaves stdout empty and says which months it could not finish.
func TestStatementFailures(t *testing.T) {
	srv := paidServer(t)
	for _, args := range [][]string{
		{"statement", "--months", "0"}, {"statement", "--from", "2026-13"}, {"statement", "--to", "2026-01"},
		{"statement", "--from", "2026-10", "--to", "2026-09"}, {"statement", "--from", "2027-01"},
		{"statement", "--months", "2", "--from", "2026-01"}, {"payments", "--type", "gift"}, {"payments", "--to", "2026-01-01"},
	} {
		res := paidRun(t, srv, canaryKey, args...)
		if res.code != exitUsage || res.out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, res.code, res.out, res.errOut)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("usage errors sent %d requests", n)
	}
	srv.AddFault(demoserver.Fault{Path: "/api/v1/invoices", Status: 200, Body: `{"success":false,"error":"Invalid date range \u001b[2J"}`})
	res := paidRun(t, srv, canaryKey, "statement", "--utc")
	res.failed(t, exitRuntime, "Invalid date range")
	if strings.ContainsRune(res.errOut, 0x1b) {
		t.Errorf("escape reached stderr: %q", res.errOut)
	}
	srv.ClearFaults()

	res = paidRun(t, srv, demoserver.KeyNoBilling, "statement", "--utc")
	res.failed(t, exitRuntime, "billing_read")
	res = paidRun(t, srv, demoserver.KeyNoBilling, "payments", "--utc")
	res.failed(t, exitRuntime, "billing_read")

	// The charges fail for good: stdout stays empty and the months not
	// complete are named.
	srv.AddFault(demoserver.Fault{Path: "/api/v0/charges", Status: 500, Body: `{"msg":"boom"}`})
	res = paidRun(t, srv, canaryKey, "statement", "--months", "12", "--utc")
	res.failed(t, exitRuntime, "months not complete: 2025-12")
}

// A record of a type vastdash does not know is listed, with a note, and
// counted nowhere: the statement's figures are those without it. It is
// made on 10 November, in a month the statement shows (the lists are of
// the months shown).
func TestStatementListsUnknownTypes(t *testing.T) {
	srv := paidServer(t)
	before := paidRun(t, srv, canaryKey, "statement", "--utc", "--output", "csv")
	before.ok(t)
	srv.AddFault(demoserver.Fault{Path: "/api/v1/invoices", Mutate: func(b []byte) []byte {
		return []byte(strings.Replace(string(b), `"results":[`, `"results":[{"start":1794268800,"end":1794268801,"type":"chargeback",`+
			`"source":"bank","description":"Chargeback \u001b[31mdisputed","amount":75.5,"metadata":{"invoice_id":"cb-1"}},`, 1))
	}})
	res := paidRun(t, srv, canaryKey, "statement", "--utc")
	res.ok(t)
	if !strings.Contains(res.out, "Of a type vastdash does not know, not counted:\n") || !strings.Contains(res.out, "chargeback  bank  Chargeback disputed") ||
		strings.ContainsRune(res.out, 0x1b) {
		t.Fatalf("text:\n%s", res.out)
	}
	after := paidRun(t, srv, canaryKey, "statement", "--utc", "--output", "csv")
	after.ok(t)
	if after.out != before.out {
		t.Errorf("an unknown type changed the figures:\n%s\n%s", before.out, after.out)
	}
	res = paidRun(t, srv, canaryKey, "payments", "--from", "2025-11-01", "--utc", "--output", "json")
	res.ok(t)
	if !strings.Contains(res.out, `"note": "unknown type: not counted"`) || !strings.Contains(res.errOut, "1 record of an unknown type, not counted") {
		t.Errorf("payments: %s\n%s", res.out, res.errOut)
	}
}
