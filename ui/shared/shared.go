// Package shared is what the screens of vastdash have in common: the program
// context they read, the Screen interface the root model drives, the messages
// the root broadcasts, and width-aware text helpers.
package shared

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/sanitize"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/theme"
)

// Context is shared by the root model and every screen. Screens read it; only
// the root writes it, between updates.
type Context struct {
	// Base is cancelled when the program quits; every request a screen makes
	// derives its context from it so no goroutine outlives the program.
	Base context.Context
	// Billing is the application layer every screen loads through: feeds,
	// saves, estimates. Screens never call the wire client.
	Billing *billing.Service
	Styles  *theme.Styles
	// DefaultRange is the preset the charges filters start with ("30d").
	DefaultRange string
	// Keys are the key bindings from the settings' [keys]; nil means the
	// defaults.
	Keys keymap.Bindings
	// State remembers the Charges filters between runs (nil: nothing is
	// remembered); Remembered is what it held at start, StateErr why it
	// could not be read (the screen says so and starts from the defaults).
	State      *config.StateStore
	Remembered config.State
	StateErr   error
	// Cursor, when not nil, is where the Charges cursor's contract (its
	// source) is kept for the next dashboard run on the same account (a
	// switch on the Accounts screen and back): the screen starts on it
	// and, alone, writes it as the cursor moves. nil keeps nothing.
	Cursor *string
	// Budget is what the user means to spend a month (the settings'
	// budget); 0 when none.
	Budget money.Amount
}

// Screen is one page of the dashboard. The root model sends every message to
// every screen (so background loads land wherever they belong) except key and
// mouse messages, which go to the active screen only. A mouse message's Y is
// counted from the top of the screen's area (row 0 is the first line of its
// View), and clicks outside that area never reach it.
type Screen interface {
	// Init starts the screen's first loads.
	Init() tea.Cmd
	// Update handles a message; the screen keeps its own state.
	Update(msg tea.Msg) tea.Cmd
	// SetSize gives the screen its area; View must fit it exactly.
	SetSize(width, height int)
	// View renders the screen in its area.
	View() string
	// Help lists the screen's key bindings for the help bar.
	Help() help.KeyMap
	// Capturing reports that a text field has focus: q and the digit keys
	// are typed into it instead of quitting or switching screens.
	Capturing() bool
	// Loading reports a request in flight (the header shows a spinner).
	Loading() bool
	// Shown tells the screen it became the active one (true) or stopped
	// being it (false). The root calls it on a switch only, never after
	// other messages: a screen that loads for someone looking (the
	// Statement's year, the Audit's so far, the Accounts' roll-up) starts
	// here, and one that needs nothing returns nil.
	Shown(active bool) tea.Cmd
}

// UserMsg carries the account record, or why it could not be read. The root
// requests it at start and on reload, and broadcasts it to every screen.
type UserMsg struct {
	User api.User
	Err  error
}

// Safe sanitizes server text for display. Every string that came from the
// server goes through it (or through Fit, which calls it).
func Safe(s string) string { return sanitize.String(s) }

// Width is the display width in cells (wide characters count 2).
func Width(s string) int { return ansi.StringWidth(s) }

// Fit sanitizes s and makes it exactly w cells wide: cut with "…" when
// longer, padded with spaces when shorter.
func Fit(s string, w int) string {
	return PadRight(Truncate(Safe(s), w), w)
}

// Truncate cuts s (which may hold styling) to at most w cells, ending in "…"
// when cut. It does not sanitize.
func Truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// PadRight pads s with spaces to w cells.
func PadRight(s string, w int) string {
	if n := w - ansi.StringWidth(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// PadLeft right-aligns s in w cells.
func PadLeft(s string, w int) string {
	if n := w - ansi.StringWidth(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

// Block makes lines exactly w×h: each line cut or padded to w, missing
// lines blank, extra lines dropped. Screens end their View with it so the
// root can stack them without measuring.
func Block(lines []string, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		line := ""
		if i < len(lines) {
			line = lines[i]
		}
		b.WriteString(PadRight(Truncate(line, w), w))
	}
	return b.String()
}

// RevealMsg asks the root to show the charges screen with the cursor on the
// top-level entry whose source is Source (the overview's top contracts send
// it on enter).
type RevealMsg struct {
	Source string
	// What names the row the user chose ("idle endpoint idle-chat (9201)"),
	// for the words when it has no charges in the filters: Source may be a
	// contract the user never saw (an endpoint's worker). "" says Source.
	What string
	// Endpoint, when not 0, is a serverless endpoint: any of its workers'
	// charges (their endpoint id) will do when Source has none.
	Endpoint int64
}

// ErrorText says what failed and what to check, for the status line, in
// the same words as the commands (billing.Service.Explain).
func (c *Context) ErrorText(err error) string {
	if c == nil {
		return (*billing.Service)(nil).Explain(err)
	}
	return c.Billing.Explain(err)
}

// Server is the host and port the dashboard talks to ("console.vast.ai:443").
func (c *Context) Server() string {
	if c == nil {
		return "the server"
	}
	return c.Billing.Server()
}

// Clock is the billing service's clock, in its zone: the screens read the
// one clock and zone the service computes days with, so a day shown is the
// day counted. Without a service (a screen built bare in a test) it is the
// wall clock in local time.
func (c *Context) Clock() time.Time {
	if c.Billing != nil {
		return c.Billing.Now()
	}
	return time.Now()
}

// Loc is the billing service's zone, where days begin and end (time.Local
// or UTC per setting); local time without a service.
func (c *Context) Loc() *time.Location {
	if c.Billing != nil {
		return c.Billing.Location()
	}
	return time.Local
}

// When is t in the one short form people read, in the service's zone:
// "26 Nov 14:05" this year, "30 Dec 2025" in another (spend.Short).
func (c *Context) When(t time.Time) string { return spend.Short(t.In(c.Loc()), c.Clock()) }

// Day is t's day in the short form: "26 Nov", "30 Dec 2025".
func (c *Context) Day(t time.Time) string { return spend.ShortDay(t.In(c.Loc()), c.Clock()) }

// WhenLong is t with its year and zone: "26 Nov 2026 14:05 UTC".
func (c *Context) WhenLong(t time.Time) string { return spend.Long(t.In(c.Loc())) }
