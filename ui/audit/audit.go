// Package audit is the dashboard's Audit screen: the money leaks (what the
// account pays for without using it), each priced, their total in the
// screen's header, and beside them the hosts' price increases waiting for
// an answer, which a and x accept or reject behind a confirmation. enter
// shows a row's contract on the Charges screen. The figures are
// leaks.Audit, which the root reads with the current rate (at start, on
// r, on every refresh) and broadcasts as shared.AuditMsg; the screen only
// shows them and sends the one answer.
package audit

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
)

// source names the screen's status lines.
const source = "audit"

// KeyMap lists the screen's bindings, from package keymap's table.
type KeyMap struct {
	Up, Down, Reveal, Accept, Reject, Reload key.Binding
	// Yes and No answer the confirmation, which takes the keyboard.
	Yes, No key.Binding
}

func newKeyMap(b keymap.Bindings) KeyMap {
	k := func(name string) key.Binding { return shared.Binding(b, name) }
	return KeyMap{Up: k("up"), Down: k("down"), Reveal: k("reveal"), Accept: k("answer-accept"), Reject: k("answer-reject"),
		Reload: shared.BindingAs(b, "reload", "reload"),
		// The prompt's keys are the Notifications save prompt's.
		Yes: shared.BindingAs(b, "prompt-yes", "send the answer"), No: shared.BindingAs(b, "prompt-no", "do not send")}
}

// ShortHelp is the one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Reveal, k.Accept, k.Reject, k.Reload}
}

// FullHelp groups the bindings.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Reveal}, {k.Accept, k.Reject, k.Yes, k.No}, {k.Reload}}
}

// promptKeys is the help while the confirmation is open.
type promptKeys struct{ yes, no key.Binding }

func (p promptKeys) ShortHelp() []key.Binding  { return []key.Binding{p.yes, p.no} }
func (p promptKeys) FullHelp() [][]key.Binding { return [][]key.Binding{{p.yes, p.no}} }

// answer is a price increase the user asked to accept or reject, waiting
// for the confirmation or for the server.
type answer struct {
	pc     leaks.PriceChange
	accept bool
}

// answeredMsg is the server's word on an answer.
type answeredMsg struct {
	answer
	err error
}

// Model is the Audit screen.
type Model struct {
	ctx  *shared.Context
	keys KeyMap

	audit *leaks.Audit // the last reading; nil before one
	err   error        // why the last reading failed

	cursor        int // the selected row: the increases, then the leaks
	top           int // the first line of the scrolled part shown
	width, height int
	// confirm is the answer waiting for y or n; sending the one on its
	// way to the server.
	confirm, sending *answer
	// shown is whether the screen is the active one; refining is the
	// reading whose so far the charges are being read for (zero: none),
	// refined the last one they were read for, done or failed.
	shown             bool
	refining, refined time.Time
}

// soFarMsg is a reading with so far from the charges (leaks.ExactSoFar),
// for the reading of asOf.
type soFarMsg struct {
	audit leaks.Audit
	asOf  time.Time
	err   error
}

// New returns the screen; it reads nothing itself (the root sends the
// readings).
func New(ctx *shared.Context) *Model {
	return &Model{ctx: ctx, keys: newKeyMap(ctx.Keys)}
}

// Init does nothing: the root reads the audit.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize gives the screen its area.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.scroll()
}

// Help lists the keys that act now.
func (m *Model) Help() help.KeyMap {
	if m.confirm != nil {
		return promptKeys{m.keys.Yes, m.keys.No}
	}
	return m.keys
}

// Capturing: the confirmation takes the keyboard, so that q or a digit
// cannot leave it open behind another screen.
func (m *Model) Capturing() bool { return m.confirm != nil }

// Loading reports an answer on its way, or the charges being read for so
// far (the root's spinner covers the readings).
func (m *Model) Loading() bool { return m.sending != nil || !m.refining.IsZero() }

// Shown is called by the root when the screen becomes the active one or
// stops being it. While it is, each reading gets its so far from the
// charges: they share the one charges budget with the other screens, so
// the dashboard reads them only for someone looking.
func (m *Model) Shown(on bool) tea.Cmd {
	m.shown = on
	return m.refine()
}

// refine reads the so far of the last reading from the charges, while the
// screen is shown and unless it is read, being read or was read for it:
// on a switch to the screen, and on each reading (or answer) that comes
// while it is shown.
func (m *Model) refine() tea.Cmd {
	a := m.audit
	if !m.shown || a == nil || a.SoFarRead || !m.refining.IsZero() || m.refined.Equal(a.AsOf) {
		return nil
	}
	m.refining = a.AsOf
	svc, base, reading := m.ctx.Billing, m.ctx.Base, *a
	return func() tea.Msg {
		if svc == nil {
			return soFarMsg{asOf: reading.AsOf, err: errors.New("no API client configured")}
		}
		out, err := leaks.ExactSoFar(base, svc, reading)
		return soFarMsg{audit: out, asOf: reading.AsOf, err: err}
	}
}

// rows counts the selectable rows.
func (m *Model) rows() int {
	if m.audit == nil {
		return 0
	}
	return len(m.audit.Leaks) + len(m.audit.Increases)
}

// increase is the price increase under the cursor, if it is one. The
// increases come first: they wait for an answer, and there are few.
func (m *Model) increase() (leaks.PriceChange, bool) {
	if m.audit == nil || m.cursor >= len(m.audit.Increases) {
		return leaks.PriceChange{}, false
	}
	return m.audit.Increases[m.cursor], true
}

// leak is the leak under the cursor, if it is one.
func (m *Model) leak() (leaks.Leak, bool) {
	if m.audit == nil || m.cursor < len(m.audit.Increases) || m.cursor >= m.rows() {
		return leaks.Leak{}, false
	}
	return m.audit.Leaks[m.cursor-len(m.audit.Increases)], true
}

// Update handles the readings, the keys and the answers.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case shared.AuditMsg:
		m.err = msg.Err
		if msg.Err == nil {
			a := msg.Audit
			m.audit = &a
			m.cursor = min(m.cursor, max(m.rows()-1, 0))
		}
		if m.confirm != nil && !m.stillPending(m.confirm.pc) {
			m.confirm = nil
			return tea.Batch(m.refine(), shared.SetStatus(source, shared.StatusInfo, "that price increase is no longer pending", 5*time.Second))
		}
		m.scroll()
		return m.refine()
	case soFarMsg:
		m.refining, m.refined = time.Time{}, msg.asOf
		if msg.err == nil && m.audit != nil && m.audit.AsOf.Equal(msg.asOf) {
			a := msg.audit
			m.audit = &a
			m.scroll()
		}
		return m.refine() // a reading that came while this one was read
	case answeredMsg:
		m.sending = nil
		if msg.err == nil || errors.Is(msg.err, api.ErrNotPending) {
			m.drop(msg.pc)
		}
		return tea.Batch(m.answered(msg), func() tea.Msg { return shared.AuditReloadMsg{} })
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	return nil
}

// drop takes an answered increase off the list at once: it stayed listed
// until the next reading came, seconds later, as if still waiting. The
// reading is shared with the other screens: the list is copied, not cut.
func (m *Model) drop(pc leaks.PriceChange) {
	if m.audit == nil {
		return
	}
	a := *m.audit
	a.Increases = slices.DeleteFunc(slices.Clone(a.Increases), func(p leaks.PriceChange) bool { return p.ID == pc.ID })
	m.audit = &a
	m.cursor = max(min(m.cursor, m.rows()-1), 0)
	m.scroll()
}

// stillPending reports pc among the increases of the last reading.
func (m *Model) stillPending(pc leaks.PriceChange) bool {
	if m.audit == nil {
		return false
	}
	for _, p := range m.audit.Increases {
		if p.ID == pc.ID {
			return true
		}
	}
	return false
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.confirm != nil {
		switch {
		case key.Matches(msg, m.keys.Yes):
			return m.send()
		case key.Matches(msg, m.keys.No):
			m.confirm = nil
			return shared.SetStatus(source, shared.StatusInfo, "nothing sent", 3*time.Second)
		}
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Up):
		m.cursor = max(m.cursor-1, 0)
		m.scroll()
	case key.Matches(msg, m.keys.Down):
		m.cursor = max(min(m.cursor+1, m.rows()-1), 0)
		m.scroll()
	case key.Matches(msg, m.keys.Reveal):
		if r := m.reveal(); r.Source != "" {
			return func() tea.Msg { return r }
		}
	case key.Matches(msg, m.keys.Accept), key.Matches(msg, m.keys.Reject):
		pc, ok := m.increase()
		switch {
		case !ok:
			return shared.SetStatus(source, shared.StatusInfo, "move to a price increase to answer it", 4*time.Second)
		case m.sending != nil:
			return shared.SetStatus(source, shared.StatusInfo, "an answer is on its way", 3*time.Second)
		}
		m.confirm = &answer{pc: pc, accept: key.Matches(msg, m.keys.Accept)}
		m.scroll()
	}
	return nil
}

// reveal asks the Charges screen for the row under the cursor: its
// contract, named as the row names it; an idle endpoint's contract is a
// worker never shown here, so any of its workers' rows will do.
func (m *Model) reveal() shared.RevealMsg {
	r := shared.RevealMsg{Source: m.source()}
	if l, ok := m.leak(); ok {
		r.What = l.Kind.Title() + " " + strconv.FormatInt(l.ID, 10)
		if label := shared.Safe(l.Label); label != "" {
			r.What = l.Kind.Title() + " " + label + " (" + strconv.FormatInt(l.ID, 10) + ")"
		}
		if l.Kind == leaks.LeakIdleEndpoint {
			r.Endpoint = l.ID
		}
	}
	return r
}

// source is the contract of the row under the cursor, "" when none.
func (m *Model) source() string {
	if pc, ok := m.increase(); ok {
		return "instance-" + strconv.FormatInt(pc.InstanceID, 10)
	}
	if l, ok := m.leak(); ok {
		return l.Source
	}
	return ""
}

// send sends the confirmed answer: one request.
func (m *Model) send() tea.Cmd {
	a := *m.confirm
	m.confirm, m.sending = nil, &a
	m.scroll()
	svc, base := m.ctx.Billing, m.ctx.Base
	return func() tea.Msg {
		if svc == nil {
			return answeredMsg{answer: a, err: errors.New("no API client configured")}
		}
		return answeredMsg{answer: a, err: leaks.AnswerIncrease(base, svc, a.pc, a.accept)}
	}
}

// answered says how an answer went.
func (m *Model) answered(msg answeredMsg) tea.Cmd {
	verb := "rejected"
	if msg.accept {
		verb = "accepted"
	}
	id := strconv.FormatInt(msg.pc.InstanceID, 10)
	switch {
	case msg.err == nil:
		then := "the contract ends at its current end date"
		if msg.accept {
			then = "the new price applies from the contract's end"
		}
		return shared.SetStatus(source, shared.StatusOK, verb+" the price increase of instance "+id+": "+then, 8*time.Second)
	case errors.Is(msg.err, api.ErrNotPending):
		return shared.SetStatus(source, shared.StatusWarn, "the price increase of instance "+id+" is no longer pending", 8*time.Second)
	case errors.Is(msg.err, leaks.ErrAnswerUnknown):
		// Not sent again: the reading that follows every answer shows
		// whether it went through.
		return shared.SetStatus(source, shared.StatusWarn, m.ctx.ErrorText(msg.err)+"; the audit is read again: see whether it is still pending", 0)
	case errors.Is(msg.err, context.Canceled):
		return nil
	}
	return shared.SetStatus(source, shared.StatusError, "not "+verb+": "+m.ctx.ErrorText(msg.err), 0)
}
