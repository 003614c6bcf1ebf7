package overview

import (
	"strconv"
	"strings"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui/shared"
)

// The "billing now" panel: what the account's instances cost per hour right
// now (billing.CurrentRate, which the root reads and sends as
// shared.RateMsg), how long the credit lasts at that rate beside the 7-day
// runway, and the instances that are billing. It shows nothing before the
// first reading: the header's spinner says something loads.

// rateRowsMax is how many billing instances the panel lists at most; the
// rest are counted.
const rateRowsMax = 5

// Priorities of the panel's lines (see the prio constants): the headline
// stays with the burn, the storage and note lines go with the other second
// lines, the instance rows (prioRateRows) before the chart's full height.
const (
	prioRateHead = prioBurn
	prioRateNote = prioDetail
)

// rateLines is the panel, or nothing before the first reading.
func (m *Model) rateLines(w int) []line {
	st := m.styles()
	label := st.Bold.Render(shared.PadRight("Now", labelW))
	var ls []line
	// stale marks a last good reading kept after a failed one with its
	// time, on its own line.
	stale := ""
	switch {
	case m.rateErr != nil && m.saidAbove(m.rateErr):
		// The status line says the failure already (the server stopped
		// answering the account too): the reading is only marked stale.
		if m.rate == nil {
			return []line{{text: label + st.Muted.Render("— not read"), prio: prioRateHead}}
		}
		stale = "as of " + m.ctx.When(m.rate.AsOf) + " · "
	case m.rateErr != nil:
		// The last good reading, if any, stays below: it is marked as
		// not fresh by this line.
		ls = append(ls, line{text: label + st.Error.Render("✗ "+m.ctx.RetryText("current rate", m.rateErr)), prio: prioRateHead})
		label = strings.Repeat(" ", labelW)
	}
	if m.rate == nil {
		return ls
	}
	if stale != "" {
		label += st.Warning.Render(stale)
	}
	r := *m.rate
	if r.NeedsPermission != "" {
		return append(ls, line{text: label + st.Muted.Render("— needs "+r.NeedsPermission+" (this key cannot list instances)"), prio: prioRateHead})
	}
	ls = append(ls, line{text: m.rateHead(label, r, w), prio: prioRateHead})
	if r.Stored > 0 {
		s := "+" + r.Storage.String() + " storage of " + billing.Plural(r.Stored, "stopped instance", "stopped instances") + " (estimate)"
		if labelW+shared.Width(s) > w {
			s = "+" + r.Storage.String() + " stopped disks (est.)"
		}
		ls = append(ls, line{text: strings.Repeat(" ", labelW) + st.Muted.Render(s), prio: prioRateNote})
	}
	if n := r.Note(); n != "" {
		ls = append(ls, line{text: strings.Repeat(" ", labelW) + st.Warning.Render(n), prio: prioRateNote})
	}
	return append(ls, m.rateRows(r, w)...)
}

// rateHead is "Now    $3.412/h · 4 running · ≈ 2.9 days (until 24 Nov) at
// it (7-day: ≈ 27.3 days)", losing its tail pieces as the width shrinks.
func (m *Model) rateHead(label string, r billing.CurrentRate, w int) string {
	st := m.styles()
	now := r.RunwayOf(m.user)
	week := m.runway()
	style := st.Bold
	if now.Reason == "" && now.Tenths < billing.LowRunwayTenths {
		style = st.CreditLow
	}
	rate := st.Amount.Render(r.PerHour.String())
	running := billing.Plural(r.Running, "running", "running")
	var runway, short string
	switch {
	case m.user == nil:
	case now.Reason != "":
		runway = st.Muted.Render("— " + now.Reason)
		short = runway
	default:
		runway = style.Render(now.String()) + st.Muted.Render(" at this rate")
		short = style.Render("≈ "+now.Length()) + st.Muted.Render(" at it")
	}
	weekText := ""
	if week.Reason == "" {
		weekText = st.Muted.Render("(7-day: ≈ " + week.Length() + ")")
	}
	sep := st.Muted.Render(" · ")
	for _, parts := range [][]string{
		{rate, running, runway + " " + weekText},
		{rate, running, runway},
		{rate, runway},
		{rate, short},
		{rate},
	} {
		var keep []string
		for _, p := range parts {
			if strings.TrimSpace(p) != "" {
				keep = append(keep, strings.TrimSpace(p))
			}
		}
		s := label + strings.Join(keep, sep)
		if shared.Width(s) <= w {
			return s
		}
	}
	return label + rate
}

// rateRows lists the billing instances, largest first, cut to
// rateRowsMax: "  1041585  running  2× RTX 4090  $1.234/h  label".
func (m *Model) rateRows(r billing.CurrentRate, w int) []line {
	st := m.styles()
	rows := r.Billing
	more := 0
	if len(rows) > rateRowsMax {
		rows, more = rows[:rateRowsMax], len(rows)-rateRowsMax
	}
	idW, stW, gpuW, amtW := 0, 0, 0, 0
	for _, in := range rows {
		idW = max(idW, len(strconv.FormatInt(in.ID, 10)))
		stW = max(stW, shared.Width(shared.Safe(in.Status)))
		gpuW = max(gpuW, shared.Width(gpuText(in)))
		amtW = max(amtW, len(in.Billing().String()))
	}
	stW, gpuW = min(stW, 10), min(gpuW, 18)
	var ls []line
	for _, in := range rows {
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", indent))
		b.WriteString(shared.PadLeft(strconv.FormatInt(in.ID, 10), idW))
		b.WriteString("  ")
		status := shared.PadRight(shared.Truncate(shared.Safe(in.Status), stW), stW)
		if in.Running() {
			b.WriteString(st.OK.Render(status))
		} else {
			b.WriteString(st.Muted.Render(status))
		}
		b.WriteString("  ")
		b.WriteString(shared.PadRight(shared.Truncate(gpuText(in), gpuW), gpuW))
		b.WriteString("  ")
		b.WriteString(st.Amount.Render(shared.PadLeft(in.Billing().String(), amtW)))
		rest := w - shared.Width(b.String()) - 2
		if tail := rowTail(in); rest > 0 && tail != "" {
			b.WriteString("  ")
			b.WriteString(st.Muted.Render(shared.Truncate(tail, rest)))
		}
		ls = append(ls, line{text: b.String(), prio: prioRateRows, sec: secRate})
	}
	if more > 0 {
		ls = append(ls, line{text: strings.Repeat(" ", indent) + st.Muted.Render("+"+billing.Plural(more, "more instance", "more instances")+" billing"), prio: prioRateRows, sec: secRate})
	}
	return ls
}

// gpuText is "2× RTX 4090", "storage" for an instance billing its disk
// only.
func gpuText(in api.Instance) string {
	if !in.Running() {
		return "storage (est.)"
	}
	name := shared.Safe(in.GPUName)
	if name == "" {
		name = "GPU"
	}
	return strconv.Itoa(in.NumGPUs) + "× " + name
}

// rowTail is the instance's label, or "—".
func rowTail(in api.Instance) string {
	if l := shared.Safe(in.Label); l != "" {
		return l
	}
	return "—"
}
