package overview

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
)

// Line priorities: when the area is too short the lowest go first (the last
// of equals first), so the credit and the range title stay longest. A
// section's heading shares its rows' priority and comes first, so rows are
// dropped from the bottom and the heading goes with the last of them; the
// charge-type split goes before the contract-type split.
const (
	prioBlank   = 0
	prioItems   = 4
	prioTypes   = 6
	prioTotal   = 7
	prioAccount = 8
	prioTitle   = 9
	prioCredit  = 10
)

// Column widths of the breakdown tables.
const (
	indent   = 2
	gap      = 2
	shareW   = 6  // "100.0%"
	minBarW  = 4  // narrower bars say nothing; drop them instead
	maxBarW  = 40 // wider bars only stretch the eye
	maxNameW = 16 // unknown type names from the server are cut
	minNameW = 10 // "serverless"
)

type line struct {
	text string
	prio int
}

// View renders the screen, exactly width×height.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	ls := m.lines(w, true)
	if len(ls) > h {
		// The big figure costs two rows; give them back first.
		ls = m.lines(w, false)
	}
	return shared.Block(fitLines(ls, h), w, h)
}

// lines is the whole screen, section by section, before fitting to a height.
func (m *Model) lines(w int, big bool) []line {
	var ls []line
	ls = append(ls, m.accountLines(w, big)...)
	ls = append(ls, line{"", prioBlank})
	ls = append(ls, m.chargesLines(w)...)
	if t := m.trendLines(w); len(t) > 0 {
		ls = append(ls, line{"", prioBlank})
		ls = append(ls, t...)
	}
	return ls
}

// trendLines is the place for the burn rate, the runway and the daily chart
// (a later issue). It shows nothing until they are computed from real data:
// no placeholder figures.
func (m *Model) trendLines(w int) []line {
	_ = w
	return nil
}

// accountLines shows credit (big when it fits), balance and threshold.
func (m *Model) accountLines(w int, big bool) []line {
	st := m.styles()
	u := m.account()
	if u == nil {
		if m.userErr != nil {
			return []line{{st.Error.Render("✗ account: " + shared.Safe(m.userErr.Error())), prioCredit}}
		}
		return []line{{st.Muted.Render("loading account…"), prioCredit}}
	}
	credit := u.Credit.Credit()
	style, state := st.Credit, ""
	switch {
	case u.Credit <= 0:
		style, state = st.CreditNeg, "at or below zero"
	case u.BalanceThreshold != nil && (u.BalanceThresholdEnabled == nil || *u.BalanceThresholdEnabled) && u.Credit < *u.BalanceThreshold:
		style, state = st.CreditLow, "below threshold"
	}

	var ls []line
	rows, ok := bigText(credit)
	label := []string{"Credit", credit, state}
	labelW := 0
	for _, l := range label {
		labelW = max(labelW, ansi.StringWidth(l))
	}
	labelW += gap
	if big && ok && w >= labelW+ansi.StringWidth(rows[0]) {
		for i, r := range rows {
			lst := st.Bold
			switch i {
			case 1:
				lst = st.Muted
			case 2:
				lst = style
			}
			ls = append(ls, line{lst.Render(shared.PadRight(label[i], labelW)) + style.Render(r), prioCredit})
		}
	} else {
		s := st.Bold.Render("Credit ") + style.Render(credit)
		if state != "" {
			s += " " + style.Render("("+state+")")
		}
		ls = append(ls, line{s, prioCredit})
	}

	var parts []string
	if u.Balance != 0 {
		parts = append(parts, "Balance "+u.Balance.Credit())
	}
	if u.BalanceThreshold != nil {
		t := "Low-balance threshold " + u.BalanceThreshold.Credit()
		if u.BalanceThresholdEnabled != nil {
			if *u.BalanceThresholdEnabled {
				t += " (enabled)"
			} else {
				t += " (disabled)"
			}
		}
		parts = append(parts, t)
	}
	if len(parts) > 0 {
		ls = append(ls, line{st.Muted.Render(strings.Join(parts, " · ")), prioAccount})
	}
	return ls
}

// chargesLines is the range title and the two breakdowns.
func (m *Model) chargesLines(w int) []line {
	st := m.styles()
	if !m.haveCharges {
		return []line{
			{st.Bold.Render("Charges"), prioTitle},
			{st.Muted.Render("No charges loaded yet"), prioAccount},
		}
	}
	t := m.totals
	title := st.Bold.Render("Charges "+shared.Safe(m.rng.String())) + " · " + m.loadedText()
	if !m.complete {
		title += " · " + st.Warning.Render("partial")
	}
	ls := []line{{title, prioTitle}}
	if t.Contracts == 0 {
		msg := "No charges loaded yet"
		if m.complete {
			msg = "No charges in this range"
		}
		return append(ls, line{st.Muted.Render(msg), prioAccount})
	}

	byType := rowsOf(t.ByType, []string{"instance", "volume", "serverless"})
	byItem := rowsOf(t.ByItem, spend.ItemTypes)
	total := []row{{name: "total", amount: t.Total}}
	cols := layout(w, byType, byItem, total)

	suffix := ""
	if !m.complete {
		suffix = " (partial)"
	}
	ls = append(ls, line{"", prioBlank}, line{st.ColHeader.Render("By contract type" + suffix), prioTypes})
	for _, r := range byType {
		ls = append(ls, line{m.renderRow(r, t.Total, cols, true), prioTypes})
	}
	ls = append(ls, line{m.renderRow(total[0], t.Total, cols, false), prioTotal})
	ls = append(ls, line{"", prioBlank}, line{st.ColHeader.Render("By charge type" + suffix), prioItems})
	for _, r := range byItem {
		ls = append(ls, line{m.renderRow(r, t.Total, cols, true), prioItems})
	}
	return ls
}

// loadedText is "all 1,200 contracts loaded", "1,200 of 12,345 contracts
// loaded" or, without the server's count, "1,200 contracts loaded so far".
func (m *Model) loadedText() string {
	n := m.totals.Contracts
	switch {
	case m.complete:
		return "all " + group(n) + " " + contracts(n) + " loaded"
	case m.serverTotal >= 0:
		return group(n) + " of " + group(m.serverTotal) + " " + contracts(m.serverTotal) + " loaded"
	default:
		return group(n) + " " + contracts(n) + " loaded so far"
	}
}

func contracts(n int) string {
	if n == 1 {
		return "contract"
	}
	return "contracts"
}

// row is one line of a breakdown.
type row struct {
	name   string // type name, sanitized
	key    string // the map key, for the colour
	amount money.Amount
}

// rowsOf lists the known names in order (zero amounts included, so the
// table keeps its shape), then any other names the data holds, sorted.
func rowsOf(by map[string]money.Amount, known []string) []row {
	var rs []row
	for _, k := range known {
		rs = append(rs, row{name: k, key: k, amount: by[k]})
	}
	var extra []string
	for k := range by {
		if !slices.Contains(known, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		name := shared.Safe(k)
		if name == "" {
			name = "(none)"
		}
		rs = append(rs, row{name: shared.Truncate(name, maxNameW), key: k, amount: by[k]})
	}
	return rs
}

// cols are the widths of a breakdown; a zero width drops the column.
type cols struct {
	name, amount, share, bar int
}

// layout sizes the columns for width w: bars go first, then shares, and
// what still does not fit is cut by shared.Block with "…".
func layout(w int, groups ...[]row) cols {
	c := cols{name: minNameW}
	for _, g := range groups {
		for _, r := range g {
			c.name = max(c.name, ansi.StringWidth(r.name))
			c.amount = max(c.amount, len(r.amount.String()))
		}
	}
	base := indent + c.name + gap + c.amount
	if w >= base+gap+shareW {
		c.share = shareW
	}
	if rest := w - (base + gap + shareW + gap); rest >= minBarW {
		c.bar = min(rest, maxBarW)
	}
	return c
}

// renderRow writes name, amount (right-aligned, 3 decimals), share and bar.
// The name is always written, so the bar's colour never carries meaning
// alone.
func (m *Model) renderRow(r row, total money.Amount, c cols, bar bool) string {
	st := m.styles()
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", indent))
	b.WriteString(shared.PadRight(r.name, c.name))
	b.WriteString(strings.Repeat(" ", gap))
	b.WriteString(st.Amount.Render(shared.PadLeft(r.amount.String(), c.amount)))
	if c.share > 0 {
		b.WriteString(strings.Repeat(" ", gap))
		b.WriteString(shared.PadLeft(share(r.amount, total), c.share))
	}
	if c.bar > 0 && bar {
		b.WriteString(strings.Repeat(" ", gap))
		style := st.Accent
		if tc, ok := st.TypeColors[r.key]; ok {
			style = lipgloss.NewStyle().Foreground(tc)
		}
		b.WriteString(style.Render(barOf(r.amount, total, c.bar)))
	}
	return b.String()
}

// share is a's part of total to a tenth of a percent, rounded half up,
// computed in integers: "80.0%". "—" when there is no positive total.
func share(a, total money.Amount) string {
	if total <= 0 {
		return "—"
	}
	neg := a < 0
	if neg {
		a = -a
	}
	pm := (int64(a)*2000 + int64(total)) / (2 * int64(total)) // per mille, half up
	s := strconv.FormatInt(pm/10, 10) + "." + strconv.FormatInt(pm%10, 10) + "%"
	if neg && pm != 0 {
		s = "-" + s
	}
	return s
}

// eighths are the partial blocks, 1/8 to 7/8 of a cell.
var eighths = []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}

// barOf draws a's share of total in width cells, to an eighth of a cell.
// A non-zero amount always shows at least a sliver.
func barOf(a, total money.Amount, width int) string {
	if total <= 0 || a <= 0 || width <= 0 {
		return ""
	}
	if a > total {
		a = total
	}
	n := int64(a) * int64(width) * 8 / int64(total)
	if n == 0 {
		n = 1
	}
	return strings.Repeat("█", int(n/8)) + eighths[n%8]
}

// group writes n with thousands separators: 12345 → "12,345".
func group(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// fitLines drops the lowest-priority lines (the last of equals first) until
// at most h remain, keeping the order of the rest.
func fitLines(ls []line, h int) []string {
	ls = append([]line(nil), ls...)
	for len(ls) > h && len(ls) > 0 {
		low := 0
		for i := range ls {
			if ls[i].prio <= ls[low].prio {
				low = i
			}
		}
		ls = append(ls[:low], ls[low+1:]...)
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.text
	}
	return out
}
