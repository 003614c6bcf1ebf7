package overview

import (
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// Chart geometry.
const (
	chartMinWidth = 40 // narrower: a one-line sparkline
	chartMinBars  = 3  // fewer bar rows cannot show proportions: a sparkline
	chartMaxBars  = 8  // taller bars only stretch the eye
	// chartChrome is the legend line above the bars and the day labels
	// below them.
	chartChrome = 2
	chartMinH   = chartMinBars + chartChrome
	chartMaxH   = chartMaxBars + chartChrome
	// chartReadH is the height the chart gets before the top contracts
	// other than the cursor's: five bar rows, where three flatten a month
	// of days into one step.
	chartReadBars = 5
	chartReadH    = chartReadBars + chartChrome
	maxBarCells   = 3 // widest bar of one day or week
)

// stackOrder is the order of a bar's segments from the bottom up; every
// other kind is drawn as "other".
var stackOrder = []string{"instance", "volume", "serverless", "other"}

// fills are the cells of each kind: distinct characters, so the stack
// reads without colour (NO_COLOR) too.
var fills = map[string]string{
	"instance":   "█",
	"volume":     "▓",
	"serverless": "░",
	"other":      "▒",
}

// sparks are the eight levels of a sparkline, lowest first.
var sparks = []string{"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"}

// bucket is one bar: a day, an ISO week of days, a month or a year.
type bucket struct {
	start  time.Time
	total  money.Amount            // sum of the positive parts, what the bar shows
	byKind map[string]money.Amount // by stackOrder name, positive parts only
}

// stackKind folds a contract kind into one of stackOrder.
func stackKind(kind string) string {
	if slices.Contains(stackOrder, kind) {
		return kind
	}
	return "other"
}

// span is what one bar covers.
type span int

const (
	perDay span = iota
	perWeek
	perMonth
	perYear
)

// unitText names a bar's span in the legend; the sparkline's short form.
var unitText = [...]struct{ long, short string }{
	perDay:   {"per day", "day"},
	perWeek:  {"per week (Mon–Sun)", "wk"},
	perMonth: {"per month", "mo"},
	perYear:  {"per year", "yr"},
}

// sameBucket reports that day belongs in the bucket that starts at start.
func sameBucket(sp span, start, day time.Time) bool {
	switch sp {
	case perWeek:
		return day.Weekday() != time.Monday
	case perMonth:
		return day.Year() == start.Year() && day.Month() == start.Month()
	case perYear:
		return day.Year() == start.Year()
	}
	return false
}

// bucketize makes one bucket per day of days (per month when the days are
// months), per ISO week (Monday to Sunday), per month or per year.
// Negative amounts (refunds) are left out: a bar cannot be drawn below its
// base, and the totals elsewhere on the screen keep them.
func bucketize(days []spend.DayTotal, sp span) []bucket {
	var out []bucket
	for _, d := range days {
		if len(out) == 0 || !sameBucket(sp, out[len(out)-1].start, d.Day) {
			out = append(out, bucket{start: d.Day, byKind: map[string]money.Amount{}})
		}
		b := &out[len(out)-1]
		for k, a := range d.ByType {
			if a > 0 {
				b.byKind[stackKind(k)] += a
				b.total += a
			}
		}
	}
	return out
}

// fitBuckets groups days into the finest bars of which at most room fit
// (room(sp) says how many fit at span sp): days, weeks, months, years —
// from months on when the days are months (spend.Month). Only when even the
// years do not fit are the most recent ones kept, and cut is how many
// years were left out.
func fitBuckets(days []spend.DayTotal, p spend.Period, room func(span, []bucket) int) (bs []bucket, sp span, cut int) {
	first := perDay
	if p == spend.Month {
		first = perMonth
	}
	for sp = first; sp <= perYear; sp++ {
		if sp == perWeek && p == spend.Month {
			continue
		}
		bs = bucketize(days, sp)
		if len(bs) <= room(sp, bs) {
			return bs, sp, 0
		}
	}
	sp = perYear
	n := max(room(sp, bs), 0)
	return bs[len(bs)-n:], sp, len(bs) - n
}

// chart draws days (spend.Day days, or spend.Month months) as a stacked
// bar chart in exactly width×height cells (fewer lines when there is
// nothing to draw): a legend, the bars with a dollar axis, and labels. One
// bar per day, or per ISO week, month or year when the days do not fit the
// width. Below chartMinWidth columns or chartMinH rows it is a one-line
// sparkline instead. It is a pure function of its arguments, for golden
// tests.
func chart(days []spend.DayTotal, p spend.Period, width, height int, st *theme.Styles) []string {
	if len(days) == 0 || width <= 0 || height <= 0 {
		return nil
	}
	if width < chartMinWidth || height < chartMinH {
		return []string{sparkline(days, p, width, st)}
	}
	bars := min(height-chartChrome, chartMaxBars)

	axis := func(bs []bucket) int {
		return max(shared.Width(compactMoney(niceCeil(maxTotal(bs)))), shared.Width("$0"))
	}
	buckets, sp, cut := fitBuckets(days, p, func(_ span, bs []bucket) int { return width - axis(bs) - 2 }) // " ┤"
	unit := unitText[sp].long
	if cut > 0 {
		unit += ", the last " + strconv.Itoa(len(buckets))
	}
	top := niceCeil(maxTotal(buckets))
	axisW := axis(buckets)
	avail := width - axisW - 2
	if len(buckets) == 0 || avail <= 0 {
		return nil
	}
	slot := avail / len(buckets)
	barW, gapW := 1, 0
	if slot >= 2 {
		barW, gapW = min(slot-1, maxBarCells), 1
	}
	slot = barW + gapW

	out := make([]string, 0, bars+chartChrome)
	out = append(out, legend(buckets, unit, width, st))

	// Each kind's escape codes, taken once: styling a run through
	// lipgloss measures the run's text every time, which a chart redrawn
	// per page cannot afford.
	type sgr struct{ pre, post string }
	styles := map[string]sgr{}
	for _, k := range stackOrder {
		r := kindStyle(k, st).Render("X")
		i := strings.Index(r, "X")
		styles[k] = sgr{r[:i], r[i+1:]}
	}
	// Heights of each bucket's stack, cumulative from the bottom.
	cum := make([][]int, len(buckets))
	for i, b := range buckets {
		cum[i] = stackHeights(b, top, bars)
	}
	for row := bars - 1; row >= 0; row-- {
		var b strings.Builder
		label, tick := "", "│"
		switch row {
		case bars - 1:
			label, tick = compactMoney(top), "┤"
		case 0:
			label, tick = "$0", "┤"
		}
		b.WriteString(st.Muted.Render(shared.PadLeft(label, axisW) + " " + tick))
		// Cells of one kind in a row, and the gaps between them, are
		// styled as one run: a styled cell costs far more than a byte.
		var run strings.Builder
		runKind := ""
		flush := func() {
			if runKind == "" {
				b.WriteString(run.String())
			} else {
				b.WriteString(styles[runKind].pre + run.String() + styles[runKind].post)
			}
			run.Reset()
		}
		for i := range buckets {
			kind := ""
			for k, h := range cum[i] {
				if row < h {
					kind = stackOrder[k]
					break
				}
			}
			if kind != runKind {
				flush()
				runKind = kind
			}
			if kind == "" {
				run.WriteString(strings.Repeat(" ", barW))
			} else {
				run.WriteString(strings.Repeat(fills[kind], barW))
			}
			run.WriteString(strings.Repeat(" ", gapW))
		}
		flush()
		out = append(out, b.String())
	}
	out = append(out, st.Muted.Render(dayLabels(buckets, sp, axisW+2, slot, avail)))

	for i := range out {
		out[i] = shared.PadRight(shared.Truncate(out[i], width), width)
	}
	return out
}

// legend names each kind beside its fill, "other" only when the chart has
// some, and the unit of a bar: "█ instance  ▓ volume  ░ serverless · per
// day". Narrow charts lose the unit, then the double spaces.
func legend(buckets []bucket, unit string, width int, st *theme.Styles) string {
	kinds := stackOrder[:3]
	for _, b := range buckets {
		if b.byKind["other"] > 0 {
			kinds = stackOrder
			break
		}
	}
	build := func(sep string, withUnit bool) (string, int) {
		parts, plain := make([]string, 0, len(kinds)), make([]string, 0, len(kinds))
		for _, k := range kinds {
			parts = append(parts, kindStyle(k, st).Render(fills[k])+" "+k)
			plain = append(plain, fills[k]+" "+k)
		}
		s, p := strings.Join(parts, sep), strings.Join(plain, sep)
		if withUnit {
			s += st.Muted.Render(" · " + unit)
			p += " · " + unit
		}
		return s, shared.Width(p)
	}
	for _, v := range []struct {
		sep  string
		unit bool
	}{{"  ", true}, {" ", true}, {"  ", false}, {" ", false}} {
		if s, w := build(v.sep, v.unit); w <= width {
			return s
		}
	}
	s, _ := build(" ", false)
	return s
}

// kindStyle colours a kind's cells with the theme's type colour.
func kindStyle(kind string, st *theme.Styles) lipgloss.Style {
	if c, ok := st.TypeColors[kind]; ok {
		return lipgloss.NewStyle().Foreground(c)
	}
	return st.Muted
}

// stackHeights returns, for each kind of stackOrder, the row its segment
// ends below, so a cell at row r (0 at the bottom) belongs to the first kind
// whose height exceeds r. Rounding the cumulative sums, not each segment,
// keeps the bar's total height true to its total. A bar with any spend
// shows at least one cell, of its largest kind.
func stackHeights(b bucket, top money.Amount, rows int) []int {
	hs := make([]int, len(stackOrder))
	var sum money.Amount
	for i, k := range stackOrder {
		sum += b.byKind[k]
		hs[i] = scaleRound(sum, top, rows)
	}
	if b.total > 0 && hs[len(hs)-1] == 0 {
		big := 0
		for i, k := range stackOrder {
			if b.byKind[k] > b.byKind[stackOrder[big]] {
				big = i
			}
		}
		for i := big; i < len(hs); i++ {
			hs[i] = 1
		}
	}
	return hs
}

// scaleRound is a×rows/top rounded half up, for 0 <= a <= top, without
// overflow.
func scaleRound(a, top money.Amount, rows int) int {
	if a <= 0 || top <= 0 || rows <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(rows)*2)
	lo, carry := bits.Add64(lo, uint64(top), 0)
	hi += carry
	q, _ := bits.Div64(hi, lo, uint64(top)*2)
	return min(int(q), rows)
}

// dayLabels places "1 Nov" ("Nov 2026" under months, "2026" under years)
// under every Nth bar, N chosen so labels keep a space between them,
// starting at column indent.
func dayLabels(buckets []bucket, sp span, indent, slot, avail int) string {
	labelW := 0
	for _, b := range buckets {
		labelW = max(labelW, len(dayLabel(b.start, sp)))
	}
	every := max((labelW+1+slot-1)/slot, 1)
	line := []byte(strings.Repeat(" ", indent+avail))
	for i := 0; i < len(buckets); i += every {
		l := dayLabel(buckets[i].start, sp)
		pos := indent + i*slot
		if pos+len(l) > len(line) {
			break
		}
		copy(line[pos:], l)
	}
	return string(line)
}

// dayLabel is "1 Nov", "Nov 2026" or "2026": ASCII, so byte and cell
// widths agree.
func dayLabel(t time.Time, sp span) string {
	switch sp {
	case perMonth:
		return t.Format("Jan 2006")
	case perYear:
		return t.Format("2006")
	}
	return t.Format("2 Jan")
}

func maxTotal(bs []bucket) money.Amount {
	var m money.Amount
	for _, b := range bs {
		m = max(m, b.total)
	}
	return m
}

// niceCeil rounds a up to 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a
// power of ten (in thousandths), so the axis reads "$250" rather than
// "$237.412" while wasting at most a third of the height. A chart with no
// spend still needs a scale: $1.
func niceCeil(a money.Amount) money.Amount {
	if a <= 0 {
		return money.Dollar
	}
	for p := money.Amount(1); p <= money.Amount(1e17); p *= 10 {
		for _, m := range []money.Amount{10, 12, 15, 20, 25, 30, 40, 50, 60, 80} {
			if m*p%10 != 0 {
				continue
			}
			if v := m * p / 10; v >= a {
				return v
			}
		}
	}
	return a
}

// compactMoney writes an axis figure briefly: "$0.25", "$5", "$120",
// "$2.5k", "$40k", "$1.2M". Exact for the values niceCeil returns; others
// are rounded down to the digits shown.
func compactMoney(a money.Amount) string {
	neg := a < 0
	if neg {
		a = -a
	}
	var s string
	switch {
	case a < 10*money.Dollar:
		s = trimDecimals(int64(a), 3)
	case a < 1000*money.Dollar:
		s = strconv.FormatInt(int64(a/money.Dollar), 10)
	case a < 1000000*money.Dollar:
		s = trimDecimals(int64(a/(100*money.Dollar)), 1) + "k"
		if a >= 10000*money.Dollar {
			s = strconv.FormatInt(int64(a/(1000*money.Dollar)), 10) + "k"
		}
	default:
		s = trimDecimals(int64(a/(100000*money.Dollar)), 1) + "M"
	}
	if neg {
		return "-$" + s
	}
	return "$" + s
}

// trimDecimals writes v/10^dec with the trailing zero decimals dropped:
// (2500, 3) → "2.5", (5000, 3) → "5".
func trimDecimals(v int64, dec int) string {
	p := int64(1)
	for range dec {
		p *= 10
	}
	s := strconv.FormatInt(v/p, 10)
	frac := strconv.FormatInt(v%p+p, 10)[1:]
	frac = strings.TrimRight(frac, "0")
	if frac != "" {
		s += "." + frac
	}
	return s
}

// sparkline is the chart in one line: a level per day (or per ISO week,
// month or year, or the most recent years when even those do not fit) and
// the largest figure.
func sparkline(days []spend.DayTotal, p spend.Period, width int, st *theme.Styles) string {
	suffixOf := func(sp span, bs []bucket) string {
		return " max " + compactMoney(maxTotal(bs)) + "/" + unitText[sp].short
	}
	room := func(sp span, bs []bucket) int {
		if r := width - shared.Width(suffixOf(sp, bs)); r >= 4 {
			return r
		}
		return width
	}
	bs, sp, _ := fitBuckets(days, p, room)
	suffix := suffixOf(sp, bs)
	if width-shared.Width(suffix) < 4 {
		suffix = ""
	}
	top := maxTotal(bs)
	var b strings.Builder
	for _, bk := range bs {
		if bk.total <= 0 {
			b.WriteByte(' ')
			continue
		}
		b.WriteString(sparks[max(scaleCeil(bk.total, top, len(sparks))-1, 0)])
	}
	return shared.PadRight(shared.Truncate(st.Accent.Render(b.String())+st.Muted.Render(suffix), width), width)
}

// scaleCeil is a×n/top rounded up, for 0 < a <= top: any spend shows.
func scaleCeil(a, top money.Amount, n int) int {
	hi, lo := bits.Mul64(uint64(a), uint64(n))
	q, r := bits.Div64(hi, lo, uint64(top))
	if r != 0 {
		q++
	}
	return min(int(q), n)
}
