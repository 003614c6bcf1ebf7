// Package theme holds the one Styles struct every screen renders with, built
// for a light or a dark terminal background.
//
// Colour never carries meaning alone: every coloured state also has a word or
// a symbol, so NO_COLOR (which Bubble Tea honours by downsampling the colour
// profile) loses nothing.
package theme

import (
	"image/color"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// Styles are the styles of the whole program.
type Styles struct {
	Dark bool

	Title     lipgloss.Style // app name in the header
	Header    lipgloss.Style // the header line
	TabActive lipgloss.Style
	TabIdle   lipgloss.Style
	Muted     lipgloss.Style // secondary text, hints
	Accent    lipgloss.Style // emphasis, focused things
	Bold      lipgloss.Style

	Credit     lipgloss.Style // credit, normal
	CreditLow  lipgloss.Style // under the balance threshold (amber)
	CreditNeg  lipgloss.Style // at or below zero (red)
	Amount     lipgloss.Style
	Selected   lipgloss.Style // the cursor row: reverse, so it survives NO_COLOR
	ColHeader  lipgloss.Style // column headings
	Error      lipgloss.Style
	Warning    lipgloss.Style
	OK         lipgloss.Style
	StatusLine lipgloss.Style
	Border     lipgloss.Style // boxes around panels

	// TypeColors colours contract types (instance, volume, serverless) and
	// item types (gpu, disk, bwd, bwu) in charts and legends.
	TypeColors map[string]color.Color

	Help help.Styles
}

// New builds the styles for a dark or light background.
func New(dark bool) *Styles {
	ld := lipgloss.LightDark(dark)
	c := func(light, darkHex string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(darkHex)) }

	accent := c("#5A3FC0", "#B4A0FF")
	muted := c("#6B6B6B", "#8A8A8A")
	amber := c("#9A6200", "#FFB454")
	red := c("#B00020", "#FF6B6B")
	green := c("#1B7F3B", "#7EE2A8")

	s := &Styles{Dark: dark}
	s.Title = lipgloss.NewStyle().Bold(true).Foreground(accent)
	s.Header = lipgloss.NewStyle()
	s.TabActive = lipgloss.NewStyle().Bold(true).Underline(true).Foreground(accent)
	s.TabIdle = lipgloss.NewStyle().Foreground(muted)
	s.Muted = lipgloss.NewStyle().Foreground(muted)
	s.Accent = lipgloss.NewStyle().Foreground(accent)
	s.Bold = lipgloss.NewStyle().Bold(true)
	s.Credit = lipgloss.NewStyle().Bold(true).Foreground(green)
	s.CreditLow = lipgloss.NewStyle().Bold(true).Foreground(amber)
	s.CreditNeg = lipgloss.NewStyle().Bold(true).Foreground(red)
	s.Amount = lipgloss.NewStyle()
	s.Selected = lipgloss.NewStyle().Reverse(true)
	s.ColHeader = lipgloss.NewStyle().Bold(true).Foreground(muted)
	s.Error = lipgloss.NewStyle().Foreground(red)
	s.Warning = lipgloss.NewStyle().Foreground(amber)
	s.OK = lipgloss.NewStyle().Foreground(green)
	s.StatusLine = lipgloss.NewStyle().Foreground(muted)
	s.Border = lipgloss.NewStyle().Foreground(muted)
	s.TypeColors = map[string]color.Color{
		"instance":   c("#3B6FD4", "#6FA8FF"),
		"volume":     c("#9A6200", "#FFB454"),
		"serverless": c("#8E3BB5", "#D08BFF"),
		"gpu":        c("#3B6FD4", "#6FA8FF"),
		"disk":       c("#9A6200", "#FFB454"),
		"bwd":        c("#1B7F3B", "#7EE2A8"),
		"bwu":        c("#B00060", "#FF8FC8"),
	}
	s.Help = help.DefaultStyles(dark)
	return s
}

// DarkFromEnv guesses the background from COLORFGBG ("15;0" is light text on
// a dark background) for terminals that do not answer the background query.
// Without a hint it assumes dark, the common case.
func DarkFromEnv(colorfgbg string) bool {
	parts := strings.Split(colorfgbg, ";")
	if len(parts) < 2 {
		return true
	}
	switch parts[len(parts)-1] {
	case "7", "15":
		return false
	}
	return true
}
