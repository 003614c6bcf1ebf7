package notifications

import (
	"context"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/notices"
	"github.com/vastdash/vastdash/ui/shared"
)

// The webhook form: a name, an https URL and the events picked from the
// catalogue. It takes the screen while open; what is typed stays in it
// until it is saved or cancelled — a refusal leaves it open with the reason
// on the status line.

// Form fields, in tab order.
const (
	fieldName = iota
	fieldURL
	fieldEvents
	fieldCount
)

// formEvent is one event of the catalogue in the form.
type formEvent struct {
	key, name string
	on        bool
}

// hookForm is an add (edit nil) or an edit of *edit.
type hookForm struct {
	edit      *api.Webhook
	name, url shared.Field
	events    []formEvent
	focus     int
	cursor    int // the event under the marker
	offset    int // the first event shown
	saving    bool
}

// newInput is a text field of the form, its value selected so typing
// replaces it (shared.Field: no blinking either), with room beyond the
// platform's bounds, so an over-long paste is refused with the reason
// rather than cut unseen. It starts blurred: setFocus focuses one.
func (m *Model) newInput(value string, limit int) shared.Field {
	in, _ := shared.NewField(value, m.keys.Clear)
	in.Blur()
	in.Prompt = ""
	in.CharLimit = limit
	return in
}

// openAdd opens the form for a new webhook, the event of the webhooks
// switch under the cursor already picked. The fifth webhook is refused
// here, before anything is typed.
func (m *Model) openAdd() tea.Cmd {
	if !m.canChangeHooks() || !m.canPickEvents() {
		return nil
	}
	if l := m.hooks.list; len(l.Webhooks)+l.Skipped >= notices.MaxWebhooksPerAccount {
		m.say(shared.StatusError, notices.ErrWebhookLimit.Error(), 0)
		return nil
	}
	var picked []string
	if i, ok := m.switchAt(m.cursor); ok && m.cursor < m.switchRows() && m.switches[i].Channel.Path[2] == "webhooks" {
		picked = []string{notices.EventOf(m.switches[i].Channel.Path)}
	}
	f := &hookForm{name: m.newInput("", 4*api.MaxWebhookName), url: m.newInput("https://", 4*api.MaxWebhookURL), events: m.formEvents(picked)}
	f.url.Deselect() // a start to type after, not a value to replace
	m.hooks.form = f
	return f.setFocus(fieldName)
}

// openEdit opens the form on webhook w as the screen last read it.
func (m *Model) openEdit(w api.Webhook) tea.Cmd {
	if !m.canChangeHooks() || !m.canPickEvents() {
		return nil
	}
	f := &hookForm{edit: &w, name: m.newInput(shared.Safe(w.Name), 4*api.MaxWebhookName), url: m.newInput(shared.Safe(w.URL), 4*api.MaxWebhookURL),
		events: m.formEvents(w.Events)}
	m.hooks.form = f
	return f.setFocus(fieldName)
}

// canPickEvents says (on the status line) that the form cannot be used
// without the catalogue, whose keys the events are.
func (m *Model) canPickEvents() bool {
	if m.catErr != nil || len(m.cat.Types) == 0 {
		m.say(shared.StatusError, "the events a webhook carries come from the notification catalogue, which could not be read — "+m.ctx.Key("reload")+" reloads", 0)
		return false
	}
	return true
}

func (m *Model) formHint() string {
	return m.hk.Next.Help().Key + " next field · " + m.hk.Pick.Help().Key + " picks an event · " +
		m.hk.Save.Help().Key + " saves · " + m.hk.Cancel.Help().Key + " cancels · " + m.ctx.Key("field-clear") + " clears a field"
}

// formEvents lists the catalogue's types with picked on; a picked key the
// catalogue does not hold comes last, as itself.
func (m *Model) formEvents(picked []string) []formEvent {
	var out []formEvent
	for _, t := range m.cat.Types {
		out = append(out, formEvent{key: t.Key, name: notices.EventName(m.cat, m.catErr, t.Key), on: slices.Contains(picked, t.Key)})
	}
	for _, p := range picked {
		if !slices.ContainsFunc(out, func(e formEvent) bool { return e.key == p }) {
			out = append(out, formEvent{key: p, name: shared.Safe(p) + " (not in the catalogue)", on: true})
		}
	}
	return out
}

// setFocus moves the focus to field i.
func (f *hookForm) setFocus(i int) tea.Cmd {
	f.focus = (i + fieldCount) % fieldCount
	f.name.Blur()
	f.url.Blur()
	switch f.focus {
	case fieldName:
		return f.name.Focus()
	case fieldURL:
		return f.url.Focus()
	}
	return nil
}

// picked are the keys of the events picked, in the catalogue's order.
func (f *hookForm) picked() []string {
	var out []string
	for _, e := range f.events {
		if e.on {
			out = append(out, e.key)
		}
	}
	return out
}

// formKey handles a key while the form is open.
func (m *Model) formKey(msg tea.KeyPressMsg) tea.Cmd {
	f, k := m.hooks.form, m.hk
	switch {
	case key.Matches(msg, k.Cancel):
		m.hooks.form = nil
		m.say(shared.StatusInfo, "not saved", noteTTL)
		return nil
	case f.saving:
		m.say(shared.StatusInfo, "wait for the save in flight to finish", noteTTL)
		return nil
	case key.Matches(msg, k.Save):
		return m.saveForm()
	case key.Matches(msg, k.Next):
		return f.setFocus(f.focus + 1)
	case key.Matches(msg, k.Prev):
		return f.setFocus(f.focus - 1)
	case f.focus == fieldEvents:
		switch {
		case key.Matches(msg, k.EventUp):
			f.cursor = max(0, f.cursor-1)
		case key.Matches(msg, k.EventDown):
			f.cursor = min(len(f.events)-1, f.cursor+1)
		case key.Matches(msg, k.Pick) && len(f.events) > 0:
			f.events[f.cursor].on = !f.events[f.cursor].on
		}
		return nil
	}
	return f.typeInto(msg)
}

// typeInto hands a key or a paste to the focused text field.
func (f *hookForm) typeInto(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch f.focus {
	case fieldName:
		cmd = f.name.Update(msg)
	case fieldURL:
		cmd = f.url.Update(msg)
	}
	return cmd
}

// saveForm checks what was typed (billing's rules, before any request)
// and saves it: one create, or for an edit the fields that changed.
func (m *Model) saveForm() tea.Cmd {
	f := m.hooks.form
	name, err := notices.CheckWebhookName(f.name.Value())
	if err != nil {
		return m.formRefused(fieldName, err)
	}
	u, err := notices.ParseWebhookURL(f.url.Value())
	if err != nil {
		return m.formRefused(fieldURL, err)
	}
	events, err := notices.PickedEvents(f.picked())
	if err != nil {
		return m.formRefused(fieldEvents, err)
	}
	if m.hooks.busy != nil {
		m.say(shared.StatusInfo, "wait for the webhook change in flight to finish", noteTTL)
		return nil
	}
	f.saving = true
	if f.edit == nil {
		held := m.hooks.list
		in := notices.WebhookInput{Name: name, URL: u, Events: events}
		return m.startHook(opAdd, name, func(ctx context.Context, svc *billing.Service) hookDoneMsg {
			res, err := notices.AddWebhook(ctx, svc, in, &held)
			return hookDoneMsg{res: res, err: err}
		})
	}
	w := *f.edit
	var ch notices.WebhookChange
	if name != shared.Safe(w.Name) {
		ch.Name = &name
	}
	if u != shared.Safe(w.URL) {
		ch.URL = &u
	}
	if !sameSet(events, w.Events) {
		ch.Events = events
	}
	if ch.Name == nil && ch.URL == nil && ch.Events == nil {
		m.hooks.form = nil
		m.say(shared.StatusInfo, "nothing changed: nothing to save", noteTTL)
		return nil
	}
	return m.startHook(opEdit, hookName(w), func(ctx context.Context, svc *billing.Service) hookDoneMsg {
		res, err := notices.EditWebhook(ctx, svc, w.ID, ch)
		return hookDoneMsg{res: res, err: err}
	})
}

// formRefused puts the reason on the status line and the focus on the
// field at fault; nothing typed is lost.
func (m *Model) formRefused(field int, err error) tea.Cmd {
	m.say(shared.StatusError, err.Error(), 0)
	return m.hooks.form.setFocus(field)
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// formView is the form in w×h: a title, the two fields, the events (as
// many as fit, scrolled to the marker), and the keys.
func (m *Model) formView(w, h int) string {
	st, f := m.styles(), m.hooks.form
	title := "Add a webhook"
	if f.edit != nil {
		title = "Edit " + hookName(*f.edit)
	}
	if f.saving {
		title += " · saving…"
	}
	lines := []string{st.Bold.Render(shared.Truncate(title, w))}
	label := func(i int, s string) string {
		if f.focus == i {
			return st.Accent.Render("› " + s)
		}
		return "  " + s
	}
	field := func(in *shared.Field, i int, s string) string {
		// The label takes 9 cells, the cursor one more.
		in.SetWidth(max(1, w-11))
		return label(i, shared.PadRight(s, 6)) + " " + in.View()
	}
	lines = append(lines, field(&f.name, fieldName, "name"), field(&f.url, fieldURL, "URL"),
		label(fieldEvents, "events")+st.Muted.Render(shared.Truncate(" · "+m.hk.Pick.Help().Key+" picks", max(0, w-8))))
	hint := st.Muted.Render(shared.Truncate(m.formHint(), w))
	room := max(0, h-len(lines)-1)
	nameW := 0
	for _, e := range f.events {
		nameW = max(nameW, shared.Width(e.name))
	}
	nameW = min(nameW, 30)
	if room > 0 && len(f.events) > 0 {
		f.cursor = max(0, min(f.cursor, len(f.events)-1))
		if f.cursor < f.offset {
			f.offset = f.cursor
		}
		if f.cursor >= f.offset+room {
			f.offset = f.cursor - room + 1
		}
		f.offset = max(0, min(f.offset, len(f.events)-room))
		for i := f.offset; i < len(f.events) && i < f.offset+room; i++ {
			e := f.events[i]
			mark := "[ ] "
			if e.on {
				mark = "[x] "
			}
			cur := "  "
			if f.focus == fieldEvents && i == f.cursor {
				cur = st.Accent.Render("› ")
			}
			text := shared.FirstFit(w-2, mark+shared.PadRight(e.name, nameW)+"  "+st.Muted.Render(shared.Safe(e.key)), mark+e.name)
			if f.focus == fieldEvents && i == f.cursor {
				text = st.Selected.Render(text)
			}
			lines = append(lines, cur+text)
		}
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	if h > 1 {
		lines = append(lines, hint)
	}
	return shared.Block(lines, w, h)
}
