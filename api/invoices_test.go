package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
)

func invoicesQuery() InvoicesQuery {
	return InvoicesQuery{From: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
}

func decodeInv(t *testing.T, body string) (InvoicesPage, error) {
	t.Helper()
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, body) })
	return f.client(t, noEndpointPacing()...).Invoices(context.Background(), invoicesQuery(), "")
}

// Records the program can use are kept; every one it cannot believe is
// skipped and counted, never kept with a guessed value.
func TestInvoicesDecode(t *testing.T) {
	p, err := decodeInv(t, `{"success":true,"count":9,"total":12,"next_token":"n1","results":[
		{"start":1767225600.5,"end":1767225610.0,"type":"credit","source":"stripe","description":"card","amount":-25.0,
		 "metadata":{"invoice_id":"in_1","service":"stripe_payments","last4":"4242"},"items":[]},
		{"start":1767225700,"end":null,"type":"credit","source":"bitpay","description":"btc","amount":-100,"metadata":{"invoice_id":77}},
		{"start":1767225800,"end":1767225800,"type":"chargeback","amount":3.5,"metadata":{"invoice_id":"x"}},
		{"start":"1767225600","amount":-1,"metadata":{"invoice_id":"s"}},
		{"start":1767225600,"amount":-1,"metadata":{}},
		{"start":1767225600,"amount":-1,"metadata":{"invoice_id":""}},
		{"start":99,"amount":-1,"metadata":{"invoice_id":"old"}},
		{"start":1767225600,"end":1e12,"amount":-1,"metadata":{"invoice_id":"far"}},
		{"start":1767225600,"amount":-1e9,"metadata":{"invoice_id":"huge"}},
		{"start":1767225600,"amount":-1,"metadata":{"invoice_id":"meta","pad":"`+strings.Repeat("x", 5000)+`"}},
		null, 7
	]}`)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Results) != 3 || p.Skipped != 9 || p.Total != 12 || p.NextToken != "n1" {
		t.Fatalf("%d kept, %d skipped, total %d, next %q: %+v", len(p.Results), p.Skipped, p.Total, p.NextToken, p.Results)
	}
	a, b, c := p.Results[0], p.Results[1], p.Results[2]
	if a.ID != "in_1" || a.Created != 1767225600 || a.Paid != 1767225610 || a.Amount != -25*money.Dollar ||
		a.Service != "stripe_payments" || a.Type != "credit" || a.Pending() {
		t.Errorf("card: %+v", a)
	}
	if b.ID != "77" || !b.Pending() || b.Amount != -100*money.Dollar {
		t.Errorf("pending: %+v", b)
	}
	if c.Type != "chargeback" || c.Amount != 3500 {
		t.Errorf("unknown type: %+v", c)
	}
}

// A bad range is answered 200 success:false: an error with the server's
// words, never an empty page.
func TestInvoicesSuccessFalse(t *testing.T) {
	_, err := decodeInv(t, `{"success":false,"error":"Invalid date range \u001b[31mnow"}`)
	e := apiErr(t, err, ErrBadRequest)
	if !strings.Contains(e.Error(), "Invalid date range") || strings.ContainsRune(e.Error(), 0x1b) {
		t.Fatalf("error %q", e)
	}
	for _, body := range []string{`{"success":true}`, `{"results":{}}`, `<html>`, `{"results":[],"total":-3}`, `{"results":[],"next_token":5}`} {
		if _, err := decodeInv(t, body); err == nil {
			t.Errorf("%s: no error", body)
		} else {
			apiErr(t, err, ErrMalformed)
		}
	}
}

func TestInvoicesQuery(t *testing.T) {
	q := invoicesQuery()
	q.Services = []string{"transfer", "coinbase", "transfer"}
	v := q.Values("tok")
	if sf := v.Get("select_filters"); sf != `{"when":{"gte":1740787200,"lte":1772366400},"service":{"in":["coinbase","transfer"]}}` {
		t.Errorf("select_filters %s", sf)
	}
	if v.Get("limit") != "100" || v.Get("after_token") != "tok" || v.Get("latest_first") != "true" {
		t.Errorf("values %v", v)
	}
	for _, bad := range []InvoicesQuery{{}, {From: q.To, To: q.From}, {From: q.From, To: q.To, Services: []string{"visa"}}} {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, `{}`) })
		_, err := f.client(t).Invoices(context.Background(), bad, "")
		if apiErr(t, err, ErrUsage); f.count() != 0 {
			t.Fatalf("%+v: sent", bad)
		}
	}
}

// Against the demo: every record of a year once, 100 a page, the range
// required, billing_read enforced, a foreign token refused.
func TestInvoicesDemo(t *testing.T) {
	s, c := demo(t, demoserver.Options{}, demoserver.DemoKey)
	truth := s.Invoices()
	if len(truth) < 20 {
		t.Fatalf("only %d records", len(truth))
	}
	q := InvoicesQuery{From: s.Now().AddDate(-1, 0, -1), To: s.Now(), OldestFirst: true}
	p := c.InvoicePager(q)
	var got []Invoice
	for {
		page, err := p.Next(context.Background())
		if errors.Is(err, ErrPagerDone) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page.Results...)
	}
	if len(got) != len(truth) || p.Total() != len(truth) {
		t.Fatalf("got %d of %d", len(got), len(truth))
	}
	types := map[string]int{}
	pending := 0
	for i, in := range got {
		tr := truth[i]
		if in.ID != tr.ID || in.Created != tr.Created || in.Paid != tr.Paid || int64(in.Amount) != tr.Amount || in.Type != tr.Type {
			t.Fatalf("record %d: %+v, want %+v", i, in, tr)
		}
		types[in.Type]++
		if in.Pending() {
			pending++
		}
	}
	for _, ty := range []string{"credit", "transfer", "refund", "reserved", "payout"} {
		if types[ty] == 0 {
			t.Errorf("no %s record: %v", ty, types)
		}
	}
	if pending != 1 {
		t.Errorf("%d pending", pending)
	}
	// No range: the server says success:false.
	cl := call{method: http.MethodGet, path: InvoicesPath, query: "select_filters=%7B%7D", perm: "billing_read"}
	body, err := c.do(context.Background(), cl)
	if err == nil {
		_, err = c.decodeInvoices(cl.op(), cl.perm, body)
	}
	if e := apiErr(t, err, ErrBadRequest); !strings.Contains(e.Error(), "Invalid date range") {
		t.Fatalf("%v", e)
	}
	_, err = c.Invoices(context.Background(), q, "bm9wZQ==")
	apiErr(t, err, ErrInvalidToken)
	_, nb := demo(t, demoserver.Options{}, demoserver.KeyNoBilling)
	_, err = nb.Invoices(context.Background(), q, "")
	if e := apiErr(t, err, ErrPermission); e.Permission != "billing_read" {
		t.Fatalf("permission %q", e.Permission)
	}
}

// The invoices' 3 s budget is the endpoint's own: charges paced at their
// threshold and invoices at theirs run side by side with zero 429s, and
// neither waits for the other: the whole takes as long as the longer of
// the two, on a fake clock both callers wait on.
func TestInvoicesPacedApartFromCharges(t *testing.T) {
	const thC, thI = time.Second, 3 * time.Second
	clk := demoserver.NewClock(2)
	s, c := demo(t, demoserver.Options{Threshold: thC, InvoicesThreshold: thI, Contracts: 3000, Clock: clk.Now}, demoserver.DemoKey,
		WithChargesThreshold(thC), WithEndpointThreshold(InvoicesPath, thI), WithClock(clk))
	ctx := context.Background()
	var wg sync.WaitGroup
	var errC, errI error
	var nC, nI int
	start := clk.Now()
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer clk.Leave()
		for _, err := range everyEntry(ctx, c.ChargePager(ChargesQuery{From: s.Now().AddDate(-1, 0, 0), To: s.Now(), Limit: MaxLimit})) {
			if err != nil {
				errC = err
				return
			}
			nC++
		}
	}()
	go func() {
		defer wg.Done()
		defer clk.Leave()
		p := c.InvoicePager(InvoicesQuery{From: s.Now().AddDate(-1, 0, -1), To: s.Now()})
		for !p.Done() {
			page, err := p.Next(ctx)
			if err != nil {
				errI = err
				return
			}
			nI += len(page.Results)
		}
	}()
	wg.Wait()
	if errC != nil || errI != nil {
		t.Fatal(errC, errI)
	}
	if n := s.CountStatus(429); n != 0 {
		t.Fatalf("%d 429s", n)
	}
	charges, invoices := s.CountPath(chargesPath), s.CountPath(InvoicesPath)
	if nC != 3000 || nI != len(s.Invoices()) || charges != 6 || invoices != (nI+99)/100 {
		t.Fatalf("charges %d in %d requests, invoices %d in %d", nC, charges, nI, invoices)
	}
	interval := func(th time.Duration) time.Duration { return th + baseMargin(th) }
	if took, want := clk.Since(start), max(5*interval(thC), time.Duration(invoices-1)*interval(thI)); took != want {
		t.Fatalf("both took %v, want the longer of the two, %v", took, want)
	}
}

// FuzzDecodeInvoices: any invoices body gives records within their bounds
// or an *Error, never a panic, never the key.
func FuzzDecodeInvoices(f *testing.F) {
	for _, s := range []string{
		`{"success":true,"total":2,"next_token":"x","results":[{"start":1767225600.5,"end":null,"type":"credit","amount":-25,"metadata":{"invoice_id":"a","service":"bitpay"}}]}`,
		`{"results":[{"start":1767225600,"end":1767225601,"amount":1e30,"metadata":{"invoice_id":1.5}},null,[]],"total":null}`,
		`{"success":false,"error":"Invalid date range fuzz-key"}`, `{"results":[],"total":-1}`, `{}`, `<html>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := fuzzClient(t, body).decodeInvoices("GET x", "billing_read", body)
		checkFuzzErr(t, err)
		if len(p.Results) > maxInvoicesPerPage {
			t.Fatalf("%d records", len(p.Results))
		}
		for _, in := range p.Results {
			if in.ID == "" || len(in.ID) > maxInvoiceIDLen || in.Created < minStartDate || in.Created >= maxInvoiceTime ||
				(in.Paid != 0 && (in.Paid < minStartDate || in.Paid >= maxInvoiceTime)) ||
				in.Amount > MaxInvoiceAmount || in.Amount < -MaxInvoiceAmount ||
				len(in.Description) > maxInvoiceDesc || len(in.Source) > maxSourceLen || len(in.Type) > maxInvoiceType {
				t.Fatalf("out of bounds: %s", fmt.Sprintf("%+v", in))
			}
		}
	})
}

// The invoices pager shares the charges' token trail: a token that comes
// back is a cycle, an error, not an endless loop.
func TestInvoicePagerStopsOnATokenCycle(t *testing.T) {
	rec := `{"start":1767225600,"end":1767225601,"type":"credit","amount":-1,"metadata":{"invoice_id":"%d"}}`
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		next := []string{"a", "b", "a"}[min(n, 2)]
		reply(w, 200, fmt.Sprintf(`{"success":true,"next_token":%q,"results":[`+rec+`]}`, next, n))
	})
	p := f.client(t, noEndpointPacing()...).InvoicePager(invoicesQuery())
	var err error
	for range 5 {
		if _, err = p.Next(context.Background()); err != nil {
			break
		}
	}
	if apiErr(t, err, ErrMalformed); f.count() != 3 || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("%d requests, %v", f.count(), err)
	}
}
