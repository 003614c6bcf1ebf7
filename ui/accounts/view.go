package accounts

import (
	"strings"

	"github.com/vastdash/vastdash/ui/shared"
)

// The screen is a heading line, a blank, the column names, a row per
// account (the part that scrolls when they do not fit) and the total.

// gap is the space between columns; prefix the cursor's mark before them.
const (
	gap    = 2
	prefix = 2
)

// column is one column of the table: its heading, whether it is figures
// (right-aligned), and how a row fills it.
type column struct {
	head  string
	right bool
	cell  func(Row) string
}

// columns are the command's, in its order.
var columns = []column{
	{"ACCOUNT", false, func(r Row) string { return r.Name }},
	{"EMAIL", false, func(r Row) string {
		if r.SameAs != "" {
			return r.Email + " (= " + r.SameAs + ")"
		}
		return r.Email
	}},
	{"CREDIT", true, func(r Row) string { return r.Credit }},
	{"NOW", true, func(r Row) string { return r.Now }},
	{"RUNWAY", true, func(r Row) string { return r.Runway }},
	{"MONTH", true, func(r Row) string { return r.Month }},
	{"FORECAST", true, func(r Row) string { return r.Forecast }},
	{"BUDGET", true, func(r Row) string { return r.Budget }},
	{"LEAKS", true, func(r Row) string { return r.Leaks }},
}

// dropOrder is the order the columns give way in on a narrow terminal
// (indexes into columns): the budget's share and the forecast first, the
// name and the credit never.
var dropOrder = []int{7, 6, 8, 5, 3, 1, 4}

// minEmail is the narrowest the e-mail column is cut to before a column
// is dropped.
const minEmail = 12

// currentMark follows the name of the account the dashboard shows.
const currentMark = " ●"

// layout is the columns shown at width w and their widths.
func (m *Model) layout(w int) (shown []int, widths []int) {
	widths = make([]int, len(columns))
	for i, c := range columns {
		widths[i] = shared.Width(c.head)
		for _, r := range m.table.Rows {
			cell := c.cell(r)
			if i == 0 && r.Name == m.opts.Current {
				cell += currentMark
			}
			if r.Err == "" || i == 0 {
				widths[i] = max(widths[i], shared.Width(shared.Safe(cell)))
			}
		}
		if i > 0 {
			widths[i] = max(widths[i], shared.Width(c.cell(m.table.Total)))
		}
	}
	natural := widths[1]
	on := make([]bool, len(columns))
	for i := range on {
		on[i] = true
	}
	total := func() int {
		n := prefix - gap
		for i, ok := range on {
			if ok {
				n += widths[i] + gap
			}
		}
		return n
	}
	drop := 0
	for total() > w {
		if excess := total() - w; on[1] && widths[1] > minEmail {
			widths[1] = max(widths[1]-excess, minEmail)
			continue
		}
		if drop == len(dropOrder) {
			break
		}
		on[dropOrder[drop]] = false
		drop++
	}
	if on[1] {
		// Columns dropped may leave room for more of the e-mails.
		widths[1] = min(natural, widths[1]+max(w-total(), 0))
	}
	for i, ok := range on {
		if ok {
			shown = append(shown, i)
		}
	}
	return shown, widths
}

// line is one row's text in the columns shown.
func line(r Row, cells func(Row, int) string, shown, widths []int) string {
	var b strings.Builder
	for n, i := range shown {
		if n > 0 {
			b.WriteString(strings.Repeat(" ", gap))
		}
		cell := shared.Truncate(shared.Safe(cells(r, i)), widths[i])
		if columns[i].right {
			b.WriteString(shared.PadLeft(cell, widths[i]))
		} else {
			b.WriteString(shared.PadRight(cell, widths[i]))
		}
	}
	return b.String()
}

// scroll keeps the cursor's row among those shown.
func (m *Model) scroll() {
	h := m.rowsHeight()
	switch {
	case h <= 0:
		m.top = 0
	case m.cursor < m.top:
		m.top = m.cursor
	case m.cursor >= m.top+h:
		m.top = m.cursor - h + 1
	}
	m.top = max(min(m.top, m.rows()-h), 0)
}

// rowsHeight is the lines the accounts' rows get: the area less the
// heading, the blank, the column names and the total.
func (m *Model) rowsHeight() int { return max(m.height-4, 1) }

// View renders the screen in its area.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	st := m.ctx.Styles
	if m.table == nil {
		text := "reading every account: each at its own key's pace…"
		if m.opts.Read == nil {
			text = "no accounts to read"
		}
		return shared.Block([]string{st.Muted.Render(text)}, w, h)
	}
	t := m.table
	heading := "Every account"
	if !t.AsOf.IsZero() {
		heading += " · read " + m.ctx.When(t.AsOf)
	}
	open, add := " · "+m.ctx.Key("account-open")+" opens another", ""
	if m.keys.Add.Enabled() {
		add = " · " + m.ctx.Key("account-add") + " adds one"
	}
	// The longest that fits: a narrow terminal says ● in fewer words,
	// then leaves + to the help.
	for _, h := range []string{heading + " · ● the one open" + open + add, heading + " · ● open" + open + add} {
		if shared.Width(h) <= w {
			heading = h
			break
		}
	}
	if !strings.Contains(heading, open) {
		heading += " · ● the one open" + open
	}
	out := []string{st.Muted.Render(heading), ""}
	shown, widths := m.layout(w - prefix)
	head := strings.Repeat(" ", prefix) + line(Row{}, func(_ Row, i int) string { return columns[i].head }, shown, widths)
	out = append(out, st.ColHeader.Render(head))
	cells := func(r Row, i int) string {
		cell := columns[i].cell(r)
		if i == 0 && r.Name == m.opts.Current {
			cell += currentMark
		}
		return cell
	}
	rh := m.rowsHeight()
	for i := m.top; i < len(t.Rows) && i < m.top+rh; i++ {
		r := t.Rows[i]
		mark := "  "
		if i == m.cursor {
			mark = "▸ "
		}
		text := line(r, cells, shown, widths)
		if r.Err != "" {
			name := line(r, cells, shown[:1], widths)
			text = name + strings.Repeat(" ", gap) + st.Error.Render("✗ "+shared.Safe(r.Err))
		}
		text = mark + text
		if i == m.cursor {
			text = st.Selected.Render(shared.PadRight(shared.Truncate(text, w), w))
		}
		out = append(out, text)
	}
	// The total's label spans the name and the e-mail, as the command's.
	label := widths[0]
	if len(shown) > 1 && shown[1] == 1 {
		label += gap + widths[1]
	}
	total := strings.Repeat(" ", prefix) + shared.PadRight(shared.Truncate(shared.Safe(t.Total.Name), label), label)
	rest := shown[1:]
	if len(rest) > 0 && rest[0] == 1 {
		rest = rest[1:]
	}
	if len(rest) > 0 {
		total += strings.Repeat(" ", gap) + line(t.Total, func(r Row, i int) string { return columns[i].cell(r) }, rest, widths)
	}
	out = append(out, st.Header.Bold(true).Render(total))
	return shared.Block(out, w, h)
}
