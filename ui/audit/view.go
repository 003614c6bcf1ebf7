package audit

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/ui/shared"
)

// The screen is a fixed header line (the total), a part that scrolls (the
// unreadable sections, the price increases, the leaks, the notes) and,
// while a confirmation is open, a fixed prompt line at the bottom.

// line is one line of the scrolled part; row is the selectable row it
// shows, -1 for none.
type line struct {
	text string
	row  int
}

// gap is the space between columns.
const gap = 2

// scroll keeps the cursor's line in the scrolled part's view.
func (m *Model) scroll() {
	ls := m.lines()
	h := m.bodyHeight()
	at := -1
	for i, l := range ls {
		if l.row == m.cursor {
			at = i
			break
		}
	}
	switch {
	case h <= 0:
		m.top = 0
		return
	case at < 0:
	case at < m.top:
		m.top = at
	case at >= m.top+h:
		m.top = at - h + 1
	}
	// A row is easier to find with its section's heading above it.
	if at >= 0 && at == m.top && at > 0 && ls[at-1].row < 0 && h > 1 {
		m.top--
	}
	m.top = max(min(m.top, len(ls)-h), 0)
}

// bodyHeight is the scrolled part's height: the area less the header and
// the prompt.
func (m *Model) bodyHeight() int {
	h := m.height - 1
	if m.confirm != nil {
		h--
	}
	return max(h, 0)
}

// View renders the screen in its area.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	out := []string{m.header(w)}
	ls := m.lines()
	bh := m.bodyHeight()
	top := max(min(m.top, len(ls)-bh), 0)
	for i := top; i < len(ls) && i < top+bh; i++ {
		out = append(out, ls[i].text)
	}
	if m.confirm != nil {
		for len(out) < h-1 {
			out = append(out, "")
		}
		out = append(out, m.prompt(w))
	}
	return shared.Block(out, w, h)
}

// header is the total: "Leaks $2.210/h · 56 found · 2 price increases ·
// read 15:04", shortened to fit.
func (m *Model) header(w int) string {
	st := m.ctx.Styles
	label := st.Bold.Render("Leaks ")
	switch {
	case m.audit == nil && m.err != nil:
		return label + st.Error.Render("✗ "+m.ctx.RetryText("audit", m.err))
	case m.audit == nil:
		return label + st.Muted.Render("reading instances, volumes, endpoints…")
	}
	a := m.audit
	var parts []string
	switch {
	case len(a.Leaks) > 0:
		parts = append(parts, st.Warning.Render(a.TotalText()), a.CountText())
	case a.Complete():
		parts = append(parts, st.OK.Render("none found"))
	default:
		parts = append(parts, st.Warning.Render("unknown"))
	}
	if n := len(a.Increases); n > 0 {
		parts = append(parts, billing.Plural(n, "price increase", "price increases"))
	}
	if m.err != nil {
		parts = append(parts, st.Error.Render("✗ "+m.ctx.RetryText("audit", m.err)))
	} else {
		parts = append(parts, st.Muted.Render("read "+a.AsOf.In(m.ctx.Loc()).Format("15:04")))
	}
	for n := len(parts); n > 0; n-- {
		s := label + strings.Join(parts[:n], st.Muted.Render(" · "))
		if shared.Width(s) <= w {
			return s
		}
	}
	return label + parts[0]
}

// prompt is the confirmation, as much of "Accept the price increase of
// instance 9100104: $2.151/h → $2.351/h from 29 Nov 10:34? y send the
// answer · n/esc do not send" as fits (the footer names the keys too).
func (m *Model) prompt(w int) string {
	st := m.ctx.Styles
	c := m.confirm
	verb, then := "Reject", " (the contract ends then)"
	if c.accept {
		verb, then = "Accept", ""
	}
	id := strconv.FormatInt(c.pc.InstanceID, 10)
	change, from := "", ""
	if c.pc.NowKnown {
		change = ": " + c.pc.ChangeText()
	}
	if !c.pc.AppliesAt.IsZero() {
		from = " from " + m.ctx.When(c.pc.AppliesAt)
	}
	hint := " " + shared.Hint(m.keys.Yes, m.keys.No)
	for _, q := range []string{
		verb + " the price increase of instance " + id + change + from + then + "?",
		verb + " " + id + change + from + then + "?",
		verb + " " + id + change + from + "?",
		verb + " " + id + change + "?",
	} {
		switch {
		case shared.Width(q+hint) <= w:
			return st.Warning.Render(q) + st.Muted.Render(hint)
		case shared.Width(q) <= w:
			return st.Warning.Render(q)
		}
	}
	return st.Warning.Render(verb+" "+id+"?") + st.Muted.Render(hint)
}

// columns are the widths of the leaks' columns at width w; 0 drops one.
type columns struct {
	short                        bool // kinds abbreviated
	kind, id, rate, soFar, since int
	label                        int
}

// kindText is a kind as the table shows it.
func kindText(k leaks.LeakKind, short bool) string {
	if !short {
		return k.Title()
	}
	switch k {
	case leaks.LeakStoppedInstance:
		return "stopped"
	case leaks.LeakOrphanVolume:
		return "volume"
	case leaks.LeakIdleEndpoint:
		return "endpoint"
	}
	return "idle GPU"
}

// cells is a leak's cells: rate, so far, since.
func (m *Model) cells(l leaks.Leak) (rate, soFar, since string) {
	rate, soFar, since = "unknown", "unknown", "—"
	if l.PerHourKnown {
		rate = l.PerHour.String()
		if l.Partial {
			rate = "≥" + rate
		}
	}
	if l.MaybeWorker {
		rate = "?" + rate // may be a serverless worker: in no total
	}
	if l.SoFarKnown {
		soFar = l.SoFar.String()
		if !l.SoFarExact {
			soFar = "≈" + soFar
		}
	}
	if !l.Since.IsZero() {
		since = m.ctx.When(l.Since)
	}
	return rate, soFar, since
}

// layout fits the leaks' columns to w: the since goes first, then the id,
// then the so far; the label takes what is left; kinds shorten below 64
// cells.
func (m *Model) layout(w int) columns {
	c := columns{short: w < 64, kind: len("KIND"), id: len("ID"), rate: len("$/H"), soFar: len("SO FAR"), since: len(leaks.CreatedHeader)}
	for _, l := range m.audit.Leaks {
		rate, soFar, since := m.cells(l)
		c.kind = max(c.kind, shared.Width(kindText(l.Kind, c.short)))
		c.id = max(c.id, len(strconv.FormatInt(l.ID, 10)))
		c.rate = max(c.rate, shared.Width(rate))
		c.soFar = max(c.soFar, shared.Width(soFar))
		c.since = max(c.since, shared.Width(since))
	}
	used := func() int {
		n := 2 + c.kind
		for _, v := range []int{c.id, c.rate, c.soFar, c.since} {
			if v > 0 {
				n += gap + v
			}
		}
		return n
	}
	for _, drop := range []*int{&c.since, &c.id, &c.soFar} {
		if w-used()-gap >= 8 {
			break
		}
		*drop = 0
	}
	c.label = max(w-used()-gap, 0)
	return c
}

// lines is the scrolled part.
func (m *Model) lines() []line {
	if m.audit == nil {
		return nil
	}
	st := m.ctx.Styles
	a := m.audit
	w := max(m.width, 1)
	var ls []line
	add := func(s string) { ls = append(ls, line{text: s, row: -1}) }
	for _, u := range a.Unreadable {
		add(st.Warning.Render("⚠ " + shared.Safe(u)))
	}
	if len(a.Increases) > 0 {
		head := st.ColHeader.Render("Price increases waiting for an answer")
		if hint := " · " + shared.Hint(m.keys.Accept, m.keys.Reject); shared.Width(head+hint) <= w {
			head += st.Muted.Render(hint)
		}
		add(head)
		for i, s := range m.increaseRows(w) {
			ls = append(ls, line{text: m.selected(i, s, w), row: i})
		}
		add("")
	}
	if len(a.Leaks) == 0 {
		if a.Complete() {
			add(st.OK.Render("No leaks found: nothing is paid for without being used."))
		} else {
			add(st.Muted.Render("No leaks found in what could be read."))
		}
	} else {
		c := m.layout(w)
		add(st.ColHeader.Render(m.leakRow(c, "KIND", "ID", "$/H", "SO FAR", leaks.CreatedHeader, "LABEL")))
		off := len(a.Increases)
		for i, l := range a.Leaks {
			rate, soFar, since := m.cells(l)
			label := shared.Safe(l.Label)
			if label == "" {
				label = "—"
			}
			s := m.leakRow(c, kindText(l.Kind, c.short), strconv.FormatInt(l.ID, 10), rate, soFar, since, label)
			ls = append(ls, line{text: m.selected(off+i, s, w), row: off + i})
		}
	}
	if len(a.Leaks) > 0 && m.layout(w).since > 0 {
		// The column is the creation, not the leak's start: said, so that
		// $/h × the time since it is not read as so far.
		for _, l := range strings.Split(ansi.Wrap(leaks.CreatedNote, w, ""), "\n") {
			add(st.Muted.Render(l))
		}
	}
	if len(a.Notes) > 0 {
		add("")
		for _, n := range a.Notes {
			add(st.Muted.Render(shared.Safe(n)))
		}
	}
	return ls
}

// leakRow lays out one row of the leaks' table.
func (m *Model) leakRow(c columns, kind, id, rate, soFar, since, label string) string {
	var b strings.Builder
	b.WriteString("  ")
	b.WriteString(shared.PadRight(kind, c.kind))
	for _, col := range []struct {
		s     string
		w     int
		right bool
	}{{id, c.id, false}, {rate, c.rate, true}, {soFar, c.soFar, true}, {since, c.since, false}} {
		if col.w == 0 {
			continue
		}
		b.WriteString(strings.Repeat(" ", gap))
		if col.right {
			b.WriteString(shared.PadLeft(col.s, col.w))
		} else {
			b.WriteString(shared.PadRight(col.s, col.w))
		}
	}
	if c.label > 0 {
		b.WriteString(strings.Repeat(" ", gap))
		b.WriteString(shared.Truncate(label, c.label))
	}
	return b.String()
}

// increaseRows are the price increases, aligned: "  9100104  pretrain
// $2.151/h → $2.351/h  from 29 Nov 10:34  ignored: the contract ends
// then", losing columns from the right, then the label, to fit.
func (m *Model) increaseRows(w int) []string {
	cells := make([][]string, len(m.audit.Increases))
	for i, pc := range m.audit.Increases {
		rate, from := pc.ChangeText(), ""
		if !pc.AppliesAt.IsZero() {
			from = "from " + m.ctx.When(pc.AppliesAt)
		}
		label := shared.Safe(pc.Label)
		if label == "" {
			label = "—"
		}
		cells[i] = []string{strconv.FormatInt(pc.InstanceID, 10), shared.Truncate(label, 24), rate, from, "ignored: the contract ends then"}
	}
	widths := make([]int, 5)
	for _, r := range cells {
		for j, c := range r {
			widths[j] = max(widths[j], shared.Width(c))
		}
	}
	row := func(r []string, cols []int) string {
		var b strings.Builder
		b.WriteString(" ")
		for _, j := range cols {
			b.WriteString(" ")
			b.WriteString(shared.PadRight(r[j], widths[j]))
			b.WriteString(" ")
		}
		return strings.TrimRight(b.String(), " ")
	}
	for _, cols := range [][]int{{0, 1, 2, 3, 4}, {0, 1, 2, 3}, {0, 2, 3}, {0, 1, 2}, {0, 2}} {
		n := 1
		for _, j := range cols {
			n += widths[j] + 2
		}
		if n-1 <= w || len(cols) == 2 {
			out := make([]string, len(cells))
			for i, r := range cells {
				out[i] = row(r, cols)
			}
			return out
		}
	}
	return nil
}

// selected marks row i when the cursor is on it.
func (m *Model) selected(i int, s string, w int) string {
	if i != m.cursor {
		return s
	}
	s = "›" + strings.TrimPrefix(s, " ")
	if m.sending != nil {
		s = "…" + strings.TrimPrefix(s, "›")
	}
	return m.ctx.Styles.Selected.Render(shared.PadRight(shared.Truncate(s, w), w))
}
