package demoserver

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"strconv"
)

const (
	pathInvoices = "/api/v1/invoices"
	// invoicesDefaultLimit and invoicesMaxLimit: the server's default page
	// and the most it serves (the official CLI never asks for more).
	invoicesDefaultLimit = 60
	invoicesMaxLimit     = 100
	msgInvalidRange      = "Invalid date range"
)

// Invoice is one payment record as the demo serves it, for tests. Amount is
// in thousandths of a dollar in the payer's view (a top-up is negative);
// Paid is 0 while the payment is pending.
type Invoice struct {
	ID          string
	Created     int64
	Paid        int64
	Type        string
	Source      string
	Description string
	Service     string
	Amount      int64
	meta        [][2]string // extra metadata keys, in order
}

// Invoices returns the payment records, oldest first.
func (s *Server) Invoices() []Invoice { return slices.Clone(s.records()) }

// ChangeInvoices replaces the payment records by what change makes of a
// copy of them, as a live server's records change between two runs of a
// client that keeps history: a pending payment paid, an amount corrected,
// a record added or withdrawn. A request in flight finishes on the records
// it began with.
func (s *Server) ChangeInvoices(change func([]Invoice) []Invoice) {
	s.mu.Lock()
	defer s.mu.Unlock()
	recs := change(slices.Clone(s.invoices))
	slices.SortStableFunc(recs, func(a, b Invoice) int { return cmp.Compare(a.Created, b.Created) })
	s.invoices = recs
}

// records is the payment records in force, never changed in place.
func (s *Server) records() []Invoice {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.invoices
}

// monthSpend is the amount of the contracts that started in [from, to).
func (d *dataset) monthSpend(from, to int64) int64 {
	var sum int64
	for i := range d.cs {
		if c := &d.cs[i]; c.start >= from && c.start < to {
			sum += c.amount
		}
	}
	return sum
}

// payments generates a year of payment records of every type: card and
// crypto top-ups that roughly cover each month's spend (so the credit
// reconstructed back from today stays plausible), one crypto top-up still
// pending, transfers both ways, a refund, a reserved-instance prepay and a
// payout. Deterministic in the seed and Now.
func (d *dataset) payments(seed uint64, want int) []Invoice {
	r := &rng{s: seed ^ 0x7061796d656e7473}
	var out []Invoice
	nextID := int64(8_400_000 + r.intn(50_000))
	add := func(in Invoice) {
		nextID += 1 + int64(r.intn(900))
		if in.ID == "" {
			in.ID = strconv.FormatInt(nextID, 10)
		}
		if d.hostile {
			in.Description = hostile(in.Description, nextID)
		}
		out = append(out, in)
	}
	const month = 30 * 86400
	for m := int64(11); m >= 0; m-- {
		from, to := d.now-(m+1)*month, d.now-m*month
		spend := d.monthSpend(from, to)
		// Two to four top-ups, in whole dollars of at least $25.
		n := 2 + r.intn(3)
		for k := range n {
			amt := max(spend/int64(n)/1000*1000, 25_000)
			at := from + int64(k)*month/int64(n) + int64(r.intn(86400))
			if at >= d.now-3600 {
				at = d.now - 7200
			}
			if r.intn(4) == 0 {
				net := [...]string{"ethereum", "bitcoin", "solana"}[r.intn(3)]
				add(Invoice{Created: at, Paid: at + 600 + int64(r.intn(3000)), Type: "credit", Source: "coinbase",
					Description: "Coinbase Commerce payment (" + net + ")", Service: "coinbase", Amount: -amt,
					meta: [][2]string{{"network", net}}})
				continue
			}
			last4 := fmt.Sprintf("%04d", 1000+r.intn(9000))
			add(Invoice{ID: fmt.Sprintf("in_1P%dX%d", nextID, k), Created: at, Paid: at + 2 + int64(r.intn(30)), Type: "credit",
				Source: "stripe", Description: "Card payment (Visa •••• " + last4 + ")", Service: "stripe_payments", Amount: -amt,
				meta: [][2]string{{"last4", last4}}})
		}
	}
	day := int64(86400)
	add(Invoice{Created: d.now - 200*day, Paid: d.now - 200*day, Type: "transfer", Source: "alice@example.com",
		Description: "Transfer from alice@example.com", Service: "transfer", Amount: 50_000,
		meta: [][2]string{{"sender", "alice@example.com"}}})
	add(Invoice{Created: d.now - 95*day, Paid: d.now - 95*day, Type: "transfer", Source: "bob@example.com",
		Description: "Transfer to bob@example.com", Service: "transfer", Amount: -20_000,
		meta: [][2]string{{"recipient", "bob@example.com"}}})
	add(Invoice{Created: d.now - 130*day, Paid: d.now - 129*day, Type: "refund", Source: "stripe",
		Description: "Refund of a duplicate card payment", Service: "stripe_payments", Amount: 10_000})
	add(Invoice{Created: d.now - 60*day, Paid: d.now - 60*day, Type: "reserved", Source: "instance_prepay",
		Description: "Reserved instance prepay: 1x RTX 4090, 30 days", Service: "instance_prepay", Amount: 120_000})
	add(Invoice{Created: d.now - 40*day, Paid: d.now - 38*day, Type: "payout", Source: "wise",
		Description: "Payout to bank account (Wise)", Service: "wise_manual", Amount: -15_000})
	add(Invoice{Created: d.now - 3*3600, Type: "credit", Source: "bitpay",
		Description: "BitPay payment (bitcoin), awaiting confirmation", Service: "bitpay", Amount: -100_000,
		meta: [][2]string{{"network", "bitcoin"}}})
	for k := 0; len(out) < want; k++ {
		at := d.now - 360*day + int64(k)*7919%(359*day)
		add(Invoice{Created: at, Paid: at + 5, Type: "credit", Source: "stripe", Description: "Card payment (auto top-up)",
			Service: "stripe_payments", Amount: -5_000})
	}
	slices.SortStableFunc(out, func(a, b Invoice) int { return cmp.Compare(a.Created, b.Created) })
	return out
}

// invoiceFilter is a parsed select_filters of the invoices endpoint.
type invoiceFilter struct {
	gte, lte int64 // inclusive
	svcOp    string
	svcs     []string
}

func (f invoiceFilter) match(in *Invoice) bool {
	if in.Created < f.gte || in.Created > f.lte {
		return false
	}
	has := slices.Contains(f.svcs, in.Service)
	switch f.svcOp {
	case "eq", "in":
		return has
	case "neq", "notin":
		return !has
	}
	return true
}

// parseInvoiceFilter reads select_filters; ok is false for a missing or
// invalid when range, which the real server answers 200 success:false.
func parseInvoiceFilter(sf string) (f invoiceFilter, ok bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(sf), &top) != nil || top == nil {
		return f, false
	}
	var when map[string]json.RawMessage
	if json.Unmarshal(top["when"], &when) != nil || when == nil {
		return f, false
	}
	var lo, hi bool
	if v, ok := when["gte"]; ok {
		f.gte, lo = parseUnix(v)
	} else if v, ok := when["gt"]; ok {
		f.gte, lo = parseUnix(v)
		f.gte++
	}
	if v, ok := when["lte"]; ok {
		f.lte, hi = parseUnix(v)
	} else if v, ok := when["lt"]; ok {
		f.lte, hi = parseUnix(v)
		f.lte--
	}
	if !lo || !hi || f.gte > f.lte {
		return f, false
	}
	if raw, ok := top["service"]; ok && string(raw) != "null" {
		var sv map[string]json.RawMessage
		if json.Unmarshal(raw, &sv) != nil || len(sv) != 1 {
			return f, false
		}
		for op, v := range sv {
			f.svcOp = op
			switch op {
			case "eq", "neq":
				var s string
				if json.Unmarshal(v, &s) != nil {
					return f, false
				}
				f.svcs = []string{s}
			case "in", "notin":
				if json.Unmarshal(v, &f.svcs) != nil {
					return f, false
				}
			default:
				return f, false
			}
		}
	}
	return f, true
}

type invoiceCursor struct {
	V   int    `json:"v"`
	Off int    `json:"off"`
	Q   uint64 `json:"q"` // hash of the filters and order the token belongs to
}

// serveInvoices answers GET /api/v1/invoices/: select_filters with a
// required when range (else 200 success:false "Invalid date range", as the
// real server does), optional service filter, latest_first (default true),
// limit 1..100 (default 60), after_token valid only with the filters it
// came from (else 400 invalid_token). Paced on its own budget.
func (s *Server) serveInvoices(w http.ResponseWriter, r *http.Request, _ string, ki *keyInfo, _ []byte) {
	if th := s.opts.InvoicesThreshold; !s.paceEndpoint(ki, pathInvoices, th) {
		s.write429(w, th)
		return
	}
	q := r.URL.Query()
	f, ok := parseInvoiceFilter(q.Get("select_filters"))
	if !ok {
		writeJSON(w, http.StatusOK, []byte(`{"success":false,"error":"`+msgInvalidRange+`"}`))
		return
	}
	latest, ok := queryLatestFirst(w, q)
	if !ok {
		return
	}
	limit, ok := queryLimit(w, q, invoicesDefaultLimit, invoicesMaxLimit)
	if !ok {
		return
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(q.Get("select_filters") + "|" + strconv.FormatBool(latest)))
	qh := h.Sum64()
	off := 0
	if tok := q.Get("after_token"); tok != "" {
		raw, err := base64.StdEncoding.DecodeString(tok)
		var cur invoiceCursor
		if err != nil || json.Unmarshal(raw, &cur) != nil || cur.V != 1 || cur.Q != qh || cur.Off < 0 {
			writeError(w, http.StatusBadRequest, "invalid_token", "Invalid pagination token.")
			return
		}
		off = cur.Off
	}
	var sel []*Invoice
	recs := s.records()
	for i := range recs {
		if f.match(&recs[i]) {
			sel = append(sel, &recs[i])
		}
	}
	if latest {
		slices.Reverse(sel)
	}
	off = min(off, len(sel))
	end := min(off+limit, len(sel))
	b := []byte(`{"success":true,"count":`)
	b = strconv.AppendInt(b, int64(end-off), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(len(sel)), 10)
	b = append(b, `,"next_token":`...)
	if end < len(sel) {
		t, _ := json.Marshal(invoiceCursor{V: 1, Off: end, Q: qh})
		b = appendString(b, base64.StdEncoding.EncodeToString(t))
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"results":[`...)
	for i, in := range sel[off:end] {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendInvoice(b, in)
	}
	writeJSON(w, http.StatusOK, append(b, "]}"...))
}

// appendInvoice writes one record as the real endpoint does: times as
// floats, end null while unpaid, amount in dollars, items always empty.
func appendInvoice(b []byte, in *Invoice) []byte {
	b = append(b, `{"start":`...)
	b = strconv.AppendInt(b, in.Created, 10)
	b = append(b, `.0,"end":`...)
	if in.Paid == 0 {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, in.Paid, 10)
		b = append(b, ".0"...)
	}
	b = append(b, `,"type":`...)
	b = appendString(b, in.Type)
	b = append(b, `,"source":`...)
	b = appendString(b, in.Source)
	b = append(b, `,"description":`...)
	b = appendString(b, in.Description)
	b = append(b, `,"amount":`...)
	b = appendAmount(b, in.Amount)
	b = append(b, `,"metadata":{"invoice_id":`...)
	b = appendString(b, in.ID)
	b = append(b, `,"service":`...)
	b = appendString(b, in.Service)
	for _, kv := range in.meta {
		b = append(b, ',')
		b = appendString(b, kv[0])
		b = append(b, ':')
		b = appendString(b, kv[1])
	}
	return append(b, `},"items":[]}`...)
}

// CountPath counts the recorded requests to path (with or without the
// trailing slash), e.g. "/api/v1/invoices".
func (s *Server) CountPath(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.reqs {
		if normPath(r.Path) == normPath(path) {
			n++
		}
	}
	return n
}

// InvoicesPage is a whole one-page answer of the invoices endpoint holding
// recs, written as the real endpoint writes them, then raw: records as JSON
// text, for a test's broken ones. It is a [Fault]'s Body for a server that
// answers the same records whatever the query.
func InvoicesPage(recs []Invoice, raw ...string) string {
	n := strconv.Itoa(len(recs) + len(raw))
	b := []byte(`{"success":true,"count":` + n + `,"total":` + n + `,"next_token":null,"results":[`)
	for i := range recs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendInvoice(b, &recs[i])
	}
	for i, r := range raw {
		if i > 0 || len(recs) > 0 {
			b = append(b, ',')
		}
		b = append(b, r...)
	}
	return string(append(b, "]}"...))
}

// BrokenInvoices are three records made at unix time at that no client
// may count, as raw JSON for [InvoicesPage]: an amount "abc", no
// invoice_id, and one paid in the year 5138.
func BrokenInvoices(at int64) []string {
	t := strconv.FormatInt(at, 10) + ".0"
	return []string{
		`{"start":` + t + `,"end":` + t + `,"type":"credit","amount":"abc","metadata":{"invoice_id":"abc"}}`,
		`{"start":` + t + `,"end":` + t + `,"type":"credit","amount":-5.0,"metadata":{}}`,
		`{"start":` + t + `,"end":1e11,"type":"credit","amount":-7.0,"metadata":{"invoice_id":"5138"}}`,
	}
}
