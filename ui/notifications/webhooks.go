package notifications

import (
	"context"
	"errors"
	"fmt"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/notices"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
)

// The Webhooks section: the account's webhooks, where every webhooks
// switch delivers, below the alerts. It is read with the preferences (r
// reads it again); n adds a webhook, and on a webhook's row enter edits,
// d deletes (asks), s sends a test delivery, R rotates the secret (asks).
// Every rule — what a webhook may be, the one request per change and the
// list read after it, what a change came to (WebhookResult.Outcome, which
// this screen only puts in words), the switch whose alert goes nowhere —
// is billing's;
// a secret the server sends is shown once, in a panel of its own
// (secret.go), never on the status line.

// hookOp is a change to the webhooks.
type hookOp int

const (
	opAdd hookOp = iota
	opEdit
	opDelete
	opRotate
	opTest
)

// hookDoneMsg is the outcome of a change (or a test) made for the webhook
// named name.
type hookDoneMsg struct {
	seq  int
	op   hookOp
	name string
	res  notices.WebhookResult
	test api.WebhookTest
	err  error
}

// hookAsk is the delete or rotate the user is asked to confirm.
type hookAsk struct {
	op   hookOp
	hook api.Webhook
}

// hooksState is the Webhooks section's state.
type hooksState struct {
	list api.WebhookList
	// read is set once a list was read; err is why the last read
	// failed (the list shown, if any, is the one read before).
	read bool
	err  error
	// busy is the change in flight; seq numbers them.
	busy *hookOp
	seq  int
	ask  *hookAsk
	form *hookForm
	// secret is the secret shown once, until dismissed.
	secret *secretPanel
}

// hookKeys are the section's bindings, from package keymap's table.
type hookKeys struct {
	Add, Edit, Delete, Test, Rotate key.Binding
	Next, Prev, Save, Cancel        key.Binding
	EventUp, EventDown, Pick        key.Binding
	Copy, Close                     key.Binding
}

func newHookKeys(b keymap.Bindings) hookKeys {
	k := func(name string) key.Binding { return shared.Binding(b, name) }
	return hookKeys{
		Add: k("webhook-add"), Edit: k("webhook-edit"), Delete: k("webhook-delete"), Test: k("webhook-test"), Rotate: k("webhook-rotate"),
		Next: k("form-next"), Prev: k("form-prev"), Save: k("form-save"), Cancel: k("form-cancel"),
		EventUp: k("event-up"), EventDown: k("event-down"), Pick: k("event-pick"),
		Copy: k("secret-copy"), Close: k("secret-close"),
	}
}

// hookRows is how many rows the section adds to the list: one per
// webhook and the "add" row, once the account is known.
func (m *Model) hookRows() int {
	if !m.haveUser {
		return 0
	}
	return len(m.hooks.list.Webhooks) + 1
}

// switchRows is how many rows the alerts take: the switches and the
// threshold.
func (m *Model) switchRows() int { return len(m.switches) + 1 }

// hookAt is the webhook of row r (its index), or the add row (index ==
// len(Webhooks)); ok is false on the alerts' rows.
func (m *Model) hookAt(r int) (int, bool) {
	i := r - m.switchRows()
	if i < 0 || i >= m.hookRows() {
		return 0, false
	}
	return i, true
}

// cursorHook is the webhook under the cursor.
func (m *Model) cursorHook() (api.Webhook, bool) {
	i, ok := m.hookAt(m.cursor)
	if !ok || i >= len(m.hooks.list.Webhooks) {
		return api.Webhook{}, false
	}
	return m.hooks.list.Webhooks[i], true
}

// onHooksRead takes the list a read brought (err: why it failed).
func (m *Model) onHooksRead(l api.WebhookList, err error) {
	if err != nil {
		m.hooks.err = err
		return
	}
	m.hooks.list, m.hooks.read, m.hooks.err = l, true, nil
	m.clampCursor()
}

// keepHookCursor remembers the webhook (or the add row) under the cursor
// and returns what puts the cursor back on it once the rows above have
// changed (a read brings the alerts and the webhooks at once).
func (m *Model) keepHookCursor() func() {
	i, ok := m.hookAt(m.cursor)
	if !ok {
		return func() {}
	}
	id := ""
	if i < len(m.hooks.list.Webhooks) {
		id = m.hooks.list.Webhooks[i].ID
	}
	return func() {
		m.cursor = m.switchRows() + len(m.hooks.list.Webhooks) // the add row
		for j, w := range m.hooks.list.Webhooks {
			if id != "" && w.ID == id {
				m.cursor = m.switchRows() + j
			}
		}
	}
}

func (m *Model) clampCursor() {
	m.cursor = max(0, min(m.cursor, m.rowCount()-1))
}

// hookName names a webhook for a line of text (see notices.WebhookName).
func hookName(w api.Webhook) string { return notices.WebhookName(w) }

// canChangeHooks says why the webhooks cannot change now, on the status
// line; true when they can.
func (m *Model) canChangeHooks() bool {
	switch {
	case !m.haveUser:
		return false
	case m.hooks.busy != nil:
		m.say(shared.StatusInfo, "wait for the webhook change in flight to finish", noteTTL)
		return false
	case m.reading:
		m.say(shared.StatusInfo, "still reading the webhooks…", noteTTL)
		return false
	case !m.hooks.read:
		m.say(shared.StatusError, "the webhooks must be read before a change — "+m.ctx.Key("reload")+" reloads", 0)
		return false
	}
	return true
}

// hookKey handles the section's keys on the list; handled is false for a
// key that is not one of them.
func (m *Model) hookKey(msg tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	k := m.hk
	_, onSection := m.hookAt(m.cursor)
	w, onHook := m.cursorHook()
	switch {
	case key.Matches(msg, k.Add), onSection && !onHook && key.Matches(msg, k.Edit):
		return m.openAdd(), true
	case !onHook:
		return nil, false
	case key.Matches(msg, k.Edit):
		return m.openEdit(w), true
	case key.Matches(msg, k.Delete):
		if m.canChangeHooks() {
			m.hooks.ask = &hookAsk{op: opDelete, hook: w}
			m.sayNothing()
		}
		return nil, true
	case key.Matches(msg, k.Rotate):
		if m.canChangeHooks() {
			m.hooks.ask = &hookAsk{op: opRotate, hook: w}
			m.sayNothing()
		}
		return nil, true
	case key.Matches(msg, k.Test):
		if !m.canChangeHooks() {
			return nil, true
		}
		return m.startHook(opTest, hookName(w), func(ctx context.Context, svc *billing.Service) hookDoneMsg {
			t, err := notices.TestWebhook(ctx, svc, w.ID)
			return hookDoneMsg{test: t, err: err}
		}), true
	}
	return nil, false
}

// askKey answers the delete or rotate question.
func (m *Model) askKey(msg tea.KeyPressMsg) tea.Cmd {
	a := m.hooks.ask
	switch {
	case key.Matches(msg, m.keys.Yes):
		m.hooks.ask = nil
		w := a.hook
		if a.op == opDelete {
			return m.startHook(opDelete, hookName(w), func(ctx context.Context, svc *billing.Service) hookDoneMsg {
				res, err := notices.DeleteWebhook(ctx, svc, w.ID)
				return hookDoneMsg{res: res, err: err}
			})
		}
		return m.startHook(opRotate, hookName(w), func(ctx context.Context, svc *billing.Service) hookDoneMsg {
			res, err := notices.RotateWebhookSecret(ctx, svc, w.ID)
			return hookDoneMsg{res: res, err: err}
		})
	case key.Matches(msg, m.keys.No):
		m.hooks.ask = nil
		if a.op == opDelete {
			m.say(shared.StatusInfo, "not deleted", noteTTL)
		} else {
			m.say(shared.StatusInfo, "the secret was not rotated", noteTTL)
		}
	}
	return nil
}

// startHook runs a change through the billing layer.
func (m *Model) startHook(op hookOp, name string, run func(ctx context.Context, svc *billing.Service) hookDoneMsg) tea.Cmd {
	m.hooks.busy = &op
	m.hooks.seq++
	m.say(shared.StatusInfo, opDoing(op)+" "+name+"…", 0)
	seq, svc, ctx := m.hooks.seq, m.ctx.Billing, m.base()
	return func() tea.Msg {
		var msg hookDoneMsg
		if svc == nil {
			msg.err = errNoBilling
		} else {
			msg = run(ctx, svc)
		}
		msg.seq, msg.op, msg.name = seq, op, name
		return msg
	}
}

func opDoing(op hookOp) string {
	return [...]string{"adding", "saving", "deleting", "rotating the secret of", "sending a test delivery to"}[op]
}

func opWord(op hookOp) string {
	return [...]string{"add", "save", "delete", "rotate the secret of", "test"}[op]
}

// onHookDone shows the outcome of a change: the list as read again, the
// secret in its panel whatever else happened, and one status line.
func (m *Model) onHookDone(msg hookDoneMsg) {
	if msg.seq != m.hooks.seq || m.hooks.busy == nil {
		return
	}
	m.hooks.busy = nil
	res, err := msg.res, msg.err
	if res.Read {
		m.onHooksRead(res.List, nil)
	}
	name := msg.name
	if res.Found && res.Webhook.Name != "" {
		name = hookName(res.Webhook)
	}
	if !res.Secret.IsZero() {
		m.hooks.secret = &secretPanel{name: name, secret: res.Secret, added: msg.op == opAdd}
	}
	if f := m.hooks.form; f != nil && res.Outcome != notices.WebhookRefused {
		m.hooks.form = nil // done, or done as far as anyone knows: the list shows it
	}
	if f := m.hooks.form; f != nil {
		f.saving = false
	}
	reason := ""
	if err != nil {
		reason = m.ctx.ErrorText(err)
	}
	if msg.op == opTest {
		m.sayTest(name, msg.test, reason, err)
	} else {
		m.sayHookOutcome(msg.op, name, res, reason, err)
	}
	if res.Found && (msg.op == opAdd || msg.op == opEdit) {
		// The cursor goes to the webhook added or changed.
		for i, w := range m.hooks.list.Webhooks {
			if w.ID == res.Webhook.ID {
				m.cursor = m.switchRows() + i
			}
		}
	}
	m.clampCursor()
}

// sayTest says how a test delivery went.
func (m *Model) sayTest(name string, t api.WebhookTest, reason string, err error) {
	switch {
	case err != nil && errors.Is(err, notices.ErrWebhookInput):
		m.say(shared.StatusError, reason, 0)
	case err != nil:
		m.say(shared.StatusError, "could not test "+name+": "+reason, 0)
	case t.Known && !t.Delivered:
		m.say(shared.StatusError, "test delivery to "+name+": "+notices.TestText(t), 0)
	default:
		m.say(shared.StatusOK, "test delivery to "+name+": "+notices.TestText(t), 0)
	}
}

// sayHookOutcome puts billing's outcome of a change on the status line.
func (m *Model) sayHookOutcome(op hookOp, name string, res notices.WebhookResult, reason string, err error) {
	switch res.Outcome {
	case notices.WebhookLostTook:
		if op == opAdd {
			m.say(shared.StatusError, fmt.Sprintf("no answer to the add (%s); read again, the server holds %s, but its secret never came — %s on it rotates one", reason, name, m.ctx.Key("webhook-rotate")), 0)
			return
		}
		m.say(shared.StatusWarn, fmt.Sprintf("no answer to the %s of %s (%s); read again, the list shows what the server holds", opWord(op), name, reason), 0)
	case notices.WebhookLostNotTaken, notices.WebhookLost:
		m.say(shared.StatusWarn, fmt.Sprintf("no answer to the %s of %s (%s); read again, the list shows what the server holds", opWord(op), name, reason), 0)
	case notices.WebhookUnread:
		m.say(shared.StatusError, fmt.Sprintf("no answer to the %s of %s, and reading the webhooks again failed — %s reloads (%s)", opWord(op), name, m.ctx.Key("reload"), reason), 0)
	case notices.WebhookHalfDone:
		if !res.Secret.IsZero() {
			m.say(shared.StatusWarn, "the secret of "+name+" is below, but "+reason, 0)
		} else {
			m.say(shared.StatusWarn, name+": "+reason, 0)
		}
	case notices.WebhookRefused:
		if errors.Is(err, notices.ErrWebhookInput) {
			m.say(shared.StatusError, reason, 0)
		} else {
			m.say(shared.StatusError, "could not "+opWord(op)+" "+name+": "+reason, 0)
		}
	case notices.WebhookUnchanged:
		m.say(shared.StatusOK, "nothing to save: the server already holds "+name+" as it is", noteTTL)
	case notices.WebhookDiffers:
		if op == opDelete {
			m.say(shared.StatusWarn, "deleted, but the list read again still holds "+name, 0)
		} else {
			m.say(shared.StatusWarn, "saved, but the list read again no longer holds "+name, 0)
		}
	case notices.WebhookDone:
		m.say(shared.StatusOK, [...]string{"added " + name + " — its secret is shown this once", "saved " + name, "deleted " + name,
			"rotated the secret of " + name + ": the old one no longer works"}[op], noteTTL)
	}
}

// bindings is a help made of one list of bindings.
type bindings []key.Binding

func (b bindings) ShortHelp() []key.Binding  { return b }
func (b bindings) FullHelp() [][]key.Binding { return [][]key.Binding{b} }

// hookHelp is the help while the secret panel, the form or a question of
// the section has the keyboard; ok is false otherwise.
func (m *Model) hookHelp() (h help.KeyMap, ok bool) {
	k := m.hk
	switch {
	case m.hooks.secret != nil:
		return bindings{k.Copy, k.Close}, true
	case m.hooks.form != nil:
		ev := m.hooks.form.focus == fieldEvents
		k.EventUp.SetEnabled(ev)
		k.EventDown.SetEnabled(ev)
		k.Pick.SetEnabled(ev)
		clr := m.keys.Clear
		clr.SetEnabled(!ev)
		return bindings{k.Next, k.Prev, k.EventUp, k.EventDown, k.Pick, k.Save, k.Cancel, clr}, true
	case m.hooks.ask != nil:
		yes, no := m.keys.Yes, m.keys.No
		yes.SetHelp(yes.Help().Key, "yes")
		no.SetHelp(no.Help().Key, "no")
		return bindings{yes, no}, true
	}
	return nil, false
}

// withHookHelp adds the section's keys to base, each enabled where it
// works; free is false while the list's own prompt or field is open.
func (m *Model) withHookHelp(base KeyMap, free bool) help.KeyMap {
	k := m.hk
	_, onSection := m.hookAt(m.cursor)
	_, onHook := m.cursorHook()
	if onSection {
		base.Toggle.SetEnabled(false) // no switch under the cursor
	}
	k.Add.SetEnabled(free && m.haveUser)
	for _, b := range []*key.Binding{&k.Edit, &k.Delete, &k.Test, &k.Rotate} {
		b.SetEnabled(free && onHook)
	}
	base.webhooks = []key.Binding{k.Add, k.Edit, k.Test, k.Rotate, k.Delete}
	return base
}
