package charges

import (
	"errors"
	"github.com/charmbracelet/x/ansi"
	"strconv"
	"strings"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/shared"
)

// Column widths in cells. The id/description and label columns share what
// is left.
const (
	curW     = 2  // "› " cursor marker
	typeW    = 10 // "serverless"
	datesW   = 27 // "Nov 02 14:00 → Nov 05 09:30"
	stampW   = 12 // "Nov 02 14:00"
	durW     = 8  // "DURATION", "123d 23h"
	amtMin   = 7  // "AMOUNT" and a little air
	idMin    = 8
	labelMin = 8
	labelMax = 40
)

// Messages the body shows instead of rows (and the status line, for a
// failure or a wait while rows are shown).
const (
	msgPermission = "this API key lacks the billing_read permission"
	msgRateWait   = "waiting for the rate limit…"
	msgWiden      = "press d to widen the range"
)

// cols is the width of each column; 0 hides it. fits says the columns add
// up to exactly the screen width, so formatted rows need no measuring.
type cols struct {
	typ, id, label, dates, dur, amt int
	fits                            bool
}

// layoutCols fits the columns into w cells, hiding, as w shrinks, the
// duration, then the start → end, then the label, then the type.
func layoutCols(w, amt int) cols {
	c := cols{typ: typeW, label: labelMin, dates: datesW, dur: durW, amt: amt}
	for step := 0; ; step++ {
		fixed := curW + 1 + c.amt
		if c.typ > 0 {
			fixed += c.typ + 1
		}
		if c.dates > 0 {
			fixed += 1 + c.dates
		}
		if c.dur > 0 {
			fixed += 1 + c.dur
		}
		flex := w - fixed // id, plus a gap and the label when shown
		need := idMin
		if c.label > 0 {
			need += 1 + labelMin
		}
		if flex >= need || step == 4 {
			if c.label > 0 {
				c.label = min(max((flex-1)*2/5, labelMin), labelMax)
				c.id = flex - 1 - c.label
			} else {
				c.id = max(flex, 1)
			}
			c.fits = flex >= 1
			return c
		}
		switch step {
		case 0:
			c.dur = 0
		case 1:
			c.dates = 0
		case 2:
			c.label = 0
		case 3:
			c.typ = 0
		}
	}
}

// frame says which lines the screen shows at its current size.
type frame struct {
	filter, modal, header, footer bool
	body                          int // rows (or the body message)
}

// frame decides the lines from the most to the least needed: the open
// input/picker, the filter bar, the footer, the column headings; at least
// one line is kept for the body. The status line is the root's.
func (m *Model) frame() frame {
	var fr frame
	avail := m.h
	if m.mode != modeTree && avail > 0 {
		fr.modal = true
		avail--
	}
	take := func(want bool) bool {
		if want && avail > 1 {
			avail--
			return true
		}
		return false
	}
	fr.filter = take(true)
	fr.footer = take(true)
	fr.header = take(m.tree.Len() > 0)
	fr.body = avail
	return fr
}

// View renders the screen in exactly its width × height.
//
// Only the rows in the window are looked at. Each row's text is formatted
// once and cached (see rowCache); the cursor row swaps its marker and gets
// the one style render of the frame.
func (m *Model) View() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	st := m.styles()
	fr := m.frame()
	var out strings.Builder
	out.Grow((m.w + 8) * m.h)
	n := 0 // lines written
	line := func(s string, exact bool) {
		if n > 0 {
			out.WriteByte('\n')
		}
		if !exact {
			s = shared.PadRight(shared.Truncate(s, m.w), m.w)
		}
		out.WriteString(s)
		n++
	}
	if fr.filter {
		line(m.f.summary(), false)
	}
	if fr.modal {
		line(m.modalLine(), false)
	}
	c := layoutCols(m.w, max(m.amtW, amtMin))
	if fr.header {
		line(st.ColHeader.Render(headerLine(c)), false)
	}
	if m.tree.Len() == 0 {
		for _, l := range m.messageLines(fr.body) {
			line(l, false)
		}
	} else {
		m.cache.check(c, m.ctx.Loc())
		shown := 0
		m.tree.rows.Each(m.offset, m.offset+fr.body, func(i int, r *row) bool {
			s := m.cache.line(r)
			if i == m.cursor {
				// The "›" marker for NO_COLOR, and reverse video.
				s = st.Selected.Render(cursorMark + s[len(noMark):])
			}
			line(s, c.fits)
			shown++
			return true
		})
		for ; shown < fr.body; shown++ {
			line("", false)
		}
	}
	if fr.footer {
		line(st.StatusLine.Render(shared.Truncate(m.footer(), m.w)), false)
	}
	return out.String()
}

// messageLines fill the body with why there are no rows, centered-ish.
func (m *Model) messageLines(body int) []string {
	lines := make([]string, 0, body)
	var msg []string
	switch {
	case m.st.Err != nil:
		// Wrapped, not cut: the body has the room, and the end of an
		// error is often its cause.
		msg = strings.Split(ansi.Wrap(errText(m.st.Err), max(m.w-2, 10), ""), "\n")
	case m.waiting():
		msg = []string{msgRateWait}
	case m.st.Done:
		msg = []string{"No charges " + m.f.rng.Days(), msgWiden}
	default:
		// A slow first page (or pages the feed dropped as repeats after
		// a restart) would otherwise leave the body blank.
		msg = []string{"loading charges: " + m.pageText() + "…"}
	}
	top := max((body-len(msg))/3, 0)
	for i := 0; i < body; i++ {
		line := ""
		if k := i - top; k >= 0 && k < len(msg) {
			line = shared.Truncate(msg[k], m.w)
			line = strings.Repeat(" ", max((m.w-shared.Width(line))/2, 0)) + line
		}
		lines = append(lines, line)
	}
	return lines
}

// errText says why the feed stopped and what to do: r asks again, except
// for a missing permission, which asking again cannot fix.
func errText(err error) string {
	if errors.Is(err, api.ErrPermission) {
		return msgPermission
	}
	return shared.RetryText("charges", err)
}

// pageText names the page being loaded: "page 3 of 12" ("page 3" while the
// server has not said how many match, or when its pages are shorter than
// asked and the count no longer fits).
func (m *Model) pageText() string {
	n := m.st.Pages + 1
	s := "page " + strconv.Itoa(n)
	if t := m.st.PagesTotal(); t >= n {
		s += " of " + strconv.Itoa(t)
	}
	return s
}

// footer is "1,200 of 12,345 contracts · $4,321.000 loaded · loading page
// 4 of 25…": the feed's count of what it kept, the server's total, the sum
// of the kept amounts, what it dropped, and what it is doing.
func (m *Model) footer() string {
	st := &m.st
	var b strings.Builder
	// The server's total counts top-level entries in the tree format (the
	// demo server counts a wrapper as one), contracts in the table format:
	// the footer counts in the same unit and says which.
	n, unit := st.Contracts, " contracts · "
	if m.f.format == api.FormatTree {
		n, unit = st.Entries, " entries · "
	}
	b.WriteString(money.Group(int64(n)))
	if st.Total >= 0 {
		b.WriteString(" of ")
		b.WriteString(money.Group(int64(st.Total)))
	}
	b.WriteString(unit)
	if st.Overflow {
		b.WriteString("total too large") // a wrapped sum would be a lie
	} else {
		b.WriteString(st.Amount.String())
		b.WriteString(" loaded")
	}
	if st.Skipped > 0 {
		b.WriteString(" · ")
		b.WriteString(money.Group(int64(st.Skipped)))
		b.WriteString(" malformed skipped")
	}
	if st.Duplicates > 0 {
		b.WriteString(" · ")
		b.WriteString(billing.Plural(st.Duplicates, "duplicate dropped", "duplicates dropped"))
	}
	switch {
	case m.waiting():
		b.WriteString(" · waiting for the rate limit…")
	case st.Loading:
		b.WriteString(" · loading ")
		b.WriteString(m.pageText())
		b.WriteString("…")
	case st.Err != nil:
		b.WriteString(" · stopped")
	case st.Done:
		b.WriteString(" · all loaded")
	default:
		b.WriteString(" · more below")
	}
	return b.String()
}

// headerLine is the column headings, aligned like the rows.
func headerLine(c cols) string {
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", curW))
	if c.typ > 0 {
		b.WriteString(shared.PadRight("TYPE", c.typ))
		b.WriteByte(' ')
	}
	id := "ID / DESCRIPTION"
	if shared.Width(id) > c.id {
		id = "ID"
	}
	b.WriteString(shared.Fit(id, c.id))
	if c.label > 0 {
		b.WriteByte(' ')
		b.WriteString(shared.Fit("LABEL", c.label))
	}
	if c.dates > 0 {
		b.WriteByte(' ')
		b.WriteString(shared.PadRight("START → END", c.dates))
	}
	if c.dur > 0 {
		b.WriteByte(' ')
		b.WriteString(shared.PadLeft("DURATION", c.dur))
	}
	b.WriteByte(' ')
	b.WriteString(shared.PadLeft("AMOUNT", c.amt))
	return b.String()
}

// itemTypes are the breakdown types a contract expands into; such rows show
// their description rather than an id.
func isItem(t string) bool { return t == "gpu" || t == "disk" || t == "bwd" || t == "bwu" }

// idText is what the id column shows: "123" for "instance-123", the source
// itself for wrappers ("endpoint-7"), the description for items and for
// nodes without a source.
func idText(n *api.Charge) (s string, isDesc bool) {
	if n.Source == "" || isItem(n.Type) {
		return n.Description, true
	}
	if n.Type != "" && n.Type != string(api.TypeServerless) {
		if id, ok := strings.CutPrefix(n.Source, n.Type+"-"); ok && id != "" {
			return id, false
		}
	}
	return n.Source, false
}

// Cursor markers, 2 cells each: the selected row swaps noMark for cursorMark.
const (
	cursorMark = "› "
	noMark     = "  "
)

// cell writes s cut or padded to exactly w cells, right-aligned when right.
// s is trusted text (ours) or already sanitized.
func cell(b *strings.Builder, s string, w int, right bool) {
	s = shared.Truncate(s, w)
	if right {
		b.WriteString(shared.PadLeft(s, w))
	} else {
		b.WriteString(shared.PadRight(s, w))
	}
}

// writeRow formats one row, not selected, into exactly the columns' width
// when c.fits. Every server string is sanitized first (shared.Safe) and
// measured in cells.
func writeRow(b *strings.Builder, r *row, c cols, loc *time.Location) {
	n := r.node
	b.WriteString(noMark)
	if c.typ > 0 {
		cell(b, shared.Safe(n.Type), c.typ, false)
		b.WriteByte(' ')
	}
	// The tree column: indentation, the ▸/▾ marker, then the id or the
	// description.
	var prefix string
	switch {
	case r.expanded:
		prefix = "▾ "
	case r.hasChildren():
		prefix = "▸ "
	default:
		prefix = "  "
	}
	if r.depth > 0 {
		prefix = strings.Repeat("  ", int(r.depth)) + prefix
	}
	text, isDesc := idText(n)
	label := n.Meta.Label
	if label == "" && !isDesc {
		label = n.Description
	}
	label = shared.Safe(label)
	idW := c.id
	if c.label > 0 && label == "" {
		// Items have no label: let the description use its column too.
		idW += 1 + c.label
	}
	pw := min(shared.Width(prefix), idW)
	cell(b, prefix, pw, false)
	cell(b, shared.Safe(text), idW-pw, false)
	if c.label > 0 && label != "" {
		b.WriteByte(' ')
		cell(b, label, c.label, false)
	}
	if c.dates > 0 {
		b.WriteByte(' ')
		// Each end padded on its own, so the arrows line up even when
		// one of the times is unknown.
		cell(b, stamp(n.Start, loc), stampW, false)
		b.WriteString(" → ")
		cell(b, stamp(n.End, loc), c.dates-stampW-3, false)
	}
	if c.dur > 0 {
		b.WriteByte(' ')
		cell(b, duration(n.Start, n.End), c.dur, true)
	}
	b.WriteByte(' ')
	cell(b, n.Amount.String(), c.amt, true)
}

// rowCache keeps each node's formatted row so that moving the cursor
// formats only the rows that scroll into view. It is keyed by node and
// remembers the open state it was formatted with; a change of columns or
// location empties it, and it is emptied when it grows past a few screens
// so memory stays bounded however far the user scrolls.
type rowCache struct {
	cols  cols
	loc   *time.Location
	lines map[*api.Charge]cachedRow
	b     strings.Builder
}

type cachedRow struct {
	expanded bool
	s        string
}

// cacheMax bounds the cache; a full clear costs one screen of formatting.
const cacheMax = 4096

// check empties the cache when what rows look like changed.
func (rc *rowCache) check(c cols, loc *time.Location) {
	if rc.lines == nil || rc.cols != c || rc.loc != loc || len(rc.lines) > cacheMax {
		rc.cols, rc.loc = c, loc
		rc.lines = make(map[*api.Charge]cachedRow, 64)
	}
}

// reset forgets every row (the nodes are being dropped).
func (rc *rowCache) reset() { rc.lines = nil }

// line returns r's formatted row, formatting it on a miss.
func (rc *rowCache) line(r *row) string {
	if e, ok := rc.lines[r.node]; ok && e.expanded == r.expanded {
		return e.s
	}
	rc.b.Reset()
	writeRow(&rc.b, r, rc.cols, rc.loc)
	s := rc.b.String()
	rc.lines[r.node] = cachedRow{expanded: r.expanded, s: s}
	return s
}

// stamp formats unix seconds compactly: "Nov 02 14:00"; "—" when absent.
func stamp(sec int64, loc *time.Location) string {
	if sec == 0 {
		return "—"
	}
	return time.Unix(sec, 0).In(loc).Format("Jan 02 15:04")
}

// duration is end − start compactly: "2d 19h", "5h 30m", "45m".
func duration(start, end int64) string {
	if start == 0 || end == 0 || end < start {
		return ""
	}
	d := end - start
	days, hours, mins := d/86400, d%86400/3600, d%3600/60
	switch {
	case days > 0:
		return strconv.FormatInt(days, 10) + "d " + strconv.FormatInt(hours, 10) + "h"
	case hours > 0:
		return strconv.FormatInt(hours, 10) + "h " + strconv.FormatInt(mins, 10) + "m"
	}
	return strconv.FormatInt(mins, 10) + "m"
}
