// Package signin is the screen a first run opens on when no API key is
// found anywhere: what a key is and where to make one, a masked field to
// paste it into, the key verified (the account's e-mail and a ✓, ✗ or ? per
// permission with what it unlocks), the offer of a key for vastdash alone,
// and the key saved where the official vastai CLI reads it.
//
// The screen does no I/O itself: verifying, making a key and saving come
// from the command line as Funcs, run as commands whose answers come back
// as messages. The key is held only behind a pointer to a type that prints
// as "[redacted]" with every verb, is drawn as dots, and is never part of
// a message to the user.
package signin

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/billing/access"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// Funcs are the sign-in's ways to the world, given by the command line.
type Funcs struct {
	// Verify checks key with the account lookup and one probe per
	// permission (access.Probe). Its error's text is in the
	// user's words and never holds the key.
	Verify func(ctx context.Context, key config.Secret) (access.Access, error)
	// Scope makes a key for vastdash alone (access.MakeScopedKey) with
	// the key Verify last accepted; write adds user_write.
	Scope func(ctx context.Context, write bool) access.Scoped
	// Check judges the key file before anything is made or written: nil
	// when it is free, config.ErrKeyExists when a file is there, else why
	// it cannot be written.
	Check func() error
	// Save writes key where the vastai CLI reads it, replacing a file
	// there only with replace (config.SaveKey); it returns the path.
	Save func(key config.Secret, replace bool) (string, error)
	// Discard deletes a key Scope made that will not be used (its save
	// failed), with the key that made it.
	Discard func(ctx context.Context, id int64) error
	// AddAccount, when set, makes the screen add an account (the
	// dashboard's Accounts screen asks for one): it asks the account's
	// name before the key and gives it here; the answer is where the
	// key will be saved, as shown, or why the name cannot be used, in the
	// user's words (not a name, one the settings have already). Check and
	// Save then write that account's key and its settings table.
	AddAccount func(name string) (path string, err error)
}

// Options configure the screen.
type Options struct {
	Funcs
	// Keys are the key bindings (nil: the defaults).
	Keys keymap.Bindings
	// Styles to draw with; nil: dark.
	Styles *theme.Styles
	// Path is where the key will be saved, as shown ("~/.config/…").
	Path string
	// Host is the API's host and port when it is not the default, so the
	// user sees where the key is sent.
	Host string
}

// Result is how the screen ended.
type Result struct {
	// Saved is set when a key was saved; Path is where.
	Saved bool
	Path  string
	// Note is a line for the dashboard's status line: who is signed in,
	// with which key, saved where.
	Note string
	// Access is what the saved key may do, as just verified: the
	// dashboard need not probe it again.
	Access *access.Access
	// Account is the account added (Options.AddAccount), "" otherwise.
	Account string
	// Left is set when the user quit (ctrl+c): the dashboard is not
	// wanted now. A key saved (Saved) stays saved; ctrl+c while a key
	// for vastdash was made, saved or deleted left once that was
	// settled, a new key not saved deleted.
	Left bool
}

// maxField bounds what the field holds: no key is longer.
const maxField = 512

// secret holds key text. Every way of printing it yields "[redacted]", and
// the model keeps it only behind a pointer, which fmt prints as an
// address inside a struct: no %v of the model can show the key.
type secret struct{ b []byte }

func (s *secret) String() string             { return "[redacted]" }
func (s *secret) GoString() string           { return "[redacted]" }
func (s *secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte("[redacted]")) }
func (s *secret) reveal() config.Secret      { return config.Secret(s.b) }
func (s *secret) len() int                   { return len(s.b) }
func (s *secret) empty() bool                { return len(s.b) == 0 }
func (s *secret) wipe()                      { clear(s.b); s.b = s.b[:0] }
func (s *secret) add(t string)               { s.b = append(s.b, t...) }
func (s *secret) dropLast()                  { s.b = s.b[:max(len(s.b)-1, 0)] }
func (s *secret) fits(t string) bool         { return len(s.b)+len(t) <= maxField }
func newSecret(k config.Secret) *secret      { return &secret{b: []byte(k.Reveal())} }

// state is where the screen is.
type state int

const (
	enterKey  state = iota // the field has the keyboard
	enterName              // adding an account: its name's field has the keyboard
	verifying              // the key is being checked
	verified               // the key works: its access shown, save or make one
	asking                 // a key file exists: replace it?
	scoping                // a key for vastdash alone is being made
	saving                 // the key is being written
	deleting               // a key made for vastdash that could not be saved is being deleted
	done                   // a key made for vastdash is saved: shown before the dashboard
)

// plan is what a confirmation leads to.
type plan int

const (
	savePasted plan = iota
	scopeRead
	scopeWrite
)

type keys struct {
	verify, next, clear, quit, force key.Binding
	save, scoped, alerts, back       key.Binding
	replace, keep                    key.Binding
}

func newKeys(b keymap.Bindings) keys {
	k := func(name string) key.Binding { return shared.Binding(b, name) }
	return keys{
		verify: k("signin-verify"), next: shared.BindingAs(b, "signin-verify", "next: the key"), clear: k("field-clear"), quit: k("signin-quit"), force: k("force-quit"),
		save: k("signin-save"), scoped: k("signin-scoped"), alerts: k("signin-scoped-alerts"), back: k("signin-back"),
		replace: k("signin-replace"), keep: k("signin-keep"),
	}
}

// Model is the sign-in screen. Create it with New; Result says how it
// ended once the program quits.
type Model struct {
	o      Options
	base   context.Context
	st     *theme.Styles
	keys   keys
	width  int
	height int
	state  state

	field *secret // what was typed or pasted
	// name is the account's name as typed, when adding one (enterName);
	// account the name AddAccount took.
	name, account string
	// tainted: an escape sequence or alt chord came while the field had
	// the keyboard (a paste the terminal did not bracket arrives as
	// keys, its sequences dropped): what the field holds is not the
	// paste, so it is refused whole until the field is cleared.
	tainted bool
	// pasted is the key that verified; access what it may do.
	pasted *secret
	access access.Access
	// scopedTried: the offer was taken once; it is not made again.
	scopedTried bool
	// next is what the replace question leads to; replace the answer.
	next    plan
	replace bool
	// made is the name of the key made for vastdash, once saved.
	made string
	// leaving: ctrl+c came while a key for vastdash was being made, saved
	// or deleted; the screen quits once that is settled, a new key that
	// was not saved deleted first.
	leaving bool

	// msg is the line under the field (or the result): an error, a
	// warning or news; msgStyle how it is drawn.
	msg      string
	msgStyle func(...string) string

	seq    int // of the verification under way; older answers are dropped
	cancel context.CancelFunc
	spin   spinner.Model
	result Result
}

// New returns the screen. base bounds every request it starts.
func New(base context.Context, o Options) *Model {
	st := o.Styles
	if st == nil {
		st = theme.New(true)
	}
	m := &Model{o: o, base: base, st: st, keys: newKeys(o.Keys), field: &secret{},
		spin: spinner.New(spinner.WithSpinner(spinner.MiniDot))}
	m.spin.Style = st.Accent
	if o.AddAccount != nil {
		m.state = enterName
	}
	return m
}

// Result is how the screen ended (zero while it runs, or when the user
// quit without signing in).
func (m *Model) Result() Result { return m.result }

// Init starts nothing: the screen waits for a key.
func (m *Model) Init() tea.Cmd { return nil }

// Messages of the screen's commands.
type (
	verifiedMsg struct {
		seq    int
		key    *secret
		access access.Access
		err    error
	}
	scopedMsg    struct{ sc access.Scoped }
	discardedMsg struct{ text string }
	savedMsg     struct {
		path   string
		err    error
		scoped *access.Scoped // the key saved was made for vastdash
	}
)

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		switch m.state {
		case enterKey:
			m.paste(msg.Content)
		case enterName:
			m.typeName(msg.Content)
		}
	case uv.UnknownEvent, uv.UnknownCsiEvent, uv.UnknownSs3Event, uv.UnknownOscEvent,
		uv.UnknownDcsEvent, uv.UnknownSosEvent, uv.UnknownPmEvent, uv.UnknownApcEvent:
		if m.state == enterKey {
			m.taint()
		}
	case spinner.TickMsg:
		if m.busy() {
			var cmd tea.Cmd
			m.spin, cmd = m.spin.Update(msg)
			return m, cmd
		}
	case verifiedMsg:
		return m, m.verified(msg)
	case scopedMsg:
		return m, m.scoped(msg.sc)
	case savedMsg:
		return m, m.saved(msg)
	case discardedMsg:
		m.state = verified
		m.say(m.st.Error.Render, msg.text)
		if m.leaving {
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m *Model) busy() bool { return m.state == verifying || m.keyWork() }

// keyWork reports work under way that a key made for vastdash hangs on:
// quitting in the middle would leave it on the account unsaved.
func (m *Model) keyWork() bool {
	return m.state == scoping || m.state == saving || m.state == deleting
}

// key handles a key press in the current state.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if key.Matches(msg, m.keys.force) {
		m.result.Left = true
		if m.keyWork() && !m.leaving {
			m.leaving = true
			m.say(m.st.Warning.Render, "leaving once the key for vastdash is settled (a key not saved is deleted first); "+m.keys.force.Help().Key+" again leaves now")
			return nil
		}
		m.stop()
		return tea.Quit
	}
	switch m.state {
	case enterName:
		return m.nameKey(msg)
	case enterKey:
		return m.fieldKey(msg)
	case verifying:
		if key.Matches(msg, m.keys.back, m.keys.quit) {
			m.stop()
			m.state = enterKey
			m.say(m.st.Muted.Render, "verification cancelled")
		}
	case verified:
		switch {
		case key.Matches(msg, m.keys.save):
			return m.confirm(savePasted)
		case key.Matches(msg, m.keys.scoped) && m.offer():
			return m.confirm(scopeRead)
		case key.Matches(msg, m.keys.alerts) && m.offer():
			return m.confirm(scopeWrite)
		case key.Matches(msg, m.keys.back):
			m.state, m.msg = enterKey, ""
		}
	case done:
		if key.Matches(msg, m.keys.save) {
			return tea.Quit
		}
	case asking:
		switch {
		case key.Matches(msg, m.keys.replace):
			m.replace = true
			return m.proceed(m.next)
		case key.Matches(msg, m.keys.keep):
			m.state = verified
			m.say(m.st.Warning.Render, "nothing was written; "+m.o.Path+" keeps the key it holds")
		case key.Matches(msg, m.keys.back):
			m.state, m.msg = verified, ""
		}
	}
	return nil
}

// fieldKey handles a key while the field has the keyboard.
func (m *Model) fieldKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.verify):
		return m.verify()
	case key.Matches(msg, m.keys.clear):
		m.field.wipe()
		m.msg, m.tainted = "", false
	case key.Matches(msg, m.keys.quit):
		return tea.Quit
	case msg.Code == tea.KeyBackspace:
		m.field.dropLast()
		m.msg = ""
		if m.field.empty() {
			m.tainted = false
		}
	case msg.Mod&tea.ModAlt != 0:
		// ESC and a character: a sequence the terminal could not read.
		m.taint()
	case msg.Text != "" && msg.Mod&^tea.ModShift == 0:
		m.paste(msg.Text)
	}
	return nil
}

// nameKey handles a key while the account's name has the keyboard.
func (m *Model) nameKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.verify):
		m.takeName()
	case key.Matches(msg, m.keys.clear):
		m.name, m.msg = "", ""
	case key.Matches(msg, m.keys.quit):
		return tea.Quit
	case msg.Code == tea.KeyBackspace:
		m.name, m.msg = m.name[:max(len(m.name)-1, 0)], ""
	case msg.Text != "" && msg.Mod&^tea.ModShift == 0:
		m.typeName(msg.Text)
	}
	return nil
}

// notWord reports a space, a control or a non-ASCII character in t,
// which neither a key nor an account's name holds.
func notWord(t string) bool {
	return strings.IndexFunc(t, func(r rune) bool { return r <= ' ' || r >= 0x7f }) >= 0
}

// maxName bounds the name's field: no account's name is longer.
const maxName = 64

// typeName adds typed or pasted text to the name: what no name holds is
// refused whole (AddAccount says the rule on enter).
func (m *Model) typeName(t string) {
	t = strings.TrimSpace(t)
	switch {
	case t == "":
	case notWord(t):
		m.say(m.st.Error.Render, "an account's name is letters, digits, - and _")
	case len(m.name)+len(t) > maxName:
		m.say(m.st.Error.Render, fmt.Sprintf("an account's name is at most %d characters", maxName))
	default:
		m.name += t
		m.msg = ""
	}
}

// takeName asks AddAccount about the name; one it takes leads to the
// key's field, its key to be saved where it says.
func (m *Model) takeName() {
	if m.name == "" {
		m.say(m.st.Error.Render, "name the account first")
		return
	}
	path, err := m.o.AddAccount(m.name)
	if err != nil {
		m.say(m.st.Error.Render, err.Error())
		return
	}
	m.account, m.o.Path = m.name, path
	m.state, m.msg = enterKey, ""
}

// taint marks the field as holding what is left of text with escape
// sequences in it: no key holds one, and what remains once they are
// dropped is not what was pasted, so nothing of it is sent.
func (m *Model) taint() {
	m.tainted = true
	m.say(m.st.Error.Render, taintedText)
}

// taintedText is the refusal of a field that took escape sequences.
const taintedText = "that held escape sequences, which no key does: nothing of it is sent; clear the field and paste only the key"

// paste adds typed or pasted text to the field: surrounding whitespace
// (the newline a copy often ends with) is dropped; anything else that no
// key holds is refused whole, without repeating it.
func (m *Model) paste(t string) {
	t = strings.TrimSpace(t)
	switch {
	case t == "":
	case notWord(t):
		m.say(m.st.Error.Render, "that holds spaces, control or non-ASCII characters, which no key does: paste only the key")
	case !m.field.fits(t):
		m.say(m.st.Error.Render, "that is longer than any key: paste only the key")
	default:
		m.field.add(t)
		m.msg = ""
	}
}

func (m *Model) say(style func(...string) string, text string) { m.msg, m.msgStyle = text, style }

// verify checks the field's key.
func (m *Model) verify() tea.Cmd {
	if m.field.empty() {
		m.say(m.st.Error.Render, "paste your key first")
		return nil
	}
	if m.tainted {
		m.say(m.st.Error.Render, taintedText)
		return nil
	}
	k, err := config.ParseKey(string(m.field.b), "the field")
	if err != nil {
		m.say(m.st.Error.Render, err.Error())
		return nil
	}
	m.stop()
	m.seq++
	seq := m.seq
	ctx, cancel := context.WithCancel(m.base)
	m.cancel = cancel
	m.state, m.msg = verifying, ""
	verify, held := m.o.Verify, newSecret(k)
	return tea.Batch(m.spin.Tick, func() tea.Msg {
		a, err := verify(ctx, k)
		return verifiedMsg{seq: seq, key: held, access: a, err: err}
	})
}

// stop cancels a verification under way.
func (m *Model) stop() {
	if m.cancel != nil {
		m.cancel()
		m.cancel = nil
	}
}

func (m *Model) verified(msg verifiedMsg) tea.Cmd {
	if msg.seq != m.seq || m.state != verifying {
		return nil // cancelled, or a newer one runs
	}
	m.stop()
	if msg.err != nil {
		// The field keeps the key for another try; nothing is written.
		m.state = enterKey
		m.say(m.st.Error.Render, "✗ "+msg.err.Error())
		return nil
	}
	m.pasted, m.access, m.state, m.msg = msg.key, msg.access, verified, ""
	m.scopedTried, m.replace = false, false
	return nil
}

// offer reports whether the least-privilege offer stands: not tried yet,
// and the key is not known to lack user_write (making a key needs it).
func (m *Model) offer() bool {
	return !m.scopedTried && m.access.Verdict(access.UserWrite) != access.Denied
}

// confirm starts p, after asking whether to replace a key file there.
func (m *Model) confirm(p plan) tea.Cmd {
	err := m.o.Check()
	switch {
	case errors.Is(err, config.ErrKeyExists):
		m.state, m.next, m.msg = asking, p, ""
		return nil
	case err != nil:
		m.say(m.st.Error.Render, err.Error())
		return nil
	}
	return m.proceed(p)
}

// proceed saves the pasted key or makes one for vastdash.
func (m *Model) proceed(p plan) tea.Cmd {
	m.msg = ""
	if p == savePasted {
		return m.save(m.pasted, nil)
	}
	m.state, m.scopedTried = scoping, true
	scope, base, write := m.o.Scope, m.base, p == scopeWrite
	return tea.Batch(m.spin.Tick, func() tea.Msg { return scopedMsg{sc: scope(base, write)} })
}

func (m *Model) save(k *secret, sc *access.Scoped) tea.Cmd {
	m.state = saving
	save, replace, key := m.o.Save, m.replace, k.reveal()
	return func() tea.Msg {
		path, err := save(key, replace)
		return savedMsg{path: path, err: err, scoped: sc}
	}
}

func (m *Model) scoped(sc access.Scoped) tea.Cmd {
	switch {
	case sc.Kept:
		m.state, m.access = verified, sc.Access
		m.say(m.st.Warning.Render, sc.Why)
		if m.leaving {
			return tea.Quit
		}
		return nil
	case m.leaving:
		// The user is leaving: the new key is not saved, and must not
		// stay behind.
		return m.discard(&sc, "leaving without saving")
	}
	return m.save(newSecret(config.Secret(sc.Key.Reveal())), &sc)
}

func (m *Model) saved(msg savedMsg) tea.Cmd {
	if msg.err != nil {
		m.state = verified
		m.say(m.st.Error.Render, msg.err.Error())
		if msg.scoped == nil {
			if m.leaving {
				return tea.Quit
			}
			return nil
		}
		// The new key will never be used: it must not stay behind.
		return m.discard(msg.scoped, msg.err.Error())
	}
	m.field.wipe()
	m.pasted.wipe()
	left := m.leaving
	signed := "signed in"
	if m.account != "" {
		signed = "account " + m.account + " added"
	}
	if msg.scoped == nil {
		a := m.access
		m.result = Result{Saved: true, Path: msg.path, Note: signed + "; the key is saved to " + m.o.Path, Account: m.account, Access: &a, Left: left}
		return tea.Quit
	}
	a := msg.scoped.Access
	m.result = Result{Saved: true, Path: msg.path, Note: signed + " with a key for vastdash alone, saved to " + m.o.Path, Account: m.account, Access: &a, Left: left}
	if left {
		return tea.Quit
	}
	// A key the user has not seen yet: what it is and may do, before the
	// dashboard opens on it.
	m.access, m.made, m.state, m.msg = a, msg.scoped.Name, done, ""
	return nil
}

// discard deletes the key made for vastdash in sc, which will not be
// used (text: why), and says how that went; the screen waits meanwhile.
func (m *Model) discard(sc *access.Scoped, text string) tea.Cmd {
	m.state = deleting
	discard, base, id := m.o.Discard, m.base, sc.Key.ID
	return tea.Batch(m.spin.Tick, func() tea.Msg {
		if err := discard(base, id); err != nil {
			return discardedMsg{text + fmt.Sprintf("; the key made for vastdash (id %d) could not be deleted: delete it in the console", id)}
		}
		return discardedMsg{text + "; the key made for vastdash was deleted"}
	})
}

// View draws the screen.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.WindowTitle = "vastdash: sign in"
	return v
}

func (m *Model) render() string {
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return ""
	}
	title := m.st.Title.Render("vastdash") + " · sign in"
	if m.o.AddAccount != nil {
		title = m.st.Title.Render("vastdash") + " · add an account"
	}
	if m.o.Host != "" {
		title += m.st.Muted.Render(" to " + shared.Safe(m.o.Host))
	}
	var body, tail []string
	switch m.state {
	case enterName:
		body = m.nameIntro(w)
		tail = append(tail, m.nameLine())
	case enterKey, verifying:
		body = m.intro(w, h-4)
		tail = append(tail, m.fieldLine(w))
	case verified, scoping, saving, deleting:
		body = m.accessLines(w, h-4)
	case done:
		body = append(wrap(m.st.OK.Render("✓ Saved a key for vastdash alone, “"+shared.Safe(m.made)+"”, to "+m.o.Path+". Delete it in the console's Keys page when you no longer use vastdash."), w), "")
		body = append(body, m.accessLines(w, h-4-len(body))...)
	case asking:
		body = m.accessLines(w, h-4)
		tail = append(tail, wrap(m.st.Warning.Render(m.o.Path+" already exists. Replace it?"), w)...)
	}
	if m.busy() {
		tail = append(tail, m.spin.View()+" "+m.busyText())
	}
	if m.msg != "" {
		tail = append(tail, wrap(m.msgStyle(m.msg), w)...)
	}
	hints := wrap(m.st.Muted.Render(m.hint()), w)
	room := h - 1 - len(tail) - len(hints)
	lines := []string{title}
	if room > 1 {
		lines = append(lines, "")
		lines = append(lines, fitParagraphs(body, room-2)...)
		lines = append(lines, "")
	}
	lines = append(lines, tail...)
	pad := h - len(lines) - len(hints)
	for ; pad > 0; pad-- {
		lines = append(lines, "")
	}
	lines = append(lines, hints...)
	if len(lines) > h {
		// Too short for everything: the field and the keys matter most.
		lines = append(lines[:1], lines[len(lines)-h+1:]...)
	}
	return shared.Block(lines, w, h)
}

func (m *Model) busyText() string {
	switch m.state {
	case verifying:
		return "verifying the key…"
	case scoping:
		return "making a key for vastdash…"
	case deleting:
		return "deleting the key made for vastdash…"
	}
	return "saving…"
}

// nameIntro says what adding an account is.
func (m *Model) nameIntro(w int) []string {
	return paragraphs(w,
		"Add an account: a name for it, then its key. A team is its team key; each account has its own credit, charges and history, and 0 Accounts shows them side by side.",
		"The name is letters, digits, - and _ (lab, team-2). Its key will be saved in vastdash's keys folder, readable only by you, and [accounts.NAME] added to the settings.",
	)
}

// nameLine is the account name's field.
func (m *Model) nameLine() string {
	return m.st.Bold.Render("Account name ") + shared.Safe(m.name) + m.st.Accent.Render("▏")
}

// intro says what a key is and where it comes from: paragraphs separated
// by "" lines, in full when they fit in room lines, else in short (the
// page that makes keys always shown), cut whole when even that is too
// long.
func (m *Model) intro(w, room int) []string {
	if m.account != "" {
		return paragraphs(w,
			"Paste the key of the account "+m.account+" (a team's key for a team). Make one on the console's Keys page, "+config.ConsoleKeysURL+" — a key is shown only once.",
			"It will be saved to "+m.o.Path+", readable only by you, and the account added to the settings.",
		)
	}
	full := paragraphs(w,
		"No API key was found. vastdash reads your Vast.ai account with one: a secret that lets a program act for you. Paste it below.",
		"Make one on the console's Keys page, "+config.ConsoleKeysURL+" — a key is shown only once, so copy it then.",
		"It will be saved to "+m.o.Path+", where the vastai CLI reads it, readable only by you.",
		"Just looking? vastdash --demo shows everything without an account.",
	)
	if len(full) <= room {
		return full
	}
	return paragraphs(w,
		"Paste a Vast.ai API key. Make one at "+config.ConsoleKeysURL+" (it is shown only once).",
		"Just looking? Try vastdash --demo.",
	)
}

// paragraphs wraps each of ps to w, with a "" line after each.
func paragraphs(w int, ps ...string) []string {
	var out []string
	for _, p := range ps {
		out = append(append(out, wrap(p, w)...), "")
	}
	return out
}

// fieldLine is the masked field: dots, never the key, and its length.
func (m *Model) fieldLine(w int) string {
	label := m.st.Bold.Render("API key ")
	n := m.field.len()
	count := ""
	if n > 0 {
		count = m.st.Muted.Render(fmt.Sprintf(" (%d characters)", n))
	}
	room := max(w-shared.Width(label)-shared.Width(count)-1, 1)
	dots := strings.Repeat("•", min(n, room))
	cursor := m.st.Accent.Render("▏")
	if m.state != enterKey {
		cursor = ""
	}
	return label + dots + cursor + count
}

// accessLines are what the verified key may do: the account, a line per
// permission (wrapped under its name when there is room for that, else
// cut), and the offer.
func (m *Model) accessLines(w, room int) []string {
	a := m.access
	who := "✓ The key works"
	switch {
	case a.Email != "":
		who += ": " + shared.Safe(a.Email)
	case a.Verdict(access.UserRead) == access.Denied:
		who += " (it may not read the account)"
	default:
		who += " (the account could not be read)"
	}
	head := append(wrap(m.st.OK.Render(who), w), "")
	const nameW = 17 // "✓ instance_write "
	var wrapped, cut []string
	for _, c := range a.Checks {
		mark := c.Verdict.Mark()
		switch c.Verdict {
		case access.Granted:
			mark = m.st.OK.Render(mark)
		case access.Denied:
			mark = m.st.Error.Render(mark)
		default:
			mark = m.st.Warning.Render(mark)
		}
		text := c.Permission.Unlocks()
		if c.Verdict != access.Granted && c.Why != "" {
			text += m.st.Muted.Render(" — " + shared.Safe(c.Why))
		}
		name := mark + " " + shared.PadRight(string(c.Permission), nameW-2)
		cut = append(cut, shared.Truncate(name+text, w))
		for i, l := range wrap(text, max(w-nameW, 10)) {
			if i == 0 {
				wrapped = append(wrapped, name+l)
			} else {
				wrapped = append(wrapped, strings.Repeat(" ", nameW)+l)
			}
		}
	}
	rows := wrapped
	if len(head)+len(wrapped) > room {
		rows = cut
	}
	if len(head)+len(rows) >= room {
		// A small terminal: the account and the permissions as one
		// paragraph, so that every permission's line still shows (room
		// is an estimate: the keys below may take a second line).
		head = head[:len(head)-1]
	}
	out := append(append(head, rows...), "")
	if m.offer() {
		s, wr := m.keys.scoped.Help().Key, m.keys.alerts.Help().Key
		out = append(out, wrap("A key for vastdash alone is safer: "+s+" makes one that can only read billing, the account, instances and serverless endpoints ("+wr+": and change alerts; never instance_write, which could rent instances), verifies it, and saves it instead of this one.", w)...)
		out = append(out, "")
	}
	return out
}

// hint is the keys of the state, as bound.
func (m *Model) hint() string {
	switch m.state {
	case enterName:
		return shared.Hint(m.keys.next, m.keys.clear, m.keys.quit)
	case enterKey:
		return shared.Hint(m.keys.verify, m.keys.clear, m.keys.quit)
	case verifying:
		return shared.Hint(m.keys.back)
	case verified:
		bs := []key.Binding{m.keys.save}
		if m.offer() {
			bs = append(bs, m.keys.scoped, m.keys.alerts)
		}
		return shared.Hint(append(bs, m.keys.back)...)
	case asking:
		return shared.Hint(m.keys.replace, m.keys.keep, m.keys.back)
	case done:
		return m.keys.save.Help().Key + " open the dashboard"
	}
	return shared.Hint(m.keys.force)
}

// wrap breaks s into lines of at most w cells, at spaces where it can.
func wrap(s string, w int) []string {
	return strings.Split(ansi.Wrap(s, max(w, 1), ""), "\n")
}

// fitParagraphs keeps whole paragraphs (separated by "") from the top
// while they fit in h lines, dropping a trailing blank.
func fitParagraphs(lines []string, h int) []string {
	var out, para []string
	for _, l := range append(lines, "") {
		if l != "" {
			para = append(para, l)
			continue
		}
		if len(para) == 0 {
			continue
		}
		need := len(para)
		if len(out) > 0 {
			need++
		}
		if len(out)+need > h {
			break
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, para...)
		para = nil
	}
	return out
}
