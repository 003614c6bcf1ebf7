package billing

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// PaymentsFeed loads the payment records of one query on the same machinery
// as the charges feed (pager, pacing, restart on a refused token, 429
// waits, progress, cancellation); a repeated invoice_id is dropped and
// counted in Duplicates.
type PaymentsFeed = feed[api.InvoicesQuery, api.Invoice]

// withPaymentPages makes payments feeds page through fn instead of the
// client (tests).
func withPaymentPages(fn func(api.InvoicesQuery) Source[api.Invoice]) Option {
	return func(s *Service) { s.payPages = fn }
}

// PaymentsFeed returns the shared feed of q's payment records; call Release
// when done.
func (s *Service) PaymentsFeed(q api.InvoicesQuery) *PaymentsFeed {
	return shareFeed(s, paymentRules, q, false)
}

// FreshPaymentsFeed is PaymentsFeed for a reload, from the first page.
func (s *Service) FreshPaymentsFeed(q api.InvoicesQuery) *PaymentsFeed {
	return shareFeed(s, paymentRules, q, true)
}

var paymentRules = &entryRules[api.InvoicesQuery, api.Invoice]{
	name: "payments",
	key: func(q api.InvoicesQuery) string {
		return strconv.FormatInt(q.From.Unix(), 10) + "|" + strconv.FormatInt(q.To.Unix(), 10) + "|" +
			strings.Join(q.Services, ",") + "|" + strconv.FormatBool(q.OldestFirst)
	},
	limit: func(api.InvoicesQuery) int { return api.InvoicesLimit },
	pager: func(s *Service, q api.InvoicesQuery) Source[api.Invoice] {
		return source(s, s.payPages, (*api.Client).InvoicePager, q)
	},
	// The wire layer bounds every value of a record (times, amount, id,
	// strings); nothing more to check here.
	check:   func(*api.Invoice) error { return nil },
	id:      func(in *api.Invoice) string { return in.ID },
	count:   func(*api.Invoice) int { return 1 },
	amount:  counted,
	records: true,
	ledger:  paymentsLedgerFor,
}

// PaymentTypes are the record types the program knows, as `--type` takes
// them.
var PaymentTypes = []string{"credit", "transfer", "refund", "reserved", "payout"}

// Effect is a record's effect on the credit, and whether it counts at all.
// The server signs amounts from the payer's side: a paid top-up (credit) is
// negative and adds to the credit; a refund or a reserved-instance prepay
// is positive and takes away; transfers and payouts are already signed from
// the account's side. A pending record (no payment time) and a type the
// program does not know count nowhere: their would-be effect is returned
// with counted false, so they can be listed.
func Effect(in *api.Invoice) (effect money.Amount, counted bool) {
	switch in.Type {
	case "credit", "refund", "reserved":
		effect = -in.Amount // bounded to ±$100M by the decoder: cannot overflow
	case "transfer", "payout":
		effect = in.Amount
	default:
		return 0, false
	}
	return effect, !in.Pending()
}

// counted is a record's effect when it counts, else 0.
func counted(in *api.Invoice) money.Amount {
	if e, ok := Effect(in); ok {
		return e
	}
	return 0
}

// PaymentTotals sums records by the effect rules: what came in, what went
// out (positive), and what counts nowhere.
type PaymentTotals struct {
	Records  int
	In, Out  money.Amount
	Pending  money.Amount // the would-be effect of pending records
	Pendings int
	Unknown  int // records of a type the program does not know
}

// TotalPayments sums recs by the effect rules.
func TotalPayments(recs []api.Invoice) PaymentTotals {
	var t PaymentTotals
	for i := range recs {
		t.Add(&recs[i])
	}
	return t
}

// Add counts one record.
func (t *PaymentTotals) Add(in *api.Invoice) {
	t.Records++
	e, ok := Effect(in)
	switch {
	case !knownType(in.Type):
		t.Unknown++
	case !ok:
		t.Pending += e
		t.Pendings++
	case e >= 0:
		t.In += e
	default:
		t.Out -= e
	}
}

// PaymentStatus is "paid" or "pending".
func PaymentStatus(in *api.Invoice) string {
	if in.Pending() {
		return "pending"
	}
	return "paid"
}

// PaymentNote says why a record is not counted ("" when it is).
func PaymentNote(in *api.Invoice) string {
	switch _, counted := Effect(in); {
	case counted:
		return ""
	case !knownType(in.Type):
		return "unknown type: not counted"
	default:
		return "pending: counted once paid"
	}
}

func knownType(t string) bool {
	return slices.Contains(PaymentTypes, t)
}

// CheckPaymentTypes refuses a `--type` value the program does not know.
func CheckPaymentTypes(types []string) error {
	for _, t := range types {
		if !knownType(t) {
			return errors.New("unknown payment type " + strconv.Quote(t) + " (credit, transfer, refund, reserved, payout)")
		}
	}
	return nil
}
