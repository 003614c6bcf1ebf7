package charges

import (
	"github.com/charmbracelet/x/ansi"
	"strconv"
	"strings"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/textwrap"
	"github.com/vastdash/vastdash/ui/shared"
)

// Column widths in cells. The text column (label · description) takes
// what is left: it is the one worth widening, the ids have a known size.
const (
	curW    = 2  // "› " cursor marker
	typeW   = 10 // "serverless"
	datesW  = 27 // "12 Nov 14:00 → 15 Nov 09:30"
	stampW  = 12 // "12 Nov 14:00"
	durW    = 8  // "DURATION", "123d 23h"
	amtMin  = 7  // "AMOUNT" and a little air
	idTable = 10 // "▸ " and an 8-digit contract id
	idTree  = 22 // "    ▸ " and "workergroup-1234567890", two levels deep
	textMin = 8
	// textWant is the text column below which the dates give up their end.
	textWant = 24
)

// Messages the body shows instead of rows (and the status line, for a
// failure or a wait while rows are shown).
const (
	msgRateWait = "waiting for the rate limit…"
)

// cols is the width of each column; 0 hides it. fits says the columns add
// up to exactly the screen width, so formatted rows need no measuring.
type cols struct {
	typ, id, text, dates, dur, amt int
	fits                           bool
}

// layoutCols fits the columns into w cells, hiding, as w shrinks, the
// duration, then the start → end, then the text, then the type. The id
// column gets the width its ids need up to a base (10 cells, an 8-digit id;
// tree: 22, for the nesting and the wrappers' names) before the text gets
// the rest, so an id is cut only when nothing else is left to give; past
// textWant cells of text, the id column grows to idNeed (the widest id
// loaded, nesting included), so a wide screen shows "serverless-9011261"
// whole. When the text would get fewer than textWant cells (80 columns),
// the dates shrink to the start alone — the duration says how long, and
// says "running" for a contract still running — if that leaves the text
// more room.
func layoutCols(w, amt, idNeed int, tree bool) cols {
	c := fitCols(w, amt, idNeed, tree, datesW)
	if c.dates == datesW && c.text < textWant {
		if short := fitCols(w, amt, idNeed, tree, stampW); short.text > c.text && short.dur > 0 {
			return short
		}
	}
	return c
}

// fitCols is layoutCols with the dates column dates wide (datesW, or
// stampW for the start alone).
func fitCols(w, amt, idNeed int, tree bool, dates int) cols {
	idWant := idTable
	if tree {
		// The tree's base is what its ids need, between the table's and
		// two levels of wrappers: no blank cells before any id is loaded.
		idWant = min(max(idNeed, idTable), idTree)
	}
	c := cols{typ: typeW, text: textMin, dates: dates, dur: durW, amt: amt}
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
		flex := w - fixed // id, plus a gap and the text when shown
		need := idWant
		if c.text > 0 {
			need += 1 + textMin
		}
		if flex >= need || step == 4 {
			if c.text > 0 {
				c.id = idWant
				c.text = flex - 1 - c.id
				if grow := min(idNeed-c.id, c.text-textWant); grow > 0 {
					c.id += grow
					c.text -= grow
				}
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
			c.text = 0
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
	fr.header = take(m.tree.Len() > 0 && m.mode != modeDetail)
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
		bar := m.f.summary("")
		switch {
		case m.sort != sortServer && m.sorted:
			bar = m.f.summary(sortNames[m.sort])
		case m.sort != sortServer:
			bar += " · sort " + sortNames[m.sort] // waiting for the range
		}
		line(bar, false)
	}
	if fr.modal {
		line(m.modalLine(), false)
	}
	c := layoutCols(m.w, max(m.amtW, amtMin), m.idW, m.f.format == api.FormatTree)
	if fr.header {
		line(st.ColHeader.Render(headerLine(c)), false)
	}
	if m.mode == modeDetail {
		lines := m.detailView(fr.body)
		for _, l := range lines {
			line(l, false)
		}
		for k := len(lines); k < fr.body; k++ {
			line("", false)
		}
	} else if m.tree.Len() == 0 {
		for _, l := range m.messageLines(fr.body) {
			line(l, false)
		}
	} else {
		m.cache.check(c, m.ctx.Loc(), m.asOf)
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
		ft := m.footer()
		switch {
		case m.win != nil:
			ft = m.windowFooter()
		case m.syncOnly && m.fl.State().Done:
			ft = "reading the ledger…"
		case m.find != "":
			ft = m.findFooter()
		}
		line(st.StatusLine.Render(shared.Truncate(ft, m.w)), false)
	}
	return out.String()
}

// messageLines fill the body with why there are no rows, centered-ish.
func (m *Model) messageLines(body int) []string {
	lines := make([]string, 0, body)
	var msg []string
	switch {
	case m.win != nil:
		msg = m.windowMessage()
	case m.find != "" && m.fl.Entries() > 0:
		msg = []string{"no loaded entry matches /" + shared.Safe(m.find), m.ctx.Key("search-clear") + " clears the filter"}
		if !m.fl.State().Done {
			msg[0] += " (more still loading)"
		}
	case m.fl.State().Err != nil:
		// Wrapped, not cut: the body has the room, and the end of an
		// error is often its cause.
		msg = strings.Split(ansi.Wrap(m.errText(m.fl.State().Err), max(m.w-2, 10), ""), "\n")
	case m.waiting():
		msg = []string{msgRateWait}
	case m.syncOnly && m.fl.State().Done:
		// Synced: the window is being read (or the full feed taken).
		msg = []string{"reading the ledger…"}
	case m.fl.State().Done:
		msg = []string{"No charges " + m.f.rng.Days(m.ctx.Clock()), "press " + m.ctx.Key("range-next") + " to widen the range"}
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
// for a missing permission or a refused key, which asking again cannot
// fix (shared.RetryText).
func (m *Model) errText(err error) string { return m.ctx.RetryText("charges", err) }

// pageText names the page being loaded: "page 3 of 12" ("page 3" while the
// server has not said how many match, or when its pages are shorter than
// asked and the count no longer fits). The sync feed's are the sync's
// requests, of the pages its window needs, known from its first answer.
func (m *Model) pageText() string {
	st := m.fl.State()
	n := st.Pages + 1
	s := "page " + strconv.Itoa(n)
	t := st.PagesTotal()
	if m.syncOnly && st.SyncPagesTotal > 0 {
		t = max(st.SyncPagesTotal, st.Pages)
	}
	if t >= n {
		s += " of " + strconv.Itoa(t)
	}
	return s
}

// footer is "1,200 of 12,345 contracts · $4,321.000 loaded · loading page
// 4 of 25…": the feed's count of what it kept, the server's total, the sum
// of the kept amounts, what it dropped, and what it is doing.
func (m *Model) footer() string { return m.footerOf(m.fl.State()) }

// footerOf is the footer of the feed's state st.
func (m *Model) footerOf(st billing.State) string {
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
	synced := ""
	if st.Ledger && !st.Done {
		synced = st.SyncedText(m.ctx.Clock()) // the ledger's rows: how old
	}
	if synced != "" {
		b.WriteString(" · ")
		b.WriteString(synced)
	}
	switch {
	case m.waiting():
		b.WriteString(" · waiting for the rate limit…")
	case st.Stale && st.Err != nil:
		// The rows of the load before a reload that failed, kept.
		b.WriteString(" · stale: the reload failed")
	case st.Stale:
		b.WriteString(" · reloading…")
	case st.Loading && st.Ledger:
		b.WriteString(" · syncing…")
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
	b.WriteString(shared.Fit("ID", c.id))
	if c.text > 0 {
		b.WriteByte(' ')
		text := "LABEL · DESCRIPTION"
		if shared.Width(text) > c.text {
			text = "DESCRIPTION"
		}
		b.WriteString(shared.Fit(text, c.text))
	}
	if c.dates > 0 {
		b.WriteByte(' ')
		head := "START → END"
		if c.dates < datesW {
			head = "START"
		}
		b.WriteString(shared.PadRight(head, c.dates))
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

// idText is what the id column shows: "123" for "instance-123" (and
// "serverless-123": the type column says what it is), the source itself
// for wrappers ("endpoint-7", "workergroup-70"), "" for a node without a
// source (items: their description says what they are).
func idText(n *api.Charge) string {
	if n.Source == "" || isItem(n.Type) {
		return ""
	}
	if n.Type != "" {
		if id, ok := strings.CutPrefix(n.Source, n.Type+"-"); ok && id != "" {
			return id
		}
	}
	return n.Source
}

// idWidth is the id column n and the wrapped contracts under it need,
// each behind its nesting and ▸ marker: items have no id and are not
// looked into.
func idWidth(n *api.Charge, depth int) int {
	id := idText(n)
	if id == "" {
		return 0
	}
	w := 2*depth + 2 + shared.Width(display(id))
	for i := range n.Items {
		w = max(w, idWidth(&n.Items[i], depth+1))
	}
	return w
}

// rowText is the text column: the label and the description, "label ·
// description" when both are set, so a labelled contract still shows what
// it ran on. Beside id (the id column's text), the description's lead
// that repeats it goes: "Instance 9007485: 1x A100 SXM4" beside 9007485
// is "1x A100 SXM4".
func rowText(n *api.Charge, id string) string {
	label, desc := display(n.Meta.Label), display(n.Description)
	if id != "" {
		desc = billing.DescriptionBeside(desc, id, n.Source)
	}
	switch {
	case label == "":
		return desc
	case desc == "":
		return label
	}
	return label + " · " + desc
}

// display prepares server text for a cell: sanitized, and without zero
// width joiners. A ZWJ sequence such as 👩‍🔬 is one glyph 2 cells wide to a
// terminal that joins it and two glyphs 4 cells wide to one that does not
// (tmux): no measure is right for both, and a row measured short pushes
// its amount off the screen. Without the joiners every terminal draws the
// parts side by side, exactly as wide as measured.
func display(s string) string {
	s = shared.Safe(s)
	if strings.ContainsRune(s, zwj) {
		s = strings.ReplaceAll(s, string(zwj), "")
	}
	return s
}

// zwj is U+200D ZERO WIDTH JOINER.
const zwj = '\u200d'

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

// textCell writes words cut at a word's end, padded to w cells.
func textCell(b *strings.Builder, s string, w int) {
	b.WriteString(shared.PadRight(textwrap.Cut(s, w), w))
}

// idCell writes an id in w cells, cut on the left when it must be: the
// number that tells contracts apart is at its end ("…9011261", not
// "serverl…").
func idCell(b *strings.Builder, id string, w int) {
	if w > 1 && shared.Width(id) > w {
		id = "…" + ansi.TruncateLeft(id, shared.Width(id)-w+1, "")
	}
	cell(b, id, w, false)
}

// writeRow formats one row, not selected, into exactly the columns' width
// when c.fits. Every server string is sanitized first (shared.Safe) and
// measured in cells.
func writeRow(b *strings.Builder, r *row, c cols, loc *time.Location, asOf time.Time) {
	n := r.node
	b.WriteString(noMark)
	if c.typ > 0 {
		cell(b, display(n.Type), c.typ, false)
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
	pw := min(shared.Width(prefix), c.id)
	cell(b, prefix, pw, false)
	id := display(idText(n))
	text := rowText(n, id)
	switch {
	case id == "" && c.text > 0:
		// No id (an item): its description starts after the tree marks
		// and has the id column too.
		textCell(b, text, c.id-pw+1+c.text)
	case id == "":
		textCell(b, text, c.id-pw) // no text column: the description is all it has
	default:
		idCell(b, id, c.id-pw)
		if c.text > 0 {
			b.WriteByte(' ')
			textCell(b, text, c.text)
		}
	}
	short := c.dates < datesW // the start alone: the duration says "running"
	if c.dates > 0 {
		b.WriteByte(' ')
		// Each end padded on its own, so the arrows line up even when
		// one of the times is unknown.
		cell(b, stamp(n.Start, loc, asOf), stampW, true)
		if !short {
			b.WriteString(" → ")
			end := stamp(n.End, loc, asOf)
			if running(n, asOf) {
				end = "running"
			}
			cell(b, end, c.dates-stampW-3, false)
		}
	}
	if c.dur > 0 {
		b.WriteByte(' ')
		d := duration(n.Start, n.End)
		if short && running(n, asOf) {
			d = "running"
		}
		cell(b, d, c.dur, true)
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
	asOf  time.Time
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
func (rc *rowCache) check(c cols, loc *time.Location, asOf time.Time) {
	if rc.lines == nil || rc.cols != c || rc.loc != loc || !rc.asOf.Equal(asOf) || len(rc.lines) > cacheMax {
		rc.cols, rc.loc, rc.asOf = c, loc, asOf
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
	writeRow(&rc.b, r, rc.cols, rc.loc, rc.asOf)
	s := rc.b.String()
	rc.lines[r.node] = cachedRow{expanded: r.expanded, s: s}
	return s
}

// stamp formats unix seconds in the one short form (spend.Short): "2 Nov
// 14:00" in the year of asOf, "30 Dec 2025" (the year in place of the
// time) in any other; "—" when absent. The column right-aligns it.
func stamp(sec int64, loc *time.Location, asOf time.Time) string {
	if sec == 0 {
		return "—"
	}
	return spend.Short(time.Unix(sec, 0).In(loc), asOf)
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
