// Package charges is the Charges screen of vastdash: the charges report as a
// lazily loaded, virtualized tree with date-range, type, format and order
// filters.
//
// The screen never blocks on the network. Pages are fetched one at a time in
// a tea.Cmd and arrive as messages tagged with a generation number; changing
// a filter starts a new generation, cancels the old request and drops its late
// answers. Only the rows on screen are formatted, so scrolling costs the same
// with a hundred contracts loaded as with a hundred thousand.
package charges

import (
	"charm.land/bubbles/v2/textinput"
	"context"
	"errors"
	"maps"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// pageSource is what the screen needs of an *api.Pager.
type pageSource = shared.PageSource

// pageMsg is the answer to one Next call of generation gen.
type pageMsg struct {
	gen   int
	page  api.ChargesPage
	err   error
	done  bool // the pager has handed out its last page
	total int  // the server's count of matching contracts, -1 unknown
}

// retryMsg fires when a rate-limit wait is over.
type retryMsg struct{ gen, seq int }

// defaultRateWait is how long to wait after a 429 that named no threshold:
// the documented charges threshold.
const defaultRateWait = time.Second

// Model is the Charges screen. It implements shared.Screen. Create it with
// New; the zero value is not usable.
type Model struct {
	ctx  *shared.Context
	keys KeyMap
	f    filters

	// Keyboard focus: rows, the custom range input or the type picker.
	mode      mode
	input     textinput.Model
	inputErr  string
	pick      [3]bool
	pickFocus int

	// Loading state of the current generation.
	gen       int
	reqCtx    context.Context
	cancel    context.CancelFunc
	pager     pageSource
	newPager  func(api.ChargesQuery) pageSource
	inflight  bool
	done      bool
	waiting   bool // rate limited; a retry is scheduled
	retrySeq  int
	err       error
	total     int // server's count of matching contracts, -1 unknown
	contracts int // contracts loaded, as the pages counted them
	skipped   int // malformed entries the client dropped
	// seen holds the sources loaded before the pager was restarted after
	// the server refused its page token: the new pager starts from the
	// first page, whose rows are already shown. nil when not restarted.
	seen map[string]bool

	// Loaded data. pages are kept exactly as they arrived: rows point into
	// them.
	pages  [][]api.Charge
	tree   *tree
	totals spend.Totals
	amtW   int // widest top-level amount loaded
	cache  rowCache

	// Viewport.
	w, h           int
	cursor, offset int
	follow         bool // G pressed: the cursor stays on the last row as pages arrive

	// seek is the source Reveal is loading pages to find ("" when not
	// searching); notice is a one-off status line ("instance-5 is not in the
	// current filters"), dropped by the next key or filter change.
	seek   string
	notice string

	defStyles *theme.Styles
}

var _ shared.Screen = (*Model)(nil)

// New returns the Charges screen reading ctx. The filters start at
// ctx.DefaultRange (30d when unset), every type, table format, newest first.
// Nothing is fetched until Init.
func New(ctx *shared.Context) *Model {
	m := &Model{
		ctx:   ctx,
		keys:  DefaultKeyMap(),
		tree:  newTree(),
		total: -1,
	}
	m.newPager = ctx.Pager
	m.f.preset = m.defaultPreset()
	m.f.rng, _ = spend.PresetRange(m.f.preset, m.ctx.Clock(), m.ctx.Loc())
	m.f.format = api.FormatTable
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

// Init requests the first page of the current filters.
func (m *Model) Init() tea.Cmd { return m.restart() }

// Totals returns the totals of the loaded top-level entries, kept up to date
// as pages arrive. The maps are copies.
func (m *Model) Totals() spend.Totals {
	t := m.totals
	t.ByType = maps.Clone(t.ByType)
	t.ByItem = maps.Clone(t.ByItem)
	return t
}

// Range returns the current date range.
func (m *Model) Range() spend.Range { return m.f.rng }

// Complete reports that every page of the current filters has been loaded.
func (m *Model) Complete() bool { return m.done }

// Query returns the current filters as the API query the screen pages.
func (m *Model) Query() api.ChargesQuery { return m.f.query() }

// Err returns the error of the last request, or nil.
func (m *Model) Err() error { return m.err }

// Capturing reports that the custom range input has the keyboard.
func (m *Model) Capturing() bool { return m.mode == modeInput }

// Loading reports a request in flight, or a retry waiting for the rate limit.
func (m *Model) Loading() bool { return m.inflight || m.waiting }

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

// restart drops everything loaded and starts paging the current filters in
// a new generation. The previous request's context is cancelled, and its
// answer, should it still arrive, is ignored.
func (m *Model) restart() tea.Cmd {
	if m.cancel != nil {
		m.cancel()
	}
	m.gen++
	base := m.ctx.Base
	if base == nil {
		base = context.Background()
	}
	m.reqCtx, m.cancel = context.WithCancel(base)
	m.pager = m.newPager(m.f.query())
	m.pages = nil
	m.tree.Reset()
	m.cache.reset()
	m.totals = spend.Totals{}
	m.amtW = 0
	m.total, m.contracts, m.skipped = -1, 0, 0
	m.seen = nil
	m.inflight, m.done, m.waiting, m.err = false, false, false, nil
	m.cursor, m.offset, m.follow = 0, 0, false
	m.seek, m.notice = "", ""
	return m.fetch()
}

// setFilters applies f, restarting when the query changed.
func (m *Model) setFilters(f filters) tea.Cmd {
	old := m.f.query()
	m.f = f
	if sameQuery(old, f.query()) {
		return nil
	}
	return m.restart()
}

func sameQuery(a, b api.ChargesQuery) bool {
	if !a.From.Equal(b.From) || !a.To.Equal(b.To) || a.Format != b.Format ||
		a.OldestFirst != b.OldestFirst || a.Limit != b.Limit || len(a.Types) != len(b.Types) {
		return false
	}
	for i := range a.Types {
		if a.Types[i] != b.Types[i] {
			return false
		}
	}
	return true
}

// fetch requests the next page unless one is in flight or none is left.
func (m *Model) fetch() tea.Cmd {
	if m.inflight || m.done || m.pager == nil {
		return nil
	}
	m.inflight = true
	p, ctx, gen := m.pager, m.reqCtx, m.gen
	return func() tea.Msg {
		page, err := p.Next(ctx)
		return pageMsg{gen: gen, page: page, err: err, done: p.Done(), total: p.Total()}
	}
}

// maybeFetch fetches the next page when the cursor is within one screen of
// the last loaded row. After a failure it waits for r (or the rate-limit
// retry) instead.
func (m *Model) maybeFetch() tea.Cmd {
	if m.err != nil || m.waiting {
		return nil
	}
	if m.tree.Len()-1-m.cursor <= m.frame().body {
		return m.fetch()
	}
	return nil
}

// Update handles a message and returns the next command.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case pageMsg:
		cmd = m.onPage(msg)
	case retryMsg:
		if msg.gen == m.gen && msg.seq == m.retrySeq && m.waiting {
			m.waiting, m.err = false, nil
			cmd = m.fetch()
		}
	case tea.KeyPressMsg:
		switch m.mode {
		case modeInput:
			cmd = m.updateInput(msg)
		case modePicker:
			cmd = m.updatePicker(msg)
		default:
			cmd = m.onKey(msg)
		}
	case tea.MouseWheelMsg:
		if m.mode == modeTree {
			switch msg.Button {
			case tea.MouseWheelUp:
				cmd = m.move(-3)
			case tea.MouseWheelDown:
				cmd = m.move(3)
			}
		}
	case tea.WindowSizeMsg:
		// The root sizes us through SetSize; a bigger window may now show
		// the end of the list, which calls for the next page.
		cmd = m.maybeFetch()
	default:
		// Paste and the cursor's blink reach the open range field.
		if m.mode == modeInput {
			cmd = m.updateInput(msg)
		}
	}
	m.scrollToCursor()
	return cmd
}

// onPage folds an answer into the screen.
func (m *Model) onPage(msg pageMsg) tea.Cmd {
	if msg.gen != m.gen {
		return nil // an answer to filters no longer shown
	}
	m.inflight = false
	if msg.err != nil {
		if m.reqCtx != nil && m.reqCtx.Err() != nil {
			return nil // the program is quitting
		}
		m.err = msg.err
		if errors.Is(msg.err, api.ErrRateLimited) {
			return m.scheduleRetry(msg.err)
		}
		if errors.Is(msg.err, api.ErrInvalidToken) && m.tree.Len() > 0 && m.seen == nil {
			return m.restartPager()
		}
		return nil
	}
	m.err = nil
	m.done = msg.done
	m.total = msg.total
	m.skipped += msg.page.Skipped
	res := msg.page.Results
	if m.seen != nil {
		res = m.dropSeen(res)
	}
	if len(res) > 0 {
		onLast := m.tree.Len() == 0 || m.cursor == m.tree.Len()-1
		m.pages = append(m.pages, res)
		m.tree.AppendTop(res)
		m.totals.Add(res)
		for i := range res {
			m.amtW = max(m.amtW, amountWidth(res[i].Amount))
		}
		if m.follow && onLast {
			m.cursor = m.tree.Len() - 1
		}
		if m.seek != "" {
			m.revealNew(res)
		}
	}
	if n := msg.page.Count; n > 0 && m.seen == nil {
		m.contracts += n
	} else {
		m.contracts += len(res)
	}
	if m.done {
		m.follow = false
		if m.seek != "" {
			m.notFound(m.seek)
		}
	}
	m.scrollToCursor()
	if m.seek != "" {
		return m.fetch() // keep loading whatever the cursor's distance to the end
	}
	return m.maybeFetch()
}

// noticeRestarted is the status line after a refused page token.
const noticeRestarted = "pagination restarted: the server refused its page token; rows shown are kept"

// restartPager pages the same filters again from the first page after the
// server refused the page token, keeping the rows shown: the pages that
// repeat them are skipped by source. Only once per generation, so a server
// that keeps refusing ends in an error and r, not a loop.
func (m *Model) restartPager() tea.Cmd {
	m.seen = make(map[string]bool, m.totals.Contracts)
	for _, p := range m.pages {
		for i := range p {
			m.seen[p[i].Source] = true
		}
	}
	m.pager = m.newPager(m.f.query())
	m.err = nil
	m.notice = noticeRestarted
	return m.fetch()
}

// dropSeen returns the entries of res not already shown, and marks them
// shown. Entries without a source cannot be matched and are kept.
func (m *Model) dropSeen(res []api.Charge) []api.Charge {
	kept := make([]api.Charge, 0, len(res))
	for _, c := range res {
		if c.Source != "" && m.seen[c.Source] {
			continue
		}
		m.seen[c.Source] = true
		kept = append(kept, c)
	}
	return kept
}

// scheduleRetry waits out a 429 and then asks again.
func (m *Model) scheduleRetry(err error) tea.Cmd {
	wait := defaultRateWait
	var ae *api.Error
	if errors.As(err, &ae) && ae.Threshold > 0 {
		wait = ae.Threshold
	}
	m.waiting = true
	m.retrySeq++
	gen, seq := m.gen, m.retrySeq
	return tea.Tick(wait, func(time.Time) tea.Msg { return retryMsg{gen: gen, seq: seq} })
}

// reload is r: after a failed next page it asks for that page again,
// keeping the rows already loaded; otherwise it starts over.
func (m *Model) reload() tea.Cmd {
	if m.err != nil && m.tree.Len() > 0 && !errors.Is(m.err, api.ErrInvalidToken) &&
		!errors.Is(m.err, api.ErrPermission) {
		m.err, m.waiting = nil, false
		return m.fetch()
	}
	return m.restart()
}

// onKey handles a key while the rows have the keyboard. Any key but r ends
// a Reveal search (the user has taken over; r retries the page the search
// stopped at) and every key clears its notice.
func (m *Model) onKey(k tea.KeyPressMsg) tea.Cmd {
	m.notice = ""
	if !key.Matches(k, m.keys.Reload) {
		m.seek = ""
	}
	body := max(m.frame().body, 1)
	switch {
	case key.Matches(k, m.keys.Up):
		return m.move(-1)
	case key.Matches(k, m.keys.Down):
		return m.move(1)
	case key.Matches(k, m.keys.PageUp):
		return m.move(-body)
	case key.Matches(k, m.keys.PageDown):
		return m.move(body)
	case key.Matches(k, m.keys.HalfUp):
		return m.move(-max(body/2, 1))
	case key.Matches(k, m.keys.HalfDown):
		return m.move(max(body/2, 1))
	case key.Matches(k, m.keys.Home):
		return m.move(-m.cursor)
	case key.Matches(k, m.keys.End):
		cmd := m.move(m.tree.Len() - 1 - m.cursor)
		m.follow = !m.done
		return cmd
	case key.Matches(k, m.keys.Toggle):
		if m.tree.Len() > 0 && !m.tree.Collapse(m.cursor) {
			m.tree.Expand(m.cursor)
		}
		return m.maybeFetch()
	case key.Matches(k, m.keys.Expand):
		if m.tree.Len() > 0 && !m.tree.Expand(m.cursor) && m.tree.At(m.cursor).expanded {
			return m.move(1) // already open: step onto the first child
		}
		return nil
	case key.Matches(k, m.keys.Collapse):
		if m.tree.Len() > 0 && !m.tree.Collapse(m.cursor) {
			if p := m.tree.Parent(m.cursor); p >= 0 {
				return m.move(p - m.cursor)
			}
		}
		return m.maybeFetch() // collapsing may bring the end into reach
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
		return m.setFilters(f)
	case key.Matches(k, m.keys.Order):
		f := m.f
		f.oldest = !f.oldest
		return m.setFilters(f)
	case key.Matches(k, m.keys.Reload):
		return m.reload()
	}
	return nil
}

// move shifts the cursor by delta rows (clamped), ends follow mode and
// fetches the next page when the end comes near.
func (m *Model) move(delta int) tea.Cmd {
	m.follow, m.seek = false, ""
	if n := m.tree.Len(); n > 0 {
		m.cursor = min(max(m.cursor+delta, 0), n-1)
	}
	m.scrollToCursor()
	return m.maybeFetch()
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
