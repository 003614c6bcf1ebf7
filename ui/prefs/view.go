package prefs

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui/shared"
)

// Line priorities: when the area is too short, the lowest go first (the
// last of equals first), so the switches and the question being asked stay.
const (
	prioBlank     = 0
	prioThreshold = 2
	prioTitle     = 3
	prioNote      = 4
	prioDetail    = 5
	prioWarning   = 6
	prioReadOnly  = 7
	prioQuestion  = 8
	prioSwitch    = 9
)

// stateWidth fits the widest state text, "… saving off".
const stateWidth = 12

type line struct {
	text string
	prio int
}

// View renders the screen, exactly width×height.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	st := m.styles()
	var ls []line
	add := func(prio int, s string) { ls = append(ls, line{s, prio}) }
	// addPara wraps a paragraph; its first line keeps prio, the rest get
	// rest, so a short area keeps the start of the sentence.
	addPara := func(prio, rest int, style lipgloss.Style, s string) {
		for i, l := range wrap(s, w) {
			p := prio
			if i > 0 {
				p = rest
			}
			add(p, style.Render(l))
		}
	}

	add(prioTitle, st.Bold.Render("Notifications")+st.Muted.Render(" · low credit alerts"))
	add(prioBlank, "")
	switch {
	case !m.haveUser && m.userErr != nil:
		addPara(prioSwitch, prioDetail, st.Error, "✗ account not loaded: "+m.ctx.ErrorText(m.userErr)+" — the preferences need its user id")
	case !m.haveUser:
		add(prioSwitch, st.Muted.Render("loading account…"))
	default:
		for i := range billing.LowCredit {
			add(prioSwitch, m.row(i))
		}
	}
	if t := m.thresholdText(); t != "" {
		add(prioBlank, "")
		addPara(prioThreshold, prioBlank, st.Muted, t)
	}
	if m.haveUser && (m.read == readUnavailable || m.read == readDenied) && m.confirm == nil {
		add(prioBlank, "")
		addPara(prioNote, prioBlank, st.Muted, "Saving replaces every notification preference on the account with what vastdash sends; you will be asked to confirm.")
	}
	if m.confirm != nil {
		add(prioBlank, "")
		if m.confirm.force {
			addPara(prioWarning, prioDetail, st.Warning, "! The current preferences could not be read. A save replaces the server's whole preferences document: every other context, notification and channel (even the other low credit switch) is reset to what vastdash sends, which is only this one switch.")
		}
		addPara(prioQuestion, prioDetail, st.Bold, m.question())
		addPara(prioQuestion, prioDetail, st.Muted, "y save · n cancel · space switch on/off")
	}
	// The read-only state is part of the screen, not a passing message:
	// it explains why the switches no longer toggle. Messages go to the
	// root's status line.
	if m.readOnly {
		add(prioBlank, "")
		addPara(prioReadOnly, prioDetail, st.Error, "✗ "+readOnlyText)
	}
	return shared.Block(fitLines(ls, h), w, h)
}

// row renders switch i: cursor mark, state as symbol and word, label.
func (m *Model) row(i int) string {
	st := m.styles()
	state, style := m.stateText(i)
	cur, label := "  ", billing.LowCredit[i].Label
	if i == m.cursor {
		cur = st.Accent.Render("› ")
		label = st.Selected.Render(label)
	}
	return cur + style.Render(shared.PadRight(state, stateWidth)) + " " + label
}

// stateText is what row i shows and its style; never colour alone.
func (m *Model) stateText(i int) (string, lipgloss.Style) {
	st := m.styles()
	if m.saving != nil && m.saving.idx == i {
		return "… saving " + word(m.saving.on), st.Accent
	}
	if q, ok := m.queued(i); ok {
		return "… queued " + word(q.on), st.Accent
	}
	on, ok := m.shown(i)
	switch {
	case !ok:
		return "[?] unknown", st.Warning
	case on:
		return "[x] on", st.OK
	default:
		return "[ ] off", st.Muted
	}
}

func (m *Model) question() string {
	c := m.confirm
	mark := "[ ] off"
	if c.on {
		mark = "[x] on"
	}
	q := "Set " + billing.LowCredit[c.idx].Label + " to " + mark
	if c.force {
		q += " and replace all notification preferences?"
	} else {
		q += "?"
	}
	return q
}

// thresholdText explains when low_credit fires, from the account record.
func (m *Model) thresholdText() string {
	u := m.user
	if u == nil || u.BalanceThreshold == nil {
		return ""
	}
	amt := u.BalanceThreshold.Credit()
	if u.BalanceThresholdEnabled == nil {
		return "Low-balance threshold: " + amt + "."
	}
	if *u.BalanceThresholdEnabled {
		return "Low credit alerts fire below " + amt + " (threshold enabled)."
	}
	return "Low-balance threshold: " + amt + " (threshold disabled)."
}

// wrap breaks s into lines of at most w cells.
func wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	return strings.Split(ansi.Wrap(s, w, ""), "\n")
}

// fitLines drops the lowest-priority lines (the last of equals first) until
// at most h remain, keeping the order of the rest.
func fitLines(ls []line, h int) []string {
	ls = append([]line(nil), ls...)
	for len(ls) > h && len(ls) > 0 {
		low := 0
		for i := range ls {
			if ls[i].prio <= ls[low].prio {
				low = i
			}
		}
		ls = append(ls[:low], ls[low+1:]...)
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.text
	}
	return out
}
