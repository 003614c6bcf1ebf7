package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/sanitize"
)

// paymentsArgs are the options of the payments command.
type paymentsArgs struct {
	from, to bound
	types    []string
	output   string
	utc      bool
}

// newPaymentsCommand is `vastdash payments`: its help and flags; payments
// runs it.
func newPaymentsCommand(x *execution) *cobra.Command {
	a := paymentsArgs{output: "text"}
	cmd := &cobra.Command{
		Use:   "payments",
		Short: "print the payment records in a range: top-ups, transfers, refunds, prepays",
		Long: `Print the account's payment records created in a range, one row per record, as an aligned table, CSV or JSON.

The amount is the record's effect on the credit in dollars, to the thousandth as the API sends it, so the rows add up to the totals: a $25 top-up is 25.000, a refund -10.000, a transfer sent -20.000. A pending record (not paid yet) is listed with the amount it will add and counted nowhere; so is a record dated in the future, flagged; a record of a type vastdash does not know is listed with a note and counted nowhere. Every page is fetched (100 records each, one request every 3 seconds). A totals line and warnings go to stderr.`,
		Example: `
vastdash payments --from 2026-01-01 --to 2026-12-31 --output csv > payments-2026.csv
vastdash payments --type credit,transfer
`,
		Args: noArgs,
		RunE: x.commandRun(&a.utc, func() error { sp := a.span(); return sp.check() }, func(ctx context.Context, s *Session) error {
			return payments(ctx, s, a)
		}),
	}
	fs := cmd.Flags()
	rangeFlags(cmd, &a.from, &a.to, "first day, YYYY-MM-DD, an RFC 3339 time, or a range word:\n"+strings.Join(billing.Presets, ", ")+" (default: the range setting, 30d)")
	fs.Var(&checkedValue{typ: "types", parse: func(s string) (err error) {
		a.types, err = parsePaymentTypes(s)
		return err
	}}, "type", "any of "+strings.Join(billing.PaymentTypes, ",")+" (default: all)")
	completeWith(cmd, "type", billing.PaymentTypes...)
	outputFlags(cmd, &a.output, "text", "csv", "json")
	fs.BoolVar(&a.utc, "utc", false, "days and times in UTC (default: the settings timezone)")
	return cmd
}

// parsePaymentTypes reads --type: a comma-separated list of record types.
func parsePaymentTypes(s string) ([]string, error) {
	var types []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
			types = append(types, t)
		}
	}
	if len(types) == 0 {
		return nil, badValue("--type %s names no type (want %s)", argText(s), orList(billing.PaymentTypes))
	}
	if err := billing.CheckPaymentTypes(types); err != nil {
		return nil, badValue("--type: %v", err)
	}
	return types, nil
}

// span is the range flags as charges reads them.
func (a paymentsArgs) span() chargesArgs { return chargesArgs{from: a.from, to: a.to} }

// payments is the payments command, after its flags were parsed.
func payments(ctx context.Context, s *Session, a paymentsArgs) error {
	svc := s.Billing
	loc := svc.Location()
	rng, err := a.span().resolve(s.Settings.Range, svc.Now(), loc)
	if err != nil {
		return usageError(err)
	}
	f := svc.PaymentsFeed(api.InvoicesQuery{From: rng.From, To: rng.To})
	defer f.Release()
	recs, st, err := f.All(ctx, s.progress.records("payment records"))
	s.progress.done()
	if err != nil {
		return err
	}
	if len(a.types) > 0 {
		recs = slices.DeleteFunc(recs, func(in api.Invoice) bool { return !slices.Contains(a.types, in.Type) })
	}
	now := svc.Now()
	if err := s.answer(func(w io.Writer) error {
		return writePayments(w, a.output, recs, loc, now, textTimes(svc), s.width)
	}); err != nil {
		return err
	}
	writePaymentTotals(s.stderr, recs, st, now)
	return nil
}

// paymentRow is one record as every output shows it.
type paymentRow struct {
	ID          string  `json:"invoice_id"`
	Created     string  `json:"created"`
	Paid        *string `json:"paid"` // null while pending
	Status      string  `json:"status"`
	Type        string  `json:"type"`
	Service     string  `json:"service"`
	Source      string  `json:"source"`
	Description string  `json:"description"`
	// Amount is the effect on the credit in dollars with 3 decimals, the
	// precision of the totals; null for a type vastdash does not know.
	Amount *money.Amount `json:"amount"`
	Note   string        `json:"note,omitempty"`
}

// newPaymentRow is in as a row, its note (why it does not count) as of
// now.
func newPaymentRow(in *api.Invoice, loc *time.Location, now time.Time) paymentRow {
	row := paymentRow{
		ID: sanitize.String(in.ID), Created: rfc3339(timeIn(in.Created, loc)), Status: billing.PaymentStatus(in),
		Type: sanitize.String(in.Type), Service: sanitize.String(in.Service), Source: sanitize.String(in.Source),
		Description: sanitize.String(in.Description), Note: billing.StandingOf(in, now).Note(),
	}
	if !in.Pending() {
		p := rfc3339(timeIn(in.Paid, loc))
		row.Paid = &p
	}
	if e, known := billing.Effect(in); known {
		row.Amount = &e
	}
	return row
}

// writePayments writes the records in the output format.
func writePayments(w io.Writer, output string, recs []api.Invoice, loc *time.Location, now time.Time, when func(int64) string, width int) error {
	rows := make([]paymentRow, len(recs))
	for i := range recs {
		rows[i] = newPaymentRow(&recs[i], loc, now)
	}
	switch output {
	case "json":
		return writeJSON(w, rows)
	case "csv":
		table := [][]string{{"invoice_id", "created", "paid", "status", "type", "service", "source", "description", "amount", "note"}}
		for _, r := range rows {
			table = append(table, []string{export.Cell(r.ID), r.Created, deref(r.Paid), r.Status, export.Cell(r.Type), export.Cell(r.Service),
				export.Cell(r.Source), export.Cell(r.Description), amountDecimal(r.Amount), r.Note})
		}
		return writeCSV(w, table)
	}
	t := &table{cols: paymentColumns, fit: paymentsFit, width: width}
	return t.write(w, func(yield func([]string) bool) {
		for i, r := range rows {
			paid := "—"
			if !recs[i].Pending() {
				paid = when(recs[i].Paid)
			}
			if !yield([]string{r.ID, when(recs[i].Created), paid, r.Status, r.Type, r.Service, r.Source,
				r.Description, r.Note, amountText(r.Amount)}) {
				return
			}
		}
	})
}

// The payments table's columns, the note before the amount so that the
// amounts line up at the right edge.
var paymentColumns = []column{
	{header: "INVOICE", most: 24}, {header: "CREATED"}, {header: "PAID"}, {header: "STATUS"}, {header: "TYPE", most: 12},
	{header: "SERVICE", most: 16}, {header: "SOURCE", most: 32}, {header: "DESCRIPTION", most: 48}, {header: "NOTE"},
	{header: "AMOUNT", right: true},
}

// paymentsFit is how the payments table meets a narrow terminal, in this
// order: the service goes, then the paid time (the status says whether it
// was), the description shrinks to 20 cells, then goes, the invoice id
// shrinks to 10, then goes, and last the note shrinks to 20 then 12
// ("dated in the future…"). The created time, status, type, source, note
// and amount stay, the source whole: "crypto.…" names no source, and a
// record counted nowhere says so on its row at any width (the note's
// words lead with why). Under about 60 columns the type goes, then the
// status (the note says pending), then the source: at 40 a row is the
// created time, the note and the amount, on one line.
var paymentsFit = []fitStep{{5, 0}, {2, 0}, {7, 20}, {7, 0}, {0, 10}, {0, 0}, {8, 20}, {8, 12}, {4, 0}, {3, 0}, {6, 0}}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// amountText is a row's amount as text writes it, with the dollar sign and
// thousands separators as everywhere: "$1,299.000"; "" when there is none.
func amountText(a *money.Amount) string {
	if a == nil {
		return ""
	}
	return a.String()
}

// amountDecimal is a row's amount as CSV writes it: "1299.000".
func amountDecimal(a *money.Amount) string {
	if a == nil {
		return ""
	}
	return a.Decimal()
}

// writePaymentTotals writes "42 payment records · in $1,234.000 · out
// $50.000", what counts nowhere, and the feed's warnings: at the rows'
// precision, so the rows add up to the totals.
func writePaymentTotals(w io.Writer, recs []api.Invoice, st billing.State, now time.Time) {
	t := billing.TotalPayments(recs, now)
	line := billing.Plural(t.Records, "payment record", "payment records") + " · in " + t.In.String() + " · out " + t.Out.String()
	if nc := t.NotCounted(); nc != "" {
		line += " · " + nc
	}
	fmt.Fprintln(w, line)
	for _, warning := range st.Warnings() {
		warn(w, warning)
	}
}
