package notifications

import (
	"errors"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/notices"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
)

// The threshold row: the low-balance threshold the low_credit alerts fire
// below. enter (or t) edits the amount in a text field, space (or e)
// switches it on or off, a applies the suggestion. Every rule — what an
// amount may be, what is sent, what the server is believed to hold — is
// billing's; the screen only asks and shows.

// thresholdSavedMsg is the result of a threshold save.
type thresholdSavedMsg struct {
	seq int
	res notices.ThresholdResult
	err error
}

// suggestionMsg is the suggestion from the 7-day burn.
type suggestionMsg struct {
	seq  int
	sugg billing.Suggestion
}

// held is the threshold as the account last read holds it.
func (m *Model) held() billing.Threshold {
	if m.user == nil {
		return billing.Threshold{}
	}
	return billing.ThresholdOf(*m.user)
}

// canChangeThreshold says why the threshold cannot change now ("" when it
// can) and puts it on the status line.
func (m *Model) canChangeThreshold() bool {
	switch {
	case !m.haveUser:
		return false
	case m.readOnly:
		m.say(shared.StatusError, readOnlyText, 0)
		return false
	case m.th.saving != nil:
		m.say(shared.StatusInfo, "wait for the threshold save in flight to finish", noteTTL)
		return false
	}
	return true
}

// startEdit opens the text field on the threshold row, holding the amount
// the server holds.
func (m *Model) startEdit() tea.Cmd {
	if !m.canChangeThreshold() {
		return nil
	}
	m.cursor = m.thresholdRow()
	v := ""
	if h := m.held(); h.Known {
		v = strings.TrimPrefix(strings.ReplaceAll(h.Amount.Credit(), ",", ""), "$")
	}
	in, cmd := shared.NewField(v, m.keys.Clear)
	in.Prompt = "$"
	in.CharLimit = 16 // "1000000.00" and some room for a typo to show
	in.SetWidth(12)
	m.th.input, m.th.editing = &in, true
	m.say(shared.StatusInfo, "type the threshold in dollars — "+m.ctx.Key("threshold-save")+" saves, "+m.ctx.Key("threshold-cancel")+" cancels, "+m.ctx.Key("field-clear")+" clears", 0)
	return cmd
}

// editKeyName names the key that opens the threshold's field from where
// the cursor is, as bound: the row's own (enter) on the threshold row, else
// the one that works from any row (t).
func (m *Model) editKeyName() string {
	if m.cursor == m.thresholdRow() && len(m.ctx.Keys.Keys("threshold-row-edit")) > 0 {
		return m.ctx.Key("threshold-row-edit")
	}
	return m.ctx.Key("threshold-edit")
}

// editKey handles a key while the text field has the keyboard: enter saves
// a valid amount, esc cancels, the rest is typing. Bad input stays in the
// field with a one-line error on the status line: nothing typed is lost.
func (m *Model) editKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Cancel):
		m.th.editing = false
		m.say(shared.StatusInfo, "threshold not changed", noteTTL)
		return nil
	case key.Matches(msg, m.keys.Save):
		a, err := notices.ParseThreshold(m.th.input.Value())
		if err != nil {
			m.say(shared.StatusError, "threshold: "+err.Error(), 0)
			return nil
		}
		m.th.editing = false
		return m.saveThreshold(notices.ThresholdChange{Amount: &a}, "the threshold "+a.Credit())
	}
	return m.th.input.Update(msg)
}

// toggleThreshold switches the threshold on or off: the other state of what
// the server holds (on when it does not say).
func (m *Model) toggleThreshold() tea.Cmd {
	if !m.canChangeThreshold() {
		return nil
	}
	on := true
	if e := m.held().Enabled; e != nil {
		on = !*e
	}
	return m.saveThreshold(notices.ThresholdChange{Enabled: &on}, "the threshold "+enabledWord(on))
}

// applySuggestion works the suggestion out again from the figures loaded
// now (a reload may have changed them since it was shown) and, when it
// comes, asks before saving it: one key never writes to the account.
func (m *Model) applySuggestion() tea.Cmd {
	g := m.th.sugg
	switch {
	case !m.th.suggested && !m.th.suggesting:
		m.say(shared.StatusInfo, "no suggestion yet: it needs the last 7 days of charges", noteTTL)
		return nil
	case m.th.suggested && g.Reason != "" && !m.th.suggesting:
		m.say(shared.StatusInfo, g.String(), noteTTL)
		return nil
	case !m.canChangeThreshold():
		return nil
	}
	m.th.applying = true
	m.say(shared.StatusInfo, "working out the suggestion from the charges loaded now…", 0)
	return m.startSuggestion()
}

// saveThreshold sends ch through the billing layer.
func (m *Model) saveThreshold(ch notices.ThresholdChange, what string) tea.Cmd {
	m.th.saving = &ch
	m.th.seq++
	m.say(shared.StatusInfo, "saving "+what+"…", 0)
	seq, svc, ctx := m.th.seq, m.ctx.Billing, m.base()
	return func() tea.Msg {
		if svc == nil {
			return thresholdSavedMsg{seq: seq, err: errNoBilling}
		}
		res, err := notices.SaveThreshold(ctx, svc, ch)
		return thresholdSavedMsg{seq: seq, res: res, err: err}
	}
}

// onThresholdSaved shows what the server holds after the save, and hands
// the account it read to the root: the header's credit colour depends on
// the threshold.
func (m *Model) onThresholdSaved(msg thresholdSavedMsg) tea.Cmd {
	if msg.seq != m.th.seq || m.th.saving == nil {
		return nil
	}
	m.th.saving = nil
	res, err := msg.res, msg.err
	var announce tea.Cmd
	if res.Read {
		u := res.Account
		m.user, m.th.unknown = &u, false
		announce = func() tea.Msg { return shared.UserMsg{User: u} }
	}
	held := m.held().String()
	var ae *api.Error
	switch res.Outcome {
	case notices.Saved:
		text := "saved: the server holds the threshold " + held
		if res.Lost {
			text += " — the save's answer was lost (" + m.ctx.ErrorText(err) + "), and a read says the change took"
		}
		m.say(shared.StatusOK, text, noteTTL)
	case notices.Differs:
		text := "the server holds the threshold " + held + " (vastdash sent " + res.Sent.String() + ")"
		if res.Lost {
			text = "not saved: the threshold save's answer was lost; read again, the server holds " + held +
				" (vastdash sent " + res.Sent.String() + "; " + m.ctx.ErrorText(err) + ")"
		}
		m.say(shared.StatusWarn, text, 0)
	case notices.Unknown:
		m.th.unknown = true
		what := "no answer to the threshold save, and reading again failed too"
		if !res.Lost {
			what = "the threshold was sent, but reading the account again failed"
		}
		m.say(shared.StatusError, what+" — "+m.ctx.Key("reload")+" to reload ("+shared.Safe(err.Error())+")", 0)
	default:
		switch {
		case errors.As(err, &ae) && ae.Kind == api.ErrPermission && ae.Permission == "user_write":
			m.readOnly = true
			m.say(shared.StatusError, "could not save the threshold: "+shared.Safe(err.Error()), 0)
		case errors.Is(err, notices.ErrNoThreshold):
			m.say(shared.StatusError, err.Error()+" — "+m.editKeyName()+" edits it", 0)
		default:
			m.say(shared.StatusError, "could not save the threshold: "+m.ctx.ErrorText(err), 0)
		}
	}
	return announce
}

func enabledWord(on bool) string {
	if on {
		return "enabled"
	}
	return "disabled"
}

// SetRange is the root setting the range the dashboard shows: the
// suggestion reads the feed the Overview shares for it. The first one
// starts the suggestion.
func (m *Model) SetRange(r spend.Range) tea.Cmd {
	first := m.th.rng == nil
	m.th.rng = &r
	if !first {
		return nil
	}
	return m.startSuggestion()
}

// startSuggestion asks billing for the suggestion; it waits on the shared
// burn figures (a goroutine, no timer) and ends with the program.
func (m *Model) startSuggestion() tea.Cmd {
	if m.th.rng == nil || m.th.suggesting {
		return nil
	}
	m.th.suggesting = true
	m.th.suggSeq++
	seq, svc, ctx := m.th.suggSeq, m.ctx.Billing, m.base()
	q := billing.RangeQuery(m.th.rng.From, m.th.rng.To)
	return func() tea.Msg {
		if svc == nil {
			return suggestionMsg{seq: seq, sugg: billing.Suggestion{Reason: errNoBilling.Error()}}
		}
		g, _ := notices.SuggestThreshold(ctx, svc, q) // the Reason says why there is none
		if ctx.Err() != nil {
			return nil
		}
		return suggestionMsg{seq: seq, sugg: g}
	}
}

func (m *Model) onSuggestion(msg suggestionMsg) {
	if msg.seq != m.th.suggSeq {
		return
	}
	m.th.suggesting, m.th.suggested, m.th.sugg = false, true, msg.sugg
	if !m.th.applying {
		return
	}
	m.th.applying = false
	if msg.sugg.Reason != "" {
		m.say(shared.StatusInfo, msg.sugg.String(), noteTTL)
		return
	}
	a := msg.sugg.Amount
	m.th.ask = &a
	m.sayNothing()
}

// thresholdState is the threshold row's state column: the enabled switch.
func (m *Model) thresholdState() (string, bool) {
	if s := m.th.saving; s != nil {
		if s.Enabled != nil {
			return "… saving " + word(*s.Enabled), true
		}
		return "… saving", true
	}
	h := m.held()
	switch {
	case m.th.unknown || h.Bad != "":
		return "[?] unknown", false
	case !h.Known && h.Enabled == nil:
		return "[?] not set", false
	case h.Enabled == nil:
		return "[x] on", true // the record does not say: the platform's default
	case *h.Enabled:
		return "[x] on", true
	}
	return "[ ] off", true
}

// thresholdLabel is the threshold row's label in w cells: the amount, or
// why there is none. A narrow row drops the explanation, then the name,
// before it cuts the amount.
func (m *Model) thresholdLabel(w int) string {
	h := m.held()
	const name = "low-balance threshold"
	switch {
	case m.th.unknown:
		return shared.FirstFit(w, name+": unknown after a save with no answer — "+m.ctx.Key("reload")+" reloads", "threshold unknown — "+m.ctx.Key("reload")+" reloads")
	case h.Bad != "":
		return shared.Truncate(name+": "+h.String(), w)
	case !h.Known:
		return shared.FirstFit(w, name+": not set — "+m.editKeyName()+" sets it", "threshold not set")
	}
	amount := h.Amount.Credit()
	if !h.On() {
		return shared.FirstFit(w, name+": "+amount+" — switched off, no alert fires", name+": "+amount, "threshold "+amount, amount)
	}
	return shared.FirstFit(w, name+": "+amount+" — alerts fire below it", name+": "+amount, "threshold "+amount, amount)
}

// suggestionText is the line under the threshold row in w cells; "" when
// none was asked for. Like the row, it keeps the amount whole. Short, the
// key is called a key: "a applies $594.86" read as an article at 40
// columns.
func (m *Model) suggestionText(w int) string {
	switch {
	case m.th.suggesting && !m.th.suggested:
		return shared.Truncate("suggestion: waiting for the last 7 days of charges…", w)
	case !m.th.suggested:
		return ""
	case m.th.sugg.Reason != "":
		return shared.Truncate(m.th.sugg.String(), w)
	}
	a := m.ctx.Key("threshold-suggest")
	amount := m.th.sugg.Amount.Credit()
	return shared.FirstFit(w, m.th.sugg.String()+" — "+a+" applies it",
		strconv.Itoa(billing.SuggestDays)+" days' spend: "+amount+" — key "+a+" applies it",
		"suggested "+amount+" · key "+a+" applies",
		"key "+a+" applies "+amount, "suggested "+amount, amount)
}
