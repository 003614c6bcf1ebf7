package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// At every width the tabs row shows the active tab, all five numbers
// wherever they fit (a 40-column terminal lost "4 Statement" entirely), and
// a click on a number drawn there opens that screen.
func TestTabsFitEveryWidth(t *testing.T) {
	m := testModel(t)
	for _, w := range []int{8, 12, 16, 20, 30, 40, 50, 56, 60, 66, 80, 100} {
		m.Update(tea.WindowSizeMsg{Width: w, Height: 30})
		for active := range screenNames {
			m.switchTo(screenID(active))
			row := strings.Split(screenText(m), "\n")[1]
			if ansi.StringWidth(row) > w {
				t.Fatalf("width %d: tabs row %q is wider", w, row)
			}
			num := string(rune('1' + active))
			if !strings.Contains(row, "["+num) {
				t.Errorf("width %d, screen %s: the active tab is not drawn: %q", w, num, row)
			}
			if w >= 40 && !strings.Contains(row, "["+tabLabel(active)+"]") {
				t.Errorf("width %d: the active tab's name is cut: %q", w, row)
			}
			if w >= 66 && !strings.Contains(row, tabLabel(3)) {
				t.Errorf("width %d: %q cut", w, row)
			}
			for i := range screenNames {
				d := string(rune('1' + i))
				at := strings.Index(row, d)
				if at < 0 {
					if w >= 20 {
						t.Errorf("width %d, screen %s: tab %s not drawn: %q", w, num, d, row)
					}
					continue
				}
				x := ansi.StringWidth(row[:at])
				m.Update(tea.MouseClickMsg{X: x, Y: 1, Button: tea.MouseLeft})
				if m.active != screenID(i) {
					t.Errorf("width %d: a click on tab %s (column %d of %q) shows screen %d", w, d, x, row, m.active+1)
				}
				m.switchTo(screenID(active))
			}
		}
	}
}
