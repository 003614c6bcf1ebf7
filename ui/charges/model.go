// Package charges is the Charges screen of vastdash: the charges report as a
// lazily loaded, virtualized tree with date-range, type, format and order
// filters.
//
// The screen loads nothing itself. It holds the billing layer's feed of its
// filters (billing.Feed), asks it for one page more as the cursor nears the
// end, and folds in whatever pages the feed has when a shared.FeedMsg says it
// changed. The feed owns the pager, the pacing, the 429 waits and the restart
// after a refused page token, and is shared: with the default filters the
// Overview reads the same feed, so pages either screen made it load show on
// both. Only the rows on screen are formatted, so scrolling costs the same
// with a hundred contracts loaded as with a hundred thousand. With the
// ledger it holds the filters' sync feed instead (billing.Service.SyncFeed:
// the ledger kept synced, no rows), and reads the rows of a range the
// ledger holds whole a window at a time from the ledger (window.go).
//
// Over the rows: / finds (find.go), s sorts (sort.go), i opens the detail
// pane (detail.go), y copies a source (copy.go) and e exports what is shown
// as CSV through package export, the writer of `vastdash charges --output
// csv` (export.go). The find filter and the sort never copy or reorder the
// loaded pages: they rebuild the list of visible rows from them.
package charges

import (
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// statusSource names the screen's status lines.
const statusSource = "charges"

// noticeTTL is how long a one-off notice (a search's outcome, a restarted
// pagination, dropped entries) stays on the status line. The conditions
// that last (a failed page, a rate-limit wait, a search under way) stay
// until they end.
const noticeTTL = 10 * time.Second

// errNoService is the screen's error when it was built without a billing
// layer (a misconfigured test).
var errNoService = shared.ErrNoService

// status is one status line as the screen last asked the root for it.
type status struct {
	kind shared.StatusKind
	text string
	ttl  time.Duration
}

// Model is the Charges screen. It implements shared.Screen. Create it with
// New; the zero value is not usable.
type Model struct {
	ctx  *shared.Context
	keys KeyMap
	f    filters

	// Keyboard focus: rows, the custom range input or the type picker.
	mode      mode
	input     shared.Field
	inputErr  string
	pick      [3]bool
	pickFocus int

	// The find filter (/): find is the text in use ("" for none), findLow
	// its lower case; matchN and matchAmt count and sum the entries it
	// keeps (matchOver: the sum overflowed).
	findInput shared.Field
	find      string
	findLow   string
	matchN    int
	matchAmt  money.Amount
	matchOver bool

	// The detail pane (i): the node shown, its source or its nearest
	// ancestor's, and how far it is scrolled.
	detailN   *api.Charge
	detailSrc string
	detailOff int

	// exporting is set while e waits for the rest of the range;
	// exportDir is the folder written to ("" is the current one; tests set
	// it).
	exporting bool
	exportDir string

	// asOf is when the screen took its feed: the rows are the charges as
	// of then, so "running" and "this year" are judged against it (see
	// running), not against a clock that moves while the rows do not.
	asOf time.Time

	// sort is the order of the top-level entries (s); sorted says the
	// rows are in it (a sort needing the whole range waits for it).
	sort   sortKind
	sorted bool
	// quietSort: the sort was remembered from the last run, not asked
	// for now; it lands without a "sorted by" on the status line.
	quietSort bool

	// fl follows the feed of the current filters: the pages it took are
	// folded into the rows, and its state as taken is what the body and
	// footer show.
	fl shared.ChargesFollower

	// Loaded data: the feed's pages, shared and read-only; rows point into
	// them.
	pages  [][]api.Charge
	tree   *tree
	totals spend.Totals
	amtW   int // widest top-level amount loaded
	idW    int // widest id column the loaded rows need, nesting included
	cache  rowCache

	// Viewport.
	w, h           int
	cursor, offset int
	follow         bool // G pressed: the cursor stays on the last row as pages arrive

	// seek is the source Reveal is loading pages to find ("" when not
	// searching); notice is a one-off status line ("instance-5 is not in the
	// current filters"), dropped by the next key or filter change.
	seek       string
	seekWhat   string          // what the user chose, when not seek itself (RevealMsg.What)
	seekEP     int64           // an endpoint: any of its workers' rows will do
	seekQuiet  bool            // the search is r's, keeping the cursor row: no status line
	reopen     map[string]bool // after r: the sources whose rows were open
	notice     string
	noticeKind shared.StatusKind
	noticeNew  bool   // the notice was set again: send it even if unchanged
	warned     string // the feed's warnings already noticed
	// failSaid: the ledger's failure was said (leaveWindow): the note the
	// feed then carries among its warnings says it again, not shown.
	failSaid  bool
	restarted bool   // the feed's restart already noticed
	sent      status // the status line last sent to the root

	// win is the window read from the ledger (window.go), nil while the
	// screen reads the feed; winAsk numbers the asks for one, so that only
	// the last one's answer is taken. winDue asks for a new reader at the
	// next settle, winRequery for the one held in a new order or find;
	// winOff: the ledger failed, or a find it cannot match, so the feed
	// is read until the filters change. winOpen are the sources left open
	// when the window replaced the feed's rows.
	win        *window
	winAsk     int
	winDue     bool
	winRequery bool
	winOff     bool
	winOpen    map[string]bool

	// syncOnly: the feed held is the filters' sync feed (billing's
	// SyncFeed), which keeps the ledger synced and holds no rows: the rows
	// are read through the window only. syncGen is the sync feed's
	// generation the last window asked for without a window was made
	// for (each new one, the first sync's end included, asks again).
	syncOnly bool
	syncGen  uint64

	// saved is the state (filters and sort) last written to the state
	// file or read from it (state.go).
	saved config.State

	defStyles *theme.Styles
}

var _ shared.Screen = (*Model)(nil)

// New returns the Charges screen reading ctx. The filters start at
// ctx.DefaultRange (30d when unset), every type, table format, newest first.
// Nothing is fetched until Init.
func New(ctx *shared.Context) *Model {
	m := &Model{
		ctx:    ctx,
		keys:   KeyMapOf(ctx.Keys),
		tree:   newTree(),
		sorted: true, // the server's order needs nothing
	}
	m.f.preset = m.defaultPreset()
	m.f.rng, _ = billing.PresetRange(m.f.preset, m.ctx.Clock(), m.ctx.Loc())
	m.f.format = api.FormatTable
	m.restore()
	return m
}

func (m *Model) styles() *theme.Styles {
	if m.ctx.Styles != nil {
		return m.ctx.Styles
	}
	if m.defStyles == nil {
		m.defStyles = theme.New(true)
	}
	return m.defStyles
}

// Init takes the feed of the current filters and asks it for the first
// page. The root reads the range the filters start with (Range) as the
// dashboard's range, and sets it on the Overview, which then loads the
// same feed.
func (m *Model) Init() tea.Cmd {
	notice, kind := m.notice, m.noticeKind // restore's, which attach drops
	m.attach(m.takeFeed(false))
	m.winDue = true
	m.resume()
	if notice != "" {
		m.setNotice(kind, notice)
	}
	return m.settle()
}

// SetRange is the root setting the dashboard's range: the filters take it
// (a preset stays a preset) and the rows follow. The same range changes
// nothing.
func (m *Model) SetRange(r spend.Range) tea.Cmd {
	if sameRange(m.f.rng, r) {
		return nil
	}
	f := m.f
	f.preset, f.rng = r.Preset, r
	m.setFilters(f)
	return m.settle()
}

// Shown does nothing: the rows load from the start, shown or not.
func (m *Model) Shown(bool) tea.Cmd { return nil }

// Totals returns the totals of the loaded top-level entries, kept up to date
// as pages arrive. The maps are copies.
func (m *Model) Totals() spend.Totals {
	t := m.totals
	t.ByType = maps.Clone(t.ByType)
	t.ByItem = maps.Clone(t.ByItem)
	return t
}

// Range returns the current date range. The root reads it as the
// dashboard's range at start (the filters restored from the state file)
// and after each key or click it hands the screen (the range picker's
// choice): read at once, in order, rather than sent as a message that a
// later choice could overtake.
func (m *Model) Range() spend.Range { return m.f.rng }

// Complete reports that every page of the current filters has been loaded.
func (m *Model) Complete() bool { return m.fl.State().Done }

// Query returns the current filters as the API query of the screen's feed.
func (m *Model) Query() api.ChargesQuery { return m.f.query() }

// Err returns why the feed stopped before its end, or nil.
func (m *Model) Err() error { return m.fl.State().Err }

// Capturing reports that a text field (the custom range or the find field)
// has the keyboard: q and the digits are typed into it.
func (m *Model) Capturing() bool { return m.mode == modeInput || m.mode == modeFind }

// Loading reports that the feed is loading: a request in flight or a
// rate-limit wait. It asks the feed itself, so the header's spinner starts
// the moment the screen asks for a page and stops the moment the feed is
// idle.
func (m *Model) Loading() bool { return m.fl.Loading() }

// Help returns the bindings of the current mode.
func (m *Model) Help() help.KeyMap {
	k := m.keys
	k.mode = m.mode
	return k
}

// SetSize gives the screen its area and keeps the cursor visible.
func (m *Model) SetSize(width, height int) {
	m.w, m.h = max(width, 0), max(height, 0)
	m.scrollToCursor()
}

// takeFeed takes the feed of the current filters; fresh asks for a new one
// that starts from the first page (r). nil without a billing layer.
//
// Where a window may read the rows (a table, the ledger not failed), it
// is the sync feed: the ledger kept synced, no rows held, whatever the
// range holds. Without a ledger (none, given up, --no-ledger) the sync
// feed stops the moment it is started, on an error
// billing.LedgerUnavailable recognises, and the full feed is taken
// instead: the screen reads as it always has. A ledger that fails later
// stops it the same way, and the next settle takes the full feed
// (leaveWindow).
func (m *Model) takeFeed(fresh bool) *billing.Feed {
	m.syncOnly = false
	if m.ctx.Billing == nil {
		return nil
	}
	q := m.f.query()
	if windowOn && !m.winOff && m.f.format != api.FormatTree {
		sf := m.ctx.Billing.SyncFeed(q, fresh)
		sf.WantAll()
		if err := sf.State().Err; err == nil || !billing.LedgerUnavailable(err) {
			m.syncOnly = true
			return sf
		}
		sf.Release()
	}
	if fresh {
		return m.ctx.Billing.FreshFeed(q)
	}
	return m.ctx.Billing.Feed(q)
}

// attach drops everything shown, releases the feed held (its loader stops
// unless another screen holds it too) and starts following f from its
// beginning (a nil f, without a billing layer, says so rather than
// "loading" forever). Pages f already holds (the Overview loaded them) are
// folded at the next settle.
func (m *Model) attach(f *billing.Feed) {
	m.fl.Hold(f)
	m.clear()
}

// clear drops every row shown and what was built from them, for a new
// feed or the feed's entries replaced as a whole.
func (m *Model) clear() {
	m.asOf = m.ctx.Clock()
	m.pages = nil
	if m.mode == modeDetail {
		m.mode = modeTree // its node is being dropped
	}
	m.detailN = nil
	m.tree.Reset()
	m.cache.reset()
	m.totals = spend.Totals{}
	m.amtW, m.idW = 0, 0
	m.matchN, m.matchAmt, m.matchOver = 0, 0, false
	m.cursor, m.offset, m.follow = 0, 0, false
	m.seek, m.notice, m.noticeNew = "", "", false
	m.seekQuiet, m.reopen = false, nil
	m.warned, m.restarted, m.failSaid = "", false, false
	m.exporting = false // the range it was for is gone
	m.sorted = m.sort == sortServer
}

// setFilters applies f: a new query takes its feed.
func (m *Model) setFilters(f filters) {
	old := m.f
	m.f = f
	if !old.query().Equal(f.query()) {
		m.win, m.winOff, m.winDue = nil, false, true
		m.attach(m.takeFeed(false))
	}
}

func sameRange(a, b spend.Range) bool {
	return a.From.Equal(b.From) && a.To.Equal(b.To) && a.Preset == b.Preset && a.Open == b.Open
}

// settle ends every update: it asks the feed for what the screen now needs,
// folds what has arrived, listens for the next change and sends the status
// line if it changed. cmds are the update's own commands.
func (m *Model) settle(cmds ...tea.Cmd) tea.Cmd {
	if m.syncOnly {
		m.fl.WantAll() // the sync, started or going on; never a row
		m.fl.Next()
		if err := m.fl.State().Err; err != nil && billing.LedgerUnavailable(err) {
			// No ledger (none, given up, --no-ledger): the full feed,
			// which says the ledger's note among its warnings.
			m.leaveWindow("")
		}
	} else if m.win != nil {
		// A window stands on the sync feed alone: r took the full one
		// (the ledger was given up since).
		m.leaveWindow("")
	}
	if m.win != nil {
		return m.settleWindow(cmds)
	}
	if m.syncOnly {
		return m.settleSync(cmds)
	}
	if m.winDue {
		m.winDue = false
		cmds = append(cmds, m.askWindow(true, false, nil, m.seek)) // the kept cursor, a Reveal
	}
	m.sync() // what the screen wants depends on the rows it has
	for {
		m.want()
		if !m.sync() {
			break
		}
		// The page came at once, and may leave the cursor (following the
		// end, or a search) still short of what it needs: ask again.
	}
	m.sortDue()
	m.scrollToCursor()
	m.keepCursor()
	cmds = append(cmds, m.exportDue(), m.remember())
	return tea.Batch(append(cmds, m.listen(), m.statusCmd())...)
}

// want asks the feed for one page more when the screen needs it: a Reveal
// search is under way, or the cursor is within one screen of the last row
// (G keeps it on the last row, so it keeps loading). After a failure it
// waits for r.
//
// It asks for one entry beyond the rows the screen holds (Feed.Want) rather
// than one page beyond what the feed holds (Feed.More): a page may have
// arrived that the screen has not folded yet, and asking again then would
// load a page nobody is near.
func (m *Model) want() {
	if st := m.fl.State(); !m.fl.Held() || st.Err != nil || st.Done || st.Closed {
		return
	}
	if m.exporting || m.sort != sortServer {
		m.fl.WantAll() // the file, or the sort, needs every page
		return
	}
	if m.seek != "" || m.tree.Len()-1-m.cursor <= m.frame().body {
		m.fl.Want(m.fl.Entries() + 1)
	}
}

// sync folds the pages the feed has added since the last sync, exactly up
// to the state it reads (Follower.Next), so the footer's counts always
// match the rows. It reports whether rows were added.
func (m *Model) sync() bool {
	pages, renewed, changed := m.fl.Next()
	if !changed {
		return false
	}
	if renewed {
		// The feed's entries were replaced as a whole (the ledger's rows
		// read again after a sync brought something new): fold them again
		// from the first, keeping the open rows and the cursor's contract.
		m.refold()
	}
	for _, p := range pages {
		m.fold(p)
	}
	st := m.fl.State()
	if st.Restarted && !m.restarted {
		m.restarted = true
		m.setNotice(shared.StatusWarn, noticeRestarted)
	}
	m.noticeWarnings(st)
	if st.Done {
		m.follow = false
		if m.seek != "" {
			m.notFound(m.seek)
		}
	}
	return len(pages) > 0
}

// noticeWarnings says the feed's warnings (what it dropped, the ledger's
// note) on the status line once, when they changed.
func (m *Model) noticeWarnings(st billing.State) {
	ws := st.Warnings()
	if m.failSaid {
		ws = slices.DeleteFunc(ws, func(w string) bool { return w == st.LedgerNote })
	}
	if w := strings.Join(ws, "; "); w != m.warned {
		m.warned = w
		if w != "" {
			m.setNotice(shared.StatusWarn, w)
		}
	}
}

// fold appends one page of the feed to the rows.
func (m *Model) fold(res []api.Charge) {
	onLast := m.tree.Len() == 0 || m.cursor == m.tree.Len()-1
	m.pages = append(m.pages, res)
	if m.find == "" {
		m.tree.AppendTop(res)
		m.matchN += len(res)
		m.reopenRows(len(res))
	} else {
		kept := m.keptOf(res)
		m.tree.AppendNodes(kept)
		m.countMatches(kept)
		m.reopenRows(len(kept))
	}
	m.totals.Add(res)
	for i := range res {
		m.amtW = max(m.amtW, amountWidth(res[i].Amount))
		m.idW = max(m.idW, idWidth(&res[i], 0))
	}
	if m.follow && onLast {
		m.cursor = m.tree.Len() - 1
	}
	if m.seek != "" {
		m.revealNew(res)
	}
}

// listen returns a command waiting for the feed's next change, unless one
// is pending or nothing will change.
func (m *Model) listen() tea.Cmd {
	return m.fl.Listen(m.ctx.Base) // a nil Base is the background
}

// noticeRestarted is the notice after the feed paged again from the first
// page because the server refused its page token.
const noticeRestarted = "pagination restarted: the server refused its page token; rows shown are kept"

// setNotice shows a one-off notice on the status line.
func (m *Model) setNotice(kind shared.StatusKind, text string) {
	m.notice, m.noticeKind, m.noticeNew = text, kind, true
}

// wantedStatus is the status line the screen's state calls for: a failed
// page or the rate-limit wait while rows are shown (without rows the body
// says it), a search under way, else the last notice.
func (m *Model) wantedStatus() status {
	switch {
	case m.tree.Len() > 0 && m.fl.State().Err != nil:
		return status{kind: shared.StatusError, text: m.errText(m.fl.State().Err)}
	case m.exporting:
		// Before the wait: e is answered at once, the wait said with it.
		return status{kind: shared.StatusInfo, text: m.exportStatus()}
	case m.tree.Len() > 0 && m.waiting():
		return status{kind: shared.StatusWarn, text: msgRateWait}
	case m.seek != "" && !m.seekQuiet:
		return status{kind: shared.StatusInfo, text: "looking for " + shared.Safe(cmp.Or(m.seekWhat, m.seek)) + "…"}
	case m.sortStatus() != "":
		return status{kind: shared.StatusInfo, text: m.sortStatus()}
	case m.notice != "":
		return status{kind: m.noticeKind, text: m.notice, ttl: noticeTTL}
	}
	return status{}
}

// statusCmd sends the status line when it changed since the last one sent
// (or a notice was set again), so the root hears of each change once.
func (m *Model) statusCmd() tea.Cmd {
	s := m.wantedStatus()
	if s == m.sent && !m.noticeNew {
		return nil
	}
	m.sent, m.noticeNew = s, false
	return shared.SetStatus(statusSource, s.kind, s.text, s.ttl)
}

// waiting reports a rate-limit wait of the feed in progress.
func (m *Model) waiting() bool { return m.fl.State().Loading && !m.fl.State().WaitUntil.IsZero() }

// reload is r: after a failure the feed asks for the failed page again,
// keeping the rows loaded (after a refused page token it pages again from
// the first page by itself); otherwise the screen starts over with a fresh
// feed.
func (m *Model) reload() {
	if m.fl.Held() && m.fl.Feed().State().Err != nil {
		m.fl.Retry()
		return
	}
	if m.win != nil {
		// The rows are the ledger's: a fresh feed syncs it, and its new
		// generation reads the window again around the cursor.
		m.fl.Hold(m.takeFeed(true))
		return
	}
	m.winOff, m.winDue = false, true
	// Start over, then put back what the user had: the rows that were
	// open open again as their pages arrive, and the cursor goes back to
	// its contract (loading up to its page, as Reveal does, but quietly).
	open := m.openSources()
	at := ""
	if m.tree.Len() > 0 {
		at = m.sourceOf(m.cursor)
	}
	m.attach(m.takeFeed(true))
	m.reopen = open
	m.seek, m.seekQuiet = at, at != ""
	m.seekWhat, m.seekEP = "", 0
}

// refold starts the rows again from the feed held, as reload does from a
// new one: the rows that were open open again and the cursor goes back to
// its contract.
func (m *Model) refold() {
	open := m.openSources()
	at := ""
	if m.tree.Len() > 0 {
		at = m.sourceOf(m.cursor)
	}
	m.clear()
	m.reopen = open
	m.seek, m.seekQuiet = at, at != ""
	m.seekWhat, m.seekEP = "", 0
}

// openSources lists the sources of the open rows.
func (m *Model) openSources() map[string]bool {
	open := map[string]bool{}
	m.tree.rows.Each(0, m.tree.Len(), func(_ int, r *row) bool {
		if r.expanded && r.node.Source != "" {
			open[r.node.Source] = true
		}
		return true
	})
	return open
}

// reopenRows opens again, after r, the rows among the last n top-level rows
// (just appended) whose sources were open before.
func (m *Model) reopenRows(n int) {
	if len(m.reopen) == 0 || n == 0 {
		return
	}
	last := m.tree.Len() - 1
	for i := last; i > last-n; i-- {
		markOpen(m.tree, m.tree.At(i).node, m.reopen)
	}
	// From the end backwards, so each Expand leaves the rows still to do
	// where they were.
	for i := last; i > last-n; i-- {
		if m.tree.open[m.tree.At(i).node] {
			m.tree.Expand(i)
		}
	}
}

// markOpen records in t's open-node memory every node under n (n too)
// whose source is in open, so that Expand shows them open.
func markOpen(t *tree, n *api.Charge, open map[string]bool) {
	if len(n.Items) == 0 {
		return
	}
	if n.Source != "" && open[n.Source] {
		t.open[n] = true
	}
	for i := range n.Items {
		markOpen(t, &n.Items[i], open)
	}
}

// Update handles a message and returns the next command.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case shared.FeedMsg:
		if !m.fl.Heard(msg) {
			return nil // a feed the screen no longer holds, or never did
		}
	case tea.KeyPressMsg:
		switch m.mode {
		case modeInput:
			cmd = m.updateInput(msg)
		case modePicker:
			cmd = m.updatePicker(msg)
		case modeFind:
			cmd = m.updateFind(msg)
		case modeDetail:
			cmd = m.updateDetail(msg)
		default:
			cmd = m.onKey(msg)
		}
	case tea.MouseClickMsg:
		m.click(msg)
	case tea.MouseWheelMsg:
		if m.mode == modeTree {
			switch msg.Button {
			case tea.MouseWheelUp:
				m.move(-3)
			case tea.MouseWheelDown:
				m.move(3)
			}
		}
	case stateSavedMsg:
		m.setNotice(shared.StatusWarn, "filters not remembered: "+msg.err.Error())
	case windowMsg:
		m.onWindow(msg)
	case windowPageMsg:
		m.onWindowPage(msg)
	case exportedMsg:
		// Said even when the filters changed since: the file exists.
		m.exported(msg)
	case tea.WindowSizeMsg:
		// The root sizes us through SetSize; a bigger window may now show
		// the end of the list, which calls for the next page.
	default:
		// Paste and the cursor's blink reach the open text field.
		switch m.mode {
		case modeInput:
			cmd = m.updateInput(msg)
		case modeFind:
			cmd = m.updateFind(msg)
		default:
			return nil // nothing the screen shows depends on it
		}
	}
	return m.settle(cmd)
}

// onKey handles a key while the rows have the keyboard. Any key but r ends
// a Reveal search (the user has taken over; r retries the page the search
// stopped at) and every key clears the notice.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	m.notice = ""
	if !key.Matches(k, m.keys.Reload) {
		m.seek = ""
	}
	body := max(m.frame().body, 1)
	switch {
	case key.Matches(k, m.keys.Up):
		m.move(-1)
	case key.Matches(k, m.keys.Down):
		m.move(1)
	case key.Matches(k, m.keys.PageUp):
		m.move(-body)
	case key.Matches(k, m.keys.PageDown):
		m.move(body)
	case key.Matches(k, m.keys.HalfUp):
		m.move(-max(body/2, 1))
	case key.Matches(k, m.keys.HalfDown):
		m.move(max(body/2, 1))
	case key.Matches(k, m.keys.Home) && m.win != nil:
		return m.windowEnd(false)
	case key.Matches(k, m.keys.End) && m.win != nil:
		return m.windowEnd(true)
	case key.Matches(k, m.keys.Home):
		m.move(-m.cursor)
	case key.Matches(k, m.keys.End):
		m.move(m.tree.Len() - 1 - m.cursor)
		m.follow = !m.fl.State().Done
	case key.Matches(k, m.keys.Toggle):
		if m.tree.Len() > 0 && !m.tree.Collapse(m.cursor) {
			m.tree.Expand(m.cursor)
		}
	case key.Matches(k, m.keys.Expand):
		if m.tree.Len() > 0 && !m.tree.Expand(m.cursor) && m.tree.At(m.cursor).expanded {
			m.move(1) // already open: step onto the first child
		}
	case key.Matches(k, m.keys.Collapse):
		if m.tree.Len() > 0 && !m.tree.Collapse(m.cursor) {
			if p := m.tree.Parent(m.cursor); p >= 0 {
				m.move(p - m.cursor)
			}
		}
	case key.Matches(k, m.keys.RangeNext):
		return m.cycleRange(1)
	case key.Matches(k, m.keys.RangePrev):
		return m.cycleRange(-1)
	case key.Matches(k, m.keys.CustomRange):
		return m.openInput()
	case key.Matches(k, m.keys.Types):
		m.openPicker()
	case key.Matches(k, m.keys.Format):
		f := m.f
		f.format = api.FormatTree
		if m.f.format == api.FormatTree {
			f.format = api.FormatTable
		}
		m.setFilters(f)
	case key.Matches(k, m.keys.Order):
		f := m.f
		f.oldest = !f.oldest
		m.setFilters(f)
	case key.Matches(k, m.keys.Reload):
		m.reload()
	case key.Matches(k, m.keys.Find):
		return m.openFind()
	case key.Matches(k, m.keys.FindClear) && m.find != "":
		m.setFind("")
	case key.Matches(k, m.keys.Info):
		m.openDetail()
	case key.Matches(k, m.keys.Copy):
		return m.copySource()
	case key.Matches(k, m.keys.Export):
		return m.startExport()
	case key.Matches(k, m.keys.Sort):
		m.cycleSort()
	}
	return nil
}

// move shifts the cursor by delta rows (clamped) and ends follow mode and
// any search; settle then asks for the next page if the end came near.
func (m *Model) move(delta int) {
	m.follow, m.seek = false, ""
	if n := m.tree.Len(); n > 0 {
		m.cursor = min(max(m.cursor+delta, 0), n-1)
	}
	m.scrollToCursor()
}

// scrollToCursor moves the window the least needed to show the cursor.
func (m *Model) scrollToCursor() {
	n := m.tree.Len()
	if m.cursor >= n {
		m.cursor = max(n-1, 0)
	}
	body := m.frame().body
	if body <= 0 {
		m.offset = m.cursor
		return
	}
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+body {
		m.offset = m.cursor - body + 1
	}
	// Do not leave empty space below the last row when rows above could
	// fill it (after a collapse near the end, or a taller window).
	m.offset = max(min(m.offset, n-body), 0)
}

// amountWidth is the display width of a formatted amount.
func amountWidth(a money.Amount) int { return shared.Width(a.String()) }
