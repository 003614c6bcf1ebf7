// Package statement is the dashboard's Statement screen: one row per
// calendar month of the last year — opening, money in, money out, spend,
// closing — with a bar comparing money in with spend, and the selected
// month's payment records (enter). The figures are billing's statement,
// reconstructed back from today's credit; the screen only shows them.
//
// The year of payment records and charges is loaded the first time the
// screen is shown (Shown), not at start: forty charges pages would
// otherwise share the one charges budget with the screens a user opens
// first.
package statement

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/shared"
)

// Months is how many months the screen shows: the current one and the
// eleven before it.
const Months = 12

const source = "statement"

// KeyMap lists the screen's bindings.
type KeyMap struct {
	Up, Down, Top, Bottom, Records  key.Binding
	Reload, Copy, Export            key.Binding
	Find, Sort, FindKeep, FindClear key.Binding
	FieldClear                      key.Binding // the find field: empty it
}

// KeyMapOf returns the screen's bindings as b binds them (nil: the
// defaults), from package keymap's one table. The actions it shares with
// the Charges screen follow one binding on both: a user who binds search
// to ctrl+f means it on every list.
func KeyMapOf(b keymap.Bindings) KeyMap {
	k := func(name, desc string) key.Binding { return shared.BindingAs(b, name, desc) }
	return KeyMap{
		Up:      shared.Binding(b, "up"),
		Down:    shared.Binding(b, "down"),
		Top:     k("top", "first month"),
		Bottom:  k("bottom", "this month"),
		Records: shared.Binding(b, "records"),
		Reload:  k("reload", "reload"),
		Copy:    k("copy", "copy the month's row"),
		Export:  k("export", "export to CSV"),
		Find:    k("search", "find records"),
		Sort:    k("sort", "sort records"),
		// Only while the find field has the keyboard.
		FindKeep:   k("search-keep", "keep the filter"),
		FindClear:  k("search-clear", "clear the filter"),
		FieldClear: shared.Binding(b, "field-clear"),
	}
}

// ShortHelp is the one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Records, k.Find, k.Sort, k.Reload, k.Copy, k.Export}
}

// FullHelp groups the bindings.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Top, k.Bottom}, {k.Records, k.Find, k.Sort}, {k.Reload, k.Copy, k.Export}}
}

// Model is the Statement screen.
type Model struct {
	ctx  *shared.Context
	keys KeyMap

	started bool
	from    time.Time // the first month shown
	// The two feeds the statement reads, payment records and charges.
	pf shared.PaymentsFollower
	cf shared.ChargesFollower
	// held: cf is the charges' sync-only feed (billing.SyncFeed), and the
	// charges are read from the ledger each time it ends a sync (spent),
	// never held as rows; a read of gen is in flight while reading.
	held    bool
	spent   *billing.HeldSpent
	spentOf uint64
	reading bool
	ask     int

	credit    money.Amount
	hasCredit bool
	creditErr error              // why the account could not be read
	st        *billing.Statement // nil until both feeds ended and the credit is known
	err       error              // why a feed stopped

	cursor        int // the selected month, 0 the oldest
	open          bool
	width, height int
	// exportDir is where e writes ("": the working folder; tests set it).
	exportDir string

	find    string // the find text; "" when none
	finding bool   // the find field has the keyboard
	// said is what the feeds last put on the status line ("" nothing):
	// settle sends only a change, so an account refresh rebuilding the
	// statement does not wipe a "copied" or "exported" note.
	said      string
	findInput shared.Field
	order     sortOrder
}

// exportedMsg reports an export's end: the path written, or why not.
type exportedMsg struct {
	path string
	err  error
}

// New returns the screen; nothing loads until Shown(true).
func New(ctx *shared.Context) *Model {
	return &Model{ctx: ctx, keys: KeyMapOf(ctx.Keys), cursor: Months - 1}
}

// Init does nothing: the screen loads when first shown.
func (m *Model) Init() tea.Cmd { return nil }

// Shown is called by the root when the screen becomes the active one or
// stops being it; the first time it is shown, the year starts loading.
func (m *Model) Shown(active bool) tea.Cmd {
	if !active || m.started || m.ctx.Billing == nil {
		return nil
	}
	m.started = true
	return m.load(false)
}

// load takes the two feeds (fresh ones on a reload) and asks for all of
// both; the client paces each on its own endpoint's budget, so they load
// side by side.
func (m *Model) load(fresh bool) tea.Cmd {
	svc := m.ctx.Billing
	m.from, _ = billing.LastMonths(m.ctx.Clock(), svc.Location(), Months)
	pq, cq := svc.StatementQueries(m.from)
	m.held, m.spent, m.reading = svc.MayHold(cq), nil, false
	m.ask++
	switch {
	case m.held:
		m.cf.Hold(svc.SyncFeed(cq, fresh))
	case fresh:
		m.cf.Hold(svc.FreshFeed(cq))
	default:
		m.cf.Hold(svc.Feed(cq))
	}
	if fresh {
		m.pf.Hold(svc.FreshPaymentsFeed(pq))
	} else {
		m.pf.Hold(svc.PaymentsFeed(pq))
	}
	m.pf.WantAll()
	m.cf.WantAll()
	m.st, m.err = nil, nil
	return m.follow()
}

// follow takes the feeds' states now and listens for their next changes.
// The statement reads every page from the feeds once both have ended
// (StatementOf): only their states are followed.
func (m *Model) follow() tea.Cmd {
	m.pf.Next()
	m.cf.Next()
	return tea.Batch(m.pf.Listen(m.ctx.Base), m.cf.Listen(m.ctx.Base))
}

// Update handles the feeds, the account and the keys.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case shared.FeedMsg:
		if !m.pf.Heard(msg) && !m.cf.Heard(msg) {
			return nil
		}
		cmd := m.follow()
		if m.held {
			if st := m.cf.State(); st.Err != nil && billing.LedgerUnavailable(st.Err) {
				return tea.Batch(cmd, m.unhold())
			}
		}
		return tea.Batch(m.settle(), cmd)
	case spentMsg:
		return m.onSpent(msg)
	case shared.UserMsg:
		credit, err := msg.User.Credit, msg.Err
		if err == nil {
			credit, err = billing.CreditOf(msg.User)
		}
		switch {
		case err == nil:
			m.credit, m.hasCredit, m.creditErr = credit, true, nil
		case errors.Is(err, billing.ErrNoCredit):
			// A record without a credit figure: the months, which run back
			// from it, are not shown, not even those built on an earlier one.
			m.hasCredit, m.creditErr, m.st = false, err, nil
		default:
			m.creditErr = err
		}
		return m.settle()
	case tea.KeyPressMsg:
		if m.finding {
			return m.updateFind(msg)
		}
		return m.key(msg)
	case exportedMsg:
		if msg.err != nil {
			return shared.SetStatus(source, shared.StatusError, "export failed: "+m.ctx.ErrorText(msg.err), 0)
		}
		return shared.SetStatus(source, shared.StatusOK, "exported the statement to "+shared.Safe(msg.path), 5*time.Second)
	}
	return nil
}

// exportCmd is e: the months shown, in the format of `vastdash statement
// --output csv`, to vastdash-statement-FROM..TO.csv (0600, never over an
// existing file). An incomplete statement is not written: a file would be
// silently short.
func (m *Model) exportCmd() tea.Cmd {
	switch {
	case m.st == nil:
		return shared.SetStatus(source, shared.StatusInfo, "nothing to export yet: the year is loading", 5*time.Second)
	case m.st.Incomplete:
		return shared.SetStatus(source, shared.StatusError, "not exported: some months are incomplete ("+m.ctx.Key("reload")+" to reload, then "+m.ctx.Key("export")+")", 0)
	}
	st, dir := *m.st, m.exportDir
	name := "vastdash-statement-" + st.Months[0].Label() + ".." + st.Months[len(st.Months)-1].Label() + ".csv"
	return func() tea.Msg {
		path, err := export.ToFile(dir, name, func(w io.Writer) error { return export.WriteStatementCSV(w, st) })
		return exportedMsg{path: path, err: err}
	}
}

// copyRow is y: the selected month's figures, tab-separated (a spreadsheet
// pastes them as cells), by OSC 52.
func (m *Model) copyRow() tea.Cmd {
	if m.st == nil || m.cursor >= len(m.st.Months) {
		return nil
	}
	mo := m.st.Months[m.cursor]
	row := strings.Join([]string{mo.Label(), mo.Opening.Decimal(), mo.MoneyIn.Decimal(), mo.MoneyOut.Decimal(),
		mo.Spend.Decimal(), mo.Closing.Decimal()}, "\t")
	return tea.Batch(tea.SetClipboard(row),
		shared.SetStatus(source, shared.StatusOK, "copied "+mo.Label()+" (opening, in, out, spend, closing) to the clipboard", 5*time.Second))
}

// settle builds the statement once both feeds have ended (done or
// stopped) and the credit is known, and says a failure on the status line.
func (m *Model) settle() tea.Cmd {
	// A feed with the ledger's rows of the whole year is as good as done
	// until its sync says otherwise: the statement shows at once.
	ended := func(st billing.State) bool { return st.Whole() || st.Err != nil }
	pst, cst := m.pf.State(), m.cf.State()
	if !m.started || !ended(pst) || !ended(cst) {
		return nil
	}
	if m.held && cst.Whole() && (m.spent == nil || m.spentOf != cst.Generation) {
		// The ledger holds the year: its charges are read before the
		// statement is built (again after each sync).
		if cmd := m.readSpent(cst.Generation); cmd != nil || m.spent == nil {
			return cmd
		}
	}
	if !m.hasCredit {
		if m.creditErr == nil {
			return nil // the account is on its way
		}
		// The months run back from the credit: without it there is no
		// statement to show.
		m.err = fmt.Errorf("the statement runs back from the credit, which could not be read: %w", m.creditErr)
		return m.feedStatus(shared.StatusError, m.ctx.RetryText("statement", m.err))
	}
	m.err = errors.Join(pst.Err, cst.Err)
	if shared.Permission(m.err) != "" || shared.Refused(m.err) {
		// Not a figure of the year could be read: no months of $0.000
		// drawn as if they were; the permission is said in their place.
		m.st = nil
		return m.feedStatus(shared.StatusError, m.ctx.RetryText("statement", m.err))
	}
	var st billing.Statement
	if m.held && m.spent != nil {
		st = m.ctx.Billing.StatementOfHeld(m.pf.Feed(), m.spent, cst, m.credit, m.from, m.ctx.Clock())
	} else {
		// Without the ledger's charges (a sync feed that failed before
		// the ledger held the year has none: the months read incomplete).
		st = m.ctx.Billing.StatementOf(m.pf.Feed(), m.cf.Feed(), m.credit, m.from, m.ctx.Clock())
	}
	m.st = &st
	m.cursor = min(m.cursor, len(st.Months)-1)
	switch {
	case m.err != nil:
		return m.feedStatus(shared.StatusError, m.ctx.RetryText("statement", m.err))
	case len(st.Warnings) > 0:
		// What the feeds skipped is left out of the figures: said as the
		// commands say it.
		return m.feedStatus(shared.StatusWarn, strings.Join(st.Warnings, "; "))
	case !pst.Done || !cst.Done:
		return m.feedStatus(shared.StatusInfo, "the year from the ledger, "+oldestSync(m.ctx.Clock(), pst, cst)+" · syncing…")
	}
	return m.feedStatus(shared.StatusInfo, "")
}

// feedStatus puts what the feeds say on the status line when it changed.
func (m *Model) feedStatus(kind shared.StatusKind, text string) tea.Cmd {
	if text == m.said {
		return nil
	}
	m.said = text
	return shared.SetStatus(source, kind, text, 0)
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(msg, m.keys.Down):
		m.cursor = min(m.cursor+1, Months-1)
	case key.Matches(msg, m.keys.Top):
		m.cursor = 0
	case key.Matches(msg, m.keys.Bottom):
		m.cursor = Months - 1
	case key.Matches(msg, m.keys.Records):
		m.open = !m.open
	case key.Matches(msg, m.keys.Copy):
		return m.copyRow()
	case key.Matches(msg, m.keys.Find):
		m.open = true
		return m.openFind()
	case m.find != "" && key.Matches(msg, m.keys.FindClear):
		// A kept filter clears with esc, as on the Charges rows.
		m.find = ""
	case key.Matches(msg, m.keys.Sort):
		m.open = true
		m.order = (m.order + 1) % numOrders
	case key.Matches(msg, m.keys.Export):
		return m.exportCmd()
	case key.Matches(msg, m.keys.Reload):
		if m.ctx.Billing == nil {
			return nil
		}
		m.started = true
		if m.err != nil && m.pf.Held() {
			// Resume where each feed stopped (a refused token pages
			// again from the first page).
			m.pf.Retry()
			m.cf.Retry()
			m.st, m.err = nil, nil
			return tea.Batch(m.follow(), m.feedStatus(shared.StatusInfo, ""))
		}
		return m.load(true)
	}
	return nil
}

// SetSize gives the screen its area.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Help lists the screen's bindings; while the find field is open, only
// its own.
func (m *Model) Help() help.KeyMap {
	if m.finding {
		return findHelp{m.keys}
	}
	if m.find != "" {
		return keptHelp{m.keys}
	}
	return m.keys
}

// keptHelp is the help while a find text is kept: esc clears it.
type keptHelp struct{ k KeyMap }

func (h keptHelp) ShortHelp() []key.Binding {
	return slices.Insert(h.k.ShortHelp(), 4, h.k.FindClear) // after find
}

func (h keptHelp) FullHelp() [][]key.Binding {
	g := h.k.FullHelp()
	g[1] = append(g[1], h.k.FindClear)
	return g
}

// findHelp is the help while the find field has the keyboard.
type findHelp struct{ k KeyMap }

func (h findHelp) ShortHelp() []key.Binding {
	return []key.Binding{h.k.FindKeep, h.k.FindClear, h.k.FieldClear}
}

func (h findHelp) FullHelp() [][]key.Binding { return [][]key.Binding{h.ShortHelp()} }

// Capturing reports that the find field has the keyboard.
func (m *Model) Capturing() bool { return m.finding }

// Loading reports that a feed is loading.
func (m *Model) Loading() bool { return m.started && m.st == nil && m.err == nil && m.pf.Held() }

// Statement is the statement shown, nil while loading (tests).
func (m *Model) Statement() *billing.Statement { return m.st }

// progress reads "payments 1 of 2 · charges 4 of 12".
func (m *Model) progress() string {
	return billing.StatementProgress{Payments: m.pf.State(), Charges: m.cf.State()}.String()
}

// recordLine is one payment record for the list under the months. Its
// date is the one short form (shared.Context.When), which carries the
// year, in place of the time, when it is not this year's: the months reach
// back into last year, and "29 Dec" alone read as this December, still to
// come.
func (m *Model) recordLine(in *api.Invoice) (when, what, amount, note string) {
	t := in.Paid
	if in.Pending() {
		t = in.Created
	}
	when = shared.PadLeft(m.ctx.When(time.Unix(t, 0)), 12) // "26 Nov 08:02", " 7 Oct 22:34"
	what = shared.Safe(in.Type) + " · " + shared.Safe(in.Source) + " · " + shared.Safe(in.Description)
	if e, known := billing.Effect(in); known {
		amount = e.String()
	}
	return when, what, amount, billing.StandingOf(in, m.ctx.Clock()).Note()
}

// itoa is strconv.Itoa, for the view.
func itoa(n int) string { return strconv.Itoa(n) }

// oldestSync is the SyncedText of the feed synced longest ago.
func oldestSync(now time.Time, sts ...billing.State) string {
	old := sts[0]
	for _, st := range sts[1:] {
		if st.Synced.Before(old.Synced) {
			old = st
		}
	}
	return old.SyncedText(now)
}

// spentMsg is a read of the statement's charges from the ledger: ok false
// when the ledger does not hold them.
type spentMsg struct {
	ask int
	gen uint64
	h   *billing.HeldSpent
	ok  bool
	err error
}

// readSpent reads the charges of the sync feed's query from the ledger,
// off the UI goroutine; nil while a read is in flight (its answer settles
// again).
func (m *Model) readSpent(gen uint64) tea.Cmd {
	if m.reading {
		return nil
	}
	m.reading = true
	svc, q, ask := m.ctx.Billing, m.cf.Feed().Query(), m.ask
	ctx := m.ctx.Base
	if ctx == nil {
		ctx = context.Background()
	}
	return func() tea.Msg {
		h, ok, err := svc.ReadSpent(ctx, q)
		if ctx.Err() != nil {
			err = ctx.Err() // SQLite says it was interrupted
		}
		return spentMsg{ask: ask, gen: gen, h: h, ok: ok, err: err}
	}
}

// onSpent takes a read of the charges: the statement is built on it, or,
// when the ledger cannot answer for a year whose sync has ended, the
// screen reads the full feed.
func (m *Model) onSpent(msg spentMsg) tea.Cmd {
	if msg.ask != m.ask || !m.held {
		return nil
	}
	m.reading = false
	switch {
	case errors.Is(msg.err, context.Canceled):
		return nil // the program is ending: nothing failed
	case msg.err != nil || (!msg.ok && m.cf.State().Done):
		return m.unhold()
	case !msg.ok:
		return nil // the sync's end asks again
	}
	m.spent, m.spentOf = msg.h, msg.gen
	return m.settle()
}

// unhold gives up the ledger's charges for the full feed of the year.
func (m *Model) unhold() tea.Cmd {
	q := m.cf.Feed().Query()
	m.held, m.spent, m.reading = false, nil, false
	m.ask++
	m.cf.Hold(m.ctx.Billing.Feed(q))
	m.cf.WantAll()
	return m.cf.Listen(m.ctx.Base)
}
