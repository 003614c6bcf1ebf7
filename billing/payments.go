package billing

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

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
	amount:  effectOf,
	records: true,
	ledger:  paymentsLedgerFor,
}

// PaymentTypes are the record types the program knows, as `--type` takes
// them.
var PaymentTypes = []string{"credit", "transfer", "refund", "reserved", "payout"}

// FutureSlack is how far past the clock a record's times may lie and still
// be believed: the server's clock and this machine's differ by seconds or
// minutes, and a top-up made a moment ago must count. A record created or
// paid later than that is dated in the future (Future).
const FutureSlack = time.Hour

// PaidSlack bounds how long after its creation a payment counts: a record
// paid more than PaidSlack after it was created (a crypto payment confirmed
// weeks later, a server's broken time) counts at its creation plus
// PaidSlack. The bound is what lets a statement read every record it puts
// into a month: the records are queried by creation time, from PaidSlack
// before the first month, whatever the number of months (see CountsAt).
const PaidSlack = 31 * 24 * time.Hour

// Effect is a record's effect on the credit, and whether its type is one
// the program knows. The server signs amounts from the payer's side: a
// top-up (credit) is negative and adds to the credit; a refund or a
// reserved-instance prepay is positive and takes away; transfers and
// payouts are already signed from the account's side. A record of a type
// the program does not know has no effect (known false). This is the
// amount both front ends show for a record, counted or not (a pending
// record shows what it will add); whether it counts is its Standing.
func Effect(in *api.Invoice) (effect money.Amount, known bool) {
	switch in.Type {
	case "credit", "refund", "reserved":
		return -in.Amount, true // bounded to ±$100M by the decoder: cannot overflow
	case "transfer", "payout":
		return in.Amount, true
	}
	return 0, false
}

// Standing is how a payment record counts.
type Standing int

// The standings. Only Counted records count in a total or a month; the
// others are listed, with their Note.
const (
	// Counted: paid, of a known type, dated no later than now.
	Counted Standing = iota
	// Pending: not paid yet (a crypto payment awaiting confirmation).
	Pending
	// Future: created or paid after now (beyond FutureSlack): a date the
	// program does not believe, so the record counts nowhere.
	Future
	// UnknownType: a type the program does not know: no effect to count.
	UnknownType
)

// StandingOf is how in counts at now.
func StandingOf(in *api.Invoice, now time.Time) Standing {
	late := now.Add(FutureSlack).Unix()
	switch {
	case !knownType(in.Type):
		return UnknownType
	case in.Created > late || in.Paid > late:
		return Future
	case in.Pending():
		return Pending
	}
	return Counted
}

// Note says why a record of this standing is not counted ("" when it is).
func (s Standing) Note() string {
	switch s {
	case Pending:
		return "pending: counted once paid"
	case Future:
		return "dated in the future: not counted"
	case UnknownType:
		return "unknown type: not counted"
	}
	return ""
}

// CountsAt is the instant that decides a record's month: when it changed
// the credit, its payment time — but no later than PaidSlack after its
// creation; for a record not paid (or of an unknown type), its creation.
// A payment time before the creation is believed: money can be booked
// before its record is written.
func CountsAt(in *api.Invoice) int64 {
	if in.Pending() || !knownType(in.Type) {
		return in.Created
	}
	return min(in.Paid, in.Created+int64(PaidSlack/time.Second))
}

// PaymentTotals sums records by their standing: what came in, what went
// out (positive), and what counts nowhere.
type PaymentTotals struct {
	Records  int
	In, Out  money.Amount
	Pending  money.Amount // the would-be effect of pending records
	Pendings int
	Future   money.Amount // the effect of records dated in the future
	Futures  int
	Unknown  int // records of a type the program does not know
}

// TotalPayments sums recs by their standing at now.
func TotalPayments(recs []api.Invoice, now time.Time) PaymentTotals {
	var t PaymentTotals
	for i := range recs {
		t.Add(&recs[i], now)
	}
	return t
}

// Add counts one record at now.
func (t *PaymentTotals) Add(in *api.Invoice, now time.Time) {
	t.Records++
	e, _ := Effect(in)
	switch StandingOf(in, now) {
	case UnknownType:
		t.Unknown++
	case Pending:
		t.Pending += e
		t.Pendings++
	case Future:
		t.Future += e
		t.Futures++
	default:
		if e >= 0 {
			t.In += e
		} else {
			t.Out -= e
		}
	}
}

// NotCounted says what of the totals counts nowhere, for a totals line:
// "1 pending ($100.000, not counted) · 2 dated in the future ($810.000,
// not counted) · 1 record of an unknown type, not counted"; "" when all
// count. Both commands and the Statement screen write it so.
func (t PaymentTotals) NotCounted() string {
	var parts []string
	if t.Pendings > 0 {
		parts = append(parts, Plural(t.Pendings, "pending", "pending")+" ("+t.Pending.String()+", not counted)")
	}
	if t.Futures > 0 {
		parts = append(parts, Plural(t.Futures, "dated in the future", "dated in the future")+" ("+t.Future.String()+", not counted)")
	}
	if t.Unknown > 0 {
		parts = append(parts, Plural(t.Unknown, "record", "records")+" of an unknown type, not counted")
	}
	return strings.Join(parts, " · ")
}

// PaymentStatus is "paid" or "pending".
func PaymentStatus(in *api.Invoice) string {
	if in.Pending() {
		return "pending"
	}
	return "paid"
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

// effectOf is what a feed adds up of a record: its effect when paid and
// of a known type. (The feed has no clock; a total that leaves out records
// dated in the future is TotalPayments'.)
func effectOf(in *api.Invoice) money.Amount {
	if e, known := Effect(in); known && !in.Pending() {
		return e
	}
	return 0
}
