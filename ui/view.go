package ui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui/shared"
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
	v.WindowTitle = "vastdash"
	return v
}

func (m *Model) render() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	top := []string{m.headerView()}
	if m.height >= minHeightTabs {
		top = append(top, m.tabsView())
	}
	var bottom []string
	if m.height >= minHeightFooter {
		bottom = append(bottom, m.statusView())
		bottom = append(bottom, strings.Split(m.helpView(), "\n")...)
	}
	bodyH := max(m.height-len(top)-len(bottom), 0)
	if bodyH == 0 && len(top)+len(bottom) > m.height {
		return shared.Block(append(top, bottom...), m.width, m.height)
	}
	// The screen's view is already exactly width × bodyH (screens end with
	// shared.Block): only the chrome is measured, which keeps a keypress at
	// 100,000 contracts well under a millisecond.
	body := m.screen(m.active).View()
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
	right := m.creditView()
	if m.loading() {
		right = m.spin.View() + " " + right
	}
	if m.opts.Demo {
		right = st.Warning.Render("DEMO") + "  " + right
	} else if m.opts.Host != "" {
		right = st.Muted.Render(shared.Safe(m.opts.Host)) + "  " + right
	}
	left := st.Title.Render("vastdash")
	if m.height < minHeightTabs {
		left += " " + st.TabActive.Render(screenNames[m.active])
	}
	if u := m.user; u != nil && u.Email != "" {
		left += st.Muted.Render(" · ") + shared.Safe(u.Email)
	}
	room := m.width - shared.Width(right) - 1
	if room < 8 {
		// Narrow: the credit matters more than the name.
		return shared.Truncate(right, m.width)
	}
	left = shared.Truncate(left, room)
	return left + strings.Repeat(" ", m.width-shared.Width(left)-shared.Width(right)) + right
}

// creditView is the credit with its state in words as well as colour:
// amber and "low" under the balance threshold or when the overview's runway
// is under three days, red and "empty" at or below zero.
func (m *Model) creditView() string {
	st := m.ctx.Styles
	switch {
	case m.userRejected():
		return st.CreditNeg.Render("API key rejected")
	case m.user == nil && m.userErr != nil:
		return st.Error.Render("credit unavailable")
	case m.user == nil:
		return st.Muted.Render("credit …")
	}
	u := m.user
	text := u.Credit.Credit()
	switch {
	case u.Credit <= 0:
		return "credit " + st.CreditNeg.Render(text+" empty")
	case billing.LowBalance(*u) || m.runwayShort():
		return "credit " + st.CreditLow.Render(text+" low")
	}
	return "credit " + st.Credit.Render(text)
}

func (m *Model) tabsView() string {
	st := m.ctx.Styles
	parts := make([]string, len(screenNames))
	for i, n := range screenNames {
		label := string(rune('1'+i)) + " " + n
		if screenID(i) == m.active {
			parts[i] = st.TabActive.Render("[" + label + "]")
		} else {
			parts[i] = st.TabIdle.Render(" " + label + " ")
		}
	}
	return strings.Join(parts, " ")
}

func (m *Model) statusView() string {
	st := m.ctx.Styles
	if !m.waitUntil.IsZero() && time.Now().Before(m.waitUntil) {
		if m.waitKind == api.EventRetry {
			return st.Warning.Render("server busy, retrying…")
		}
		return st.Warning.Render("waiting for the rate limit…")
	}
	if m.userErr != nil {
		if m.userRejected() {
			return st.Error.Render(shared.Safe(m.userErr.Error()) + " · check VAST_API_KEY or your key file")
		}
		return st.Error.Render("account: "+shared.Safe(m.userErr.Error())) + st.Muted.Render(" · r on Overview to retry")
	}
	if m.status.Text == "" {
		return ""
	}
	// A mark as well as a colour, so the tone reads without colour too.
	text := shared.Safe(m.status.Text)
	switch m.status.Kind {
	case shared.StatusError:
		return st.Error.Render("✗ " + text)
	case shared.StatusWarn:
		return st.Warning.Render("! " + text)
	case shared.StatusOK:
		return st.OK.Render("✓ " + text)
	}
	return st.Muted.Render(text)
}
