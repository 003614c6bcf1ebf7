package notifications

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/notices"
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

// View renders the screen, exactly width×height: a title, the list of
// rows (scrolled to keep the cursor in view), and below it what the screen
// asks or explains. When the area is short, the list keeps at least the
// cursor's line and the explanations go first, lowest priority first.
func (m *Model) View() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	switch {
	case m.hooks.secret != nil:
		return m.secretView(w, h)
	case m.hooks.form != nil:
		return m.formView(w, h)
	}
	st := m.styles()
	var top []string
	switch {
	case m.find.on:
		// The field has the keyboard: it shows at any height.
		top = append(top, m.findLine())
		if h >= 8 {
			top = append(top, "")
		}
	case h >= 4:
		top = append(top, st.Bold.Render("Notifications")+st.Muted.Render(" · the low-balance threshold and every alert"))
		if h >= 8 {
			top = append(top, "")
		}
	}
	list, cur := m.listLines()
	bottom := m.bottomLines(w)
	listMin := min(len(list), 3)
	if m.confirm != nil || m.hooks.ask != nil || m.th.ask != nil {
		listMin = min(len(list), 1) // the question matters more than the context
	}
	bl := fitLines(bottom, max(0, h-len(top)-listMin))
	listH := max(0, h-len(top)-len(bl))
	out := append(top, m.window(list, cur, listH)...)
	return shared.Block(append(out, bl...), w, h)
}

// listHeight is how many list lines the area holds, for paging.
func (m *Model) listHeight() int { return max(1, m.height-4) }

// window is the listH lines of list to show, scrolled so that line cur
// stays in view; the offset is kept so the list does not jump.
func (m *Model) window(list []string, cur, listH int) []string {
	if listH <= 0 {
		return nil
	}
	if len(list) <= listH {
		m.offset = 0
		return list
	}
	switch {
	case cur < m.offset:
		m.offset = cur
	case cur >= m.offset+listH:
		m.offset = cur - listH + 1
	}
	// A group heading just above the cursor comes into view with it.
	if m.offset > 0 && m.offset == cur && cur > 0 && listH > 1 {
		m.offset--
	}
	m.offset = max(0, min(m.offset, len(list)-listH))
	return list[m.offset : m.offset+listH]
}

// listLines renders the rows under their group headings, and returns the
// index of the cursor's line.
func (m *Model) listLines() ([]string, int) {
	st := m.styles()
	switch {
	case !m.haveUser && shared.Refused(m.userErr):
		// The status line says why, once, with what to do.
		return []string{st.Muted.Render("account not loaded — the preferences need its user id")}, 0
	case !m.haveUser && m.userErr != nil:
		return []string{st.Error.Render("✗ account not loaded: " + m.ctx.ErrorText(m.userErr) + " — the preferences need its user id")}, 0
	case !m.haveUser:
		return []string{st.Muted.Render("loading account…")}, 0
	}
	var out []string
	cur := 0
	group := -1
	thRow := m.thresholdRow()
	for r := 0; r < m.switchRows(); r++ {
		i, isSwitch := m.switchAt(r)
		if isSwitch && m.switches[i].Group != group {
			group = m.switches[i].Group
			out = append(out, st.Bold.Render(m.alerts.Groups[group].Name))
		}
		if r == m.cursor {
			cur = len(out)
		}
		if !isSwitch {
			if group < 0 {
				out = append(out, st.Bold.Render("account"))
				if r == m.cursor {
					cur = len(out)
				}
			}
			out = append(out, m.thresholdRowText(r == thRow && r == m.cursor))
			if t := m.suggestionText(m.width - 2 - stateWidth - 1); t != "" {
				out = append(out, strings.Repeat(" ", 2+stateWidth+1)+st.Muted.Render(t))
			}
			continue
		}
		out = append(out, m.row(r, m.switches[i]))
	}
	hooks, hcur := m.hookLines()
	if hcur >= 0 {
		cur = len(out) + hcur
	}
	return append(out, hooks...), cur
}

// bottomLines is what the screen explains or asks below the list.
func (m *Model) bottomLines(w int) []line {
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
	if !m.haveUser {
		return nil
	}
	if m.read == readUnavailable || m.read == readDenied {
		if m.confirm == nil {
			add(prioBlank, "")
			addPara(prioNote, prioBlank, st.Muted, "Saving replaces every notification preference on the account with what vastdash sends; you will be asked to confirm.")
		}
	} else if m.read == readOK && m.catErr != nil {
		add(prioBlank, "")
		addPara(prioNote, prioBlank, st.Muted, "Raw keys shown: the notification catalogue could not be read ("+m.ctx.ErrorText(m.catErr)+").")
	}
	if n := m.alerts.Hidden; n > 0 {
		add(prioBlank, "")
		addPara(prioNote, prioBlank, st.Warning, fmt.Sprintf("! %d more switch%s in the document not listed: vastdash lists at most %d types of %d channels.", n, pluralES(n), notices.MaxAlertTypes, notices.MaxAlertChannels))
	}
	if m.confirm != nil {
		add(prioBlank, "")
		if m.confirm.force {
			addPara(prioWarning, prioDetail, st.Warning, "! The current preferences could not be read. A save replaces the server's whole preferences document: every other context, notification and channel (even the other low credit switch) is reset to what vastdash sends, which is only this one switch.")
		}
		addPara(prioQuestion, prioDetail, st.Bold, m.question())
		addPara(prioQuestion, prioDetail, st.Muted, m.ctx.Key("prompt-yes")+" save · "+m.ctx.Key("prompt-no")+" cancel · "+m.ctx.Key("prompt-flip")+" switch on/off")
	}
	if a := m.th.ask; a != nil {
		add(prioBlank, "")
		addPara(prioQuestion, prioDetail, st.Bold, "Set the low-balance threshold to "+a.Credit()+" ("+strconv.Itoa(billing.SuggestDays)+" days of your spend as loaded now)?")
		addPara(prioQuestion, prioDetail, st.Muted, m.ctx.Key("prompt-yes")+" save · "+m.ctx.Key("prompt-no")+" cancel")
	}
	m.hookBottom(add, addPara)
	// The read-only state is part of the screen, not a passing message:
	// it explains why the switches no longer toggle. Messages go to the
	// root's status line.
	if m.readOnly {
		add(prioBlank, "")
		addPara(prioReadOnly, prioDetail, st.Error, "✗ "+readOnlyText)
	}
	return ls
}

func pluralES(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}

// row renders switch sw on row r: cursor mark, state as symbol and word,
// label.
func (m *Model) row(r int, sw notices.AlertSwitch) string {
	st := m.styles()
	state, style := m.stateText(sw)
	cur, label, warn := "  ", sw.Label, ""
	if sw.Channel.Locked {
		label += " · always sent"
	}
	if m.unheard(sw.Channel.Path) {
		label, warn = m.unheardLabel(label, m.width-2-stateWidth-1)
	}
	if r == m.cursor {
		cur = st.Accent.Render("› ")
		label = st.Selected.Render(label)
	}
	return cur + style.Render(shared.PadRight(state, stateWidth)) + " " + label + st.Warning.Render(warn)
}

// thresholdRowText renders the threshold row; editing shows the text
// field in place of the amount.
func (m *Model) thresholdRowText(selected bool) string {
	st := m.styles()
	state, known := m.thresholdState()
	style := st.Warning
	switch {
	case strings.HasPrefix(state, "…"):
		style = st.Accent
	case state == "[x] on":
		style = st.OK
	case known:
		style = st.Muted
	}
	cur, label := "  ", m.thresholdLabel(m.width-2-stateWidth-1)
	if m.th.editing {
		// The field comes first: on a narrow screen the words around it
		// go before any of what is typed does.
		field := m.th.input.View()
		label = field
		avail := m.width - 2 - stateWidth - 1
		for _, l := range []string{
			"low-balance threshold: " + field + st.Muted.Render(" "+m.ctx.Key("threshold-save")+" saves · "+m.ctx.Key("threshold-cancel")+" cancels · "+m.ctx.Key("field-clear")+" clears"),
			"low-balance threshold: " + field + st.Muted.Render(" "+m.ctx.Key("threshold-save")+" saves · "+m.ctx.Key("threshold-cancel")+" cancels"),
			"low-balance threshold: " + field,
			"threshold " + field,
		} {
			if shared.Width(l) <= avail {
				label = l
				break
			}
		}
	} else if selected {
		label = st.Selected.Render(label)
	}
	if selected {
		cur = st.Accent.Render("› ")
	}
	return cur + style.Render(shared.PadRight(state, stateWidth)) + " " + label
}

// stateText is what the row of sw shows and its style; never colour alone.
func (m *Model) stateText(sw notices.AlertSwitch) (string, lipgloss.Style) {
	st := m.styles()
	p := sw.Channel.Path
	if m.saving != nil && m.saving.path == p {
		return "… saving " + word(m.saving.on), st.Accent
	}
	if q, ok := m.queued(p); ok {
		return "… queued " + word(q.on), st.Accent
	}
	if sw.Channel.Locked {
		return "[=] locked", st.Muted
	}
	on, ok := m.shown(p)
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
	q := "Set " + c.label + " to " + mark
	if c.force {
		q += " and replace all notification preferences?"
	} else {
		q += "?"
	}
	return q
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
