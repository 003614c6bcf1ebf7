package notifications

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/notices"
	"github.com/vastdash/vastdash/ui/shared"
)

// hookLines renders the Webhooks section below the alerts: a heading, a
// line that says what is known when that is not a list, one row per
// webhook and the add row. cur is the index of the cursor's line when the
// cursor is in the section, else -1.
func (m *Model) hookLines() (out []string, cur int) {
	st := m.styles()
	h := m.hooks
	cur = -1
	head := "Webhooks"
	count := fmt.Sprintf(" · %d of %d", len(h.list.Webhooks)+h.list.Skipped, notices.MaxWebhooksPerAccount)
	note := shared.FirstFit(m.width-len(head), " · where the webhooks switches deliver"+count, " · where alerts go"+count, count)
	if h.busy != nil {
		note = shared.Truncate(" · "+opDoing(*h.busy)+"…", m.width-len(head))
	}
	out = append(out, "", st.Bold.Render(head)+st.Muted.Render(note))
	const indent = "  "
	para := func(style lipgloss.Style, s string) {
		for _, l := range wrap(s, max(1, m.width-len(indent))) {
			out = append(out, indent+style.Render(l))
		}
	}
	switch {
	case !h.read && h.err != nil:
		para(st.Error, "✗ the webhooks could not be read: "+m.ctx.ErrorText(h.err)+" — "+m.ctx.Key("reload")+" reloads")
	case !h.read:
		para(st.Muted, "reading the webhooks…")
	case h.err != nil:
		para(st.Warning, "! reading again failed ("+m.ctx.ErrorText(h.err)+"): the list is the one read before")
	case len(h.list.Webhooks) == 0 && h.list.Skipped == 0:
		para(st.Muted, notices.NoWebhookText+": a webhooks switch delivers nowhere")
	}
	if n := h.list.Skipped; n > 0 {
		para(st.Warning, fmt.Sprintf("! %s the server sent could not be read", billing.Plural(n, "webhook", "webhooks")))
	}
	base := m.switchRows()
	for i, w := range h.list.Webhooks {
		if m.cursor == base+i {
			cur = len(out)
		}
		out = append(out, m.hookRowText(w, m.cursor == base+i))
	}
	if m.cursor == base+len(h.list.Webhooks) {
		cur = len(out)
	}
	out = append(out, m.addRowText(m.cursor == base+len(h.list.Webhooks)))
	return out, cur
}

// hookRowText is a webhook's row: name → host · events · changed. The
// host is what the row never loses: the events, the date and then the
// name go first.
func (m *Model) hookRowText(w api.Webhook, selected bool) string {
	st := m.styles()
	avail := max(1, m.width-2)
	name, host := hookName(w), notices.WebhookHost(w.URL)
	if host == "" {
		host = "(no host)"
	}
	var events []string
	for _, e := range w.Events {
		events = append(events, notices.EventName(m.cat, m.catErr, e))
	}
	ev := strings.Join(events, ", ")
	changed := ""
	if !w.Changed.IsZero() {
		changed = " · " + shortDate(w, m)
	}
	target := " → " + host
	text := ""
	for _, t := range []string{name + target + " · " + ev + changed, name + target + " · " + ev, name + target} {
		if shared.Width(t) <= avail {
			text = t
			break
		}
	}
	if text == "" {
		// Not even the name and the host: the name gives way.
		if room := avail - shared.Width(target); room >= 2 {
			text = shared.Truncate(name, room) + target
		} else {
			text = shared.Truncate(host, avail)
		}
	}
	if selected {
		return st.Accent.Render("› ") + st.Selected.Render(text)
	}
	return "  " + text
}

func shortDate(w api.Webhook, m *Model) string {
	return m.ctx.Day(w.Changed)
}

// addRowText is the last row of the section: where n (or enter) adds a
// webhook, or why none can be added.
func (m *Model) addRowText(selected bool) string {
	st := m.styles()
	l := m.hooks.list
	text := "+ add a webhook"
	if l.Skipped+len(l.Webhooks) >= notices.MaxWebhooksPerAccount {
		text = shared.FirstFit(m.width-2, text+" — the account has 4, the most allowed", text+" — 4 is the most")
		return "  " + st.Muted.Render(text)
	}
	text = shared.FirstFit(m.width-2, text+" ("+m.hk.Add.Help().Key+")", text)
	if selected {
		return st.Accent.Render("› ") + st.Selected.Render(text)
	}
	return "  " + st.Muted.Render(text)
}

// unheard reports a webhooks switch that is on while no webhook carries
// its event: its alert goes nowhere.
func (m *Model) unheard(p api.PrefPath) bool {
	return m.hooks.read && notices.Unheard(m.doc, m.hooks.list, true, p)
}

// unheardLabel is label with the warning beside it, fitted to w cells:
// the warning shortens before the label is cut.
func (m *Model) unheardLabel(label string, w int) (string, string) {
	for _, s := range []string{" · ! " + notices.UnheardText(m.hooks.list), " · ! no webhook", " !"} {
		if shared.Width(label+s) <= w {
			return label, s
		}
	}
	return shared.Truncate(label, max(1, w-2)), " !"
}

// hookBottom is what the section explains below the list: the webhook
// under the cursor in full (its URL never cut), the switch whose alert
// goes nowhere, or the question being asked.
func (m *Model) hookBottom(add func(prio int, s string), addPara func(prio, rest int, style lipgloss.Style, s string)) {
	st := m.styles()
	muted, warn, bold := st.Muted, st.Warning, st.Bold
	if a := m.hooks.ask; a != nil {
		add(prioBlank, "")
		name := hookName(a.hook)
		if a.op == opDelete {
			addPara(prioQuestion, prioDetail, bold, "Delete "+name+" → "+notices.WebhookHost(a.hook.URL)+"? The alerts it carries go nowhere unless another webhook carries them too.")
		} else {
			addPara(prioQuestion, prioDetail, bold, "Rotate the secret of "+name+"? The old secret stops working at once; the new one is shown once.")
		}
		addPara(prioQuestion, prioDetail, muted, m.keys.Yes.Help().Key+" yes · "+m.keys.No.Help().Key+" no")
		return
	}
	if w, ok := m.cursorHook(); ok {
		add(prioBlank, "")
		for i, l := range strings.Split(ansi.Hardwrap("URL "+shared.Safe(w.URL), max(1, m.width), false), "\n") {
			p := prioDetail
			if i > 0 {
				p = prioNote
			}
			add(p, l)
		}
		var keys []string
		for _, e := range w.Events {
			keys = append(keys, shared.Safe(e))
		}
		addPara(prioNote, prioBlank, muted, "carries "+strings.Join(keys, ", "))
		changed := "never said"
		if !w.Changed.IsZero() {
			changed = m.ctx.WhenLong(w.Changed)
		}
		addPara(prioNote, prioBlank, muted, "id "+w.ID+" · changed "+changed)
		k := m.hk
		addPara(prioNote, prioBlank, muted, shared.Hint(k.Edit, k.Test, k.Rotate, k.Delete))
		return
	}
	if i, ok := m.switchAt(m.cursor); ok && m.cursor < m.switchRows() && m.unheard(m.switches[i].Channel.Path) {
		p := m.switches[i].Channel.Path
		add(prioBlank, "")
		event := shared.Safe(notices.EventOf(p))
		if len(m.hooks.list.Webhooks) == 0 {
			addPara(prioWarning, prioDetail, warn, "! "+notices.NoWebhookText+" carries "+event+": this alert is delivered nowhere — "+m.hk.Add.Help().Key+" adds a webhook for it")
		} else {
			addPara(prioWarning, prioDetail, warn, "! No webhook takes "+event+" (those registered carry other alerts): this alert is delivered nowhere — "+
				m.hk.Add.Help().Key+" adds a webhook for it, "+m.hk.Edit.Help().Key+" on a webhook gives it this alert")
		}
	}
}

// secretPanel is a secret the server sent, shown once: it stays until
// dismissed and is never written anywhere else.
type secretPanel struct {
	name   string
	secret api.WebhookSecret
	added  bool
}

// secretKey handles a key while the panel is open: y copies the secret,
// esc or enter closes the panel; the rest waits.
func (m *Model) secretKey(msg tea.KeyPressMsg) tea.Cmd {
	p := m.hooks.secret
	switch {
	case key.Matches(msg, m.hk.Copy):
		m.say(shared.StatusOK, "copied the secret of "+p.name+" to the clipboard", noteTTL)
		return tea.SetClipboard(p.secret.Reveal())
	case key.Matches(msg, m.hk.Close):
		m.hooks.secret = nil
		m.say(shared.StatusInfo, "the secret is not shown again — "+m.hk.Rotate.Help().Key+" on the webhook gives a new one", noteTTL)
	}
	return nil
}

// secretView is the panel in w×h: the secret whole (wrapped, never cut),
// what it is for, and the keys.
func (m *Model) secretView(w, h int) string {
	st, p := m.styles(), m.hooks.secret
	var ls []line
	add := func(prio int, s string) { ls = append(ls, line{s, prio}) }
	title := "New signing secret · " + p.name
	if p.added {
		title = "Added " + p.name + " · its signing secret"
	}
	add(prioTitle, st.Bold.Render(shared.Truncate(title, w)))
	add(prioBlank, "")
	for _, l := range strings.Split(ansi.Hardwrap(p.secret.Reveal(), max(1, w), false), "\n") {
		add(prioSwitch, st.Accent.Render(l))
	}
	add(prioBlank, "")
	for i, l := range wrap("Shown this once: the platform never sends it again. Store it where the receiving end checks X-Vast-Signature-256 (sha256= and the HMAC-SHA256 of \"<X-Vast-Timestamp>.<body>\").", w) {
		prio := prioNote
		if i > 0 {
			prio = prioBlank
		}
		add(prio, st.Muted.Render(l))
	}
	add(prioBlank, "")
	for _, l := range wrap(m.hk.Copy.Help().Key+" copies it (OSC 52) · "+m.hk.Close.Help().Key+" closes", w) {
		add(prioQuestion, st.Muted.Render(l))
	}
	return shared.Block(fitLines(ls, h), w, h)
}
