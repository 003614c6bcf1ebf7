// Command bubbletea is the yardstick of the dashboard: a bare Bubble Tea
// program of the version vastdash uses, with its defaults, that fills the
// alternate screen with one frame — a header, the dashboard's tab row
// ("[1 Overview]  2 Charges   3 Notifications   4 Statement", the active tab
// bold and underlined), a body of rows with a cursor, and a last line
// reading "yardstick ready". 1–4, tab and shift+tab switch tabs (the body
// then names the tab), j/k and the arrows move the cursor, q quits. The
// process-level benchmarks run it beside vastdash in the same kind of
// pseudo-terminal: its start is the first-frame yardstick, its answer to a
// key the key-to-screen one.
package main

import (
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
)

var tabs = [...]string{"Overview", "Charges", "Notifications", "Statement"}

type model struct{ width, height, tab, cursor int }

func (m model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		switch k := msg.String(); k {
		case "q", "ctrl+c":
			return m, tea.Quit
		case "1", "2", "3", "4":
			m.tab = int(k[0] - '1')
		case "tab":
			m.tab = (m.tab + 1) % len(tabs)
		case "shift+tab":
			m.tab = (m.tab + len(tabs) - 1) % len(tabs)
		case "j", "down":
			m.cursor = min(m.cursor+1, max(m.height-4, 0))
		case "k", "up":
			m.cursor = max(m.cursor-1, 0)
		}
	}
	return m, nil
}

// tabRow is the dashboard's tab row at a width where every name fits.
func (m model) tabRow() string {
	parts := make([]string, len(tabs))
	for i, name := range tabs {
		label := fmt.Sprintf("%d %s", i+1, name)
		if i == m.tab {
			parts[i] = "\x1b[1;4;38;5;213m[" + label + "]\x1b[m"
		} else {
			parts[i] = "\x1b[38;5;245m " + label + " \x1b[m"
		}
	}
	return strings.Join(parts, " ")
}

func (m model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	if m.height > 2 {
		lines := make([]string, m.height)
		lines[0] = "yardstick · a bare Bubble Tea program"
		lines[1] = m.tabRow()
		for i := 2; i < m.height-1; i++ {
			mark := " "
			if i-2 == m.cursor {
				mark = "›"
			}
			lines[i] = fmt.Sprintf("%s %s line %d", mark, tabs[m.tab], i-1)
		}
		lines[m.height-1] = "yardstick ready"
		v.SetContent(strings.Join(lines, "\n"))
	}
	return v
}

func main() {
	if _, err := tea.NewProgram(model{}).Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
