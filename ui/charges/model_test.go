package charges

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
)

func sumOf(entries []api.Charge) money.Amount {
	var s money.Amount
	for _, e := range entries {
		s += e.Amount
	}
	return s
}

func TestExpandCollapseAndParent(t *testing.T) {
	hs := newHarness(t, 120, 30, servePages(contracts(1, 3), 100))
	hs.settle(hs.m.Init())
	assertRows(t, hs.rowNames(), []string{"0:instance-1", "0:instance-2", "0:instance-3"})
	if l := hs.cursorLine(); !strings.Contains(l, "▸ 1") || !strings.Contains(l, "job-1") {
		t.Fatalf("first row should be collapsed contract 1 with its label: %q", l)
	}

	hs.press("j", "enter")
	assertRows(t, hs.rowNames(), []string{
		"0:instance-1", "0:instance-2", "1:gpu", "1:disk", "1:bwd", "1:bwu", "0:instance-3",
	})
	v := hs.view()
	if !strings.Contains(hs.cursorLine(), "▾ 2") {
		t.Errorf("expanded row shows no ▾: %q", hs.cursorLine())
	}
	for _, want := range []string{"3x RTX 4090 @ $0.400/h", "50 GB storage @ $0.10/GB/month", "2.5 GB download", "0.4 GB upload"} {
		if !strings.Contains(v, want) {
			t.Errorf("item description %q missing:\n%s", want, v)
		}
	}

	hs.press("space") // toggles closed again
	assertRows(t, hs.rowNames(), []string{"0:instance-1", "0:instance-2", "0:instance-3"})

	hs.press("l", "l") // open, then step onto the first item
	if got := hs.m.tree.At(hs.m.cursor).node.Type; got != "gpu" {
		t.Fatalf("l on an open contract should step onto its first item, cursor on %q", got)
	}
	hs.press("j", "h") // h on a leaf (disk) goes to the parent
	if hs.m.cursor != 1 || !hs.m.tree.At(1).expanded {
		t.Fatalf("h on a leaf: cursor %d (want 1, the contract, still open)", hs.m.cursor)
	}
	hs.press("h") // now collapses
	if hs.m.tree.Len() != 3 || hs.m.cursor != 1 {
		t.Fatalf("h on an open contract should collapse it: %v, cursor %d", hs.rowNames(), hs.m.cursor)
	}
	hs.press("left") // collapsed top-level row: nowhere to go
	if hs.m.cursor != 1 {
		t.Fatalf("← on a collapsed top-level row moved the cursor to %d", hs.m.cursor)
	}
}

func TestTreeFormatNestedWrappers(t *testing.T) {
	hs := newHarness(t, 120, 30, func(q api.ChargesQuery) *billingtest.Pager[api.Charge] {
		if q.Format == api.FormatTree {
			return billingtest.Paged([]api.Charge{serverlessEndpoint(7, 2, 2), contract(1, 0)}, 100)
		}
		return billingtest.Paged(contracts(1, 5), 100)
	})
	hs.settle(hs.m.Init())
	hs.settle(hs.press("f"))
	if hs.m.Query().Format != api.FormatTree || hs.query(1).Format != api.FormatTree {
		t.Fatalf("f did not switch to the tree format: %+v", hs.m.Query())
	}
	hs.press("enter", "j", "enter", "j", "enter")
	assertRows(t, hs.rowNames(), []string{
		"0:endpoint-7",
		"1:workergroup-70",
		"2:serverless-700", "3:gpu", "3:disk", "3:bwd", "3:bwu",
		"2:serverless-701",
		"1:workergroup-71",
		"0:instance-1",
	})
	v := hs.view()
	for _, want := range []string{"▾ endpoint-7", "  ▾ workergroup-70", "    ▾ 700", "1x RTX 4090", "  ▸ workergroup-71"} {
		if !strings.Contains(v, want) {
			t.Errorf("tree view lacks %q:\n%s", want, v)
		}
	}
	hs.press("j", "h", "h") // gpu → its contract (already open → collapse? no: h on leaf moves up)
	if got := hs.m.tree.At(hs.m.cursor).node.Source; got != "serverless-700" {
		t.Fatalf("h from an item should reach its contract, got %q", got)
	}
}

// gated serves entries in pages of per, every request held until the test
// lets it through (Pager.Allow): the way to look at the screen while a
// page is in flight.
func gated(entries []api.Charge, per int) func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
	gate := make(chan struct{}, 1000)
	return func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		p := billingtest.Paged(entries, per)
		p.Gate = gate
		return p
	}
}

// Moving towards the end asks for one page more, once, however many keys
// are pressed while it loads, and only when the cursor comes within one
// screen of the last row.
func TestLazyPagingAsksOnePageAtATime(t *testing.T) {
	all := contracts(1, 300)
	hs := newHarness(t, 120, 30, gated(all, 100))
	cmd := hs.m.Init()
	if v := hs.view(); !strings.Contains(v, "loading charges: page 1…") || !hs.m.Loading() {
		t.Fatalf("a slow first page should say it is loading (loading %v):\n%s", hs.m.Loading(), v)
	}
	hs.pager(0).Allow(1)
	hs.settle(cmd)
	if hs.m.tree.Len() != 100 || hs.pager(0).Calls() != 1 {
		t.Fatalf("first paint should load exactly one page: %d rows, %d calls", hs.m.tree.Len(), hs.pager(0).Calls())
	}
	body := hs.m.frame().body
	var cmds []tea.Cmd
	asked := -1
	for i := 0; i < 90; i++ {
		cmds = append(cmds, hs.press("j"))
		if asked < 0 && hs.m.Loading() {
			asked = hs.m.cursor
			if last := hs.m.tree.Len() - 1; last-hs.m.cursor != body {
				t.Errorf("page asked for %d rows before the end, want one screen (%d)", last-hs.m.cursor, body)
			}
		}
	}
	if asked < 0 {
		t.Fatal("no page asked for near the end")
	}
	want := "100 of 300 contracts · " + sumOf(all[:100]).String() + " loaded · loading page 2…"
	if f := hs.lines()[29]; !strings.Contains(f, want) {
		t.Errorf("footer %q, want %q", f, want)
	}
	hs.pager(0).Allow(10) // more than asked for: only what the screen wants is loaded
	hs.settle(tea.Batch(cmds...))
	if hs.m.tree.Len() != 200 || hs.pager(0).Calls() != 2 || hs.m.Loading() {
		t.Fatalf("after the page: %d rows, %d requests (want one more), loading %v",
			hs.m.tree.Len(), hs.pager(0).Calls(), hs.m.Loading())
	}
	if f := hs.lines()[29]; !strings.Contains(f, "200 of 300 contracts · "+sumOf(all[:200]).String()+" loaded · more below") {
		t.Errorf("footer %q", f)
	}
	if tot := hs.m.Totals(); tot.Contracts != 200 || tot.Total != sumOf(all[:200]) {
		t.Errorf("Totals = %d contracts %s", tot.Contracts, tot.Total)
	}
}

func TestEndKeepsLoadingAndFollows(t *testing.T) {
	all := contracts(1, 300)
	hs := newHarness(t, 120, 30, gated(all, 100))
	cmd := hs.m.Init()
	hs.pager(0).Allow(1)
	hs.settle(cmd)
	cmd = hs.press("G")
	if hs.m.cursor != 99 || !hs.m.Loading() {
		t.Fatalf("G: cursor %d, loading %v", hs.m.cursor, hs.m.Loading())
	}
	hs.pager(0).Allow(1)
	for hs.m.tree.Len() < 200 {
		cmd = hs.run(cmd)
	}
	if hs.m.cursor != 199 {
		t.Fatalf("cursor did not follow the end: %d", hs.m.cursor)
	}
	if !hs.m.Loading() {
		t.Fatal("G should keep loading onward")
	}
	cmd = tea.Batch(cmd, hs.press("k")) // the user moves while the last page is loading
	hs.pager(0).Allow(1)
	hs.settle(cmd)
	if hs.m.cursor != 198 {
		t.Fatalf("cursor should stay where the user put it, at 198, got %d", hs.m.cursor)
	}
	if !hs.m.Complete() || hs.m.tree.Len() != 300 {
		t.Fatalf("complete %v with %d rows", hs.m.Complete(), hs.m.tree.Len())
	}
	if f := hs.lines()[29]; !strings.Contains(f, "300 of 300 contracts · "+sumOf(all).String()+" loaded · all loaded") {
		t.Errorf("footer %q", f)
	}
}

// waitClosed waits until f is closed (its loader stopped), failing the test
// if that takes longer than a generous bound.
func waitClosed(t *testing.T, f *billing.Feed) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st := f.State()
	for !st.Closed && ctx.Err() == nil {
		st = f.Wait(ctx, st.Version)
	}
	if !st.Closed {
		t.Fatalf("feed of %+v not closed", f.Query())
	}
}

func TestFilterChangeDropsRowsAndStaleAnswers(t *testing.T) {
	hs := newHarness(t, 120, 30, gated(contracts(1, 300), 100))
	cmd := hs.m.Init()
	hs.pager(0).Allow(1)
	hs.settle(cmd)
	if hs.m.Range().Preset != "30d" {
		t.Fatalf("Init: range %v, want 30d", hs.m.Range())
	}
	old, oldFeed := hs.press("G"), hs.m.fl.Feed() // page 2 of the 30d range, in flight
	fresh := hs.press("d")
	if hs.m.tree.Len() != 0 || hs.m.Totals().Contracts != 0 {
		t.Fatalf("d kept %d rows", hs.m.tree.Len())
	}
	if r := hs.m.Range(); r.Preset != "90d" || !r.From.Equal(time.Date(2026, 8, 24, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("d: range %v", r)
	}
	if hs.numPagers() != 2 || !hs.query(1).From.Equal(hs.m.Range().From) {
		t.Fatalf("no new pager for the new range: %d pagers", hs.numPagers())
	}
	// The old range's feed is released: its request is cancelled and it
	// answers nothing more.
	waitClosed(t, oldFeed)
	if n := hs.pager(0).Calls(); n != 1 {
		t.Errorf("the old range's page 2 was still served (%d calls)", n)
	}
	// Its listener's late answer changes nothing.
	hs.settle(old)
	if hs.m.tree.Len() != 0 {
		t.Fatalf("stale page applied: %d rows", hs.m.tree.Len())
	}
	if !hs.m.Loading() {
		t.Error("the new range's request no longer counts as loading")
	}
	hs.pager(1).Allow(1)
	hs.settle(fresh)
	if hs.m.tree.Len() != 100 || hs.pager(1).Calls() != 1 {
		t.Fatalf("new range: %d rows", hs.m.tree.Len())
	}
	if l := hs.lines()[0]; !strings.HasPrefix(l, "range 90d (24 Aug – 21 Nov) · types all · format table · newest first") {
		t.Errorf("filter bar %q", l)
	}
	hs.press("D", "D") // back through 30d to 7d
	if hs.m.Range().Preset != "7d" {
		t.Errorf("D D from 90d: %q", hs.m.Range().Preset)
	}
}

// The root sets the dashboard's range on the screen: its filters take it
// and its rows follow; the same range again changes nothing.
func TestTheRootSetsTheRange(t *testing.T) {
	hs := newHarness(t, 120, 30, servePages(contracts(1, 300), 100))
	hs.settle(hs.m.Init())
	r, err := billing.PresetRange("90d", hs.m.ctx.Clock(), hs.m.ctx.Loc())
	if err != nil {
		t.Fatal(err)
	}
	hs.settle(hs.m.SetRange(r))
	if got := hs.m.Range(); got.Preset != "90d" || !got.From.Equal(r.From) {
		t.Fatalf("range %v after the root set %v", got, r)
	}
	if hs.numPagers() != 2 || !hs.query(1).From.Equal(r.From) || hs.m.tree.Len() != 100 {
		t.Fatalf("%d pagers, %d rows: the rows do not follow the range", hs.numPagers(), hs.m.tree.Len())
	}
	if l := hs.lines()[0]; !strings.HasPrefix(l, "range 90d ") {
		t.Errorf("filter bar %q", l)
	}
	if hs.m.SetRange(r) != nil || hs.numPagers() != 2 {
		t.Errorf("the same range set again took a feed again: %d pagers", hs.numPagers())
	}
}

// Filters changed faster than pages arrive leave the screen holding one
// feed: every one it took before is released, and closed as nobody else
// holds it.
func TestQuickFilterChangesLeaveOneFeed(t *testing.T) {
	hs := newHarness(t, 120, 30, servePages(contracts(1, 300), 100))
	cmds := []tea.Cmd{hs.m.Init()}
	feeds := []*billing.Feed{hs.m.fl.Feed()}
	for _, k := range []string{"d", "d", "o", "f", "D", "o", "f", "d"} {
		cmds = append(cmds, hs.press(k))
		if feeds[len(feeds)-1] != hs.m.fl.Feed() {
			feeds = append(feeds, hs.m.fl.Feed())
		}
	}
	if len(feeds) != 9 {
		t.Fatalf("%d feeds taken for 9 queries", len(feeds))
	}
	hs.settle(tea.Batch(cmds...))
	for _, f := range feeds[:len(feeds)-1] {
		waitClosed(t, f)
	}
	cur := feeds[len(feeds)-1]
	if st := cur.State(); st.Closed || st.Err != nil || hs.m.tree.Len() != 100 {
		t.Fatalf("the current feed: closed %v, err %v, %d rows", st.Closed, st.Err, hs.m.tree.Len())
	}
	if q := hs.m.Query(); !reflect.DeepEqual(cur.Query(), q) {
		t.Errorf("the screen follows %+v, its filters are %+v", cur.Query(), q)
	}
}

func TestNextPageErrorKeepsRowsAndRetriesThatPage(t *testing.T) {
	hs := newHarness(t, 120, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return billingtest.Paged(contracts(1, 300), 100).With(map[int]error{1: &api.Error{Kind: api.ErrServer, Op: "GET /api/v0/charges/", Status: 502}})
	})
	hs.settle(hs.m.Init())
	hs.settle(hs.press("G"))
	if st := hs.statusText(); !strings.Contains(st, "charges stopped (r to reload): GET /api/v0/charges/: server error (HTTP 502)") ||
		hs.status.Kind != shared.StatusError {
		t.Fatalf("status line %q (kind %d)", st, hs.status.Kind)
	}
	lines := hs.lines()
	if !strings.HasSuffix(strings.TrimSpace(lines[29]), "· stopped") || hs.m.Loading() {
		t.Errorf("footer %q, loading %v", lines[29], hs.m.Loading())
	}
	if hs.m.tree.Len() != 100 {
		t.Fatalf("rows dropped on error: %d", hs.m.tree.Len())
	}
	hs.settle(hs.press("k"))
	if n := hs.pager(0).Calls(); n != 2 {
		t.Fatalf("moving after an error asked again without r: %d calls", n)
	}
	hs.settle(hs.press("r"))
	if hs.numPagers() != 1 || hs.pager(0).Calls() != 3 || hs.m.tree.Len() != 200 || hs.m.Err() != nil {
		t.Fatalf("r should retry the failed page on the same pager: %d pagers, %d calls, %d rows",
			hs.numPagers(), hs.pager(0).Calls(), hs.m.tree.Len())
	}
	if hs.statusText() != "" || strings.Contains(hs.view(), "retry") {
		t.Errorf("the error stayed after a successful retry: status %q", hs.statusText())
	}
}

func TestFirstPageErrorAndRetry(t *testing.T) {
	hs := newHarness(t, 80, 24, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return billingtest.Paged(contracts(1, 10), 100).With(map[int]error{0: &api.Error{Kind: api.ErrTransport, Op: "GET /api/v0/charges/", Err: errors.New("connection refused\x1b[2J")}})
	})
	hs.settle(hs.m.Init())
	v := hs.m.View()
	if !strings.Contains(v, "charges stopped (r to reload): ") || !strings.Contains(v, "cannot reach") || !strings.Contains(v, "refused") || strings.Contains(v, "\x1b") {
		t.Fatalf("error body:\n%q", v)
	}
	if hs.statusText() != "" {
		t.Errorf("the body says it; the status line should not repeat it: %q", hs.statusText())
	}
	hs.settle(hs.press("r"))
	if hs.m.tree.Len() != 10 || hs.m.Err() != nil {
		t.Fatalf("r after a failed first page: %d rows, err %v", hs.m.tree.Len(), hs.m.Err())
	}
}

// r with nothing failed starts over: a fresh feed from the first page,
// the old one released.
func TestReloadStartsOver(t *testing.T) {
	hs := newHarness(t, 80, 24, servePages(contracts(1, 10), 100))
	hs.settle(hs.m.Init())
	hs.press("j", "enter")
	old := hs.m.fl.Feed()
	hs.settle(hs.press("r"))
	if hs.m.fl.Feed() == old || hs.numPagers() != 2 || hs.pager(1).Calls() != 1 {
		t.Fatalf("r did not take a fresh feed: %d pagers", hs.numPagers())
	}
	waitClosed(t, old)
	// The open row and the cursor are kept (TestReloadKeepsCursorAndOpenRows).
	if hs.m.tree.Len() != 14 || hs.m.cursor != 1 || !hs.m.Complete() {
		t.Fatalf("after r: %d rows, cursor %d, complete %v", hs.m.tree.Len(), hs.m.cursor, hs.m.Complete())
	}
}

func TestPermissionMessage(t *testing.T) {
	hs := newHarness(t, 80, 24, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return billingtest.Paged[api.Charge](nil, 100).With(map[int]error{0: &api.Error{Kind: api.ErrPermission, Permission: "billing_read", Status: 401}})
	})
	hs.settle(hs.m.Init())
	v := hs.view()
	if !strings.Contains(v, "this API key lacks the billing_read permission") || strings.Contains(v, "retry") {
		t.Fatalf("permission view:\n%s", v)
	}
	if hs.m.Loading() {
		t.Error("still loading after a permission error")
	}
}

func TestEmptyRange(t *testing.T) {
	hs := newHarness(t, 80, 24, servePages(nil, 100))
	hs.settle(hs.m.Init())
	v := hs.view()
	for _, want := range []string{"No charges between 23 Oct and 21 Nov", "press d to widen the range", "0 of 0 contracts · $0.000 loaded · all loaded"} {
		if !strings.Contains(v, want) {
			t.Errorf("empty view lacks %q:\n%s", want, v)
		}
	}
}

// A custom range in another year names its days with their year: "No
// charges between 1 Mar and 31 Mar" read as this March.
func TestEmptyRangeOfAnotherYear(t *testing.T) {
	hs := newHarness(t, 80, 24, servePages(nil, 100))
	hs.settle(hs.m.Init())
	hs.press("c", "ctrl+u")
	hs.typeText("2025-03-01..2025-03-31")
	hs.settle(hs.press("enter"))
	if v := hs.view(); !strings.Contains(v, "No charges between 1 Mar 2025 and 31 Mar 2025") {
		t.Errorf("empty view:\n%s", v)
	}
}

// A 429 the client gave up on is waited out by the feed: the screen says it
// is waiting (and keeps the spinner going) instead of failing, and the rows
// come once the wait is over. No timer of the screen's own is involved.
func TestRateLimitWaitsThenRetries(t *testing.T) {
	limited := func(threshold time.Duration) func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
			return billingtest.Paged(contracts(1, 5), 100).With(map[int]error{0: &api.Error{Kind: api.ErrRateLimited, Status: 429, Threshold: threshold}})
		}
	}
	t.Run("waiting", func(t *testing.T) {
		// A minute's wait: the screen is looked at while it lasts; the
		// test's end stops it. The first request is held until the screen
		// listens, so the first change it hears is the 429 and its wait
		// (not one its Init already folded, after which it would hear
		// only the end of the wait).
		gate := make(chan struct{})
		hs := newHarness(t, 80, 24, func(q api.ChargesQuery) *billingtest.Pager[api.Charge] {
			p := limited(time.Minute)(q)
			p.Gate = gate
			return p
		})
		cmd := hs.m.Init()
		go func() { gate <- struct{}{} }() // the first request only: the 429
		hs.run(cmd)
		v := hs.view()
		if !hs.m.Loading() || !strings.Contains(v, "waiting for the rate limit") || strings.Contains(v, "retry") {
			t.Fatalf("rate limit: loading %v:\n%s", hs.m.Loading(), v)
		}
	})
	t.Run("recovers", func(t *testing.T) {
		hs := newHarness(t, 80, 24, limited(time.Millisecond))
		hs.settle(hs.m.Init())
		if hs.m.tree.Len() != 5 || hs.pager(0).Calls() != 2 || hs.numPagers() != 1 || hs.m.Loading() {
			t.Fatalf("after the wait: %d rows, %d calls, loading %v", hs.m.tree.Len(), hs.pager(0).Calls(), hs.m.Loading())
		}
	})
}

// What the feed drops reaches the status line once per change, and the
// footer counts it; the totals leave it out.
func TestDroppedEntriesAreCounted(t *testing.T) {
	es := contracts(1, 3)
	bad := contract(9, 9)
	bad.End = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC).Unix() // a broken server
	pages := [][]api.Charge{
		{es[0], bad},
		{es[1], es[0]}, // es[0] again
		es[2:],
	}
	hs := newHarness(t, 120, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: pages, Matching: 4}
	})
	hs.settle(hs.m.Init())
	assertRows(t, hs.rowNames(), []string{"0:instance-1", "0:instance-2", "0:instance-3"})
	if f := hs.lines()[29]; !strings.Contains(f, "3 of 4 contracts · "+sumOf(es).String()+" loaded · 1 malformed skipped · 1 duplicate dropped · all loaded") {
		t.Errorf("footer %q", f)
	}
	if hs.status.Kind != shared.StatusWarn || !strings.Contains(hs.statusText(), "1 malformed entry skipped") ||
		!strings.Contains(hs.statusText(), "1 repeated contract dropped") {
		t.Errorf("status %q (kind %d)", hs.statusText(), hs.status.Kind)
	}
	for i := 1; i < len(hs.statuses); i++ {
		if hs.statuses[i] == hs.statuses[i-1] {
			t.Errorf("status %q sent twice in a row", hs.statuses[i].Text)
		}
	}
	hs.settle(hs.press("j")) // a key dismisses the notice
	if hs.statusText() != "" {
		t.Errorf("notice %q stayed after a key", hs.statusText())
	}
}

// A sum too large to hold is never shown wrapped.
func TestFooterNeverShowsAnOverflowedTotal(t *testing.T) {
	m := New(testContext(plainStyles()))
	f := m.footerOf(billing.State{Contracts: 12, Total: 12, Amount: -123, Overflow: true, Done: true})
	if !strings.Contains(f, "12 of 12 contracts · total too large · all loaded") || strings.Contains(f, "$") {
		t.Errorf("footer %q", f)
	}
}

func TestHostileTextIsSanitized(t *testing.T) {
	evil := contract(1, 1)
	evil.Meta.Label = "\x1b]0;pwned\x07evil\x1b[2J\u202eabc"
	evil.Source = "instance-\x1b[31m9"
	evil.Items[0].Description = "gpu\x1b[1;1H\rline\nbreak"
	hs := newHarness(t, 120, 20, servePages([]api.Charge{evil}, 100))
	hs.settle(hs.m.Init())
	hs.press("enter")
	v := hs.m.View() // plain styles: any escape in it leaked from the data
	for _, bad := range []string{"\x1b", "\x07", "\u202e", "\r"} {
		if strings.Contains(v, bad) {
			t.Fatalf("view holds %q:\n%q", bad, v)
		}
	}
	for _, want := range []string{"evilabc", "gpu line break", "▾ 9 "} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks the sanitized %q:\n%s", want, v)
		}
	}
	assertFits(t, v, 120, 20)
}

func TestWideLabelsKeepColumnsAligned(t *testing.T) {
	es := contracts(1, 4)
	es[0].Meta.Label = "訓練ジョブ-大規模モデル"
	es[1].Meta.Label = "🚀 deploy 🚀🚀🚀🚀🚀🚀🚀🚀🚀🚀"
	es[2].Meta.Label = "plain"
	es[3].Meta.Label = "e\u0301te\u0301" // combining accents
	es[2].Start = 0                      // unknown start: "—"
	for _, w := range []int{120, 80, 50} {
		hs := newHarness(t, w, 20, servePages(es, 100))
		hs.settle(hs.m.Init())
		hs.press("enter")
		v := hs.view()
		assertFits(t, v, w, 20)
		col := -1
		for _, l := range strings.Split(v, "\n") {
			i := strings.Index(l, "→")
			if i < 0 { // at 80 columns the dates are the start alone
				i = strings.Index(l, "Nov 1")
			}
			if i < 0 || !strings.Contains(l, "$") {
				continue
			}
			if c := shared.Width(l[:i]); col < 0 {
				col = c
			} else if c != col {
				t.Fatalf("width %d: → at cell %d, want %d:\n%s", w, c, col, v)
			}
		}
		if w >= 80 && col < 0 {
			t.Fatalf("width %d: no dates column:\n%s", w, v)
		}
	}
}

func TestEverySizeFits(t *testing.T) {
	es := append(contracts(1, 30), serverlessEndpoint(7, 2, 3))
	es[0].Meta.Label = "訓練ジョブ-大規模モデル-とても長い名前"
	for _, w := range []int{0, 1, 2, 3, 5, 8, 12, 20, 33, 40, 60, 79, 80, 100, 120, 200} {
		for _, h := range []int{0, 1, 2, 3, 4, 5, 8, 24, 40} {
			for _, state := range []string{"rows", "input", "picker", "error", "empty"} {
				entries := es
				if state == "empty" {
					entries = nil
				}
				hs := newHarness(t, w, h, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
					p := billingtest.Paged(entries, 10)
					if state == "error" {
						p.Errs = map[int]error{1: &api.Error{Kind: api.ErrServer, Status: 500, Msg: "日本語のエラー"}}
					}
					return p
				})
				hs.settle(hs.m.Init())
				hs.settle(hs.press("enter", "G"))
				hs.settle(hs.press("enter"))
				switch state {
				case "input":
					hs.press("c")
					hs.typeText("x")
				case "picker":
					hs.press("t")
				}
				assertFits(t, hs.m.View(), w, h)
				if state == "rows" && w >= 20 && h >= 5 {
					if l := hs.cursorLine(); !strings.Contains(l, "$") {
						t.Fatalf("%dx%d: cursor row lacks its amount: %q", w, h, l)
					}
				}
			}
		}
	}
}

func TestSmallSizesHideColumnsInOrder(t *testing.T) {
	full := layoutCols(120, 10, 0, false)
	if full.typ == 0 || full.text == 0 || full.dates == 0 || full.dur == 0 {
		t.Fatalf("120 wide hides a column: %+v", full)
	}
	if c := layoutCols(80, 10, 0, false); c.dur == 0 || c.dates == 0 {
		t.Errorf("80 wide should still show every column: %+v", c)
	}
	prev := full
	for w := 120; w >= 1; w-- {
		c := layoutCols(w, 10, 0, false)
		// Once hidden, a column stays hidden as the width shrinks, and the
		// order is duration, dates, text, type.
		if (prev.dur == 0 && c.dur != 0) || (prev.dates == 0 && c.dates != 0) ||
			(prev.text == 0 && c.text != 0) || (prev.typ == 0 && c.typ != 0) {
			t.Fatalf("width %d re-shows a column: %+v after %+v", w, c, prev)
		}
		// What is hidden is always a prefix of: duration, dates, text, type.
		if (c.dates == 0 && c.dur > 0) || (c.text == 0 && c.dates > 0) || (c.typ == 0 && c.text > 0) {
			t.Fatalf("width %d hides out of order: %+v", w, c)
		}
		prev = c
	}
}

func TestCustomRangeInput(t *testing.T) {
	hs := newHarness(t, 100, 20, servePages(contracts(1, 3), 100))
	hs.settle(hs.m.Init())
	hs.press("c")
	if !hs.m.Capturing() {
		t.Fatal("c did not focus the range input")
	}
	if v := hs.view(); !strings.Contains(v, "custom range: 2026-10-23..2026-11-21") {
		t.Fatalf("input not prefilled:\n%s", v)
	}
	hs.press("ctrl+u")
	hs.typeText("2026-11-01..2026-11-3")
	if v := hs.view(); !strings.Contains(v, `"2026-11-3" is not a date`) {
		t.Fatalf("invalid range not flagged while typing:\n%s", v)
	}
	hs.press("enter")
	if !hs.m.Capturing() || hs.numPagers() != 1 {
		t.Fatal("enter applied an invalid range")
	}
	hs.typeText("0")
	if strings.Contains(hs.view(), "not a date") {
		t.Fatal("error stayed after the range became valid")
	}
	hs.settle(hs.press("enter"))
	r := hs.m.Range()
	if hs.m.Capturing() || r.Preset != "" || !r.From.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) ||
		!r.To.Equal(time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC)) {
		t.Fatalf("after enter: capturing %v, range %+v", hs.m.Capturing(), r)
	}
	if hs.numPagers() != 2 || !hs.query(1).To.Equal(r.To) {
		t.Fatal("the custom range was not requested")
	}
	if l := hs.lines()[0]; !strings.HasPrefix(l, "range 2026-11-01..2026-11-30 · ") {
		t.Errorf("filter bar %q", l)
	}
	hs.press("c")
	hs.typeText("q1")
	hs.press("esc")
	if hs.m.Capturing() || hs.numPagers() != 2 || !hs.m.Range().From.Equal(r.From) {
		t.Fatal("esc did not cancel the input")
	}
	hs.press("d") // from a custom range, d returns to the presets
	if hs.m.Range().Preset != "30d" {
		t.Errorf("d from a custom range: %q", hs.m.Range().Preset)
	}
}

func TestTypePicker(t *testing.T) {
	hs := newHarness(t, 120, 20, servePages(contracts(1, 3), 100))
	hs.settle(hs.m.Init())
	hs.press("t")
	if v := hs.view(); !strings.Contains(v, "types: ›[ ] instance  [ ] volume  [ ] serverless  (all types)") {
		t.Fatalf("picker:\n%s", v)
	}
	if hs.m.Capturing() {
		t.Error("the picker does not take text; Capturing should stay false")
	}
	hs.press("i", "s")
	if got := hs.m.Help().ShortHelp(); !key.Matches(keyMsg("esc"), got...) {
		t.Error("picker help lacks esc")
	}
	hs.settle(hs.press("enter"))
	q := hs.m.Query()
	if len(q.Types) != 2 || q.Types[0] != api.TypeInstance || q.Types[1] != api.TypeServerless {
		t.Fatalf("types %v", q.Types)
	}
	if hs.numPagers() != 2 || len(hs.query(1).Types) != 2 {
		t.Fatal("the type filter was not requested")
	}
	if l := hs.lines()[0]; !strings.Contains(l, "· types instance+serverless ·") {
		t.Errorf("filter bar %q", l)
	}
	hs.press("t", "v", "esc")
	if len(hs.m.Query().Types) != 2 || hs.numPagers() != 2 {
		t.Fatal("esc applied the picker")
	}
	hs.press("t", "v", "enter") // every type selected: no filter
	if hs.m.Query().Types != nil || !strings.Contains(hs.lines()[0], "· types all ·") {
		t.Errorf("all types: %v %q", hs.m.Query().Types, hs.lines()[0])
	}
	hs.press("t", "space", "right", "right", "space", "enter") // focus moves; space toggles the focused type
	if q := hs.m.Query().Types; len(q) != 2 || q[0] != api.TypeInstance || q[1] != api.TypeServerless {
		t.Errorf("space/→ toggling: %v", q)
	}
}

func TestOrderAndFormatToggles(t *testing.T) {
	hs := newHarness(t, 120, 20, servePages(contracts(1, 3), 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.press("o"))
	if !hs.m.Query().OldestFirst || !hs.query(1).OldestFirst || !strings.Contains(hs.lines()[0], "oldest first") {
		t.Fatal("o did not switch to oldest first")
	}
	hs.settle(hs.press("f", "f"))
	if hs.m.Query().Format != api.FormatTable || hs.numPagers() != 4 {
		t.Fatalf("f f: format %q, %d pagers", hs.m.Query().Format, hs.numPagers())
	}
	if q := hs.m.Query(); q.Limit != api.MaxLimit {
		t.Errorf("page limit %d, want %d (the overview's, so pages are shared)", q.Limit, api.MaxLimit)
	}
}

func TestNavigationKeysAndResize(t *testing.T) {
	hs := newHarness(t, 100, 30, servePages(contracts(1, 100), 100))
	hs.settle(hs.m.Init())
	body := hs.m.frame().body
	steps := []struct {
		key  string
		want int
	}{
		{"pgdown", body}, {"ctrl+d", body + body/2}, {"ctrl+u", body}, {"pgup", 0},
		{"down", 1}, {"up", 0}, {"end", 99}, {"home", 0}, {"G", 99}, {"g", 0},
	}
	for _, s := range steps {
		hs.press(s.key)
		if hs.m.cursor != s.want {
			t.Fatalf("%s: cursor %d, want %d", s.key, hs.m.cursor, s.want)
		}
	}
	hs.m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if hs.m.cursor != 3 {
		t.Fatalf("wheel down: cursor %d", hs.m.cursor)
	}
	hs.press("pgdown", "pgdown")
	at := hs.m.cursor
	hs.m.SetSize(60, 8)
	if l := hs.cursorLine(); !strings.Contains(l, money.Group(int64(at+1))) {
		t.Fatalf("cursor row not visible after shrinking: %q", l)
	}
	assertFits(t, hs.m.View(), 60, 8)
	hs.m.SetSize(100, 200) // taller than the list: no blank space above the end
	if hs.m.offset != 0 {
		t.Errorf("offset %d with every row fitting", hs.m.offset)
	}
}

func TestHelpFollowsMode(t *testing.T) {
	hs := newHarness(t, 100, 20, servePages(contracts(1, 3), 100))
	hs.settle(hs.m.Init())
	has := func(bs []key.Binding, k string) bool { return key.Matches(keyMsg(k), bs...) }
	if sh := hs.m.Help().ShortHelp(); !has(sh, "d") || !has(sh, "enter") {
		t.Error("row help lacks d or enter")
	}
	var all []key.Binding
	for _, col := range hs.m.Help().FullHelp() {
		all = append(all, col...)
	}
	for _, k := range []string{"j", "k", "pgdown", "ctrl+u", "g", "G", "space", "l", "h", "d", "D", "c", "t", "f", "o", "r"} {
		if !has(all, k) {
			t.Errorf("full help lacks %q", k)
		}
	}
	hs.press("c")
	if sh := hs.m.Help().ShortHelp(); has(sh, "d") || !has(sh, "enter") || !has(sh, "esc") {
		t.Error("input help should list enter and esc only")
	}
}

func TestTotalsRangeAndQuery(t *testing.T) {
	es := append(contracts(1, 5), serverlessEndpoint(3, 1, 2))
	hs := newHarness(t, 100, 40, servePages(es, 100))
	hs.settle(hs.m.Init())
	tot := hs.m.Totals()
	if tot.Contracts != 6 || tot.Total != sumOf(es) || tot.ByType["serverless"] != es[5].Amount {
		t.Fatalf("totals %+v", tot)
	}
	tot.ByType["instance"] = 0 // a copy: the screen's totals are unchanged
	if hs.m.Totals().ByType["instance"] == 0 {
		t.Error("Totals shares its maps")
	}
	want, _ := spend.PresetRange("30d", testNow, time.UTC)
	if q := hs.m.Query(); !reflect.DeepEqual(q, billing.RangeQuery(want.From, want.To)) {
		t.Errorf("default query %+v, want the Overview's billing.RangeQuery, so both read one feed", q)
	}
	if !hs.m.Complete() {
		t.Error("one page with everything is complete")
	}
}

// Issue 11: the Overview loads the same range through the same feed; once
// it has loaded every page, the Charges screen shows every row and counts
// every contract, without a key pressed ("500 of 3,727" while the Overview
// had everything was the bug).
func TestSharedFeedShowsWhatTheOtherScreenLoaded(t *testing.T) {
	all := contracts(1, 1000)
	hs := newHarness(t, 120, 30, servePages(all, 100))
	hs.settle(hs.m.Init())
	if hs.m.tree.Len() != 100 {
		t.Fatalf("first paint: %d rows", hs.m.tree.Len())
	}
	// The other screen: it asks for the range as the Overview does, and
	// gets the feed this screen holds.
	r := hs.m.Range()
	var other shared.ChargesFollower
	other.Hold(hs.svc.Feed(billing.RangeQuery(r.From, r.To)))
	defer other.Release()
	if other.Feed() != hs.m.fl.Feed() {
		t.Fatal("the Overview's query of the same range got a feed of its own")
	}
	other.WantAll()
	// The root hands the other screen's feed messages to every screen; this
	// screen's own commands are not run, so only the other's listener
	// drives it.
	for {
		cmd := other.Listen(hs.m.ctx.Base)
		if cmd == nil {
			t.Fatalf("the feed stopped changing at version %d before it was whole", other.State().Version)
		}
		msg := cmd().(shared.FeedMsg)
		other.Heard(msg)
		other.Next()
		hs.m.Update(msg)
		if msg.State.Done && !msg.State.Loading {
			break
		}
	}
	if hs.m.tree.Len() != len(all) || !hs.m.Complete() {
		t.Fatalf("%d rows of %d, complete %v", hs.m.tree.Len(), len(all), hs.m.Complete())
	}
	if f := hs.lines()[29]; !strings.Contains(f, "1,000 of 1,000 contracts · "+sumOf(all).String()+" loaded · all loaded") {
		t.Errorf("footer %q", f)
	}
	if hs.numPagers() != 1 {
		t.Errorf("%d pagers: the two screens should page once, together", hs.numPagers())
	}
	if hs.m.cursor != 0 {
		t.Errorf("rows the other screen loaded moved the cursor to %d", hs.m.cursor)
	}
}

// Without a billing layer the screen says so instead of loading forever.
func TestNoService(t *testing.T) {
	m := New(testContext(plainStyles()))
	m.SetSize(80, 10)
	m.Init()
	if v := ansi.Strip(m.View()); !strings.Contains(v, "no API client configured") || m.Loading() {
		t.Fatalf("loading %v:\n%s", m.Loading(), v)
	}
	m.Update(keyMsg("r")) // nothing to retry with: no panic
}

// A typed range reaching outside the days billing believes is refused in
// the field, as the command refuses --from 0001-01-01: year 1 is Go's zero
// time, which a query would read as "no date".
func TestCustomRangeOutsideThePlausibleDays(t *testing.T) {
	hs := newHarness(t, 100, 20, servePages(contracts(1, 3), 100))
	hs.settle(hs.m.Init())
	hs.press("c")
	hs.press("ctrl+u")
	hs.typeText("0001-01-01..2026-11-01")
	if v := hs.view(); !strings.Contains(v, "outside the days vastdash accepts") {
		t.Fatalf("year 1 not flagged:\n%s", v)
	}
	hs.press("enter")
	if !hs.m.Capturing() || hs.numPagers() != 1 {
		t.Fatal("enter applied a range from year 1")
	}
}
