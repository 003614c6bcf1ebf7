package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// Heights below which the chrome gives way to the screen itself.
const (
	minHeightTabs   = 12 // tabs on their own line
	minHeightFooter = 8  // status and help lines
)

// View renders the whole frame, exactly width×height.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	if m.opts.NoMouse {
		v.MouseMode = tea.MouseModeNone
	}
	v.WindowTitle = "vastdash"
	return v
}

func (m *Model) render() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if m.tooLarge() {
		w, h := m.width, m.height
		if tooLarge(m.termW, m.termH) {
			w, h = m.termW, m.termH
		}
		return m.tooLargeLine(w, h)
	}
	top := []string{m.headerView()}
	if m.height >= minHeightTabs {
		top = append(top, m.tabsView())
	}
	var bottom []string
	if m.height >= minHeightFooter {
		bottom = append(m.statusView(max(m.statusH, 1)), m.footerView())
	}
	bodyH := max(m.height-len(top)-len(bottom), 0)
	if bodyH == 0 && len(top)+len(bottom) > m.height {
		return shared.Block(append(top, bottom...), m.width, m.height)
	}
	// The screen's view is already exactly width × bodyH (screens end with
	// shared.Block): only the chrome is measured, which keeps a keypress at
	// 100,000 contracts well under a millisecond.
	var body string
	if m.helpOpen {
		body = shared.Block(m.helpPane(bodyH), m.width, bodyH)
	} else {
		body = m.screen(m.active).View()
	}
	if bodyH > 0 && strings.Count(body, "\n") != bodyH-1 {
		body = shared.Block(strings.Split(body, "\n"), m.width, bodyH)
	}
	var b strings.Builder
	b.WriteString(shared.Block(top, m.width, len(top)))
	if bodyH > 0 {
		b.WriteByte('\n')
		b.WriteString(body)
	}
	if len(bottom) > 0 {
		b.WriteByte('\n')
		b.WriteString(shared.Block(bottom, m.width, len(bottom)))
	}
	return b.String()
}

// headerView: app name, account, spinner, host, and the credit on the right
// where the eye lands first.
func (m *Model) headerView() string {
	st := m.ctx.Styles
	left := st.Title.Render("vastdash")
	if m.height < minHeightTabs {
		left += " " + st.TabActive.Render(screenName(m.active))
	}
	if u := m.user; u != nil && u.Email != "" {
		left += st.Muted.Render(" · ") + shared.Safe(u.Email)
	}
	// The age of the credit goes first, while the name still fits whole;
	// then why the credit is low, before the name and long before the
	// amount.
	right := m.headerRight(true, true)
	if m.width-shared.Width(right)-1 < shared.Width(left) {
		right = m.headerRight(true, false)
	}
	if m.width-shared.Width(right)-1 < minHeaderLeft {
		right = m.headerRight(false, false)
	}
	room := m.width - shared.Width(right) - 1
	if room < minHeaderLeft {
		// Narrow: the credit matters more than the name.
		return shared.Truncate(right, m.width)
	}
	left = shared.Truncate(left, room)
	return left + strings.Repeat(" ", m.width-shared.Width(left)-shared.Width(right)) + right
}

// minHeaderLeft is the room the header keeps for the name ("vastdash")
// before it drops the reason the credit is low.
const minHeaderLeft = 8

// headerRight is the right of the header: DEMO or the host, the spinner
// while anything loads, how old the credit is when age is set, and the
// credit, with why it is low when reason is set.
func (m *Model) headerRight(reason, age bool) string {
	st := m.ctx.Styles
	right := m.creditView(reason)
	if a := m.ageView(); age && a != "" {
		right = st.Muted.Render(a+" · ") + right
	}
	if m.loading() {
		right = m.spin.View() + " " + right
	}
	if m.opts.Demo {
		right = st.Warning.Render("DEMO") + "  " + right
	} else if m.opts.Host != "" {
		right = st.Muted.Render(shared.Safe(m.opts.Host)) + "  " + right
	}
	return right
}

// creditView is the credit with its state in words as well as colour:
// amber and "low" under the balance threshold or when the overview's runway
// is under three days, red and "empty" at or below zero. With reason, a low
// credit says which of the two made it low ("low · 2.1 days left", "low ·
// under your $50.00 alert"): the amber word alone left users comparing the
// credit with a threshold it was above.
func (m *Model) creditView(reason bool) string {
	st := m.ctx.Styles
	switch {
	case m.userRejected() && m.height < minHeightFooter:
		// No status line to say it: the header does.
		return st.CreditNeg.Render("API key rejected")
	case m.user == nil && m.userErr != nil:
		return st.Error.Render("credit unavailable")
	case m.user == nil:
		return st.Muted.Render("credit …")
	}
	u := m.user
	text := u.Credit.Credit()
	switch {
	case u.CreditMissing:
		// The record holds no credit figure: never $0.00 "empty".
		return st.Warning.Render("credit unknown")
	case u.Credit <= 0:
		return "credit " + st.CreditNeg.Render(text+" empty")
	case billing.LowBalance(*u) || m.runwayShort():
		out := "credit " + st.CreditLow.Render(text+" low")
		if reason {
			out += st.Muted.Render(" · " + m.lowReason(*u))
		}
		return out
	}
	return "credit " + st.Credit.Render(text)
}

// statusMax is the most lines the status line wraps to.
const statusMax = 3

// statusMessage is what the status line says and its style: the account's
// failure (a refused key said here once, with what to do), a wait, or the
// last StatusMsg, with a mark as well as a colour, so the tone reads
// without colour too. "" when there is nothing to say.
func (m *Model) statusMessage() (string, lipgloss.Style) {
	st := m.ctx.Styles
	if !m.waitUntil.IsZero() && time.Now().Before(m.waitUntil) {
		if m.waitKind == api.EventRetry {
			// The client retries when no answer came (a refused or reset
			// connection) or a gateway said the server is unreachable: not a
			// busy server, and the user may need to check the URL.
			return "cannot reach " + m.ctx.Server() + ", retrying…", st.Warning
		}
		if m.status.Kind == shared.StatusInfo && m.status.Text != "" && !strings.Contains(m.status.Text, "rate limit") {
			// What a key just started ("exporting: …") is said with the
			// wait, not hidden behind it for seconds.
			return shared.Safe(m.status.Text) + " · waiting for the rate limit…", st.Warning
		}
		return "waiting for the rate limit…", st.Warning
	}
	if m.userErr != nil {
		text := "✗ " + m.ctx.ErrorText(m.userErr)
		if !m.userRejected() {
			text += " · " + m.ctx.Key("reload") + " to reload"
		}
		return text, st.Error
	}
	if m.stateNote != "" && m.status.Kind != shared.StatusError {
		return "! " + shared.Safe(m.stateNote), st.Warning
	}
	text := shared.Safe(m.status.Text)
	switch {
	case text == "":
		return "", st.Muted
	case m.status.Kind == shared.StatusError:
		return "✗ " + text, st.Error
	case m.status.Kind == shared.StatusWarn:
		return "! " + text, st.Warning
	case m.status.Kind == shared.StatusOK:
		return "✓ " + text, st.OK
	}
	return text, st.Muted
}

// statusWrapped is the status message wrapped at words to the width.
func (m *Model) statusWrapped() ([]string, lipgloss.Style) {
	text, style := m.statusMessage()
	if text == "" || m.width <= 0 {
		return nil, style
	}
	return strings.Split(ansi.Wrap(text, m.width, ""), "\n"), style
}

// statusLineCount is the lines the status line needs: a message longer
// than the line wraps rather than being cut ("— check the URL (--u…"), up
// to statusMax lines and to half of what the screen would keep below the
// least height with a status line, so a short terminal keeps its screen.
func (m *Model) statusLineCount() int {
	if m.height < minHeightFooter {
		return 1
	}
	lines, _ := m.statusWrapped()
	most := min(statusMax, 1+(m.height-minHeightFooter)/2)
	return min(max(len(lines), 1), most)
}

// statusView is the status line in exactly n lines: the message wrapped,
// its last line cut with "…" only when even n lines cannot hold it.
func (m *Model) statusView(n int) []string {
	lines, style := m.statusWrapped()
	if len(lines) > n {
		rest := strings.Join(lines[n-1:], " ")
		lines = append(lines[:n-1], shared.Truncate(rest, m.width))
	}
	out := make([]string, n)
	for i := range out {
		if i < len(lines) {
			out[i] = style.Render(lines[i])
		}
	}
	return out
}

// footerView is the one-line help. It starts with "? help" and ends with
// "q quit" on every screen and at every width, so a newcomer always finds
// the way to the rest: what does not fit is cut from the screen's keys in
// between. While a text field has the keyboard it lists the field's keys
// only, since ? and q would be typed into it. With quit bound to no key it
// ends with force-quit's, the way out the settings must leave.
func (m *Model) footerView() string {
	k := m.keys
	cur := m.screen(m.active)
	quit := k.Quit
	if !quit.Enabled() {
		quit = k.ForceQuit
	}
	var first, last []key.Binding
	var middle []key.Binding
	switch {
	case m.helpOpen:
		first, last = []key.Binding{k.HelpClose}, []key.Binding{quit}
		if m.helpMaxTop() > 0 {
			middle = []key.Binding{k.HelpDown, k.HelpUp, k.HelpPageDn, k.HelpTop, k.HelpBottom}
		}
	case cur.Capturing():
		middle = cur.Help().ShortHelp()
	default:
		first, last = []key.Binding{k.Help}, []key.Binding{quit}
		// Not tab: the tabs row already numbers the screens, and the
		// screen's own keys are what a newcomer looks for.
		middle = cur.Help().ShortHelp()
	}
	return m.chrome.footer.get(m.ctx.Styles, footerKey(m.width, first, middle, last), func() string {
		return m.shortHelp(first, middle, last, m.width)
	})
}

// chromeCache keeps the tab row and the help line as last drawn: Bubble
// Tea asks for a frame after every message, and these two cost more to
// style and measure than the rest of a 200×60 frame while they change only
// with a key.
type chromeCache struct{ tabs, footer lineCache }

// lineCache is one line and what it was drawn from.
type lineCache struct {
	styles *theme.Styles
	key    string
	line   string
}

// get returns the line drawn for key with styles, drawing it when either
// changed.
func (c *lineCache) get(styles *theme.Styles, key string, draw func() string) string {
	if c.styles != styles || c.key != key {
		c.styles, c.key, c.line = styles, key, draw()
	}
	return c.line
}

// footerKey is everything the help line is drawn from: the width and each
// binding's key, description and state, in its group.
func footerKey(width int, groups ...[]key.Binding) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(width))
	for _, g := range groups {
		b.WriteByte('|')
		for _, k := range g {
			if !shown(k) {
				continue
			}
			h := k.Help()
			b.WriteString(h.Key)
			b.WriteByte(0)
			b.WriteString(h.Desc)
			b.WriteByte(0)
		}
	}
	return b.String()
}

// shortHelp joins first, as many of middle as fit in width, and last; an
// ellipsis marks middle keys left out.
func (m *Model) shortHelp(first, middle, last []key.Binding, width int) string {
	st := m.ctx.Styles.Help
	sep := st.ShortSeparator.Render(" • ")
	item := func(b key.Binding) string {
		return st.ShortKey.Render(b.Help().Key) + " " + st.ShortDesc.Render(b.Help().Desc)
	}
	join := func(bs []key.Binding) []string {
		var out []string
		for _, b := range bs {
			if shown(b) {
				out = append(out, item(b))
			}
		}
		return out
	}
	head, mid, tail := join(first), join(middle), join(last)
	fixed := shared.Width(strings.Join(append(append([]string{}, head...), tail...), sep))
	if len(head) > 0 && len(tail) > 0 {
		fixed += shared.Width(sep)
	}
	ellipsis := sep + st.Ellipsis.Render("…")
	used, n := fixed, 0
	for i, s := range mid {
		w := shared.Width(s)
		if len(head)+len(tail) > 0 || i > 0 {
			w += shared.Width(sep)
		}
		rest := 0
		if i < len(mid)-1 {
			rest = shared.Width(ellipsis) // what still must fit if more are cut
		}
		if used+w+rest > width {
			break
		}
		used += w
		n++
	}
	parts := append(append([]string{}, head...), mid[:n]...)
	line := strings.Join(parts, sep)
	if n < len(mid) {
		line += ellipsis
	}
	if len(tail) > 0 {
		if line != "" {
			line += sep
		}
		line += strings.Join(tail, sep)
	}
	return line
}

// shown reports a binding the help lists: enabled, with a key to show.
func shown(b key.Binding) bool { return b.Enabled() && b.Help().Key != "" }

// helpSection is a titled part of the help pane: the screen's keys, then
// the global ones.
type helpSection struct {
	title  string
	groups [][]key.Binding
}

// helpCell is one line of a help column: a section title, a binding, or a
// blank between groups.
type helpCell struct {
	title     string
	key, desc string
}

// helpColumnGap is the space between two help columns.
const helpColumnGap = 3

// helpLayout lays the help pane out as lines: every key of the active
// screen and the global ones, in columns that flow like a newspaper's. It
// uses as few lines as fit the width, so the pane scrolls only when the
// keys cannot all fit side by side in height lines.
func (m *Model) helpLayout(width, height int) []string {
	sections := []helpSection{
		{title: screenName(m.active) + " keys", groups: m.screen(m.active).Help().FullHelp()},
		{title: "Everywhere", groups: m.keys.FullHelp()},
	}
	// The blocks that must not be split when a column has room: each group,
	// the first one carrying its section's title.
	var blocks [][]helpCell
	for _, sec := range sections {
		titled := false
		for _, g := range sec.groups {
			var b []helpCell
			if !titled {
				b = append(b, helpCell{title: sec.title})
			}
			for _, k := range g {
				if shown(k) {
					b = append(b, helpCell{key: k.Help().Key, desc: k.Help().Desc})
				}
			}
			if len(b) > 0 && (titled || len(b) > 1) {
				blocks = append(blocks, b)
				titled = true
			}
		}
	}
	// Start as short as the tallest group (or the pane, if shorter) and
	// grow until the columns fit the width: a wide terminal gets the keys
	// side by side, a narrow one fewer, taller columns.
	total, tallest := 0, 0
	for _, b := range blocks {
		total += len(b) + 1
		tallest = max(tallest, len(b))
	}
	var cols [][]helpCell
	for h := max(min(tallest, height), 1); ; h++ {
		cols = flowHelp(blocks, h)
		if helpWidth(cols) <= width || len(cols) <= 1 || h >= total {
			break
		}
	}
	return m.renderHelpColumns(cols)
}

// flowHelp pours blocks into columns of at most h lines, a blank line
// between blocks; a block that does not fit what is left of a column starts
// the next one, and one taller than a column is split.
func flowHelp(blocks [][]helpCell, h int) [][]helpCell {
	var cols [][]helpCell
	var col []helpCell
	for _, b := range blocks {
		need := len(b)
		if len(col) > 0 {
			need++
		}
		if len(col) > 0 && len(col)+need > h && len(b) <= h {
			cols, col = append(cols, col), nil
		}
		if len(col) > 0 {
			col = append(col, helpCell{})
		}
		for _, c := range b {
			if len(col) >= h {
				cols, col = append(cols, col), nil
			}
			col = append(col, c)
		}
	}
	if len(col) > 0 {
		cols = append(cols, col)
	}
	return cols
}

// helpColumnWidths returns each column's key width and total width.
func helpColumnWidths(col []helpCell) (keyW, w int) {
	descW := 0
	for _, c := range col {
		keyW = max(keyW, shared.Width(c.key))
		descW = max(descW, shared.Width(c.desc))
	}
	w = keyW + 1 + descW
	for _, c := range col {
		w = max(w, shared.Width(c.title))
	}
	return keyW, w
}

// helpWidth is the width of the columns side by side.
func helpWidth(cols [][]helpCell) int {
	w := 0
	for i, c := range cols {
		_, cw := helpColumnWidths(c)
		if i > 0 {
			w += helpColumnGap
		}
		w += cw
	}
	return w
}

// renderHelpColumns sets the columns side by side as lines.
func (m *Model) renderHelpColumns(cols [][]helpCell) []string {
	st := m.ctx.Styles
	lines := 0
	for _, c := range cols {
		lines = max(lines, len(c))
	}
	out := make([]string, lines)
	for i, col := range cols {
		keyW, w := helpColumnWidths(col)
		for y := range lines {
			cell := ""
			if y < len(col) {
				c := col[y]
				switch {
				case c.title != "":
					cell = st.Title.Render(c.title)
				case c.key != "":
					cell = st.Help.FullKey.Render(shared.PadRight(c.key, keyW)) + " " + st.Help.FullDesc.Render(c.desc)
				}
			}
			if i > 0 {
				out[y] += strings.Repeat(" ", helpColumnGap)
			}
			if i < len(cols)-1 {
				cell = shared.PadRight(cell, w)
			}
			out[y] += cell
		}
	}
	return out
}

// helpLines is the help pane's content for the current size.
func (m *Model) helpLines() []string {
	return m.helpLayout(m.width, m.bodyHeight())
}

// helpMaxTop is the last first line the help pane can scroll to.
func (m *Model) helpMaxTop() int {
	return max(len(m.helpLines())-m.bodyHeight(), 0)
}

// helpPane is the help pane's visible lines: the content from helpTop,
// with the last line saying how much more there is when it scrolls.
func (m *Model) helpPane(h int) []string {
	lines := m.helpLines()
	top := min(m.helpTop, max(len(lines)-h, 0))
	end := min(top+h, len(lines))
	out := append([]string{}, lines[top:end]...)
	if end < len(lines) && len(out) > 0 {
		out[len(out)-1] = m.ctx.Styles.Muted.Render(fmt.Sprintf("↓ %d more lines (%s/%s)", len(lines)-end, m.ctx.Key("help-down"), m.ctx.Key("help-page-down")))
	}
	return out
}

// lowReason says why the credit is low: the runway when it is short (the
// more pressing of the two, and what the Overview shows), else the alert
// threshold it is under.
func (m *Model) lowReason(u api.User) string {
	if m.runwayShort() {
		return m.runway.Runway.Length() + " left"
	}
	return "under your " + u.BalanceThreshold.Credit() + " alert"
}
