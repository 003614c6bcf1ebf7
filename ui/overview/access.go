package overview

import (
	"github.com/vastdash/vastdash/ui/shared"
)

// accessLines say up front which permissions the key lacks, each with what
// it would unlock, as probed once at start: the figures that need one are
// missing for that reason, not because something failed.
func (m *Model) accessLines(w int) []line {
	if m.access == nil {
		return nil
	}
	st := m.styles()
	var ls []line
	for _, p := range m.access.Lacking() {
		text := st.Warning.Render("✗ this key lacks "+string(p)) + st.Muted.Render(" · needed for "+p.Unlocks())
		ls = append(ls, line{text: shared.Truncate(text, w), prio: prioStatus})
	}
	return ls
}
