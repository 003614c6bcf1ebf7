package overview

import (
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui/shared"
)

// leakLines is the one line of the money leaks: "Leaks  $3.041/h in 56 —
// 5 shows them", 5 the key of the Audit screen as bound (a count beside it
// would read as the count of leaks); nothing before the first reading,
// nor when nothing leaks.
func (m *Model) leakLines(w int) []line {
	a := m.audit
	if a == nil {
		return nil
	}
	st := m.styles()
	label := st.Bold.Render(shared.PadRight("Leaks", labelW))
	see := " — " + m.ctx.Key("audit") + " shows them"
	var text string
	switch {
	case len(a.Leaks) > 0:
		text = st.Warning.Render(a.TotalText()) + st.Muted.Render(" in "+a.CountText()+see)
	case !a.Complete():
		text = st.Muted.Render("unknown: " + billing.Plural(len(a.Unreadable), "section", "sections") + " not read" + see)
	default:
		// Nothing leaks: the Overview has better uses for the line.
		return nil
	}
	if n := len(a.Increases); n > 0 && shared.Width(label+text) < w-24 {
		text += st.Muted.Render(" · " + billing.Plural(n, "price increase", "price increases") + " pending")
	}
	return []line{{text: label + text, prio: prioGlance}}
}
