package ui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
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
	lines := make([]string, 0, m.height)
	lines = append(lines, m.headerView())
	if m.height >= minHeightTabs {
		lines = append(lines, m.tabsView())
	}
	if body := m.screens[m.active].View(); body != "" {
		lines = append(lines, strings.Split(body, "\n")...)
	}
	if m.height >= minHeightFooter {
		lines = append(lines, m.statusView())
		lines = append(lines, strings.Split(m.helpView(), "\n")...)
	}
	return shared.Block(lines, m.width, m.height)
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
		left += " " + st.TabActive.Render(m.names[m.active])
	}
	if u := m.ctx.User; u != nil && u.Email != "" {
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

// lowRunwayTenths is the runway, in tenths of days, under which the credit
// reads "low" whatever the account's threshold: three days is a weekend.
const lowRunwayTenths = 30

// creditView is the credit with its state in words as well as colour:
// amber and "low" under the balance threshold or when the overview's runway
// is under three days, red and "empty" at or below zero.
func (m *Model) creditView() string {
	st := m.ctx.Styles
	switch {
	case m.userRejected():
		return st.CreditNeg.Render("API key rejected")
	case m.ctx.User == nil && m.userErr != nil:
		return st.Error.Render("credit unavailable")
	case m.ctx.User == nil:
		return st.Muted.Render("credit …")
	}
	u := m.ctx.User
	text := u.Credit.Credit()
	switch {
	case u.Credit <= 0:
		return "credit " + st.CreditNeg.Render(text+" empty")
	case lowCredit(u) || m.runwayShort():
		return "credit " + st.CreditLow.Render(text+" low")
	}
	return "credit " + st.Credit.Render(text)
}

// lowCredit: under the account's own low-balance threshold, unless the
// account switched that threshold off.
func lowCredit(u *api.User) bool {
	if u.BalanceThreshold == nil {
		return false
	}
	if u.BalanceThresholdEnabled != nil && !*u.BalanceThresholdEnabled {
		return false
	}
	return u.Credit < *u.BalanceThreshold
}

// runwayShort reports a runway estimate under lowRunwayTenths.
func (m *Model) runwayShort() bool {
	rt, ok := m.screens[screenOverview].(runwayTeller)
	if !ok {
		return false
	}
	r, known := rt.Runway()
	return known && r.Tenths < lowRunwayTenths
}

func (m *Model) tabsView() string {
	st := m.ctx.Styles
	parts := make([]string, len(m.names))
	for i, n := range m.names {
		label := string(rune('1'+i)) + " " + n
		if i == m.active {
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
	return ""
}
