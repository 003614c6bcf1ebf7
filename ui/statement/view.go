package statement

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/shared"
)

// amountWidth fits "-$12,345.678"; wider amounts are cut with "…".
const amountWidth = 12

// column is one figure column of the month table: its title, its width
// and the text of month i of a statement.
type column struct {
	title string
	width int
	text  func(st *billing.Statement, i int) string
}

// amountColumn is a column of one of the month's amounts.
func amountColumn(title string, value func(m *billing.Month) money.Amount) column {
	return column{title, amountWidth, func(st *billing.Statement, i int) string { return value(&st.Months[i]).String() }}
}

// changeWidth fits "+12.3 %", "-100.0 %" and, its tenth dropped,
// "+32,843 %"; changeCell says larger changes as a multiple.
const changeWidth = 9

// columns in the order they give way on a narrow terminal: the last goes
// first. Their words are the command's (export's column names).
var columns = []column{
	amountColumn(export.ColClosing, func(m *billing.Month) money.Amount { return m.Closing }),
	amountColumn(export.ColMoneyIn, func(m *billing.Month) money.Amount { return m.MoneyIn }),
	amountColumn(export.ColSpend, func(m *billing.Month) money.Amount { return m.Spend }),
	// Each month's spend against the month before's; the first month
	// shown has none loaded before it.
	{export.ColChange, changeWidth, func(st *billing.Statement, i int) string {
		if i == 0 {
			return billing.ChangeText(0, false)
		}
		pm, ok := billing.SpendChange(st.Months[i-1].Spend, st.Months[i].Spend)
		return changeCell(pm, ok, changeWidth)
	}},
	amountColumn(export.ColMoneyOut, func(m *billing.Month) money.Amount { return m.MoneyOut }),
	amountColumn(export.ColOpening, func(m *billing.Month) money.Amount { return m.Opening }),
}

// tableOrder is how the columns that fit are laid out, left to right.
var tableOrder = []string{export.ColOpening, export.ColMoneyIn, export.ColMoneyOut, export.ColSpend, export.ColChange, export.ColClosing}

// legend says what the bars draw; it goes above the bars when it fits
// there whole, else on the line under the months.
const legend = "▀ money in  ▄ spend  █ both"

// changeCell is a change in tenths of a percent in at most w cells, never
// cut: "+12.3 %", then without its tenth ("+32,843 %"), then as a multiple
// of the month before ("×1,235").
func changeCell(pm int64, ok bool, w int) string {
	full := billing.ChangeText(pm, ok)
	if !ok || shared.Width(full) <= w {
		return full
	}
	whole, _, _ := strings.Cut(full, ".")
	if t := whole + " %"; shared.Width(t) <= w {
		return t
	}
	// Only a rise outgrows the cell: a fall stops at -100 %.
	return "×" + money.Group(pm/1000+1)
}

// View renders the screen in its area.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	s := m.ctx.Styles
	var lines []string
	switch {
	case !m.started:
		lines = append(lines, s.Muted.Render("The statement loads when this screen is first shown."))
	case m.st == nil && m.err != nil:
		// Wrapped, not cut: the permission is at the end.
		for _, l := range strings.Split(ansi.Wrap(m.failText(), m.width, ""), "\n") {
			lines = append(lines, s.Error.Render(l))
		}
	case m.st == nil:
		lines = append(lines, s.Muted.Render("loading the year: "+m.progress()))
		if m.finding {
			// The field has the keyboard while the year loads: what is
			// typed shows, and filters the records once they are here.
			lines = append(lines, "", m.findInput.View())
		}
	default:
		lines = m.table()
	}
	return shared.Block(lines, m.width, m.height)
}

// failText says why there is no statement: the permission the key
// lacks, in place of the months it would have shown; a refused key
// without its cause (the status line says it once, with what to do).
func (m *Model) failText() string {
	if !m.hasCredit {
		text := "no statement: the statement runs back from the credit, which could not be read"
		if !shared.Refused(m.creditErr) {
			text += ": " + m.ctx.ErrorText(m.creditErr)
		}
		return text
	}
	if p := shared.Permission(m.err); p != "" {
		return "no statement: this API key lacks the " + p + " permission, which the payment records and the charges need"
	}
	return "no statement: " + m.ctx.ErrorText(m.err)
}

// table is the months, then the selected month's records or the pending
// ones, then the note that the figures are reconstructed.
func (m *Model) table() []string {
	s := m.ctx.Styles
	st := m.st
	const monthW, markW = 7, 2
	// The columns that fit, with at least 8 cells for the bar.
	widths := func(cs []column) int {
		n := 0
		for _, c := range cs {
			n += c.width + 1
		}
		return n
	}
	fit := len(columns)
	for fit > 1 && monthW+markW+widths(columns[:fit])+9 > m.width {
		fit--
	}
	shown := map[string]bool{}
	for _, c := range columns[:fit] {
		shown[c.title] = true
	}
	var order []column
	for _, t := range tableOrder {
		for _, c := range columns {
			if c.title == t && shown[t] {
				order = append(order, c)
			}
		}
	}
	barW := max(m.width-monthW-markW-widths(order)-1, 0)
	var scale money.Amount = 1
	for i := range st.Months {
		scale = max(scale, st.Months[i].MoneyIn, st.Months[i].Spend)
	}
	head := shared.PadRight(strings.ToUpper(export.ColMonth), monthW+markW)
	for _, c := range order {
		head += " " + shared.PadLeft(strings.ToUpper(c.title), c.width)
	}
	legendUp := barW >= shared.Width(legend)
	if legendUp {
		head += " " + legend
	}
	lines := []string{s.ColHeader.Render(shared.PadRight(head, m.width))}
	// On a short terminal the months scroll with the cursor.
	rows := min(len(st.Months), max(m.height-3, 1))
	if m.open || m.find != "" || m.finding {
		// The records pane takes the lower half.
		rows = min(rows, max((m.height-3)/2, 3))
	}
	top := min(max(m.cursor-rows+1, 0), len(st.Months)-rows)
	for i := top; i < top+rows; i++ {
		mo := &st.Months[i]
		mark := "  "
		if mo.Incomplete {
			mark = "? "
		}
		line := shared.PadRight(mo.Label(), monthW) + mark
		for _, c := range order {
			line += " " + shared.PadLeft(shared.Truncate(c.text(st, i), c.width), c.width)
		}
		if barW >= 8 {
			line += " " + bar(mo.MoneyIn, mo.Spend, scale, barW-1)
		}
		if i == m.cursor {
			line = s.Selected.Render(shared.PadRight(line, m.width))
		}
		lines = append(lines, line)
	}
	if barW >= 8 && !legendUp {
		// Under the bars, not cut: "▀ in ▄ s…" said nothing.
		lines = append(lines, s.Muted.Render(shared.PadLeft(legend, m.width)))
	} else {
		lines = append(lines, "")
	}
	rest := m.height - len(lines) - 1
	if m.open || m.find != "" || m.finding {
		lines = append(lines, m.records(rest)...)
	} else {
		lines = append(lines, m.pending(rest)...)
	}
	for len(lines) < m.height-1 {
		lines = append(lines, "")
	}
	return append(lines[:m.height-1], s.Muted.Render(m.note()))
}

// note is the table's last line: that the figures are reconstructed from
// the credit (and, when a feed stopped, that the year is incomplete) in
// the longest wording that fits, so a narrow terminal keeps the credit
// whole.
func (m *Model) note() string {
	// At the months' precision, one in the view: the credit is the last
	// closing, and "$2,983.99" above "$2,983.989" read as two figures.
	credit := m.st.Credit.String()
	full := "reconstructed from today's credit " + credit + " · pending not counted"
	if !m.st.Incomplete {
		return shared.FirstFit(m.width, full, "reconstructed from today's credit "+credit, "from today's credit "+credit, "from credit "+credit)
	}
	retry := m.ctx.Key("reload")
	return shared.FirstFit(m.width, "? incomplete: a feed stopped ("+retry+" to reload) · "+full,
		"? incomplete ("+retry+" to reload) · from today's credit "+credit, "? incomplete ("+retry+" to reload)", "? incomplete")
}

// bar draws money in over spend in w cells on one line: the upper half of
// a cell is money in, the lower half spend, both scaled to scale.
func bar(in, spend, scale money.Amount, w int) string {
	cells := func(a money.Amount) int {
		if a <= 0 {
			return 0
		}
		return max(int(int64(a)*int64(w)/int64(scale)), 1)
	}
	ni, ns := cells(in), cells(spend)
	var b strings.Builder
	for i := 0; i < max(ni, ns); i++ {
		switch {
		case i < ni && i < ns:
			b.WriteString("█")
		case i < ni:
			b.WriteString("▀")
		default:
			b.WriteString("▄")
		}
	}
	return b.String()
}

// records lists the pane's records (a month's, or the year's that match
// the find text) in at most n lines, the find field first while it is
// open.
func (m *Model) records(n int) []string {
	s := m.ctx.Styles
	if n <= 0 {
		return nil
	}
	recs := m.shownRecords()
	var lines []string
	if m.finding {
		lines = append(lines, m.findInput.View())
	}
	lines = append(lines, s.Bold.Render(shared.Truncate(m.recordsTitle(recs), m.width)))
	for i := range recs {
		if len(lines) >= n {
			lines[n-1] = s.Muted.Render("… " + itoa(len(recs)-i+1) + " more")
			break
		}
		when, what, amount, note := m.recordLine(&recs[i])
		right := shared.PadLeft(amount, amountWidth)
		if short, _, _ := strings.Cut(note, ":"); note != "" {
			// The note gives way to its first word ("pending") before the
			// amount is pushed off the line.
			right = shared.FirstFit(max(m.width-16, 0), note+"  "+right, short+"  "+right)
		}
		w := max(m.width-shared.Width(right)-16, 0)
		lines = append(lines, when+"  "+shared.PadRight(shared.Truncate(what, w), w)+"  "+right)
	}
	return lines[:min(len(lines), n)]
}

// pending lists the records that count nowhere — pending ones, then those
// dated in the future, flagged — in at most n lines.
func (m *Model) pending(n int) []string {
	s := m.ctx.Styles
	if n <= 0 {
		return nil
	}
	if len(m.st.Pending)+len(m.st.Future) == 0 {
		return []string{s.Muted.Render("no pending payments · " + m.ctx.Key("records") + " shows the selected month's records")}
	}
	var lines []string
	list := func(title string, recs []api.Invoice) {
		if len(recs) == 0 || len(lines) >= n {
			return
		}
		lines = append(lines, s.Bold.Render(title))
		for i := range recs {
			if len(lines) == n {
				break
			}
			when, what, amount, _ := m.recordLine(&recs[i])
			w := max(m.width-amountWidth-16, 0)
			lines = append(lines, when+"  "+shared.PadRight(shared.Truncate(what, w), w)+"  "+shared.PadLeft(amount, amountWidth))
		}
	}
	list(itoa(len(m.st.Pending))+" pending, not counted:", m.st.Pending)
	list(billing.Plural(len(m.st.Future), "record", "records")+" dated in the future, not counted:", m.st.Future)
	return lines
}
