// Package notifications is the Notifications screen of vastdash: the account's
// low-balance threshold and every alert of its notification preferences,
// grouped by context, each channel a switch saved as soon as it is toggled.
//
// The server replaces the whole preferences document on every PUT, and the
// document may change behind the screen's back (the web console, another
// vastdash). So the screen never sends a copy of its own: every save goes
// through notices.SaveSwitches, which reads the current document,
// changes only the toggled switch and writes it back, and the screen then
// shows what the server holds. Only one save runs at a time; toggles made
// meanwhile are queued (see Model). The threshold is saved through
// notices.SaveThreshold, which reads the account again afterwards:
// the screen shows that, never what it sent. Below the alerts, the
// Webhooks section (webhooks.go) lists where the webhooks switches deliver
// and manages them. The screen speaks through the root's one status line
// (shared.SetStatus), never a line of its own.
package notifications

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/notices"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// statusSource names the screen on the root's status line.
const statusSource = "prefs"

// noteTTL is how long a status that needs nothing of the user stays
// ("saved: …"); errors and unknown outcomes stay until replaced.
const noteTTL = 5 * time.Second

// intent is "set the switch at path to on"; label names it for the status
// line. force marks a save the user confirmed on a server that cannot read
// the document: it replaces the document.
type intent struct {
	path  api.PrefPath
	label string
	on    bool
	force bool
}

// readState is the outcome of the last GET.
type readState int

const (
	readNone        readState = iota // no GET finished yet
	readOK                           // the document was read
	readUnavailable                  // the server has no GET (404/405)
	readDenied                       // the server refused access to them (401/403)
	readFailed                       // any other error; r retries
)

// prefsReadMsg is the result of a GET, with the catalogue that names the
// document's switches (read alongside; its failure only costs the names).
type prefsReadMsg struct {
	seq    int
	prefs  api.Prefs
	err    error
	cat    api.NotificationCatalogue
	catErr error
	// hooks are the webhooks, read alongside (see webhooks.go).
	hooks    api.WebhookList
	hooksErr error
}

// prefsSavedMsg is the result of a save made for want.
type prefsSavedMsg struct {
	seq  int
	want intent
	res  notices.SaveResult
	err  error
}

// errNoBilling fails every request of a screen built without a billing
// service (a misconfigured test), rather than panicking.
var errNoBilling = errors.New("no billing service configured")

// Model is the Notifications screen. It implements shared.Screen.
//
// Queued toggles are coalesced per switch: the queue keeps at most one
// intent per switch, holding the state the user last asked for, in the order
// the switches were first touched. When a save finishes, queued intents run
// one by one, and an intent the document the server just confirmed already
// satisfies is dropped without a request. So toggling the same switch twice
// during a save ends in the state the user sees last, with no request at all
// when that is the state the server confirmed. A failed save (or one whose
// outcome is unknown) drops the queue and says so: the queued intents were
// made against a display that just turned out wrong.
type Model struct {
	ctx           *shared.Context
	keys          KeyMap
	width, height int

	user     *api.User // from the last successful UserMsg or threshold save
	userErr  error     // the account could not be read (and no user yet)
	haveUser bool

	// cursor is the selected row (see rows); offset the first line of the
	// list shown when it is taller than the area.
	cursor, offset int
	// doc is what the server holds as far as the screen knows: the last
	// document read, or the one a save answered with. Zero until then.
	doc  api.Prefs
	read readState
	// cat names the document's switches; catErr is why it could not be
	// read (the raw keys are shown then).
	cat    api.NotificationCatalogue
	catErr error
	// alerts is every switch of doc, named by cat; rebuilt when either
	// changes.
	alerts   notices.Alerts
	switches []notices.AlertSwitch
	// unsure marks switches whose save had an unknown outcome that no
	// read could settle: doc's value for them may be wrong.
	unsure map[api.PrefPath]bool

	seq     int  // numbers requests so a stale answer is ignored
	reading bool // a GET is in flight
	// readSaid: the status line holds a read's words (its failure, or
	// "still reading"), which a successful read clears; any other
	// message (a save's) is not the read's to clear.
	readSaid bool
	saving   *intent // the save in flight, if any
	queue    []intent
	readOnly bool    // a PUT was refused for lack of user_write
	confirm  *intent // the save waiting for y/n

	th   threshold
	find finder

	// hooks is the Webhooks section (webhooks.go); hk its keys.
	hooks hooksState
	hk    hookKeys

	// note is the status line this update asks for; Update sends it and
	// clears it, so one update sends at most one, the last word.
	note *shared.StatusMsg
}

// threshold is the state of the threshold row: its text field, the save
// in flight and the suggestion.
type threshold struct {
	editing bool
	// input is the text field, made when it opens: the model of a
	// field is kilobytes a screen that is never edited need not carry.
	input  *shared.Field
	saving *notices.ThresholdChange
	seq    int
	// unknown is set after a save whose outcome no read settled.
	unknown bool

	// The suggestion: asked for once a range is known (the feed it reads
	// is the one the Overview shares for that range), and on reload.
	rng        *spend.Range
	suggesting bool
	suggested  bool
	sugg       billing.Suggestion
	suggSeq    int
	// applying is set by the suggestion's key: the suggestion is worked
	// out again from the figures loaded now, and its answer asks.
	applying bool
	// ask is the suggested amount waiting for y/n: a write to the account
	// is confirmed, as every other one is.
	ask *money.Amount
}

// New returns the screen. It reads nothing until the account (and with it
// the user id the endpoint needs) arrives as a shared.UserMsg.
func New(ctx *shared.Context) *Model {
	if ctx == nil {
		ctx = &shared.Context{}
	}
	// The list of switches is built when the account arrives: until then
	// the screen says it is loading, and the first frame costs nothing.
	return &Model{ctx: ctx, keys: KeyMapOf(ctx.Keys), hk: newHookKeys(ctx.Keys)}
}

// Init starts nothing: the GET needs the user id of the first UserMsg.
func (m *Model) Init() tea.Cmd { return nil }

// Shown does nothing: the switches are read with the account, shown or
// not.
func (m *Model) Shown(bool) tea.Cmd { return nil }

// SetSize sets the screen's area.
func (m *Model) SetSize(width, height int) { m.width, m.height = width, height }

// Capturing is set while a text field has the keyboard: the threshold's,
// the find field or the webhook form.
func (m *Model) Capturing() bool { return m.th.editing || m.find.on || m.hooks.form != nil }

// Loading reports a GET or a save in flight.
func (m *Model) Loading() bool {
	return m.reading || m.saving != nil || m.th.saving != nil || m.hooks.busy != nil
}

// Help returns the bindings that work in the current state.
func (m *Model) Help() help.KeyMap {
	if m.find.on {
		return findHelp{m.keys}
	}
	if h, ok := m.hookHelp(); ok {
		return h
	}
	k := m.keys
	prompt, editing := m.confirm != nil || m.th.ask != nil, m.th.editing
	free := !prompt && !editing
	k.onThreshold = m.cursor == m.thresholdRow()
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Top, &k.Bottom} {
		b.SetEnabled(free)
	}
	k.Find.SetEnabled(free && m.haveUser)
	k.Toggle.SetEnabled(free && !m.readOnly && m.haveUser && !k.onThreshold)
	k.Reload.SetEnabled(free && m.haveUser && !m.Loading())
	k.Yes.SetEnabled(prompt)
	k.No.SetEnabled(prompt)
	k.Flip.SetEnabled(m.confirm != nil) // a switch's question: the threshold's has nothing to flip
	canTh := free && !m.readOnly && m.haveUser
	for _, b := range []*key.Binding{&k.Edit, &k.Enable, &k.RowEdit, &k.RowSwitch} {
		b.SetEnabled(canTh)
	}
	k.Suggest.SetEnabled(canTh && m.th.sugg.Reason == "" && m.th.suggested)
	k.Save.SetEnabled(editing)
	k.Cancel.SetEnabled(editing)
	k.Clear.SetEnabled(editing)
	return m.withHookHelp(k, free)
}

// Update handles the account, request results and keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case shared.UserMsg:
		cmd = m.onUser(msg)
	case prefsReadMsg:
		cmd = m.onRead(msg)
	case prefsSavedMsg:
		cmd = m.onSaved(msg)
	case thresholdSavedMsg:
		cmd = m.onThresholdSaved(msg)
	case suggestionMsg:
		m.onSuggestion(msg)
	case hookDoneMsg:
		m.onHookDone(msg)
	case tea.KeyPressMsg:
		cmd = m.onKey(msg)
	default:
		switch {
		case m.hooks.form != nil:
			// Paste reaches the form's focused field.
			cmd = m.hooks.form.typeInto(msg)
		case m.th.editing:
			// Paste reaches the open text field.
			cmd = m.th.input.Update(msg)
		case m.find.on:
			cmd = m.findKey(msg)
		}
	}
	if m.note == nil {
		return cmd
	}
	n := *m.note
	m.note = nil
	return tea.Batch(shared.SetStatus(n.Source, n.Kind, n.Text, n.TTL), cmd)
}

// say sets the status line this update sends; a later say in the same
// update replaces it. Text "" clears the screen's line.
func (m *Model) say(kind shared.StatusKind, text string, ttl time.Duration) {
	m.note = &shared.StatusMsg{Source: statusSource, Kind: kind, Text: text, TTL: ttl}
	m.readSaid = false
}

// sayNothing clears the screen's status line as a question opens: the
// words of what came before (a secret's hint, a save's outcome) are not
// about the question, and read as if they were.
func (m *Model) sayNothing() { m.say(shared.StatusInfo, "", 0) }

// sayRead is say for a read's own words, which the next good read clears.
func (m *Model) sayRead(kind shared.StatusKind, text string, ttl time.Duration) {
	m.say(kind, text, ttl)
	m.readSaid = true
}

func (m *Model) onUser(msg shared.UserMsg) tea.Cmd {
	if msg.Err != nil {
		if !m.haveUser {
			m.userErr = msg.Err
		}
		return nil
	}
	u := msg.User
	first := !m.haveUser
	changed := !first && m.user.ID != u.ID
	m.user, m.haveUser, m.userErr = &u, true, nil
	switch {
	case first:
		m.rebuild() // the low_credit switches, until the document is read
	case changed:
		// Another account (a different key): nothing read so far applies.
		m.seq++
		m.th.seq++
		m.doc, m.read = api.Prefs{}, readNone
		m.reading, m.saving, m.queue, m.confirm, m.readOnly = false, nil, nil, nil, false
		m.th.saving, m.th.editing, m.th.unknown = nil, false, false
		m.hooks = hooksState{seq: m.hooks.seq + 1}
		m.settle()
		m.rebuild()
		m.say(shared.StatusInfo, "", 0)
	default:
		// The same account read again — r on another screen, a refresh of
		// the credit, the account a threshold save read: the preferences
		// are re-read by r on this screen, not with every reading of the
		// credit (a refresh would cost a request an interval).
		return nil
	}
	if m.Loading() || m.confirm != nil {
		return nil
	}
	return m.startRead(changed)
}

func (m *Model) base() context.Context {
	if m.ctx.Base != nil {
		return m.ctx.Base
	}
	return context.Background()
}

// startRead reads the document and, alongside, the catalogue (the
// session's copy unless refresh: the user asked to reload, or the account
// changed).
func (m *Model) startRead(refresh bool) tea.Cmd {
	if !m.haveUser || m.Loading() {
		return nil
	}
	m.reading = true
	m.seq++
	seq, svc, ctx, id := m.seq, m.ctx.Billing, m.base(), m.user.ID
	return func() tea.Msg {
		if svc == nil {
			return prefsReadMsg{seq: seq, err: errNoBilling, catErr: errNoBilling}
		}
		msg := prefsReadMsg{seq: seq}
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			msg.cat, msg.catErr = svc.Catalogue(ctx, refresh)
		}()
		go func() {
			defer wg.Done()
			msg.hooks, msg.hooksErr = notices.Webhooks(ctx, svc)
		}()
		msg.prefs, msg.err = notices.ReadPrefs(ctx, svc, id)
		wg.Wait()
		return msg
	}
}

func (m *Model) onRead(msg prefsReadMsg) tea.Cmd {
	if msg.seq != m.seq || !m.reading {
		return nil
	}
	m.reading = false
	m.cat, m.catErr = msg.cat, msg.catErr
	back := m.keepHookCursor()
	m.onHooksRead(msg.hooks, msg.hooksErr)
	err := msg.err
	switch {
	case err == nil:
		m.doc, m.read = msg.prefs, readOK
		m.settle()
		if m.readSaid {
			m.say(shared.StatusInfo, "", 0)
		}
	case errors.Is(err, notices.ErrPrefsUnreadable) && errors.Is(err, api.ErrNotFound):
		m.read = readUnavailable
		m.sayRead(shared.StatusWarn, "this server does not let vastdash read the preferences; the states are unknown", 0)
	case errors.Is(err, notices.ErrPrefsUnreadable):
		// Refused to this key (notices.PrefsUnreadable): the cause says
		// which permission.
		m.read = readDenied
		m.sayRead(shared.StatusError, m.ctx.ErrorText(errors.Unwrap(err))+" — the preferences can't be read; a toggle asks before replacing them", 0)
	default:
		m.read = readFailed
		m.sayRead(shared.StatusError, "could not read the preferences: "+m.ctx.ErrorText(err)+" — "+m.ctx.Key("reload")+" to reload", 0)
	}
	m.rebuild()
	back()
	return nil
}

// rebuild lists the switches of doc, named by the catalogue, keeping the
// cursor on the row it was on.
func (m *Model) rebuild() {
	var was api.PrefPath
	wasSwitch := false
	if i, ok := m.switchAt(m.cursor); ok {
		was, wasSwitch = m.switches[i].Channel.Path, true
	}
	m.alerts = notices.ListAlerts(m.doc, m.cat, m.catErr)
	m.switches = m.alerts.Switches()
	if !wasSwitch {
		return
	}
	for r := 0; r < m.rowCount(); r++ {
		if i, ok := m.switchAt(r); ok && m.switches[i].Channel.Path == was {
			m.cursor = r
			return
		}
	}
	m.cursor = min(m.cursor, m.rowCount()-1)
}

// The rows: the switches in display order, with the threshold after the
// low_credit switches it governs.

// thresholdRow is the row index of the threshold.
func (m *Model) thresholdRow() int {
	n := 0
	for n < len(m.switches) && notices.IsLowCredit(m.switches[n].Channel.Path) {
		n++
	}
	return n
}

func (m *Model) rowCount() int { return m.switchRows() + m.hookRows() }

// switchAt is the switch of row r; ok is false on the threshold row.
func (m *Model) switchAt(r int) (int, bool) {
	t := m.thresholdRow()
	switch {
	case r < t:
		return r, true
	case r == t:
		return 0, false
	case r-1 < len(m.switches):
		return r - 1, true
	}
	return 0, false // a row of the Webhooks section
}

// settle forgets which switches were unsure: a document just came from the
// server.
func (m *Model) settle() { clear(m.unsure) }

func (m *Model) onKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case m.hooks.secret != nil:
		return m.secretKey(msg)
	case m.hooks.form != nil:
		return m.formKey(msg)
	case m.hooks.ask != nil:
		return m.askKey(msg)
	}
	if m.th.editing {
		return m.editKey(msg)
	}
	if m.find.on {
		return m.findKey(msg)
	}
	if a := m.th.ask; a != nil {
		switch {
		case key.Matches(msg, m.keys.Yes):
			m.th.ask = nil
			if !m.canChangeThreshold() {
				return nil
			}
			return m.saveThreshold(notices.ThresholdChange{Amount: a}, "the suggested threshold "+a.Credit())
		case key.Matches(msg, m.keys.No):
			m.th.ask = nil
			m.say(shared.StatusInfo, "threshold not changed", noteTTL)
		}
		return nil
	}
	if m.confirm != nil {
		switch {
		case key.Matches(msg, m.keys.Yes):
			in := *m.confirm
			m.confirm = nil
			return m.submit(in)
		case key.Matches(msg, m.keys.No):
			m.confirm = nil
			m.say(shared.StatusInfo, "not saved", noteTTL)
		case key.Matches(msg, m.keys.Flip):
			m.confirm.on = !m.confirm.on
		}
		return nil
	}
	onThreshold := m.cursor == m.thresholdRow()
	if cmd, ok := m.hookKey(msg); ok {
		return cmd
	}
	switch {
	case key.Matches(msg, m.keys.Up):
		if m.cursor > 0 {
			m.cursor--
		}
	case key.Matches(msg, m.keys.Down):
		if m.cursor < m.rowCount()-1 {
			m.cursor++
		}
	case key.Matches(msg, m.keys.PageUp):
		m.cursor = max(0, m.cursor-max(1, m.listHeight()-1))
	case key.Matches(msg, m.keys.PageDown):
		m.cursor = min(m.rowCount()-1, m.cursor+max(1, m.listHeight()-1))
	case key.Matches(msg, m.keys.Top):
		m.cursor = 0
	case key.Matches(msg, m.keys.Bottom):
		m.cursor = m.rowCount() - 1
	case key.Matches(msg, m.keys.Find):
		return m.openFind()
	case key.Matches(msg, m.keys.Edit), onThreshold && key.Matches(msg, m.keys.RowEdit):
		return m.startEdit()
	case key.Matches(msg, m.keys.Enable), onThreshold && key.Matches(msg, m.keys.RowSwitch):
		return m.toggleThreshold()
	case key.Matches(msg, m.keys.Suggest):
		return m.applySuggestion()
	case !onThreshold && key.Matches(msg, m.keys.Toggle):
		if i, ok := m.switchAt(m.cursor); ok {
			return m.toggle(m.switches[i])
		}
	case key.Matches(msg, m.keys.Reload):
		if !m.haveUser {
			return nil
		}
		if m.Loading() {
			m.say(shared.StatusInfo, "wait for the request in flight to finish", noteTTL)
			return nil
		}
		return tea.Batch(m.startRead(true), m.startSuggestion())
	}
	return nil
}

// toggle flips the state the switch is heading for: the queued intent,
// else the save in flight, else what the server holds.
func (m *Model) toggle(sw notices.AlertSwitch) tea.Cmd {
	switch {
	case !m.haveUser:
		return nil
	case m.readOnly:
		m.say(shared.StatusError, readOnlyText, 0)
		return nil
	case m.reading:
		m.sayRead(shared.StatusInfo, "still reading the preferences…", noteTTL)
		return nil
	case m.doc.IsZero() && m.read != readUnavailable && m.read != readDenied:
		// A transient failure: the user has nothing to toggle from.
		m.sayRead(shared.StatusError, "the current preferences must be read before a save — "+m.ctx.Key("reload")+" to reload", 0)
		return nil
	}
	p := sw.Channel.Path
	// A server that cannot read the document gets a save that replaces
	// it: the user confirms every such save.
	force := m.read == readUnavailable || m.read == readDenied
	on, ok := m.intended(p)
	if !ok || force {
		// Unknown state, or a save that replaces the document: ask
		// first, proposing the other state ("on" when unknown; space
		// flips the proposal).
		m.confirm = &intent{path: p, label: sw.Label, on: !ok || !on, force: force}
		m.sayNothing()
		return nil
	}
	return m.submit(intent{path: p, label: sw.Label, on: !on})
}

// intended is the state the switch at p is heading for and whether it is
// known.
func (m *Model) intended(p api.PrefPath) (on, ok bool) {
	if q, found := m.queued(p); found {
		return q.on, true
	}
	if m.saving != nil && m.saving.path == p {
		return m.saving.on, true
	}
	return m.shown(p)
}

// shown is the state of the switch at p in what the server holds, as far
// as known.
func (m *Model) shown(p api.PrefPath) (on, ok bool) {
	if m.unsure[p] {
		return false, false
	}
	return m.doc.Get(p)
}

func (m *Model) queued(p api.PrefPath) (intent, bool) {
	for _, q := range m.queue {
		if q.path == p {
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
		if m.queue[k].path == in.path {
			m.queue[k] = in
			replaced = true
		}
	}
	if !replaced {
		m.queue = append(m.queue, in)
	}
	m.say(shared.StatusInfo, fmt.Sprintf("queued: %s %s — saved after the current save", in.label, word(in.on)), 0)
	return nil
}

// startSave sends in through the billing layer, which reads the current
// document and changes only this switch: the screen's copy is never sent.
func (m *Model) startSave(in intent) tea.Cmd {
	m.saving = &in
	m.seq++
	m.say(shared.StatusInfo, "saving "+in.label+" "+word(in.on)+"…", 0)
	seq, svc, ctx := m.seq, m.ctx.Billing, m.base()
	var id int64
	if m.user != nil {
		id = m.user.ID
	}
	set := []notices.Switch{{Path: in.path, On: in.on}}
	return func() tea.Msg {
		if svc == nil {
			return prefsSavedMsg{seq: seq, want: in, err: errNoBilling}
		}
		res, err := notices.SaveSwitches(ctx, svc, id, set, in.force)
		return prefsSavedMsg{seq: seq, want: in, res: res, err: err}
	}
}

func (m *Model) onSaved(msg prefsSavedMsg) tea.Cmd {
	if msg.seq != m.seq || m.saving == nil {
		return nil
	}
	m.saving = nil
	res, w := msg.res, msg.want
	if res.Outcome == notices.Failed || res.Outcome == notices.Unknown {
		m.saveFailed(msg)
		m.rebuild()
		return nil
	}
	// The server's state is known: its answer, or a read after a lost one.
	m.doc = res.Prefs
	m.settle()
	if !w.force {
		m.read = readOK // the save read the document first
	}
	m.rebuild()
	got, ok := m.doc.Get(w.path)
	switch {
	case res.Lost && res.Outcome == notices.Saved:
		m.say(shared.StatusOK, fmt.Sprintf("saved: %s %s — the save's answer was lost (%s), and a read says the change took",
			w.label, word(got), m.ctx.ErrorText(msg.err)), noteTTL)
	case res.Lost:
		suffix := m.dropQueue()
		m.say(shared.StatusWarn, fmt.Sprintf("not saved: the answer to the save of %s %s was lost; read again, the server holds %s %s (%s)%s",
			w.label, word(w.on), w.label, notices.SwitchState(m.doc, w.path), m.ctx.ErrorText(msg.err), suffix), 0)
		return nil
	case res.Unchanged:
		m.say(shared.StatusOK, "nothing to save: the server already holds "+w.label+" "+word(got), noteTTL)
	case !ok:
		m.say(shared.StatusWarn, "saved, but the server's answer has no "+w.label+" switch: its state is unknown", 0)
	case got != w.on:
		m.say(shared.StatusWarn, fmt.Sprintf("the server kept %s %s (vastdash asked for %s)", w.label, word(got), word(w.on)), 0)
	default:
		m.say(shared.StatusOK, "saved: "+w.label+" "+word(got), noteTTL)
	}
	return m.next()
}

// dropQueue drops the changes queued behind a save that did not take and
// says how many, for the end of a status line ("" when none).
func (m *Model) dropQueue() string {
	dropped := len(m.queue)
	m.queue = nil
	if dropped == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d queued change%s dropped)", dropped, plural(dropped))
}

// saveFailed reports a save that did not succeed: refused, not attempted,
// or of unknown outcome (its answer lost and the read after it failed).
func (m *Model) saveFailed(msg prefsSavedMsg) {
	w := msg.want
	err, res := msg.err, msg.res
	suffix := m.dropQueue()
	reason := shared.Safe(err.Error())
	var ae *api.Error
	switch {
	case errors.Is(err, notices.ErrLocked):
		m.say(shared.StatusError, reason+suffix, 0)
	case res.Outcome == notices.Unknown:
		// The write may have landed and the read after it failed: say
		// so rather than show a state the server may no longer hold.
		if m.unsure == nil {
			m.unsure = map[api.PrefPath]bool{}
		}
		m.unsure[w.path] = true
		m.say(shared.StatusError, fmt.Sprintf("no answer to the save of %s %s, and reading again failed too — its state is unknown, %s to reload (%s)%s", w.label, word(w.on), m.ctx.Key("reload"), reason, suffix), 0)
	case errors.As(err, &ae) && ae.Kind == api.ErrPermission && ae.Permission == "user_write":
		// The screen shows the read-only state itself; the line says
		// what just failed.
		m.readOnly = true
		m.say(shared.StatusError, "could not save "+w.label+": "+reason+suffix, 0)
	case errors.Is(err, notices.ErrPrefsUnreadable):
		// The server could read the document before and no longer can:
		// from now on a save replaces it, which the user must confirm.
		m.read = readUnavailable
		m.say(shared.StatusWarn, "not saved: "+reason+" — toggle again to choose whether to replace them"+suffix, 0)
	default:
		// Nothing changed on the server. A document the billing layer
		// read just before the refusal is fresher than the one shown.
		text := "could not save " + w.label + ": " + reason
		if !res.Prefs.IsZero() {
			m.doc = res.Prefs
			m.settle()
			if on, ok := m.doc.Get(w.path); ok {
				text += " — still " + word(on)
			}
		}
		m.say(shared.StatusError, text+suffix, 0)
	}
}

// next starts the first queued intent the document the server confirmed
// does not already satisfy.
func (m *Model) next() tea.Cmd {
	for len(m.queue) > 0 {
		in := m.queue[0]
		m.queue = m.queue[1:]
		if on, ok := m.shown(in.path); ok && on == in.on {
			continue
		}
		return m.startSave(in)
	}
	return nil
}

const readOnlyText = "this API key lacks the user_write permission — switches are read-only"

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
