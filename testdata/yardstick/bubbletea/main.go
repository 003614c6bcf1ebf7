// Command bubbletea is the yardstick of the dashboard's start: a bare
// Bubble Tea program of the version vastdash uses, with its defaults, that
// fills the alternate screen with one frame whose last line reads
// "yardstick ready" and quits on q. The start-up benchmarks run it beside
// vastdash in the same pseudo-terminal.
package main

import (
	"fmt"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
)

type model struct{ width, height int }

func (m model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		if msg.String() == "q" {
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m model) View() tea.View {
	var v tea.View
	v.AltScreen = true
	if m.height > 0 {
		lines := make([]string, m.height)
		for i := range lines {
			lines[i] = fmt.Sprintf("line %d", i+1)
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
