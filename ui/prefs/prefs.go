// Package prefs is the Notifications screen of vastdash: the two low_credit
// switches (email, webhooks) of the account's notification preferences,
// read with GET and saved as soon as one is toggled.
//
// The server replaces the whole preferences document on every PUT, so a save
// always sends the document last read or confirmed with only the toggled
// switch changed. Only one save runs at a time; toggles made meanwhile are
// queued (see Model).
package prefs

import (
	"context"
	"errors"
	"fmt"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// switchDef is one switch the screen shows.
type switchDef struct {
	path  api.PrefPath
	label string
}

var switches = []switchDef{
	{api.LowCreditEmail, "low credit by email"},
	{api.LowCreditWebhooks, "low credit by webhooks"},
}

// intent is "set switch idx to on".
type intent struct {
	idx int
	on  bool
}

// readState is the outcome of the last GET.
type readState int

const (
	readNone        readState = iota // no GET finished yet
	readOK                           // the document was read
	readUnavailable                  // the server has no GET (404/405)
	readDenied                       // the key lacks user_read
	readFailed                       // any other error; r retries
)

type statusKind int

const (
	statusInfo statusKind = iota
	statusOK
	statusWarn
	statusErr
)

// prefsReadMsg is the result of a GET.
type prefsReadMsg struct {
	seq   int
	prefs api.Prefs
	err   error
}

// prefsSavedMsg is the result of a PUT made for want.
type prefsSavedMsg struct {
	seq   int
	want  intent
	prefs api.Prefs
	err   error
}

// Model is the Notifications screen. It implements shared.Screen.
//
// Queued toggles are coalesced per switch: the queue keeps at most one
// intent per switch, holding the state the user last asked for, in the order
// the switches were first touched. When a save finishes, queued intents run
// one by one on the then-confirmed document, and an intent the server
// already satisfies is dropped without a request. So toggling the same
// switch twice during a save ends in the state the user sees last, with no
// request at all when that is the state the server confirmed. A failed save
// drops the queue (and says so): the queued intents were made against a
// display that just turned out wrong.
type Model struct {
	ctx           *shared.Context
	keys          KeyMap
	width, height int

	user     *api.User // from the last successful UserMsg
	userErr  error     // the account could not be read (and no user yet)
	haveUser bool

	cursor int
	doc    api.Prefs // last document read or confirmed by the server
	known  bool      // doc came from the server (GET or PUT)
	read   readState

	seq      int     // numbers requests so a stale answer is ignored
	reading  bool    // a GET is in flight
	saving   *intent // the PUT in flight, if any
	queue    []intent
	readOnly bool    // a PUT failed for lack of user_write
	confirm  *intent // the save waiting for y/n

	status     string
	statusKind statusKind
}

// New returns the screen. It reads nothing until the account (and with it
// the user id the endpoint needs) arrives as a shared.UserMsg.
func New(ctx *shared.Context) *Model {
	if ctx == nil {
		ctx = &shared.Context{}
	}
	return &Model{ctx: ctx, keys: DefaultKeyMap()}
}

// Init starts nothing: the GET needs the user id of the first UserMsg.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize sets the screen's area.
func (m *Model) SetSize(width, height int) { m.width, m.height = width, height }

// Capturing is false: the screen has no text field.
func (m *Model) Capturing() bool { return false }

// Loading reports a GET or PUT in flight.
func (m *Model) Loading() bool { return m.reading || m.saving != nil }

// Help returns the bindings that work in the current state.
func (m *Model) Help() help.KeyMap {
	k := m.keys
	prompt := m.confirm != nil
	k.Up.SetEnabled(!prompt)
	k.Down.SetEnabled(!prompt)
	k.Toggle.SetEnabled(!prompt && !m.readOnly && m.haveUser)
	k.Reload.SetEnabled(!prompt && m.haveUser && !m.Loading())
	k.Yes.SetEnabled(prompt)
	k.No.SetEnabled(prompt)
	k.Flip.SetEnabled(prompt)
	return k
}

// Update handles the account, request results and keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case shared.UserMsg:
		return m.onUser(msg)
	case prefsReadMsg:
		return m.onRead(msg)
	case prefsSavedMsg:
		return m.onSaved(msg)
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	return nil
}

func (m *Model) onUser(msg shared.UserMsg) tea.Cmd {
	if msg.Err != nil {
		if !m.haveUser {
			m.userErr = msg.Err
		}
		return nil
	}
	u := msg.User
	changed := m.haveUser && m.user.ID != u.ID
	m.user, m.haveUser, m.userErr = &u, true, nil
	if changed {
		// Another account (a different key): nothing read so far applies.
		m.seq++
		m.doc, m.known, m.read = api.Prefs{}, false, readNone
		m.reading, m.saving, m.queue, m.confirm, m.readOnly = false, nil, nil, nil, false
		m.setStatus(statusInfo, "")
	}
	// The first account starts the GET; a later one (a reload) re-reads
	// when nothing else is going on.
	if m.Loading() || m.confirm != nil {
		return nil
	}
	return m.startRead()
}

func (m *Model) base() context.Context {
	if m.ctx.Base != nil {
		return m.ctx.Base
	}
	return context.Background()
}

var errNoClient = errors.New("no API client configured")

func (m *Model) startRead() tea.Cmd {
	if !m.haveUser || m.Loading() {
		return nil
	}
	m.reading = true
	m.seq++
	seq, client, ctx, id := m.seq, m.ctx.Client, m.base(), m.user.ID
	return func() tea.Msg {
		if client == nil {
			return prefsReadMsg{seq: seq, err: errNoClient}
		}
		p, err := client.NotificationPrefs(ctx, id)
		return prefsReadMsg{seq: seq, prefs: p, err: err}
	}
}

func (m *Model) onRead(msg prefsReadMsg) tea.Cmd {
	if msg.seq != m.seq || !m.reading {
		return nil
	}
	m.reading = false
	err := msg.err
	switch {
	case err == nil:
		m.doc, m.known, m.read = msg.prefs, true, readOK
		m.setStatus(statusInfo, "")
	case errors.Is(err, api.ErrNotFound):
		m.read = readUnavailable
		m.setStatus(statusWarn, "this server does not let vastdash read the preferences; the states are unknown")
	case errors.Is(err, api.ErrPermission):
		m.read = readDenied
		m.setStatus(statusErr, shared.Safe(err.Error())+" — the preferences can't be read")
	default:
		m.read = readFailed
		m.setStatus(statusErr, "could not read the preferences: "+shared.Safe(err.Error())+" — r to retry")
	}
	return nil
}

func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.confirm != nil {
		switch {
		case key.Matches(msg, m.keys.Yes):
			in := *m.confirm
			m.confirm = nil
			return m.submit(in)
		case key.Matches(msg, m.keys.No):
			m.confirm = nil
			m.setStatus(statusInfo, "not saved")
		case key.Matches(msg, m.keys.Flip):
			m.confirm.on = !m.confirm.on
		}
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Up):
		if m.cursor > 0 {
			m.cursor--
		}
	case key.Matches(msg, m.keys.Down):
		if m.cursor < len(switches)-1 {
			m.cursor++
		}
	case key.Matches(msg, m.keys.Toggle):
		return m.toggle(m.cursor)
	case key.Matches(msg, m.keys.Reload):
		if !m.haveUser {
			return nil
		}
		if m.Loading() {
			m.setStatus(statusInfo, "wait for the request in flight to finish")
			return nil
		}
		return m.startRead()
	}
	return nil
}

// toggle flips the state switch i is heading for: the queued intent, else
// the save in flight, else the confirmed state.
func (m *Model) toggle(i int) tea.Cmd {
	switch {
	case !m.haveUser:
		return nil
	case m.readOnly:
		m.setStatus(statusErr, m.readOnlyText())
		return nil
	case m.reading:
		m.setStatus(statusInfo, "still reading the preferences…")
		return nil
	case !m.known && (m.read == readFailed || m.read == readNone):
		// A transient failure is no reason to overwrite a document we
		// could read a moment later.
		m.setStatus(statusErr, "the current preferences must be read before a save — r to retry")
		return nil
	}
	on, ok := m.intended(i)
	if !ok || !m.known {
		// Unknown state, or a save that would replace an unread document:
		// ask first, proposing "on" (space flips the proposal).
		if ok {
			on = !on
		} else {
			on = true
		}
		m.confirm = &intent{idx: i, on: on}
		return nil
	}
	return m.submit(intent{idx: i, on: !on})
}

// intended is the state switch i is heading for and whether it is known.
func (m *Model) intended(i int) (on, ok bool) {
	if q, found := m.queued(i); found {
		return q.on, true
	}
	if m.saving != nil && m.saving.idx == i {
		return m.saving.on, true
	}
	return m.doc.Get(switches[i].path)
}

func (m *Model) queued(i int) (intent, bool) {
	for _, q := range m.queue {
		if q.idx == i {
			return q, true
		}
	}
	return intent{}, false
}

// submit saves in now, or queues it behind the save in flight.
func (m *Model) submit(in intent) tea.Cmd {
	if m.saving == nil {
		return m.startSave(in)
	}
	replaced := false
	for k := range m.queue {
		if m.queue[k].idx == in.idx {
			m.queue[k].on = in.on
			replaced = true
		}
	}
	if !replaced {
		m.queue = append(m.queue, in)
	}
	m.setStatus(statusInfo, fmt.Sprintf("queued: %s %s — saved after the current save", switches[in.idx].label, word(in.on)))
	return nil
}

func (m *Model) startSave(in intent) tea.Cmd {
	doc := m.doc.With(switches[in.idx].path, in.on)
	m.saving = &in
	m.seq++
	m.setStatus(statusInfo, "saving "+switches[in.idx].label+" "+word(in.on)+"…")
	seq, client, ctx := m.seq, m.ctx.Client, m.base()
	var id int64
	if m.user != nil {
		id = m.user.ID
	}
	return func() tea.Msg {
		if client == nil {
			return prefsSavedMsg{seq: seq, want: in, err: errNoClient}
		}
		p, err := client.SetNotificationPrefs(ctx, id, doc)
		return prefsSavedMsg{seq: seq, want: in, prefs: p, err: err}
	}
}

func (m *Model) onSaved(msg prefsSavedMsg) tea.Cmd {
	if msg.seq != m.seq || m.saving == nil {
		return nil
	}
	m.saving = nil
	sw := switches[msg.want.idx]
	if err := msg.err; err != nil {
		dropped := len(m.queue)
		m.queue = nil
		if errors.Is(err, api.ErrPermission) {
			m.readOnly = true
			m.setStatus(statusErr, m.readOnlyText())
			return nil
		}
		text := "could not save " + sw.label + ": " + shared.Safe(err.Error())
		if on, ok := m.doc.Get(sw.path); ok {
			text += " — still " + word(on)
		}
		if dropped > 0 {
			text += fmt.Sprintf(" (%d queued change%s dropped)", dropped, plural(dropped))
		}
		m.setStatus(statusErr, text)
		return nil
	}
	m.doc, m.known = msg.prefs, true
	got, ok := m.doc.Get(sw.path)
	switch {
	case !ok:
		m.setStatus(statusWarn, "saved, but the server's answer has no "+sw.label+" switch: its state is unknown")
	case got != msg.want.on:
		m.setStatus(statusWarn, fmt.Sprintf("the server kept %s %s (vastdash asked for %s)", sw.label, word(got), word(msg.want.on)))
	default:
		m.setStatus(statusOK, "saved: "+sw.label+" "+word(got))
	}
	return m.next()
}

// next starts the first queued intent the confirmed document does not
// already satisfy.
func (m *Model) next() tea.Cmd {
	for len(m.queue) > 0 {
		in := m.queue[0]
		m.queue = m.queue[1:]
		if on, ok := m.doc.Get(switches[in.idx].path); ok && on == in.on {
			continue
		}
		return m.startSave(in)
	}
	return nil
}

func (m *Model) readOnlyText() string {
	return "this API key lacks the user_write permission — switches are read-only"
}

func (m *Model) setStatus(k statusKind, s string) { m.statusKind, m.status = k, s }

func (m *Model) styles() *theme.Styles {
	if m.ctx.Styles != nil {
		return m.ctx.Styles
	}
	return defaultStyles
}

var defaultStyles = theme.New(true)

func word(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
