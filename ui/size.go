package ui

import (
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/shared"
)

// The largest terminal the dashboard draws in. Bubble Tea keeps two
// buffers of the terminal's size, 112 bytes a cell each, and allocates
// them when it starts: left to itself, a 3000×2000 terminal cost 1.3 GB
// before the first frame (1.5 GB at the peak, 14 s to quit) and a
// 10000×10000 one more memory than the machine had. Above these bounds
// the dashboard draws one line that says so (tooLargeLine), and Bubble Tea
// is told the terminal is that one line, so nothing grows with the
// window beyond what is drawn. 500,000 cells hold a 1000×500 screen,
// more than a 4K display shows at any readable font.
const (
	maxCells = 500_000
	maxSide  = 4096
)

// tooLarge reports a terminal above the bounds.
func tooLarge(w, h int) bool {
	return w > maxSide || h > maxSide || w*h > maxCells
}

// drawnSize is the size Bubble Tea is told for a w×h terminal: the
// terminal itself, or the one line of tooLargeLine.
func drawnSize(w, h int) (int, int) {
	if tooLarge(w, h) {
		return min(w, maxSide), 1
	}
	return w, h
}

// terminalSizeMsg is the terminal's real size, which Run reports before the
// size Bubble Tea draws in (a tea.WindowSizeMsg of drawnSize).
type terminalSizeMsg struct{ Width, Height int }

// tooLargeLine is the whole screen of a terminal above the bounds.
func (m *Model) tooLargeLine(w, h int) string {
	text := fmt.Sprintf("terminal too large (%s×%s): vastdash draws up to %s cells (e.g. 1000×500) · make the window smaller or the font larger · %s quits",
		money.Group(int64(w)), money.Group(int64(h)), money.Group(maxCells), m.ctx.Key("quit"))
	return m.ctx.Styles.Warning.Render(shared.PadRight(shared.Truncate(text, m.width), m.width))
}

// screenWriter is the terminal as Bubble Tea writes to it: the writes
// only. Bubble Tea reads the size of an output that is a terminal itself,
// allocating its buffers for it before anything can bound it; behind this
// it takes the size Run gives it (tea.WithWindowSize, then the messages of
// watchSize).
type screenWriter struct{ w io.Writer }

func (s screenWriter) Write(p []byte) (int, error) { return s.w.Write(p) }

// terminalOptions are the options that put the size of the terminal on
// out (when it is one) under Run: its writes behind a screenWriter, the
// bounded size to start with, and the colour profile Bubble Tea would
// have read from it. ok is false when out is not a terminal: Bubble Tea
// then handles it as before.
func terminalOptions(out *os.File) (opts []tea.ProgramOption, w, h int, ok bool) {
	if !sizeUnderRun || !term.IsTerminal(out.Fd()) {
		return nil, 0, 0, false
	}
	w, h, err := term.GetSize(out.Fd())
	if err != nil || w <= 0 || h <= 0 {
		return nil, 0, 0, false
	}
	dw, dh := drawnSize(w, h)
	return []tea.ProgramOption{
		tea.WithOutput(screenWriter{out}),
		tea.WithWindowSize(dw, dh),
		tea.WithColorProfile(colorprofile.Detect(out, os.Environ())),
	}, w, h, true
}

// sendSize tells p the terminal is w×h: its real size for the model, then
// the size to draw in for the model and Bubble Tea's renderer.
func sendSize(p *tea.Program, w, h int) {
	p.Send(terminalSizeMsg{Width: w, Height: h})
	dw, dh := drawnSize(w, h)
	p.Send(tea.WindowSizeMsg{Width: dw, Height: dh})
}
