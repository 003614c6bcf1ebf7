package charges

import (
	"context"
	"io"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/shared"
)

// This file is the screen over a range the ledger holds whole
// (billing.ChargesWindow): the range's count and total come from one
// aggregate query before any row, and the screen holds only the rows
// around the cursor — a few screens either side — read as keyset pages in
// the screen's order as the cursor nears the edge of what is held. g and G
// read from either end, s asks the ledger for the new order, / its find,
// e streams the range through the CSV writer a page at a time. Memory and
// the time to the first figure do not grow with the range.
//
// The feed held is the filters' sync feed (billing.Service.SyncFeed): it
// syncs the ledger and holds none of its rows, so what the screen holds
// does not grow with the range either. Each new generation of it (the end
// of a sync, the first run's included) makes the window read again, the
// cursor kept on its contract; until the range is held its progress is
// what the screen shows. No ledger (none, given up, --no-ledger), a range
// still not held once synced, or the tree format get no window: the
// screen takes the full feed and reads it as it always has. A ledger
// error drops to the full feed, said once on the status line.

// windowOn switches the windowed reads on; off, the screen reads the feed
// whatever the ledger holds.
const windowOn = true

// winMinPage is the fewest rows a page of the window reads.
const winMinPage = 50

// window is what the screen holds of a range read a window at a time.
type window struct {
	base  *billing.ChargesWindow // the range, without the find text
	r     *billing.ChargesWindow // base narrowed by the find text
	find  string                 // the find text r is narrowed by
	order ledger.WindowOrder
	count int
	total money.Amount
	// rows are the rows held, in order: rows[i] is the range's row
	// first+i.
	rows  []ledger.WindowRow
	first int
	// fetching: a page is being read (one at a time).
	fetching bool
	// gen is the feed's generation the window was read after.
	gen uint64
}

// windowMsg is a window read afresh: the reader (nil when the ledger does
// not hold the range), its count and total, and its first rows.
type windowMsg struct {
	ask   int
	w     *billing.ChargesWindow
	find  string
	order ledger.WindowOrder
	count int
	total money.Amount
	rows  []ledger.WindowRow
	first int
	at    int    // the row of rows the cursor goes on
	src   string // the cursor's contract, put back on its row when read
	// seek is the contract asked for (Reveal, the kept cursor, a sort
	// following the cursor's contract); found says the rows are around it.
	seek  string
	found bool
	gen   uint64
	err   error
}

// windowPageMsg is a page read next to the rows held.
type windowPageMsg struct {
	ask  int
	rows []ledger.WindowRow
	back bool
	err  error
}

// winPage is how many rows a page of the window reads: three screens.
func (m *Model) winPage() int { return max(3*m.frame().body, winMinPage) }

// winOrder is the ledger's order of the screen's sort and direction.
func (m *Model) winOrder() ledger.WindowOrder {
	o := ledger.WindowOrder{Oldest: m.f.oldest}
	switch m.sort {
	case sortAmount:
		o.By = ledger.ByAmount
	case sortDuration:
		o.By = ledger.ByDuration
	}
	return o
}

// askWindow asks for a window of the current filters: fresh makes the
// reader again (new filters, new ledger rows), else the one held is read
// in its new order or find. Where the rows start: at the end (G), around
// key (the cursor's row kept), or at the top. Its answer supersedes every
// earlier ask.
func (m *Model) askWindow(fresh, end bool, key *ledger.WindowKey, seek string) tea.Cmd {
	src := ""
	if key != nil && m.tree.Len() > 0 {
		src = m.sourceOf(m.tree.Top(m.cursor))
	}
	if !windowOn || m.winOff || m.ctx.Billing == nil || m.f.format == api.FormatTree {
		return nil
	}
	m.winAsk++
	ask, svc, q, find, o, n := m.winAsk, m.ctx.Billing, m.f.query(), m.find, m.winOrder(), m.winPage()
	gen := m.fl.State().Generation
	var base *billing.ChargesWindow
	// The same reader, find text and generation count the same rows: g,
	// G, a sort or the cursor kept read their rows only (an aggregate
	// over a million contracts is a tenth of a second; a page is a few
	// milliseconds).
	counted, count, total := false, 0, money.Amount(0)
	if m.win != nil && !fresh {
		base = m.win.base
		counted, count, total = m.win.find == find && m.win.gen == gen, m.win.count, m.win.total
	}
	if m.win != nil {
		m.win.fetching = true // the pages of the old reader are moot
	}
	ctx := m.ctx.Base
	if ctx == nil {
		ctx = context.Background()
	}
	return func() tea.Msg {
		msg := windowMsg{ask: ask, find: find, order: o, gen: gen, src: src, seek: seek}
		w := base
		if w == nil {
			var ok bool
			if w, ok = svc.ChargesWindow(ctx, q); !ok {
				return msg
			}
		}
		msg.w = w
		r := w.Find(find)
		if counted {
			msg.count, msg.total = count, total
		} else if msg.count, msg.total, msg.err = r.Totals(ctx); msg.err != nil {
			return msg
		}
		if key == nil && seek != "" {
			k, ok, err := seekKey(ctx, r, o, seek)
			if msg.err = err; err != nil {
				return msg
			}
			if ok {
				key, msg.found = &k, true
			}
		}
		msg.rows, msg.first, msg.at, msg.err = readAround(ctx, r, o, n, end, key, msg.count)
		if msg.found {
			for i := range msg.rows {
				if msg.rows[i].Charge.Source == seek {
					msg.at = i
				}
			}
		}
		return msg
	}
}

// seekKey is the key in order o of the contract whose source is src, by
// the ledger's find (a key is where a row stands, whatever narrows the
// reader: "instance-1" finds "instance-12" too, so the pages are walked
// for the source itself); ok is false when the range has no such one.
func seekKey(ctx context.Context, r *billing.ChargesWindow, o ledger.WindowOrder, src string) (k ledger.WindowKey, ok bool, err error) {
	if !windowFindable(src) {
		return k, false, nil
	}
	var rows []ledger.WindowRow
	var key *ledger.WindowKey
	for {
		rows, err = r.Find(src).Page(ctx, o, key, seekPage, false)
		if err != nil || len(rows) == 0 {
			return k, false, err
		}
		for i := range rows {
			if rows[i].Charge.Source == src {
				return rows[i].Key, true, nil
			}
		}
		key = &rows[len(rows)-1].Key
	}
}

// seekPage is how many rows a search for a source reads at a time.
const seekPage = 500

// readAround reads n rows of r: the last (end), those around key (half
// before it), or the first; first is the range's index of the first row
// read and at the index among them of the cursor's.
func readAround(ctx context.Context, r *billing.ChargesWindow, o ledger.WindowOrder, n int, end bool, key *ledger.WindowKey, count int) (rows []ledger.WindowRow, first, at int, err error) {
	switch {
	case end:
		rows, err = r.Page(ctx, o, nil, n, true)
		return rows, max(count-len(rows), 0), len(rows) - 1, err
	case key != nil:
		before, err := r.Page(ctx, o, key, n/2, true)
		if err != nil {
			return nil, 0, 0, err
		}
		if len(before) == 0 {
			break // the cursor's contract is the first
		}
		after, err := r.Page(ctx, o, &before[len(before)-1].Key, n-len(before), false)
		if err != nil {
			return nil, 0, 0, err
		}
		first, err = r.Position(ctx, o, before[0].Key)
		at = len(before) - 1
		if len(after) > 0 && after[0].Key == *key {
			at = len(before)
		}
		return append(before, after...), first, at, err
	}
	rows, err = r.Page(ctx, o, nil, n, false)
	return rows, 0, 0, err
}

// onWindow takes a window read afresh.
func (m *Model) onWindow(msg windowMsg) {
	if msg.ask != m.winAsk {
		return // an earlier ask, superseded
	}
	if msg.w == nil {
		st := m.fl.State()
		switch {
		case m.win != nil:
			m.leaveWindow("") // the ledger no longer holds the range
		case m.syncOnly && st.Done && msg.gen == st.Generation:
			m.leaveWindow("") // synced, and still not held whole
		}
		return
	}
	if msg.err != nil {
		m.leaveWindow("the ledger could not be read (" + shared.Safe(msg.err.Error()) + "): reading the feed")
		return
	}
	if msg.src != "" && m.tree.Len() > 0 {
		msg.src = m.sourceOf(m.tree.Top(m.cursor)) // moved since the ask, maybe
	}
	seek := m.seek
	if m.win == nil {
		// The feed's rows folded meanwhile go: the window shows the range.
		// An export asked for before it is written from it.
		open, exporting := m.openSources(), m.exporting
		m.clear()
		m.sorted = true
		m.tree.Reset()
		m.winOpen, m.exporting = open, exporting
	}
	m.win = &window{base: msg.w, r: msg.w.Find(msg.find), find: msg.find, order: msg.order, count: msg.count, total: msg.total,
		rows: msg.rows, first: msg.first, gen: msg.gen}
	seeking := seek != "" && seek == msg.seek
	m.seek, m.follow = "", false
	if msg.seek != "" && !msg.found {
		if seeking {
			m.seek = msg.seek
			m.notFound(msg.seek)
		}
		msg.at = 0
	}
	m.seekQuiet, m.seekWhat, m.seekEP = false, "", 0
	at := max(msg.at, 0)
	if msg.src != "" {
		// Its key moves when its span does (a contract running on): the
		// source finds it.
		for i := range msg.rows {
			if msg.rows[i].Charge.Source == msg.src {
				at = i
				break
			}
		}
	}
	m.layWindow(at, 0, -1)
}

// onWindowPage adds a page next to the rows held and lets go of those
// far from the cursor.
func (m *Model) onWindowPage(msg windowPageMsg) {
	w := m.win
	if w == nil || msg.ask != m.winAsk {
		return
	}
	w.fetching = false
	if msg.err != nil {
		m.leaveWindow("the ledger could not be read (" + shared.Safe(msg.err.Error()) + "): reading the feed")
		return
	}
	if len(msg.rows) == 0 {
		return
	}
	ci, sub, scr := m.winCursor()
	if msg.back {
		w.rows = append(msg.rows, w.rows...)
		w.first -= len(msg.rows)
		ci += len(msg.rows)
	} else {
		w.rows = append(w.rows, msg.rows...)
	}
	// Hold at most four pages: drop whole pages from the far side.
	keep := 4 * m.winPage()
	if extra := len(w.rows) - keep; extra > 0 {
		if msg.back {
			w.rows = w.rows[: len(w.rows)-extra : len(w.rows)-extra]
		} else {
			w.rows = append([]ledger.WindowRow(nil), w.rows[extra:]...)
			w.first += extra
			ci -= extra
		}
	}
	m.layWindow(ci, sub, scr)
}

// winCursor is where the cursor is among the rows held: the index of its
// contract, how far below its contract's row it is (in an open one), and
// its line on screen.
func (m *Model) winCursor() (ci, sub, scr int) {
	if m.tree.Len() == 0 {
		return 0, 0, 0
	}
	top := m.tree.Top(m.cursor)
	return m.heldIndex(m.tree.At(top).node), m.cursor - top, m.cursor - m.offset
}

// heldIndex is the index among the rows held of the contract n, or 0.
func (m *Model) heldIndex(n *api.Charge) int {
	for i := range m.win.rows {
		if &m.win.rows[i].Charge == n {
			return i
		}
	}
	return 0
}

// layWindow lays the rows held out again, the open ones open, with the
// cursor sub rows below held row ci on screen line scr (-1: wherever
// scrolling puts it).
func (m *Model) layWindow(ci, sub, scr int) {
	open := m.openSources()
	for s := range m.winOpen {
		open[s] = true
	}
	m.winOpen = nil
	w := m.win
	tops := make([]*api.Charge, len(w.rows))
	m.tree.Reset()
	m.cache.reset()
	m.amtW, m.idW = amountWidth(w.total), 0
	for i := range w.rows {
		tops[i] = &w.rows[i].Charge
		markOpen(m.tree, tops[i], open)
		m.amtW = max(m.amtW, amountWidth(tops[i].Amount))
		m.idW = max(m.idW, idWidth(tops[i], 0))
	}
	m.tree.Rebuild(tops)
	m.cursor, m.offset = 0, 0
	if len(tops) > 0 {
		ci = min(max(ci, 0), len(tops)-1)
		at := m.tree.Index(tops[ci])
		m.cursor = min(at+sub, m.tree.Len()-1)
		if sub > 0 && m.tree.Top(m.cursor) != at {
			m.cursor = at // its row closed meanwhile
		}
		if scr >= 0 {
			m.offset = max(m.cursor-scr, 0)
		}
	}
	m.scrollToCursor()
}

// leaveWindow drops the window (or the sync feed waiting for one) and
// reads the full feed from its beginning, as without a ledger; note says
// why on the status line. What the user asked for meanwhile — a Reveal,
// the kept cursor, an export — goes on over the feed.
func (m *Model) leaveWindow(note string) {
	m.win, m.winOff = nil, true
	m.winAsk++ // answers on their way concern the window no longer
	seek, quiet, what, ep, exporting := m.seek, m.seekQuiet, m.seekWhat, m.seekEP, m.exporting
	m.attach(m.takeFeed(false))
	m.seek, m.seekQuiet, m.seekWhat, m.seekEP, m.exporting = seek, quiet, what, ep, exporting
	if m.find != "" {
		m.rebuild()
	}
	if note != "" {
		m.setNotice(shared.StatusWarn, note)
		m.failSaid = true
	}
}

// windowWant reads the next page when the cursor nears an edge of the
// rows held that is not the range's: within a page of it, so that the
// rows are there before the cursor is.
func (m *Model) windowWant() tea.Cmd {
	w := m.win
	if w.fetching || len(w.rows) == 0 {
		return nil
	}
	ci, _, _ := m.winCursor()
	n := m.winPage()
	switch {
	case len(w.rows)-1-ci < n && w.first+len(w.rows) < w.count:
		return m.winFetch(&w.rows[len(w.rows)-1].Key, n, false)
	case ci < n && w.first > 0:
		return m.winFetch(&w.rows[0].Key, n, true)
	}
	return nil
}

// winFetch reads n rows after (or with back before) key.
func (m *Model) winFetch(key *ledger.WindowKey, n int, back bool) tea.Cmd {
	w := m.win
	w.fetching = true
	ask, r, o, k := m.winAsk, w.r, w.order, *key
	ctx := m.ctx.Base
	if ctx == nil {
		ctx = context.Background()
	}
	return func() tea.Msg {
		rows, err := r.Page(ctx, o, &k, n, back)
		return windowPageMsg{ask: ask, rows: rows, back: back, err: err}
	}
}

// windowFeed follows the sync feed under a window: a new generation (a
// sync that ended) reads the window again around the cursor's contract.
func (m *Model) windowFeed() tea.Cmd {
	m.fl.Next() // the sync feed's state: it holds no pages
	st := m.fl.State()
	m.noticeWarnings(st)
	if st.Generation == m.win.gen || m.win.fetching {
		return nil
	}
	m.win.gen = st.Generation
	return m.askWindow(true, false, m.winKey(), "")
}

// winKey is the key of the cursor's contract, nil without rows.
func (m *Model) winKey() *ledger.WindowKey {
	if m.tree.Len() == 0 || len(m.win.rows) == 0 {
		return nil
	}
	ci, _, _ := m.winCursor()
	k := m.win.rows[ci].Key
	return &k
}

// winPos is the range's index of the cursor's contract.
func (m *Model) winPos() int {
	ci, _, _ := m.winCursor()
	return m.win.first + ci
}

// windowEnd is G (end) or g: the cursor on the range's last or first
// row, read from that end when it is not held.
func (m *Model) windowEnd(end bool) tea.Cmd {
	w := m.win
	switch {
	case end && w.first+len(w.rows) >= w.count:
		m.move(m.tree.Len() - 1 - m.cursor)
	case !end && w.first == 0:
		m.move(-m.cursor)
	default:
		return m.askWindow(false, end, nil, "")
	}
	return nil
}

// windowFindable reports that the ledger's find matches text as the
// feed's does: letters of ASCII either case, printable.
func windowFindable(text string) bool {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// windowFooter is the footer under a window: "1,000,000 contracts ·
// $12,345.678 · row 1,234" (with a find, "/gpu: 12 matches · …").
func (m *Model) windowFooter() string {
	w := m.win
	var b strings.Builder
	if m.find != "" {
		b.WriteString("/")
		b.WriteString(shared.Safe(m.find))
		b.WriteString(": ")
		b.WriteString(billing.Plural(w.count, "match", "matches"))
		b.WriteString(" · ")
	} else {
		b.WriteString(money.Group(int64(w.count)))
		b.WriteString(" contracts · ")
	}
	b.WriteString(w.total.String())
	if w.count > 0 && m.tree.Len() > 0 {
		b.WriteString(" · row ")
		b.WriteString(money.Group(int64(m.winPos() + 1)))
	}
	st := m.fl.State()
	if st.Ledger && !st.Done {
		if s := st.SyncedText(m.ctx.Clock()); s != "" {
			b.WriteString(" · ")
			b.WriteString(s) // the ledger's rows: how old
		}
	}
	switch {
	case st.Loading:
		b.WriteString(" · syncing…")
	case st.Err != nil:
		b.WriteString(" · sync stopped")
	}
	return b.String()
}

// windowMessage is the body without rows under a window.
func (m *Model) windowMessage() []string {
	if m.find != "" {
		return []string{"no entry matches /" + shared.Safe(m.find), m.ctx.Key("search-clear") + " clears the filter"}
	}
	return []string{"No charges " + m.f.rng.Days(m.ctx.Clock()), "press " + m.ctx.Key("range-next") + " to widen the range"}
}

// windowExport writes the range as the window reads it, in the screen's
// order and find, a page at a time.
func (m *Model) windowExport() tea.Cmd {
	r, o, dir, name, loc, n := m.win.r, m.win.order, m.exportDir, m.exportName(), m.ctx.Loc(), m.win.count
	ctx := m.ctx.Base
	if ctx == nil {
		ctx = context.Background()
	}
	m.setNotice(shared.StatusInfo, "exporting "+strconv.Itoa(n)+" entries…")
	return func() tea.Msg {
		written := 0
		path, err := export.ToFile(dir, name, func(wr io.Writer) error {
			cw := export.NewCSVRows(wr, false, loc)
			if err := r.Each(ctx, o, func(c *api.Charge) error {
				written++
				return cw.Write(c)
			}); err != nil {
				return err
			}
			return cw.Flush()
		})
		return exportedMsg{path: path, n: written, err: err}
	}
}

// settleWindow ends every update under a window, as settle does under
// the feed: it follows the feed's generations, reads what the order or
// find asks for, the next page as the cursor nears an edge, and sends the
// status line.
func (m *Model) settleWindow(cmds []tea.Cmd) tea.Cmd {
	cmds = append(cmds, m.windowFeed())
	if m.exporting {
		// Asked for before the window was read: written from it now.
		m.exporting = false
		cmds = append(cmds, m.windowExport())
	}
	if m.win != nil && m.winRequery {
		m.winRequery = false
		cmds = append(cmds, m.askWindow(false, false, nil, m.seek))
	}
	if m.win != nil {
		cmds = append(cmds, m.windowWant())
	}
	m.scrollToCursor()
	m.keepCursor()
	cmds = append(cmds, m.remember())
	return tea.Batch(append(cmds, m.listen(), m.statusCmd())...)
}

// settleSync ends every update while the screen holds the sync feed and
// no window yet (the first run's sync, a range not synced before): the
// sync's progress is what the body and footer show; at first, and at
// each new generation of the sync feed (a sync that ended), the window is
// asked for, with what the user is seeking, until the ledger holds the
// range.
func (m *Model) settleSync(cmds []tea.Cmd) tea.Cmd {
	st := m.fl.State()
	m.noticeWarnings(st)
	if m.winDue || st.Generation != m.syncGen {
		m.winDue, m.syncGen = false, st.Generation
		cmds = append(cmds, m.askWindow(true, false, nil, m.seek))
	}
	if m.exporting && (st.Err != nil || st.Closed) {
		cmds = append(cmds, m.exportDue()) // stopped, said
	}
	m.scrollToCursor()
	cmds = append(cmds, m.remember())
	return tea.Batch(append(cmds, m.listen(), m.statusCmd())...)
}
