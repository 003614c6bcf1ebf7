package charges

import (
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/ui/shared"
)

// copySource is y: the source of the row under the cursor (in the detail
// pane, of the row shown), or its nearest ancestor's for a row without one
// (an item), goes to the clipboard by OSC 52, which works over ssh and in
// tmux with set-clipboard on; the status line says what was copied.
func (m *Model) copySource() tea.Cmd {
	src := ""
	switch {
	case m.mode == modeDetail:
		src = m.detailSrc
	case m.tree.Len() > 0:
		src = m.sourceOf(m.cursor)
	}
	if src == "" {
		m.setNotice(shared.StatusInfo, "nothing to copy: the row has no source")
		return nil
	}
	// Sanitized: a source is server text, and the clipboard is pasted into
	// shells.
	src = shared.Safe(src)
	m.setNotice(shared.StatusOK, "copied "+src+" to the clipboard")
	return tea.SetClipboard(src)
}
