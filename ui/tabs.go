package ui

import (
	"strconv"
	"strings"

	"github.com/vastdash/vastdash/ui/shared"
)

// tabLabel is a tab's full text, "2 Charges"; each tab is drawn two cells
// wider ("[2 Charges]" or " 2 Charges "), a space between tabs.
func tabLabel(i int) string { return tabDigit(screenID(i)) + " " + screenNames[i] }

// tabDigit is the key a tab shows: its default, 1 to 5, and 0 for the
// Accounts.
func tabDigit(id screenID) string {
	if id == screenAccounts {
		return "0"
	}
	return string(rune('1' + id))
}

// tabCell is one tab as drawn on the tabs row: its text (brackets or
// spaces included) and the column it starts at.
type tabCell struct {
	id    screenID
	text  string
	left  int
	width int
}

// tabLayout lays the tabs out in width cells. The full names fit at 66
// cells; below that the other tabs' names are cut ("2 Cha…") as far as
// needed, then dropped ("2"), then the active tab's name too, and on a
// terminal too narrow even for the five numbers only the tabs around the
// active one are drawn. The active tab is always drawn whole enough to
// see which screen this is. tabsView and tabAt both read this layout, so a
// click lands on the tab drawn under it at every width.
func (m *Model) tabLayout(width int) []tabCell {
	build := func(activeFull bool, nameW int) []tabCell {
		ids := m.tabOrder()
		cells := make([]tabCell, 0, len(ids))
		left := 0
		for _, id := range ids {
			label := tabDigit(id)
			switch {
			case id == m.active && activeFull:
				label += " " + screenName(id)
			case id != m.active && nameW > 0:
				label += " " + shared.Truncate(screenName(id), nameW)
			}
			text := " " + label + " "
			if id == m.active {
				text = "[" + label + "]"
			}
			w := shared.Width(text)
			cells = append(cells, tabCell{id: id, text: text, left: left, width: w})
			left += w + 1
		}
		return cells
	}
	fits := func(cells []tabCell) bool {
		last := cells[len(cells)-1]
		return last.left+last.width <= width
	}
	longest := 0
	for _, id := range m.tabOrder() {
		longest = max(longest, shared.Width(screenName(id)))
	}
	// A name cut to fewer than three cells ("C…") says nothing.
	for nameW := longest; nameW >= 3; nameW-- {
		if c := build(true, nameW); fits(c) {
			return c
		}
	}
	if c := build(true, 0); fits(c) {
		return c
	}
	cells := build(false, 0)
	if fits(cells) {
		return cells
	}
	// Too narrow for all five numbers: drop tabs from the end, then from
	// the start, keeping the active one.
	for !fits(cells) && cells[len(cells)-1].id != m.active {
		cells = cells[:len(cells)-1]
	}
	for len(cells) > 1 && !fits(cells) {
		cells = cells[1:]
		shift := cells[0].left
		for i := range cells {
			cells[i].left -= shift
		}
	}
	return cells
}

// tabAt returns the tab drawn at column x of the tabs row.
func (m *Model) tabAt(x int) (screenID, bool) {
	for _, c := range m.tabLayout(m.width) {
		if x >= c.left && x < c.left+c.width {
			return c.id, true
		}
	}
	return 0, false
}

func (m *Model) tabsView() string {
	return m.chrome.tabs.get(m.ctx.Styles, strconv.Itoa(m.width)+" "+strconv.Itoa(int(m.active)), m.drawTabs)
}

func (m *Model) drawTabs() string {
	st := m.ctx.Styles
	cells := m.tabLayout(m.width)
	parts := make([]string, len(cells))
	for i, c := range cells {
		if c.id == m.active {
			parts[i] = st.TabActive.Render(c.text)
		} else {
			parts[i] = st.TabIdle.Render(c.text)
		}
	}
	return strings.Join(parts, " ")
}
