package overview

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/textwrap"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// Line priorities: when the area is too short the lowest go first (the last
// of equals first). The credit, burn, runway and Now stay longest; then the
// range's title and the top contracts' heading with the cursor's row (the
// row enter opens is always on screen); then the leaks and the month; then
// the chart, at its smallest, then at a readable height; then the other top
// contracts, nearest the cursor first; then the second lines of the figures
// above (the threshold, the 24 h burn, the stopped storage, the forecast);
// then the chart's full height; then the rest. The chart is a block whose
// height flexes (see place): it grows into a row only when nothing of a
// higher priority is dropped for it. At 80×24 the figures, a chart of five
// bar rows and all five top contracts fit. A section's heading has its
// rows' highest priority and comes first; a heading whose rows all went
// goes too (fitLines).
const (
	prioBlank = iota
	prioItems // split by charge type
	prioTypes // split by contract type
	prioChartHelp
	prioRateRows   // the instances billing now (rate.go)
	prioChartExtra // rows of the chart beyond its readable height (virtual)
	prioDetail     // second lines: threshold, 24 h burn, storage, forecast
	prioTop        // the top contracts other than the cursor's
	prioChartRead  // rows of the chart from its minimum to readable (virtual)
	prioChart      // the chart at its minimum, or a sparkline
	prioGlance     // the leaks and the month
	prioTopCursor  // the top contracts' heading and the cursor's row
	prioTitle      // the range and how much of it loaded
	prioBurn       // burn, runway, Now
	prioStatus
	prioCredit
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
	labelW   = 7  // "Credit ", "Burn   ", "Runway "
)

// spreadHelp explains the chart's days; spreadHelpShort says it in one
// line of 80 columns.
const (
	spreadHelp      = "each contract's amount is spread over the days it ran, in proportion to time (your time zone); days add up exactly to the amounts"
	spreadHelpShort = "contracts spread over the days they ran, by time (your time zone); sums exact"
)

type line struct {
	text  string
	prio  int
	chart bool // the chart's place; place replaces it
	// sec groups a heading (head) with its rows: a heading left without
	// any of its rows is dropped too.
	sec  int
	head bool
	// rank orders lines of equal priority for dropping: the highest goes
	// first (the last of equals first among equal ranks). The top
	// contracts rank by their distance from the cursor, so the rows that
	// fit are those around it.
	rank int
	row  int // the row's place in its section, from 1 (0: not counted)
	// count, on a heading, writes it again once fitLines knows which of
	// its rows are shown (the indexes of the first and last among n).
	count func(first, last, n int) string
}

// Sections with headings.
const (
	secNone = iota
	secTop
	secTypes
	secItems
	secRate
)

// variant is one way to lay the screen out; View takes the first that fits
// whole.
type variant struct {
	big      bool // the credit three rows tall
	tables   bool // the type splits as tables with bars, not one line each
	fullNote bool // the chart's note in full, not its short form
}

// viewCache is the last View and what it was drawn from.
type viewCache struct {
	ver    int
	w, h   int
	styles *theme.Styles
	out    string
	ok     bool
}

// View renders the screen, exactly width×height.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	c := viewCache{ver: m.ver, w: w, h: h, styles: m.styles(), ok: true}
	if k := m.cache; k.ok && k.ver == c.ver && k.w == w && k.h == h && k.styles == c.styles {
		return k.out
	}
	c.out = m.render(w, h)
	m.cache = c
	return c.out
}

func (m *Model) render(w, h int) string {
	sec := &sections{m: m, w: w}
	var ls []line
	for _, v := range []variant{{big: true, tables: true, fullNote: true}, {big: true, fullNote: true}, {fullNote: true}, {}} {
		ls = sec.lines(v)
		if fullHeight(ls, w) <= h {
			break
		}
	}
	return shared.Block(m.place(ls, w, h, sec.chartDays()), w, h)
}

// sections builds each part of the screen at most once per render, however
// many layouts are tried.
type sections struct {
	m    *Model
	w    int
	memo map[string][]line
	days []spend.DayTotal
	dayz bool
}

// get returns the part named key, building it with f the first time.
func (s *sections) get(key string, f func() []line) []line {
	if ls, ok := s.memo[key]; ok {
		return ls
	}
	if s.memo == nil {
		s.memo = map[string][]line{}
	}
	ls := f()
	s.memo[key] = ls
	return ls
}

func (s *sections) chartDays() []spend.DayTotal {
	if !s.dayz {
		s.days, s.dayz = s.m.chartDays(), true
	}
	return s.days
}

// lines is the whole screen in layout v, section by section, before
// fitting to a height.
func (s *sections) lines(v variant) []line {
	m, w := s.m, s.w
	var ls []line
	if v.big {
		ls = append(ls, s.get("account big", func() []line { return m.accountLines(w, true) })...)
	} else {
		ls = append(ls, s.get("account", func() []line { return m.accountLines(w, false) })...)
	}
	ls = append(ls, s.get("access", func() []line { return m.accessLines(w) })...)
	ls = append(ls, s.get("insight", func() []line { return m.insightLines(w) })...)
	ls = append(ls, s.get("rate", func() []line { return m.rateLines(w) })...)
	ls = append(ls, s.get("leaks", func() []line { return m.leakLines(w) })...)
	ls = append(ls, s.get("month", func() []line { return m.monthLines(w) })...)
	ls = append(ls, line{text: "", prio: prioBlank})
	ls = append(ls, s.get("head", func() []line { return m.chargesHead() })...)
	if m.main == nil || m.totals.Contracts == 0 {
		return ls
	}
	ls = append(ls, line{chart: true, prio: prioChart})
	if v.fullNote {
		ls = append(ls, s.get("note", func() []line { return m.noteLines(w, true) })...)
	} else {
		ls = append(ls, s.get("note short", func() []line { return m.noteLines(w, false) })...)
	}
	ls = append(ls, line{text: "", prio: prioBlank})
	ls = append(ls, s.get("top", func() []line { return m.topLines(w) })...)
	ls = append(ls, line{text: "", prio: prioBlank})
	if v.tables {
		ls = append(ls, s.get("tables", func() []line { return m.tableLines(w) })...)
	} else {
		ls = append(ls, s.get("splits", func() []line { return m.splitLines(w) })...)
	}
	return ls
}

// fullHeight is the rows ls takes with the chart at its full height.
func fullHeight(ls []line, w int) int {
	n := 0
	for _, l := range ls {
		switch {
		case !l.chart:
			n++
		case w >= chartMinWidth:
			n += chartMaxH
		default:
			n++
		}
	}
	return n
}

// place sizes the chart for height h, draws it in its place and drops the
// lines that still do not fit. The chart takes the tallest height whose
// rows do not push out a line of higher priority than theirs: its minimum
// (or a sparkline) at prioChart, up to chartReadH at prioChartRead, up to
// chartMaxH at prioChartExtra.
func (m *Model) place(ls []line, w, h int, days []spend.DayTotal) []string {
	at := slices.IndexFunc(ls, func(l line) bool { return l.chart })
	if at < 0 {
		return fitLines(ls, h)
	}
	// room is the rows left beside the lines of priority above p.
	room := func(p int) int {
		n := 0
		for _, l := range ls {
			if !l.chart && l.prio > p {
				n++
			}
		}
		return h - n
	}
	ch := 0
	switch {
	case w < chartMinWidth:
		if room(prioChart) >= 1 {
			ch = 1 // a sparkline, whatever the height
		}
	case room(prioChartExtra) > chartReadH:
		ch = min(room(prioChartExtra), chartMaxH)
	case room(prioChartRead) > chartMinH:
		ch = min(room(prioChartRead), chartReadH)
	case room(prioChart) >= chartMinH:
		ch = chartMinH
	case room(prioChart) >= 1:
		ch = 1 // a sparkline
	}
	var cl []line
	if ch > 0 {
		for _, s := range chart(days, m.daily.Period(), w, ch, m.styles()) {
			cl = append(cl, line{text: s, prio: prioChart})
		}
	}
	out := append(append(append([]line(nil), ls[:at]...), cl...), ls[at+1:]...)
	return fitLines(out, h)
}

// chartDays are the range's days, spread from what has loaded.
func (m *Model) chartDays() []spend.DayTotal {
	if m.main == nil || m.daily == nil {
		return nil
	}
	return m.daily.Days(m.rng.From, m.rng.To)
}

// insightLines are the burn rate and the runway.
func (m *Model) insightLines(w int) []line {
	st := m.styles()
	label := func(s string) string { return st.Bold.Render(shared.PadRight(s, labelW)) }
	var ls []line

	e, src := m.estimate()
	switch {
	case src == nil:
		ls = append(ls, line{text: label("Burn") + st.Muted.Render("— waiting for a range"), prio: prioBurn})
	case src.st.Err != nil && !src.st.Done:
		// The status line says why.
		ls = append(ls, line{text: label("Burn") + st.Muted.Render("— charges unavailable"), prio: prioBurn})
	case !src.st.Whole():
		s := "— loading the last 7 complete days (" + m.ctx.Day(e.Week.From) + " – " + m.ctx.Day(e.Week.To.AddDate(0, 0, -1)) + ")"
		if src.own {
			s += ": " + src.st.Progress()
		}
		ls = append(ls, line{text: label("Burn") + st.Muted.Render(s), prio: prioBurn})
	case e.Week.Overflow || e.Day.Overflow:
		ls = append(ls, line{text: label("Burn") + st.Muted.Render("— too large to add up"), prio: prioBurn})
	default:
		wk, day := e.Week, e.Day
		lastDay := m.ctx.Day(wk.To.AddDate(0, 0, -1))
		week := st.Amount.Render(wk.PerDay.String()+"/day") + st.Muted.Render(" ("+wk.Label+": "+m.ctx.Day(wk.From)+" – "+lastDay+")")
		short := st.Amount.Render(wk.PerDay.String()+"/day") + st.Muted.Render(" (7 full days to "+lastDay+")")
		last := st.Amount.Render(day.PerDay.String()+"/day") + st.Muted.Render(" ("+day.Label+")")
		// One line where it fits, the week's window said short if that
		// makes it fit: the 24 h figure on a line of its own costs the
		// chart a row at 80×24.
		if shared.Width(label("Burn")+week+" · "+last) > w && shared.Width(label("Burn")+short+" · "+last) <= w ||
			shared.Width(label("Burn")+week) > w {
			week = short
		}
		if one := label("Burn") + week + " · " + last; shared.Width(one) <= w {
			ls = append(ls, line{text: one, prio: prioBurn})
		} else {
			ls = append(ls, line{text: label("Burn") + week, prio: prioBurn},
				line{text: strings.Repeat(" ", labelW) + last, prio: prioDetail})
		}
	}

	r := e.Runway
	if r.Reason != "" {
		ls = append(ls, line{text: label("Runway") + st.Muted.Render("— "+r.Reason), prio: prioBurn})
	} else {
		style := st.Bold
		if r.Tenths < billing.LowRunwayTenths {
			style = st.CreditLow
		}
		ls = append(ls, line{text: label("Runway") + style.Render(r.String()) + st.Muted.Render(" — estimate"), prio: prioBurn})
	}
	return ls
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// accountLines shows credit (big when it fits), balance and threshold.
func (m *Model) accountLines(w int, big bool) []line {
	st := m.styles()
	u := m.user
	if u == nil {
		switch {
		case shared.Refused(m.userErr):
			// The status line says why, once, with what to do.
			return []line{{text: st.Bold.Render(shared.PadRight("Credit", labelW)) + st.Muted.Render("—"), prio: prioCredit}}
		case m.userErr != nil:
			return []line{{text: st.Error.Render("✗ account: " + m.ctx.ErrorText(m.userErr)), prio: prioCredit}}
		}
		return []line{{text: st.Muted.Render("loading account…"), prio: prioCredit}}
	}
	credit := u.Credit.Credit()
	style, state := st.Credit, ""
	switch {
	case u.CreditMissing:
		// Never $0.00: the record holds no figure.
		credit, style = "unknown", st.Warning
	case u.Credit <= 0:
		style, state = st.CreditNeg, "at or below zero"
	case billing.LowBalance(*u):
		style, state = st.CreditLow, "below threshold"
	}

	var ls []line
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
			ls = append(ls, line{text: lst.Render(shared.PadRight(label[i], labelW)) + style.Render(r), prio: prioCredit})
		}
	} else {
		s := st.Bold.Render("Credit ") + style.Render(credit)
		if state != "" {
			s += " " + style.Render("("+state+")")
		}
		// The balance and threshold share the credit's line where they
		// fit: a row given back to the chart and the top contracts.
		if more := st.Muted.Render(" · " + strings.Join(parts, " · ")); len(parts) > 0 && shared.Width(s+more) <= w {
			return []line{{text: s + more, prio: prioCredit}}
		}
		ls = append(ls, line{text: s, prio: prioCredit})
	}
	if len(parts) > 0 {
		ls = append(ls, line{text: st.Muted.Render(strings.Join(parts, " · ")), prio: prioDetail})
	}
	return ls
}

// chargesHead is the range title with the loading progress, what the
// feed dropped, any load error and, without charges to show, why.
func (m *Model) chargesHead() []line {
	st := m.styles()
	if m.main == nil {
		return []line{
			{text: st.Bold.Render("Spend"), prio: prioTitle},
			{text: st.Muted.Render("No range chosen yet"), prio: prioTitle},
		}
	}
	fs := m.mainState()
	title := st.Bold.Render("Spend "+shared.Safe(m.rng.String())) + " · " + m.loadedText()
	if fs.Skipped > 0 {
		title += " · " + st.Warning.Render(billing.Plural(fs.Skipped, "malformed entry", "malformed entries")+" skipped")
	}
	if fs.Duplicates > 0 {
		title += " · " + st.Warning.Render(billing.Plural(fs.Duplicates, "repeated contract", "repeated contracts")+" dropped")
	}
	ls := []line{{text: title, prio: prioTitle}}
	ls = append(ls, m.statusLines()...)
	if m.totals.Contracts == 0 {
		switch {
		case fs.Done:
			ls = append(ls, line{text: st.Muted.Render("No charges in this range"), prio: prioTitle})
		case fs.Err == nil && !(m.held && m.fig.busy && !m.fig.got): // the title says the ledger is read
			ls = append(ls, line{text: st.Muted.Render("loading charges…"), prio: prioTitle})
		}
	}
	return ls
}

// noteLines is the chart's note wrapped to w.
func (m *Model) noteLines(w int, full bool) []line {
	var ls []line
	for _, s := range textwrap.Words(m.chartNote(full), w) {
		ls = append(ls, line{text: m.styles().Muted.Render(s), prio: prioChartHelp})
	}
	return ls
}

// chartNote is the help under the chart, plus what the range's days do not
// show of the loaded contracts: the parts of their amounts that fell
// outside it.
func (m *Model) chartNote(full bool) string {
	note := spreadHelp
	if !full {
		note = spreadHelpShort
	}
	before, after := m.daily.Outside()
	out, ok := money.SumChecked(before, after)
	switch {
	case m.daily.Overflow() || !ok:
		note += "; the days are too large to add up"
	case out != 0 && full:
		note += "; " + out.String() + " of these contracts fell on days outside the range"
	case out != 0:
		note += "; " + out.String() + " fell outside the range"
	}
	return note
}

// statusLines say, inside the screen, why the charges below are partial
// or missing and how to go on (the status line says it too, once).
func (m *Model) statusLines() []line {
	st := m.styles()
	var ls []line
	seen := map[string]bool{}
	for _, fl := range m.follows() {
		var s string
		fs := m.stateOf(fl)
		switch {
		case fs.Err != nil && errors.Is(fs.Err, api.ErrPermission):
			s = st.Error.Render("✗ "+billing.FailReason(fs.Err)) + st.Muted.Render(" · the credit still shows")
		case fs.Err != nil && errors.Is(fs.Err, errNoService):
			s = st.Error.Render("✗ charges: " + fs.Err.Error())
		case shared.Refused(fs.Err):
			s = st.Muted.Render("charges not loaded")
		case fs.Err != nil && m.saidAbove(fs.Err):
			continue // the status line says it, once
		case fs.Err != nil:
			s = st.Error.Render("✗ charges: "+m.ctx.ErrorText(fs.Err)) + st.Muted.Render(" · "+m.ctx.Key("reload")+" to reload")
		case fs.Loading && !fs.WaitUntil.IsZero():
			s = st.Warning.Render("rate limited: retrying shortly")
		default:
			continue
		}
		if !seen[s] {
			seen[s] = true
			ls = append(ls, line{text: s, prio: prioStatus})
		}
	}
	return ls
}

// saidAbove reports that err says what the account's failed read says:
// the root's status line carries that one, and the screen does not say it
// again (a server that stops answering failed the credit, the rate and the
// charges alike, three times in as many cut lines).
func (m *Model) saidAbove(err error) bool {
	return err != nil && m.userErr != nil && m.ctx.ErrorText(err) == m.ctx.ErrorText(m.userErr)
}

// loadedText is "all 1,200 contracts loaded", "loading charges: page 3 of
// 12" or, once stopped by an error, "1,200 of 5,600 contracts loaded ·
// partial".
func (m *Model) loadedText() string {
	st := m.styles()
	fs := m.mainState()
	n := fs.Contracts
	switch {
	case m.held && m.fig.busy && !m.fig.got && fs.Err == nil:
		// The ledger holds the range: its figures are being read (seconds
		// at a million contracts), not fetched.
		return st.Muted.Render("reading the range from the ledger…")
	case fs.Done:
		return "all " + billing.Plural(n, "contract", "contracts") + " loaded"
	case fs.Stale && fs.Err != nil:
		// A reload that failed keeps the last load's rows, said as old.
		return billing.Plural(n, "contract", "contracts") + " loaded · " + st.Warning.Render("stale: the reload failed")
	case fs.Stale:
		return billing.Plural(n, "contract", "contracts") + " loaded" + st.Muted.Render(" · reloading…")
	case fs.Ledger && fs.Err != nil:
		// The ledger's rows, as of their last sync: whole, but perhaps old.
		return billing.Plural(n, "contract", "contracts") + " · " + fs.SyncedText(m.ctx.Clock()) + " · " + st.Warning.Render("not synced")
	case fs.Ledger:
		t := billing.Plural(n, "contract", "contracts")
		if s := fs.SyncedText(m.ctx.Clock()); s != "" {
			t += " · " + s
		}
		return t + st.Muted.Render(" · syncing…")
	case fs.Err != nil && n == 0:
		return st.Warning.Render("no charges loaded")
	case fs.Err != nil && fs.Total >= 0:
		return money.Group(int64(n)) + " of " + billing.Plural(fs.Total, "contract", "contracts") + " loaded · " + st.Warning.Render("partial")
	case fs.Err != nil:
		return billing.Plural(n, "contract", "contracts") + " loaded · " + st.Warning.Render("partial")
	case fs.Pages == 0:
		return st.Muted.Render("loading charges…")
	default:
		return st.Muted.Render("loading charges: " + fs.Progress())
	}
}

// topLines lists the most expensive contracts of the range, the cursor's
// row reversed.
func (m *Model) topLines(w int) []line {
	st := m.styles()
	top := m.top
	head := "Top " + strconv.Itoa(len(top)) + " " + plural(len(top), "contract") + " by amount"
	if !m.mainState().Whole() {
		head += " (so far)"
	}
	hint := " · " + m.ctx.Key("up") + "/" + m.ctx.Key("down") + " choose · " + m.ctx.Key("reveal") + " shows it in Charges"
	// heading says which rows show when not all fit ("· 2–4 shown"), so
	// a cursor moved past the last row drawn scrolls them instead of
	// leaving the screen.
	heading := func(first, last, n int) string {
		h := head
		switch {
		case n > 0 && first == last:
			h += " · " + strconv.Itoa(first+1) + " of " + strconv.Itoa(n) + " shown"
		case n > 0 && (first > 0 || last < n-1):
			h += " · " + strconv.Itoa(first+1) + "–" + strconv.Itoa(last+1) + " shown"
		}
		out := st.ColHeader.Render(h)
		if shared.Width(h+hint) <= w {
			out += st.Muted.Render(hint)
		}
		return out
	}
	ls := []line{{text: heading(0, len(top)-1, len(top)), prio: prioTopCursor, sec: secTop, head: true, count: heading}}

	srcW, amtW := 0, 0
	for _, e := range top {
		srcW = max(srcW, shared.Width(shared.Safe(e.source)))
		amtW = max(amtW, shared.Width(e.amount.String()))
	}
	srcW = min(srcW, 24)
	// "› ░ instance-123  $1,234.567  label…": the label last, so a label
	// whose width a terminal counts differently cannot push the amount.
	labW := w - (4 + srcW + gap + amtW + gap)
	for i, e := range top {
		src := shared.Safe(e.source)
		if src == "" {
			src = "(no id)"
		}
		lab := shared.Safe(e.label)
		if lab == "" {
			lab = "—"
		}
		marker := "  "
		if i == m.cursor {
			marker = "› "
		}
		kind := stackKind(e.kind)
		var b strings.Builder
		b.WriteString(marker)
		if i == m.cursor {
			b.WriteString(fills[kind])
		} else {
			b.WriteString(kindStyle(kind, st).Render(fills[kind]))
		}
		b.WriteString(" ")
		b.WriteString(shared.PadRight(shared.Truncate(src, srcW), srcW))
		b.WriteString(strings.Repeat(" ", gap))
		b.WriteString(shared.PadLeft(e.amount.String(), amtW))
		if labW > 0 {
			b.WriteString(strings.Repeat(" ", gap))
			b.WriteString(shared.Truncate(lab, labW))
		}
		s := b.String()
		if i == m.cursor {
			s = st.Selected.Render(shared.PadRight(shared.Truncate(s, w), w))
		}
		// The cursor's row stays with the heading: the row enter opens is
		// always on screen.
		prio := prioTop
		if i == m.cursor {
			prio = prioTopCursor
		}
		ls = append(ls, line{text: s, prio: prio, sec: secTop, rank: abs(i - m.cursor), row: i + 1})
	}
	return ls
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// splitLines are the two splits, compact: one wrapped line of "name
// amount (share)" items each.
func (m *Model) splitLines(w int) []line {
	st := m.styles()
	t, total := m.totals, m.rangeTotal()
	suffix := ""
	if !m.mainState().Whole() {
		suffix = " (partial)"
	}
	item := func(r row) string {
		style := st.Amount
		return r.name + " " + style.Render(amountText(r.amount)) + st.Muted.Render(" "+share(r.amount, total))
	}
	var ls []line
	var types []string
	for _, r := range rowsOf(t.ByType, []string{"instance", "volume", "serverless"}) {
		types = append(types, item(r))
	}
	types = append(types, "total "+st.Amount.Render(amountText(total)))
	for _, s := range wrapItems(st.ColHeader.Render("By contract type"+suffix), types, w) {
		ls = append(ls, line{text: s, prio: prioTypes})
	}
	var items []string
	for _, r := range rowsOf(t.ByItem, spend.ItemTypes) {
		items = append(items, item(r))
	}
	for _, s := range wrapItems(st.ColHeader.Render("By charge type"+suffix), items, w) {
		ls = append(ls, line{text: s, prio: prioItems})
	}
	return append(ls, m.labelLines(w)...)
}

// labelsShown is how many labels the split by label names; the rest are
// counted.
const labelsShown = 4

// labelLines is the split by label, compact: the largest labels with their
// amount and share, then how many more there are. Labels are the server's
// text: sanitized and cut, never allowed to push the figures off the line.
func (m *Model) labelLines(w int) []line {
	if m.labels == nil {
		return nil
	}
	groups, total := m.labels.Groups(), m.labels.Total()
	if len(groups) == 0 {
		return nil
	}
	st := m.styles()
	suffix := ""
	if !m.mainState().Whole() {
		suffix = " (partial)"
	}
	var items []string
	for i, g := range groups {
		if i == labelsShown {
			items = append(items, st.Muted.Render(fmt.Sprintf("+%d more", len(groups)-labelsShown)))
			break
		}
		name := shared.Truncate(shared.Safe(g.Key), 24)
		if g.Key == billing.NoLabel {
			name = st.Muted.Render(g.Key)
		}
		amount := amountText(g.Amount)
		if m.labels.Overflow() {
			amount = tooLarge
		}
		items = append(items, name+" "+st.Amount.Render(amount)+st.Muted.Render(" "+share(g.Amount, total)))
	}
	var ls []line
	for _, s := range wrapItems(st.ColHeader.Render("By label"+suffix), items, w) {
		ls = append(ls, line{text: s, prio: prioItems})
	}
	return ls
}

// tableLines are the two splits as tables with shares and bars.
func (m *Model) tableLines(w int) []line {
	st := m.styles()
	t, sum := m.totals, m.rangeTotal()
	byType := rowsOf(t.ByType, []string{"instance", "volume", "serverless"})
	byItem := rowsOf(t.ByItem, spend.ItemTypes)
	total := []row{{name: "total", amount: sum}}
	cols := layout(w, byType, byItem, total)

	suffix := ""
	if !m.mainState().Whole() {
		suffix = " (partial)"
	}
	ls := []line{{text: st.ColHeader.Render("By contract type" + suffix), prio: prioTypes, sec: secTypes, head: true}}
	for _, r := range byType {
		ls = append(ls, line{text: m.renderRow(r, sum, cols, true), prio: prioTypes, sec: secTypes})
	}
	ls = append(ls, line{text: m.renderRow(total[0], sum, cols, false), prio: prioTypes, sec: secTypes})
	ls = append(ls, line{text: "", prio: prioBlank},
		line{text: st.ColHeader.Render("By charge type" + suffix), prio: prioItems, sec: secItems, head: true})
	for _, r := range byItem {
		ls = append(ls, line{text: m.renderRow(r, sum, cols, true), prio: prioItems, sec: secItems})
	}
	if labels := m.labelLines(w); len(labels) > 0 {
		ls = append(append(ls, line{text: "", prio: prioBlank}), labels...)
	}
	return ls
}

// wrapItems writes "head: a · b · c", starting a new indented line where
// the next item would not fit in w.
func wrapItems(head string, items []string, w int) []string {
	var out []string
	cur := head
	first := true
	for _, it := range items {
		sep := " · "
		if first {
			sep = "  "
		}
		if !first && shared.Width(cur)+len(sep)+shared.Width(it) > w {
			out = append(out, cur)
			cur, sep = strings.Repeat(" ", indent), ""
		}
		cur += sep + it
		first = false
	}
	return append(out, cur)
}

// tooLarge stands in for a sum that left what an amount can hold: a
// wrapped or clamped figure would be a lie.
const tooLarge = "too large to add up"

// amountText is a.String(), or tooLarge for a saturated sum.
func amountText(a money.Amount) string {
	if a.Saturated() {
		return tooLarge
	}
	return a.String()
}

// rangeTotal is the range's total, saturated when any of its sums
// overflowed so that it reads tooLarge and no share is computed from it.
func (m *Model) rangeTotal() money.Amount {
	if m.totalsOverflow() {
		return money.MaxAmount
	}
	return m.totals.Total
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
			c.amount = max(c.amount, shared.Width(amountText(r.amount)))
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
	b.WriteString(st.Amount.Render(shared.PadLeft(amountText(r.amount), c.amount)))
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

// share is a's share of total, as billing prints it.
func share(a, total money.Amount) string { return billing.ShareText(a, total) }

// eighths are the partial blocks, 1/8 to 7/8 of a cell.
var eighths = []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}

// barOf draws a's share of total in width cells, to an eighth of a cell.
// A non-zero amount always shows at least a sliver.
func barOf(a, total money.Amount, width int) string {
	if total <= 0 || total.Saturated() || a <= 0 || width <= 0 {
		return ""
	}
	if a > total {
		a = total
	}
	// a×width×8 in 128 bits; the quotient is at most width×8.
	hi, lo := bits.Mul64(uint64(a), uint64(width)*8)
	q, _ := bits.Div64(hi, lo, uint64(total))
	n := int(q)
	if n == 0 {
		n = 1
	}
	return strings.Repeat("█", n/8) + eighths[n%8]
}

// fitLines drops the lowest-priority lines (the last of equals first) until
// at most h remain, keeping the order of the rest. A heading whose rows all
// went is taken out too, and the row it frees goes to the next line in
// line.
func fitLines(ls []line, h int) []string {
	all := ls
	for {
		ls = append([]line(nil), all...)
		for len(ls) > h && len(ls) > 0 {
			low := 0
			for i := range ls {
				if ls[i].prio < ls[low].prio || ls[i].prio == ls[low].prio && ls[i].rank >= ls[low].rank {
					low = i
				}
			}
			ls = append(ls[:low], ls[low+1:]...)
		}
		orphan := -1
		for i, l := range ls {
			if l.head && !slices.ContainsFunc(ls, func(o line) bool { return o.sec == l.sec && !o.head }) {
				orphan = i
				break
			}
		}
		if orphan < 0 {
			break
		}
		at := slices.IndexFunc(all, func(o line) bool { return o.head && o.sec == ls[orphan].sec })
		all = append(all[:at:at], all[at+1:]...)
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.text
		if l.count != nil {
			out[i] = l.count(shownRows(all, ls, l.sec))
		}
	}
	return out
}

// shownRows is which of section sec's rows in all are among kept: the
// index of the first and the last kept, and how many there are.
func shownRows(all, kept []line, sec int) (first, last, n int) {
	first, last = -1, -1
	for _, l := range all {
		if l.sec != sec || l.row == 0 {
			continue
		}
		if slices.ContainsFunc(kept, func(k line) bool { return k.sec == sec && k.row == l.row }) {
			if first < 0 {
				first = n
			}
			last = n
		}
		n++
	}
	return first, last, n
}
