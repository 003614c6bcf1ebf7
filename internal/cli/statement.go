package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/money"
)

// statementArgs are the options of the statement command.
type statementArgs struct {
	months   int
	monthsBy bool   // --months given
	from, to string // YYYY-MM, "" when not given
	output   string
	utc      bool
}

// reconstructedNote is said wherever a statement is shown.
const reconstructedNote = "reconstructed back from the credit now: each month closes where the next one opens; pending records are listed, not counted"

// newStatementCommand is `vastdash statement`: its help and flags;
// statement runs it.
func newStatementCommand(x *execution) *cobra.Command {
	a := statementArgs{months: 3, output: "text"}
	cmd := &cobra.Command{
		Use:   "statement",
		Short: "print a monthly statement: opening, money in, money out, spend, closing",
		Long: `Print one row per calendar month (in the settings timezone): the credit at the month's start (opening), what came in (paid top-ups and transfers received), what went out (refunds, reserved-instance prepays, transfers sent, payouts), what was spent (the charges spread over the month's days, as the Overview's chart does) and the credit at its end (closing).

The current month closes at the credit now and each earlier month at the next one's opening, so that opening = closing − money in + money out + spend, exactly to the thousandth: the figures are a reconstruction from today's credit, not the server's ledger. Pending records are listed beside it and counted nowhere, and so are records dated in the future. A payment record counts in the month of its payment, at most 31 days after it was made; the records are read from 31 days before the first month, so a month reads the same however many are asked for. Amounts are in thousandths of a dollar, as the API sends them, so the records add up to the months.

It reads the payment records (100 a page, one request every 3 s) and the charges (500 a page, one a second) side by side, from the first month to today.`,
		Example: `
vastdash statement                                   # this month and the two before
vastdash statement --from 2026-01 --to 2026-06 --output csv > h1.csv
vastdash statement --months 12 --output json | jq '.months[] | {month, money_in, spend}'
`,
		Args: noArgs,
		RunE: x.commandRun(&a.utc, func() error { return a.check() }, func(ctx context.Context, s *Session) error { return statement(ctx, s, a) }),
	}
	fs := cmd.Flags()
	fs.Var(&checkedValue{text: "3", typ: "n", parse: func(s string) error {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > billing.MaxStatementMonths {
			return badValue("--months %s: want a number of months from 1 to %d", argText(s), billing.MaxStatementMonths)
		}
		a.months, a.monthsBy = n, true
		return nil
	}}, "months", "the current month and the N−1 before it")
	fs.Var(&checkedValue{typ: "month", parse: monthParser("--from", &a.from)}, "from", "first month, YYYY-MM (instead of --months)")
	fs.Var(&checkedValue{typ: "month", parse: monthParser("--to", &a.to)}, "to", "last month, YYYY-MM (default: the current month; needs --from)")
	outputFlags(cmd, &a.output, "text", "csv", "json")
	fs.BoolVar(&a.utc, "utc", false, "months begin in UTC (default: the settings timezone)")
	return cmd
}

// span is the first and last month asked for, in loc: each month from the
// first instant of its first local day (billing.ParseMonth, LastMonths).
func (a statementArgs) span(now time.Time, loc *time.Location) (from, to time.Time, err error) {
	if a.from == "" {
		if a.to != "" {
			return from, to, errors.New("--to needs --from")
		}
		from, to = billing.LastMonths(now, loc, a.months)
		return from, to, nil
	}
	last := monthArg{"--to", a.to}
	if last.text == "" {
		last.text = billing.MonthStart(now, loc).Format("2006-01")
	}
	return months(monthArg{"--from", a.from}, last, loc, now)
}

// check refuses --to without --from, and --months with --from, before
// anything is read.
func (a statementArgs) check() error {
	if a.monthsBy && a.from != "" {
		return errors.New("--months and --from both choose the months: give one")
	}
	if a.to != "" && a.from == "" {
		return errors.New("--to needs --from")
	}
	if a.to != "" && a.to < a.from {
		// YYYY-MM orders as text: no zone can change it.
		return reversedRange(a.from, a.to)
	}
	return nil
}

// statement is the statement command, after its flags were parsed.
func statement(ctx context.Context, s *Session, a statementArgs) error {
	svc := s.Billing
	from, to, err := a.span(svc.Now(), svc.Location())
	if err != nil {
		return usageError(err)
	}
	st, err := svc.Statement(ctx, from, to, func(sp billing.StatementProgress) { s.progress.show("fetching " + sp.String()) })
	s.progress.done()
	if err != nil {
		if st.Incomplete {
			err = fmt.Errorf("%w (months not complete: %s)", err, incompleteMonths(st))
		}
		return err
	}
	if err := s.answer(func(w io.Writer) error { return writeStatement(w, a.output, st, svc, s.width) }); err != nil {
		return err
	}
	// What the feeds skipped is left out of the figures: said as payments
	// says it, one line each.
	for _, w := range st.Warnings {
		warn(s.stderr, w)
	}
	// Said once: the text answer says it under its table, JSON and CSV
	// do not (JSON's note is a field a reader may not print).
	if a.output != "text" {
		warn(s.stderr, reconstructedNote)
	}
	return nil
}

func incompleteMonths(st billing.Statement) string {
	var ms []string
	for _, m := range st.Months {
		if m.Incomplete {
			ms = append(ms, m.Label())
		}
	}
	if len(ms) == 0 {
		return "none shown"
	}
	return strings.Join(ms, ", ")
}

// monthJSON is one month of the JSON answer; amounts have exactly 3
// decimals (money.Amount's MarshalJSON).
type monthJSON struct {
	Month    string       `json:"month"`
	Opening  money.Amount `json:"opening"`
	MoneyIn  money.Amount `json:"money_in"`
	MoneyOut money.Amount `json:"money_out"`
	Spend    money.Amount `json:"spend"`
	Closing  money.Amount `json:"closing"`
	Pending  money.Amount `json:"pending"`
}

type statementJSON struct {
	Reconstructed bool         `json:"reconstructed"`
	Note          string       `json:"note"`
	Credit        money.Amount `json:"credit"`
	AsOf          string       `json:"as_of"`
	Months        []monthJSON  `json:"months"`
	Pending       []paymentRow `json:"pending"`
	// Future are the records dated in the future: listed, counted nowhere.
	Future []paymentRow `json:"future"`
	// Unknown are the records of a type vastdash does not know: listed,
	// counted nowhere.
	Unknown []paymentRow `json:"unknown"`
	// Warnings are what the feeds skipped or dropped; [] when nothing.
	Warnings []string `json:"warnings"`
}

// writeStatement writes the statement in the output format, text fitted
// to a terminal width cells wide (0: a pipe, every line whole).
func writeStatement(w io.Writer, output string, st billing.Statement, svc *billing.Service, width int) error {
	loc, when := svc.Location(), textTimes(svc)
	months := make([]monthJSON, len(st.Months))
	for i, m := range st.Months {
		months[i] = monthJSON{Month: m.Label(), Opening: m.Opening, MoneyIn: m.MoneyIn, MoneyOut: m.MoneyOut,
			Spend: m.Spend, Closing: m.Closing, Pending: m.Pending}
	}
	rowsOf := func(recs []api.Invoice) []paymentRow {
		out := make([]paymentRow, len(recs))
		for i := range recs {
			out[i] = newPaymentRow(&recs[i], loc, st.AsOf)
		}
		return out
	}
	pending, future, unknown := rowsOf(st.Pending), rowsOf(st.Future), rowsOf(st.Unknown)
	switch output {
	case "json":
		return writeJSON(w, statementJSON{Reconstructed: st.Reconstructed, Note: reconstructedNote, Credit: st.Credit,
			AsOf: rfc3339(st.AsOf), Months: months, Pending: pending, Future: future, Unknown: unknown,
			Warnings: append([]string{}, st.Warnings...)})
	case "csv":
		return export.WriteStatementCSV(w, st)
	}
	head := make([]string, len(export.StatementColumns))
	for i, c := range export.StatementColumns {
		head[i] = strings.ToUpper(c)
	}
	rows := [][]string{head}
	for _, m := range months {
		rows = append(rows, []string{m.Month, m.Opening.String(), m.MoneyIn.String(), m.MoneyOut.String(), m.Spend.String(),
			m.Closing.String(), m.Pending.String()})
	}
	if err := writeTableFit(w, rows, 1, width, monthsFit); err != nil {
		return err
	}
	// The credit at the months' precision: it is the last closing.
	note := hanging("", fmt.Sprintf("Reconstructed back from the credit on %s (%s): each month closes where the next one opens.",
		svc.WhenLong(st.AsOf), st.Credit.String()), width)
	if err := linesOf(append([]string{""}, note...))(w); err != nil {
		return err
	}
	if err := writeRecordList(w, "Pending, not counted:", st.Pending, pending, when, width); err != nil {
		return err
	}
	if err := writeRecordList(w, "Dated in the future, not counted:", st.Future, future, when, width); err != nil {
		return err
	}
	return writeRecordList(w, "Of a type vastdash does not know, not counted:", st.Unknown, unknown, when, width)
}

// The columns of a list of records under the statement (no header: the
// list's title says what they are), and how it meets a narrow terminal:
// the description shrinks to 20 cells and the source to 14, then the
// description goes and then the source. The time, type and amount stay.
var (
	// monthsFit is how the months meet a narrow terminal: the opening
	// goes (the month before closed at it), then the pending, the money
	// out and the money in; the month, its spend and its closing stay.
	monthsFit         = []fitStep{{1, 0}, {6, 0}, {3, 0}, {2, 0}}
	recordListColumns = []column{{}, {most: 12}, {most: 32}, {most: 60}, {right: true}}
	recordListFit     = []fitStep{{3, 20}, {2, 14}, {3, 0}, {2, 0}}
)

// writeRecordList writes a titled list of records under the table, fitted
// to the width; nothing when there are none.
func writeRecordList(w io.Writer, title string, recs []api.Invoice, rows []paymentRow, when func(int64) string, width int) error {
	if len(recs) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w, title); err != nil {
		return err
	}
	t := &table{cols: recordListColumns, fit: recordListFit, width: width, indent: "  ", headless: true}
	return t.write(w, func(yield func([]string) bool) {
		for i, pr := range rows {
			if !yield([]string{when(recs[i].Created), pr.Type, pr.Source, pr.Description, amountText(pr.Amount)}) {
				return
			}
		}
	})
}
