package api

import (
	"context"
	"encoding/json"
	"hash/maphash"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vastdash/vastdash/money"
)

// InvoicesPath is GET /api/v1/invoices/: the account's payment records
// (top-ups, transfers, refunds, prepays, payouts).
const InvoicesPath = "/api/v1/invoices/"

// DefaultInvoicesThreshold is the documented minimum interval between
// invoices requests of one key, on a budget of its own (api-notes).
const DefaultInvoicesThreshold = 3 * time.Second

// InvoicesLimit is the page size asked for: the most the official CLI ever
// asks for.
const InvoicesLimit = 100

// Invoice bounds. A record outside them is skipped and counted, like a
// record with a field of the wrong type.
const (
	// maxInvoiceTime is 2100-01-01: a payment a century ahead is a broken
	// server, and minStartDate (2015) bounds the other end.
	maxInvoiceTime = 4_102_444_800
	// MaxInvoiceAmount is the largest plausible amount of one record,
	// either sign: $100 million.
	MaxInvoiceAmount = money.Amount(100_000_000_000)
	maxInvoiceIDLen  = 64
	maxServiceLen    = 32
	maxInvoiceType   = 32
	maxSourceLen     = 256
	maxInvoiceDesc   = 512
	// maxMetadataBytes bounds one record's metadata object: the documented
	// keys take a few dozen bytes; kilobytes of it are not a payment.
	maxMetadataBytes = 4096
	// maxInvoicesPerPage bounds the entries taken from one page; the rest
	// are counted as skipped.
	maxInvoicesPerPage = MaxLimit
)

// InvoiceServices are the services select_filters may name.
var InvoiceServices = []string{"transfer", "stripe_payments", "bitpay", "coinbase", "crypto.com",
	"instance_prepay", "paypal_manual", "wise_manual"}

// Invoice is one payment record as the server sent it (bounded, not yet
// sanitized: display sanitizing is the front ends' job, as for charges).
type Invoice struct {
	ID      string // metadata.invoice_id
	Created int64  // start: unix seconds
	Paid    int64  // end: unix seconds; 0 while the payment is pending
	// Type is credit, transfer, payout, refund, reserved, or something the
	// program does not know.
	Type        string
	Source      string // stripe, coinbase, … or the other party's e-mail
	Description string
	Service     string // metadata.service; "" when absent
	// Amount is in the payer's view, as sent: a $25 top-up is -25.000.
	// billing.Effect turns it into the effect on the credit.
	Amount money.Amount
}

// Pending reports a record with no payment time yet.
func (in Invoice) Pending() bool { return in.Paid == 0 }

// InvoicesQuery is a set of invoices filters.
type InvoicesQuery struct {
	From, To time.Time // when gte / lte, matched against the creation time
	// Services keeps only these services (select_filters service in);
	// empty: every one.
	Services    []string
	OldestFirst bool // latest_first=false
}

const invoicesOp = http.MethodGet + " " + InvoicesPath

// Validate reports a query vastdash must not send as ErrUsage: the range is
// required (the server answers 200 success:false without one) and must not
// be reversed; services must be known.
func (q InvoicesQuery) Validate() error {
	switch {
	case q.From.IsZero() || q.To.IsZero():
		return usageErr(invoicesOp, "the date range needs both a start and an end")
	case q.From.After(q.To):
		return usageErr(invoicesOp, "the date range starts after it ends")
	}
	for _, s := range q.Services {
		if !slices.Contains(InvoiceServices, s) {
			return usageErr(invoicesOp, "unknown payment service "+strconv.Quote(s))
		}
	}
	return nil
}

// SelectFilters is {"when":{"gte":…,"lte":…}} plus "service":{"in":[…]}.
func (q InvoicesQuery) SelectFilters() string {
	var b strings.Builder
	writeRangeFilter(&b, "when", q.From, q.To)
	if len(q.Services) > 0 {
		s := slices.Clone(q.Services)
		slices.Sort(s)
		s = slices.Compact(s)
		b.WriteString(`,"service":{"in":[`)
		for i, v := range s {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(v))
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`}`)
	return b.String()
}

// Values are the query parameters for q and afterToken.
func (q InvoicesQuery) Values(afterToken string) url.Values {
	return pageValues(q.SelectFilters(), q.OldestFirst, InvoicesLimit, afterToken)
}

// Invoices fetches one page (100) of payment records for q after
// afterToken. Needs billing_read; paced 3 s apart on the endpoint's own
// budget (WithEndpointThreshold), independent of the charges' pacing. A
// 200 whose body says success:false (the server's answer to a bad range)
// is an *Error of kind ErrBadRequest carrying the server's words.
func (c *Client) Invoices(ctx context.Context, q InvoicesQuery, afterToken string) (InvoicesPage, error) {
	if err := q.Validate(); err != nil {
		return InvoicesPage{}, err
	}
	cl := call{
		method: http.MethodGet,
		path:   InvoicesPath,
		query:  q.Values(afterToken).Encode(),
		perm:   "billing_read",
		pacer:  c.endpointPacer(InvoicesPath),
	}
	return doDecode(ctx, c, cl, c.decodeInvoices)
}

// wireInvoice is one record as sent.
type wireInvoice struct {
	Start       *float64        `json:"start"`
	End         *float64        `json:"end"`
	Type        *string         `json:"type"`
	Source      *string         `json:"source"`
	Description *string         `json:"description"`
	Amount      *money.Amount   `json:"amount"`
	Meta        json.RawMessage `json:"metadata"`
}

// decodeInvoices decodes the charges-shaped envelope {success, count,
// total, next_token, results}. Each record is decoded on its own, so one
// bad record costs only itself: Skipped counts records dropped for a field
// of the wrong type, a missing invoice_id or a value out of bounds, and
// records beyond 500 in one page.
func (c *Client) decodeInvoices(op, perm string, body []byte) (InvoicesPage, error) {
	var env struct {
		Success   json.RawMessage `json:"success"`
		Results   json.RawMessage `json:"results"`
		NextToken json.RawMessage `json:"next_token"`
		Total     json.RawMessage `json:"total"`
	}
	if err := decodeEnvelope(op, body, &env); err != nil {
		return InvoicesPage{}, err
	}
	if e := c.refusedOK(op, perm, env.Success, body); e != nil {
		if e.Msg == "" {
			// {"success": false, "error": "Invalid date range"}: this
			// endpoint puts its words where others put a code.
			e.Msg = e.Code
		}
		return InvoicesPage{}, e
	}
	p := InvoicesPage{}
	var err error
	if p.Results, p.Skipped, err = decodeList(op, env.Results, "results", maxInvoicesPerPage, invoice); err != nil {
		return InvoicesPage{}, err
	}
	if p.NextToken, p.Total, err = listHeader(op, env.NextToken, env.Total, "total"); err != nil {
		return InvoicesPage{}, err
	}
	return p, nil
}

// invoiceTime converts a time in float seconds; ok is false outside
// 2015..2100.
func invoiceTime(f float64) (int64, bool) {
	if f < minStartDate || f >= maxInvoiceTime {
		return 0, false
	}
	return int64(f), true
}

// invoice converts one record; ok is false when it must be skipped.
func invoice(raw json.RawMessage) (Invoice, bool) {
	var w wireInvoice
	if raw[0] != '{' || json.Unmarshal(raw, &w) != nil || w.Start == nil || w.Amount == nil {
		return Invoice{}, false
	}
	if len(w.Meta) > maxMetadataBytes || len(w.Meta) == 0 || w.Meta[0] != '{' {
		return Invoice{}, false
	}
	var meta struct {
		ID      json.RawMessage `json:"invoice_id"`
		Service *string         `json:"service"`
	}
	if json.Unmarshal(w.Meta, &meta) != nil {
		return Invoice{}, false
	}
	id, ok := invoiceID(meta.ID)
	if !ok {
		return Invoice{}, false
	}
	if a := *w.Amount; a > MaxInvoiceAmount || a < -MaxInvoiceAmount {
		return Invoice{}, false
	}
	in := Invoice{
		ID:          id,
		Type:        cutString(deref(w.Type), maxInvoiceType),
		Source:      cutString(deref(w.Source), maxSourceLen),
		Description: cutString(deref(w.Description), maxInvoiceDesc),
		Service:     cutString(deref(meta.Service), maxServiceLen),
		Amount:      *w.Amount,
	}
	if in.Created, ok = invoiceTime(*w.Start); !ok {
		return Invoice{}, false
	}
	if w.End != nil {
		if in.Paid, ok = invoiceTime(*w.End); !ok {
			return Invoice{}, false
		}
	}
	return in, true
}

// invoiceID reads invoice_id, a string or an integer; "" or anything else
// (or longer than 64 bytes) is no id.
func invoiceID(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || isNull(raw) {
		return "", false
	}
	var s string
	if raw[0] == '"' {
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
	} else {
		var n wireID
		if json.Unmarshal(raw, &n) != nil {
			return "", false
		}
		s = strconv.FormatInt(int64(n), 10)
	}
	if s == "" || len(s) > maxInvoiceIDLen {
		return "", false
	}
	return s, true
}

// InvoicePager starts paging the payment records of q (100 a page). An
// invalid q makes the first Next fail with ErrUsage.
func (c *Client) InvoicePager(q InvoicesQuery) *Pager[Invoice] {
	q.Services = slices.Clone(q.Services)
	key := func(h *maphash.Hash, in *Invoice) { h.WriteString(in.ID) }
	return newPager(invoicesOp, InvoicesLimit, key, func(ctx context.Context, token string) (InvoicesPage, error) {
		return c.Invoices(ctx, q, token)
	})
}
