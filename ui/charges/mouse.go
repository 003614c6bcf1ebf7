package charges

import tea "charm.land/bubbletea/v2"

// click is a left click on the screen (Y counted from its first line, as
// the root hands it): on a row it puts the cursor there; anywhere else —
// the filter bar, the headings, the blank below the last row, the footer —
// it does nothing. Only the rows take clicks: while a field, the picker or
// the detail pane is open the click is dropped.
func (m *Model) click(msg tea.MouseClickMsg) {
	if m.mode != modeTree || msg.Button != tea.MouseLeft || m.tree.Len() == 0 {
		return
	}
	fr := m.frame()
	y := msg.Y
	if fr.filter {
		y--
	}
	if fr.header {
		y--
	}
	if y < 0 || y >= fr.body {
		return
	}
	if i := m.offset + y; i < m.tree.Len() {
		m.notice = ""
		m.move(i - m.cursor)
	}
}
