package overview

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// testCharges is a small report: two instances, a volume and a serverless
// worker. Amounts are chosen so float sums would drift (0.1 + 0.2).
func testCharges() []api.Charge {
	item := func(typ string, a money.Amount) api.Charge { return api.Charge{Type: typ, Amount: a} }
	s, e := now.Add(-30*time.Hour).Unix(), now.Add(-2*time.Hour).Unix()
	return []api.Charge{
		{Type: "instance", Source: "instance-1", Start: s, End: e, Amount: 1000100, Items: []api.Charge{
			item("gpu", 900000), item("disk", 100000), item("bwd", 100),
		}},
		{Type: "instance", Source: "instance-2", Start: s, End: e, Amount: 300, Items: []api.Charge{
			item("gpu", 100), item("bwu", 200),
		}},
		{Type: "volume", Source: "volume-3", Start: s, End: e, Amount: 200002, Items: []api.Charge{item("disk", 200002)}},
		{Type: "instance", Source: "instance-9", Start: s, End: e, Amount: 50501, Meta: api.Metadata{EndpointID: 7},
			Items: []api.Charge{item("gpu", 50000), item("disk", 500), {Type: "instance", Amount: 1}}},
	}
}

// modelWith is a model over a billing layer whose feeds page through
// pages; the queries feeds asked pagers for are kept.
func modelWith(tb testing.TB, w, h int, pages func(api.ChargesQuery) *billingtest.Pager[api.Charge], opts ...billing.Option) (*Model, *driver, *queries) {
	tb.Helper()
	ctx := newCtx()
	qs := &queries{}
	newService(tb, ctx, func(q api.ChargesQuery) billing.Source[api.Charge] {
		qs.add(q)
		return pages(q)
	}, opts...)
	m := New(ctx)
	m.SetSize(w, h)
	return m, newDriver(m), qs
}

func loaded(tb testing.TB, w, h int, cs []api.Charge) (*Model, *driver) {
	tb.Helper()
	m, d, _ := modelWith(tb, w, h, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
	})
	d.run(tb, m.Update(shared.UserMsg{User: testUser()}))
	d.run(tb, m.Init())
	return m, d
}

// pagesIn waits for the range to have folded n pages.
func pagesIn(m *Model, n int) func() bool {
	return func() bool { return m.main != nil && m.main.State().Pages >= n }
}

func TestAccountStates(t *testing.T) {
	m := New(newCtx())
	m.SetSize(80, 24)
	if !strings.Contains(view(m), "loading account…") {
		t.Fatalf("no loading hint:\n%s", view(m))
	}
	m.Update(shared.UserMsg{Err: errors.New("the API key was rejected (invalid or revoked key)")})
	if v := view(m); !strings.Contains(v, "account: the API key was rejected") {
		t.Fatalf("user error not shown:\n%s", v)
	}
	m.Update(shared.UserMsg{User: testUser()})
	v := view(m)
	for _, want := range []string{"Credit", "$1,234.57", "Balance -$12.00", "Low-balance threshold $50.00 (enabled)", "No range chosen yet"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q in\n%s", want, v)
		}
	}
	if strings.Contains(v, "someone@example.com") {
		t.Error("the overview need not show the e-mail address")
	}
}

func TestCreditStateHasWords(t *testing.T) {
	cases := []struct {
		credit  money.Amount
		enabled *bool
		want    string
	}{
		{40000, ptr(true), "below threshold"},
		{40000, nil, "below threshold"},
		{40000, ptr(false), ""},
		{0, ptr(true), "at or below zero"},
		{-5, ptr(true), "at or below zero"},
		{60000, ptr(true), ""},
	}
	for _, c := range cases {
		for _, size := range [][2]int{{100, 30}, {40, 6}} {
			u := testUser()
			u.Credit, u.BalanceThresholdEnabled = c.credit, c.enabled
			m := New(newCtx())
			m.SetSize(size[0], size[1])
			m.Update(shared.UserMsg{User: u})
			v := view(m)
			for _, word := range []string{"below threshold", "at or below zero"} {
				if has := strings.Contains(v, word); has != (word == c.want) {
					t.Errorf("credit %d enabled %v at %v: %q shown=%v\n%s", c.credit, c.enabled, size, word, has, v)
				}
			}
		}
	}
}

// rowOf finds the breakdown row of name.
func rowOf(t *testing.T, lines []string, name string) string {
	t.Helper()
	for _, l := range lines {
		if strings.HasPrefix(l, "  "+name+" ") {
			return l
		}
	}
	t.Fatalf("no row %q in\n%s", name, strings.Join(lines, "\n"))
	return ""
}

func TestTotalsExactInTables(t *testing.T) {
	m, _ := loaded(t, 100, 60, testCharges())
	lines := plain(m)
	want := map[string]string{
		"instance":   "$1,000.400", // 1000.100 + 0.300
		"volume":     "$200.002",
		"serverless": "$50.501",
		"total":      "$1,250.903",
		"gpu":        "$950.100",
		"disk":       "$300.502",
		"bwd":        "$0.100",
		"bwu":        "$0.200",
		"other":      "$0.001",
	}
	for name, amt := range want {
		if r := rowOf(t, lines, name); !strings.Contains(r, amt) {
			t.Errorf("row %q = %q, want amount %s", name, r, amt)
		}
	}
	for name, sh := range map[string]string{"instance": "80.0%", "volume": "16.0%", "serverless": "4.0%", "bwd": "0.0%"} {
		if r := rowOf(t, lines, name); !strings.Contains(r, sh) {
			t.Errorf("row %q = %q, want share %s", name, r, sh)
		}
	}
	v := strings.Join(lines, "\n")
	if !strings.Contains(v, "Spend 30d (23 Oct – 21 Nov) · all 4 contracts loaded") {
		t.Errorf("title wrong:\n%s", v)
	}
	if strings.Contains(v, "partial") {
		t.Error("a complete load is not partial")
	}
}

func TestCompactSplitsWhenShort(t *testing.T) {
	m, _ := loaded(t, 100, 30, fixture())
	if strings.Contains(view(m), "100.0%") {
		t.Fatalf("100×30 has no room for the tables:\n%s", view(m))
	}
	var tot spend.Totals
	tot.Add(fixture())
	types := lineWith(t, m, "By contract type")
	for _, k := range []string{"instance", "volume", "serverless"} {
		if want := k + " " + tot.ByType[k].String(); !strings.Contains(types, want) {
			t.Errorf("%q lacks %q", types, want)
		}
	}
	if want := "total " + tot.Total.String(); !strings.Contains(view(m), want) {
		t.Errorf("no %q in\n%s", want, view(m))
	}
	if items := lineWith(t, m, "By charge type"); !strings.Contains(items, "gpu "+tot.ByItem["gpu"].String()) {
		t.Errorf("charge split %q", items)
	}
}

func TestLoadsEveryPageAndFolds(t *testing.T) {
	cs := fixture()
	var pager *billingtest.Pager[api.Charge]
	m, d, qs := modelWith(t, 100, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		pager = &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
		return pager
	})
	d.run(t, m.Init())
	if qs.n() != 1 {
		t.Fatalf("30d covers the burn window: want 1 query, got %d", qs.n())
	}
	q := qs.at(0)
	r := preset(t, "30d")
	want := api.ChargesQuery{From: r.From, To: r.To, Format: api.FormatTable, Limit: 500}
	if !q.Equal(want) {
		t.Errorf("query %+v, want %+v", q, want)
	}
	if pager.Calls() != 5 {
		t.Errorf("42 contracts in pages of 10: want 5 Next calls, got %d", pager.Calls())
	}
	if !strings.Contains(view(m), "all 42 contracts loaded") || m.Loading() {
		t.Errorf("not all loaded (loading=%v):\n%s", m.Loading(), view(m))
	}
	var tot spend.Totals
	tot.Add(cs)
	if m.totals.Total != tot.Total || m.totals.Contracts != tot.Contracts {
		t.Errorf("totals %v / %d, want %v / %d", m.totals.Total, m.totals.Contracts, tot.Total, tot.Contracts)
	}
}

func TestProgressText(t *testing.T) {
	cs := fixture()
	pager := gated(&billingtest.Pager[api.Charge]{Pages: paged(cs, 11), Matching: 1600}) // the server says 1,600 match: 4 pages of 500
	m, d, _ := modelWith(t, 100, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] { return pager })
	cmd := m.Init()
	if !m.Loading() || !strings.Contains(view(m), "loading charges…") {
		t.Fatalf("before the first page (loading=%v):\n%s", m.Loading(), view(m))
	}
	pager.Allow(1)
	d.runUntil(t, cmd, pagesIn(m, 1))
	if !strings.Contains(view(m), "loading charges: page 1 of 4") {
		t.Errorf("after one page:\n%s", view(m))
	}
	pager.Allow(1)
	d.runUntil(t, nil, pagesIn(m, 2))
	if !strings.Contains(view(m), "loading charges: page 2 of 4") {
		t.Errorf("after two pages:\n%s", view(m))
	}
	pager.Allow(64)
	d.run(t, nil)
	if !strings.Contains(view(m), "all 42 contracts loaded") || m.Loading() {
		t.Errorf("at the end (loading=%v):\n%s", m.Loading(), view(m))
	}
}

// expectedBurn is what spend computes from cs at now: the days of the burn
// window (spread within it, as every bounded accumulator does: a contract
// crossing its edge may round a thousandth differently than spread over
// all of its days) and the last 24 hours.
func expectedBurn(cs []api.Charge) (week, day spend.Burn) {
	from, to := spend.BurnWindow(now, time.UTC)
	d := spend.NewDailyWindow(time.UTC, from, to)
	d.Add(cs)
	w := spend.Last24h(now)
	w.Add(cs)
	return spend.BurnWeek(d, now), w.Burn24h()
}

func TestBurnAndRunwayText(t *testing.T) {
	cs := fixture()
	m, d := loaded(t, 120, 40, cs)
	wk, day := expectedBurn(cs)
	if wk.PerDay <= 0 || day.PerDay <= 0 {
		t.Fatalf("the fixture should spend in both windows: %v %v", wk.PerDay, day.PerDay)
	}
	want := "Burn   " + wk.PerDay.String() + "/day (last 7 complete days: 14 Nov – 20 Nov) · " + day.PerDay.String() + "/day (last 24 h)"
	if l := lineWith(t, m, "Burn"); strings.TrimRight(l, " ") != want {
		t.Errorf("burn line\n got %q\nwant %q", strings.TrimRight(l, " "), want)
	}
	rw := spend.RunwayFor(testUser().Credit, wk, true, now)
	if l := lineWith(t, m, "Runway"); !strings.HasPrefix(l, "Runway "+rw.String()+" — estimate") {
		t.Errorf("runway line %q, want %q", l, rw.String())
	}
	if got := m.runway(); got != rw {
		t.Errorf("runway %+v; want %+v", got, rw)
	}
	if n := len(d.runways); n == 0 || !d.runways[n-1].OK || d.runways[n-1].Runway != rw {
		t.Errorf("the root was told %+v; want %+v", d.runways, rw)
	}
	// Narrow: the 24 h figure gets its own line, the week a shorter label.
	m.SetSize(50, 30)
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, wk.PerDay.String()+"/day (7 full days to 20 Nov)") {
		t.Errorf("narrow burn line %q", l)
	}
	if l := lineWith(t, m, "(last 24 h)"); !strings.Contains(l, day.PerDay.String()+"/day") {
		t.Errorf("narrow 24 h line %q", l)
	}
}

func TestRunwayReasons(t *testing.T) {
	// No spend in the window: the only contract ended a month ago.
	old := []api.Charge{{Type: "instance", Source: "instance-1", Start: now.AddDate(0, 0, -28).Unix(), End: now.AddDate(0, 0, -27).Unix(), Amount: 5000}}
	m, _ := loaded(t, 100, 30, old)
	if l := lineWith(t, m, "Runway"); !strings.Contains(l, "— no spend in the last 7 complete days") {
		t.Errorf("no spend: %q", l)
	}
	if r := m.runway(); r.Reason == "" {
		t.Error("no spend: there should be no runway")
	}

	// No credit.
	m, d := loaded(t, 100, 30, fixture())
	u := testUser()
	u.Credit = 0
	d.send(t, shared.UserMsg{User: u})
	if l := lineWith(t, m, "Runway"); !strings.Contains(l, "— no credit left") {
		t.Errorf("no credit: %q", l)
	}

	// Partial: the first of several pages.
	pager := gated(&billingtest.Pager[api.Charge]{Pages: paged(fixture(), 10), Matching: 42})
	m, d, _ = modelWith(t, 100, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] { return pager })
	d.send(t, shared.UserMsg{User: testUser()})
	pager.Allow(1)
	d.runUntil(t, m.Init(), pagesIn(m, 1))
	if l := lineWith(t, m, "Runway"); !strings.Contains(l, "— charges still loading") {
		t.Errorf("partial: %q", l)
	}
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, "loading the last 7 complete days (14 Nov – 20 Nov)") {
		t.Errorf("partial burn: %q", l)
	}
	if r := m.runway(); r.Reason != "charges still loading" {
		t.Errorf("partial: runway %+v", r)
	}

	// No account yet.
	m, _ = loaded(t, 100, 30, fixture())
	m.user = nil
	if r := m.runway(); r.Reason != "account not loaded yet" {
		t.Errorf("without an account there is no runway: %+v", r)
	}
}

// topOrder is the fixture's contracts by amount, largest first, ties by
// source.
func topOrder(cs []api.Charge) []string {
	cs = slices.Clone(cs)
	slices.SortStableFunc(cs, func(a, b api.Charge) int {
		if a.Amount != b.Amount {
			if a.Amount > b.Amount {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Source, b.Source)
	})
	var out []string
	for _, c := range cs[:5] {
		out = append(out, c.Source)
	}
	return out
}

func TestTopFiveOrderAndReveal(t *testing.T) {
	cs := fixture()
	m, d := loaded(t, 100, 40, cs)
	want := topOrder(cs)
	// Two contracts of $500.000 lead; "instance-20" sorts before "instance-3".
	if want[0] != "instance-20" || want[1] != "instance-3" {
		t.Fatalf("fixture changed: %v", want)
	}
	lines := plain(m)
	head := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "Top 5 contracts by amount") })
	if head < 0 {
		t.Fatalf("no top list:\n%s", view(m))
	}
	for i, src := range want {
		l := lines[head+1+i]
		if !strings.Contains(l, " "+src+" ") {
			t.Errorf("row %d = %q, want %s", i, l, src)
		}
	}
	if !strings.HasPrefix(lines[head+1], "›") {
		t.Errorf("the cursor starts on the first row: %q", lines[head+1])
	}

	d.key(t, "j")
	d.key(t, "down")
	d.key(t, "enter")
	d.key(t, "k")
	d.key(t, "enter")
	for range 10 {
		d.key(t, "j")
	}
	d.key(t, "enter")
	d.key(t, "up")
	for range 10 {
		d.key(t, "k")
	}
	d.key(t, "enter")
	got := []string{}
	for _, r := range d.reveals {
		got = append(got, r.Source)
	}
	if exp := []string{want[2], want[1], want[4], want[0]}; !slices.Equal(got, exp) {
		t.Errorf("revealed %v, want %v", got, exp)
	}
}

func TestServerTextSanitized(t *testing.T) {
	cs := fixture()
	cs = append(cs, api.Charge{Type: "\x1b]0;pwned\x07evil\x1b[2J", Source: "x-1", Start: now.Add(-time.Hour).Unix(), End: now.Unix(), Amount: 5000})
	m, _ := loaded(t, 100, 60, cs)
	out := m.View()
	if strings.Contains(out, "pwned") || strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x1b]") {
		t.Fatalf("server text reached the terminal raw: %q", out)
	}
	if !strings.Contains(ansi.Strip(out), "train") {
		t.Errorf("the sanitized label should still show:\n%s", ansi.Strip(out))
	}
}

func TestRangeChangeDropsLateAnswers(t *testing.T) {
	cs := fixture()
	m, d, qs := modelWith(t, 100, 30, func(q api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
	})
	late := feedMsg(t, m.Init()) // news of 30d, arriving after the range changed

	// 7d starts a day after the burn window: the window is loaded too.
	r7 := preset(t, "7d")
	next := m.SetRange(r7)
	if qs.n() != 3 {
		t.Fatalf("a new range starts a new query, and 7d one for the burn window: %d", qs.n())
	}
	if cmd := m.Update(late); cmd != nil {
		t.Error("a late answer must not ask for more")
	}
	if m.totals.Contracts != 0 || m.main.Entries() != 0 {
		t.Fatalf("the late page was folded into the new range: %d contracts", m.totals.Contracts)
	}
	d.run(t, next)
	if !strings.Contains(view(m), "Spend 7d (15 Nov – 21 Nov) · all 42 contracts loaded") {
		t.Errorf("after the change:\n%s", view(m))
	}

	// A load still running when the range changes is stopped; that it was
	// cancelled is not shown.
	inflight := m.SetRange(preset(t, "30d"))
	again := m.SetRange(r7)
	d.run(t, tea.Batch(inflight, again))
	if v := view(m); strings.Contains(v, "✗") || strings.Contains(v, "canceled") || !strings.Contains(v, "all 42 contracts loaded") {
		t.Errorf("a cancelled load shows an error:\n%s", v)
	}
}

func TestSameDaysDoNotReload(t *testing.T) {
	m, d, qs := modelWith(t, 100, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: paged(fixture(), 50), Matching: 42}
	})
	r := preset(t, "30d")
	d.run(t, m.SetRange(r))
	if m.Init() != nil {
		t.Error("Init after SetRange must not load again")
	}
	r.Preset = ""
	if m.SetRange(r) != nil || qs.n() != 1 {
		t.Errorf("the same days must not reload (%d queries)", qs.n())
	}
	if !strings.Contains(view(m), "Spend 2026-10-23..2026-11-21") {
		t.Errorf("the title follows the new name:\n%s", view(m))
	}
}

func TestBurnWindowLoadedWhenRangeMissesIt(t *testing.T) {
	rangeData := fixture()[:10]
	burnData := testCharges()
	m, d, qs := modelWith(t, 100, 40, func(q api.ChargesQuery) *billingtest.Pager[api.Charge] {
		if q.From.Equal(time.Date(2026, 11, 14, 0, 0, 0, 0, time.UTC)) {
			return &billingtest.Pager[api.Charge]{Pages: paged(burnData, 2), Matching: len(burnData)}
		}
		return &billingtest.Pager[api.Charge]{Pages: paged(rangeData, 3), Matching: len(rangeData)}
	})
	d.send(t, shared.UserMsg{User: testUser()})
	d.run(t, m.SetRange(preset(t, "last-month")))
	if qs.n() != 2 {
		t.Fatalf("want the range and the burn window, got %d queries", qs.n())
	}
	bw := qs.at(1)
	want := api.ChargesQuery{
		From: time.Date(2026, 11, 14, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 21, 23, 59, 59, 0, time.UTC),
		Format: api.FormatTable, Limit: 500,
	}
	if !bw.Equal(want) {
		t.Errorf("burn window query %+v, want %+v", bw, want)
	}
	wk, day := expectedBurn(burnData)
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, wk.PerDay.String()+"/day (last 7 complete days: 14 Nov – 20 Nov) · "+day.PerDay.String()+"/day (last 24 h)") {
		t.Errorf("burn from the window's own load: %q", l)
	}
	// The range's figures come from the range alone.
	var tot spend.Totals
	tot.Add(rangeData)
	if m.totals.Total != tot.Total {
		t.Errorf("range totals %v, want %v", m.totals.Total, tot.Total)
	}
	// Another range that misses the window keeps the window's load.
	d.run(t, m.SetRange(spend.Range{From: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 9, 30, 23, 59, 59, 0, time.UTC)}))
	if qs.n() != 3 {
		t.Errorf("the burn window should be kept, not loaded again: %d queries", qs.n())
	}
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, wk.PerDay.String()+"/day") {
		t.Errorf("the kept window's figures should stay: %q", l)
	}
	// A range that covers it drops it.
	d.run(t, m.SetRange(preset(t, "30d")))
	if m.burn != nil {
		t.Error("30d covers the window; its own load should go")
	}
}

func TestFailedPageRetriedWithR(t *testing.T) {
	cs := fixture()
	boom := &api.Error{Kind: api.ErrServer, Op: "GET /api/v0/charges/", Status: 500, Msg: "internal \x1b[31merror"}
	var pager *billingtest.Pager[api.Charge]
	m, d, qs := modelWith(t, 100, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		p := &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
		if pager == nil {
			p.Errs = map[int]error{2: boom} // the first load fails once
			pager = p
		}
		return p
	})
	d.send(t, shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	v := view(m)
	if !strings.Contains(v, "✗ charges: ") || !strings.Contains(v, "r to reload") {
		t.Fatalf("no error with a retry hint:\n%s", v)
	}
	if strings.Contains(m.View(), "\x1b[31merror") {
		t.Error("the error text must be sanitized")
	}
	if !strings.Contains(v, "20 of 42 contracts loaded · partial") || m.Loading() {
		t.Errorf("the loaded pages should stay (loading=%v):\n%s", m.Loading(), v)
	}
	if l := lineWith(t, m, "Runway"); !strings.Contains(l, "— charges could not be loaded") {
		t.Errorf("runway after a failure: %q", l)
	}
	// The status line says it too, once.
	if s := errorStatuses(d); len(s) != 1 || !strings.Contains(s[0].Text, "charges stopped") || !strings.Contains(s[0].Text, "r to reload") {
		t.Errorf("want one error on the status line, got %+v", d.statuses)
	}
	d.key(t, "r")
	if qs.n() != 1 {
		t.Errorf("r after a failure retries the page, not the query: %d queries", qs.n())
	}
	if v := view(m); !strings.Contains(v, "all 42 contracts loaded") || strings.Contains(v, "✗") {
		t.Errorf("after r:\n%s", v)
	}
	if last := d.statuses[len(d.statuses)-1]; last.Text != "" || last.Source != "overview" {
		t.Errorf("the error should be cleared from the status line: %+v", d.statuses)
	}
	if pager.Calls() != 6 {
		t.Errorf("5 pages and one failure: want 6 calls, got %d", pager.Calls())
	}
	var tot spend.Totals
	tot.Add(cs)
	if m.totals.Total != tot.Total {
		t.Errorf("totals after retry %v, want %v", m.totals.Total, tot.Total)
	}

	// Once everything is loaded, r loads everything afresh.
	d.key(t, "r")
	if qs.n() != 2 || !strings.Contains(view(m), "all 42 contracts loaded") {
		t.Errorf("r when loaded should reload (%d queries):\n%s", qs.n(), view(m))
	}
	if m.totals.Total != tot.Total {
		t.Errorf("totals after the reload %v, want %v (counted once)", m.totals.Total, tot.Total)
	}
}

// errorStatuses are the error lines the screen sent the root.
func errorStatuses(d *driver) []shared.StatusMsg {
	var out []shared.StatusMsg
	for _, s := range d.statuses {
		if s.Kind == shared.StatusError {
			out = append(out, s)
		}
	}
	return out
}

// A 429 the client gave up on is waited out by the feed: the screen says
// so while it waits, and loads everything afterwards, with no error.
func TestRateLimitedRetriesLater(t *testing.T) {
	cs := fixture()
	limited := func(wait time.Duration) error {
		return &api.Error{Kind: api.ErrRateLimited, Op: "GET /api/v0/charges/", Status: 429, Threshold: wait}
	}
	// A wait the test does not sit through: it ends with the test.
	m, d, _ := modelWith(t, 100, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs), Errs: map[int]error{1: limited(time.Minute)}}
	})
	d.runUntil(t, m.Init(), func() bool { return !m.main.State().WaitUntil.IsZero() })
	if !m.Loading() || !strings.Contains(view(m), "rate limited: retrying shortly") {
		t.Errorf("waiting for the retry (loading=%v):\n%s", m.Loading(), view(m))
	}
	// (The command carrying it is still queued: runUntil stopped first.)
	if s := m.sentStatus; !strings.Contains(s.Text, "rate limited") || s.Kind != shared.StatusWarn {
		t.Errorf("the status line should say it waits: %+v", s)
	}

	// A short wait, sat through.
	m, d, _ = modelWith(t, 100, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs), Errs: map[int]error{1: limited(time.Millisecond)}}
	})
	d.run(t, m.Init())
	if v := view(m); !strings.Contains(v, "all 42 contracts loaded") || m.Loading() || strings.Contains(v, "rate limited") {
		t.Errorf("after the retry (loading=%v):\n%s", m.Loading(), v)
	}
}

func TestPermissionErrorKeepsCredit(t *testing.T) {
	denied := &api.Error{Kind: api.ErrPermission, Op: "GET /api/v0/charges/", Status: 401, Permission: "billing_read"}
	m, d, _ := modelWith(t, 100, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Errs: map[int]error{0: denied}, Pages: [][]api.Charge{nil}}
	})
	d.send(t, shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	v := view(m)
	for _, want := range []string{"this API key lacks the billing_read permission", "Credit", "$1,234.57", "Low-balance threshold $50.00"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q:\n%s", want, v)
		}
	}
	if r := m.runway(); !strings.Contains(r.Reason, "billing_read") {
		t.Errorf("runway %+v", r)
	}
}

func TestDegradesWithSize(t *testing.T) {
	m, _ := loaded(t, 80, 20, fixture())
	v := view(m)
	// 80×24 leaves the screen 20 rows: credit, burn, runway, chart, top 5.
	for _, want := range []string{"Credit $1,234.57", "Burn ", "Runway ≈", "█ instance", "$0 ┤", "Top 5 contracts"} {
		if !strings.Contains(v, want) {
			t.Errorf("80×20 lacks %q:\n%s", want, v)
		}
	}
	if n := strings.Count(v, "› ") + strings.Count(v, "\n  █ ") + strings.Count(v, "\n  ▓ ") + strings.Count(v, "\n  ░ "); n != 5 {
		t.Errorf("80×20 should list 5 contracts, found %d:\n%s", n, v)
	}
	if strings.Contains(v, "By charge type") {
		t.Errorf("the splits go first:\n%s", v)
	}

	m.SetSize(30, 12)
	v = view(m)
	if !strings.Contains(v, "max $") || strings.Contains(v, "┤") {
		t.Errorf("30 wide: a sparkline instead of bars:\n%s", v)
	}
	if strings.Contains(v, "Top 5") && !strings.Contains(v, "›") {
		t.Errorf("a heading without its rows:\n%s", v)
	}

	m.SetSize(40, 5)
	v = view(m)
	for _, want := range []string{"Credit $1,234.57", "Burn", "Runway"} {
		if !strings.Contains(v, want) {
			t.Errorf("40×5 lacks %q:\n%s", want, v)
		}
	}
	m.SetSize(20, 1)
	if v := view(m); !strings.HasPrefix(v, "Credit $1,234.57") {
		t.Errorf("20×1: %q", v)
	}
}

func TestEverySizeExact(t *testing.T) {
	denied := &api.Error{Kind: api.ErrPermission, Status: 401, Permission: "billing_read"}
	states := map[string]func(t *testing.T) *Model{
		"loading": func(t *testing.T) *Model { return New(newCtx()) },
		"user error": func(t *testing.T) *Model {
			m := New(newCtx())
			m.Update(shared.UserMsg{Err: errors.New("network error")})
			return m
		},
		"full": func(t *testing.T) *Model { m, _ := loaded(t, 1, 1, fixture()); return m },
		"partial": func(t *testing.T) *Model {
			pager := gated(&billingtest.Pager[api.Charge]{Pages: paged(fixture(), 10), Matching: 1600})
			m, d, _ := modelWith(t, 1, 1, func(api.ChargesQuery) *billingtest.Pager[api.Charge] { return pager })
			d.send(t, shared.UserMsg{User: testUser()})
			pager.Allow(1)
			d.runUntil(t, m.Init(), pagesIn(m, 1))
			return m
		},
		"denied": func(t *testing.T) *Model {
			m, d, _ := modelWith(t, 1, 1, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
				return &billingtest.Pager[api.Charge]{Errs: map[int]error{0: denied}, Pages: [][]api.Charge{nil}}
			})
			d.send(t, shared.UserMsg{User: testUser()})
			d.run(t, m.Init())
			return m
		},
		"empty range": func(t *testing.T) *Model { m, _ := loaded(t, 1, 1, nil); return m },
	}
	for name, mk := range states {
		m := mk(t)
		// Every width where layouts switch (sparkline, short labels), then
		// a sample of wide ones.
		for w := 0; w <= 110; w++ {
			if w > 50 && w%4 != 0 {
				continue
			}
			for _, h := range []int{0, 1, 2, 3, 5, 8, 13, 20, 24, 30, 45} {
				checkSize(t, name, m, w, h)
			}
		}
	}
}

func TestEmptyRange(t *testing.T) {
	m, _ := loaded(t, 80, 24, nil)
	v := view(m)
	if !strings.Contains(v, "No charges in this range") || !strings.Contains(v, "all 0 contracts loaded") {
		t.Errorf("empty range:\n%s", v)
	}
	if l := lineWith(t, m, "Runway"); !strings.Contains(l, "no spend") {
		t.Errorf("runway of an empty range: %q", l)
	}
}

func TestHelpAndFlags(t *testing.T) {
	m := New(nil)
	m.SetSize(30, 4)
	checkExact(t, m, 30, 4)
	if m.Loading() || m.Capturing() {
		t.Fatal("nothing loads before Init; the screen has no text field")
	}
	var keys []string
	for _, b := range m.Help().ShortHelp() {
		keys = append(keys, b.Keys()...)
	}
	for _, want := range []string{"j", "k", "up", "down", "enter", "r"} {
		if !slices.Contains(keys, want) {
			t.Errorf("help lacks %q: %v", want, keys)
		}
	}
	// Without a billing layer, loading fails with a message rather than a
	// panic.
	d := newDriver(m)
	d.run(t, m.Init())
	if !strings.Contains(view(m), "no API client") && !strings.Contains(strings.Join(plain(m), ""), "✗") {
		t.Errorf("no client:\n%s", view(m))
	}
}

func TestGolden(t *testing.T) {
	m, _ := loaded(t, 100, 30, fixture())
	checkGolden(t, "overview_100x30.golden", view(m))
}

func BenchmarkView(b *testing.B) {
	m, _ := loaded(b, 100, 30, fixture())
	b.Run("changed", func(b *testing.B) {
		for b.Loop() {
			m.ver++ // as after a page or a key
			_ = m.View()
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			_ = m.View() // a spinner tick
		}
	})
}

func TestViewCacheFollowsChanges(t *testing.T) {
	m, d := loaded(t, 100, 30, fixture())
	before := view(m)
	d.key(t, "j")
	if after := view(m); after == before || !strings.Contains(lineWith(t, m, "instance-3 "), "›") {
		t.Errorf("the cursor move did not reach the view:\n%s", after)
	}
	u := testUser()
	u.Credit = 99_000
	d.send(t, shared.UserMsg{User: u})
	if !strings.Contains(view(m), "Credit $99.00") {
		t.Errorf("a new account did not reach the view:\n%s", view(m))
	}
	m.ctx.Styles = theme.New(false)
	if m.View() == before {
		t.Error("new styles did not reach the view")
	}
}

func TestBurnKeptWhileANewRangeLoads(t *testing.T) {
	cs := fixture()
	var ninety *billingtest.Pager[api.Charge]
	m, d, _ := modelWith(t, 100, 30, func(q api.ChargesQuery) *billingtest.Pager[api.Charge] {
		p := &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
		if q.From.Equal(preset(t, "90d").From) {
			ninety = gated(p)
			return ninety
		}
		return p
	})
	d.send(t, shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	wk, day := expectedBurn(cs)
	figures := wk.PerDay.String() + "/day (last 7 complete days: 14 Nov – 20 Nov) · " + day.PerDay.String() + "/day (last 24 h)"
	runways := len(d.runways)

	// 90d also covers the window: while it loads, the 30d figures stand.
	cmd := m.SetRange(preset(t, "90d"))
	ninety.Allow(1)
	d.runUntil(t, cmd, pagesIn(m, 1))
	if !strings.Contains(view(m), "loading charges:") {
		t.Fatalf("90d should still be loading:\n%s", view(m))
	}
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, figures) {
		t.Errorf("burn blanked while the new range loads: %q", l)
	}
	if r := m.runway(); r.Reason != "" {
		t.Errorf("the runway of the same window should stand while the new range loads: %+v", r)
	}
	if len(d.runways) != runways {
		t.Errorf("the root was told of a runway change that did not happen: %+v", d.runways[runways:])
	}
	ninety.Allow(64)
	d.run(t, nil)
	if m.kept != nil {
		t.Error("the kept figures should go once the new load is complete")
	}
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, figures) {
		t.Errorf("after loading 90d: %q", l)
	}

	// r reloads afresh: the figures measured stand while it loads (and
	// would stay, stale, if it failed), as the rows loaded do.
	cmd = m.Update(tea.KeyPressMsg{Code: 'r', Text: "r"})
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, figures) {
		t.Errorf("after r the figures measured should stand while it loads: %q", l)
	}
	ninety.Allow(64) // the fresh feed's pager
	d.run(t, cmd)
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, figures) {
		t.Errorf("after the reload: %q", l)
	}
}

// Hostile times cost nothing: an entry ending in year 9999 or starting at
// -2^63 is malformed (the feed's bounds skip and count it) and one that
// began years before the range (plausible, so kept) is spread over the
// range's days only. Before the bounds, the year-9999 entry alone took
// 8 s and a gigabyte.
func TestHostileTimesBounded(t *testing.T) {
	longAgo := time.Date(2015, 1, 2, 0, 0, 0, 0, time.UTC)
	cs := append(fixture(),
		api.Charge{Type: "instance", Source: "instance-9999", Start: now.Add(-time.Hour).Unix(),
			End: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC).Unix(), Amount: 1000},
		api.Charge{Type: "instance", Source: "instance-min", Start: math.MinInt64, End: now.Unix(), Amount: 1000},
		api.Charge{Type: "volume", Source: "volume-old", Start: longAgo.Unix(), End: now.Unix(), Amount: 4_000_000},
	)
	start := time.Now()
	m, d := loaded(t, 100, 40, cs)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("loading took %v", took)
	}
	v := view(m)
	if !strings.Contains(v, "all 43 contracts loaded · 2 malformed entries skipped") {
		t.Errorf("the hostile entries should be skipped and said so:\n%s", v)
	}
	if n := len(m.chartDays()); n != 30 {
		t.Errorf("the chart shows %d days; want the range's 30", n)
	}
	if m.totals.Contracts != 43 || m.totals.ByType["volume"] <= 4_000_000 {
		t.Errorf("the old contract counts in the totals: %d contracts, volume %v", m.totals.Contracts, m.totals.ByType["volume"])
	}
	var shown money.Amount
	for _, day := range m.chartDays() {
		shown += day.ByType["volume"]
	}
	if shown >= 4_000_000 || !strings.Contains(v, "fell on days outside the range") {
		t.Errorf("most of the old contract fell before the range (%v shown):\n%s", shown, v)
	}
	if n := len(d.statuses); n == 0 || !strings.Contains(d.statuses[n-1].Text, "2 malformed entries skipped") {
		t.Errorf("the status line should say what was skipped: %+v", d.statuses)
	}
	if r := m.runway(); !strings.Contains(r.Reason, "could not be read") {
		t.Errorf("a runway from a window with unreadable charges would overstate: %+v", r)
	}
}

// The root hears of the runway when it changes, and only then: not on
// every page, key or repeated account.
func TestRunwayMsgOnChange(t *testing.T) {
	cs := fixture()
	m, d, _ := modelWith(t, 100, 30, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: paged(cs, 10), Matching: len(cs)}
	})
	d.run(t, m.Init())
	if len(d.runways) != 1 || d.runways[0].OK || d.runways[0].Runway.Reason != "account not loaded yet" {
		t.Fatalf("before the account: %+v", d.runways)
	}
	d.send(t, shared.UserMsg{User: testUser()})
	wk, _ := expectedBurn(cs)
	rw := spend.RunwayFor(testUser().Credit, wk, true, now)
	if len(d.runways) != 2 || !d.runways[1].OK || d.runways[1].Runway != rw {
		t.Fatalf("with the account: %+v, want %+v", d.runways, rw)
	}
	d.send(t, shared.UserMsg{User: testUser()})
	d.key(t, "j")
	d.run(t, m.SetRange(m.rng)) // the same days
	if len(d.runways) != 2 {
		t.Errorf("nothing changed, yet the root was told: %+v", d.runways[2:])
	}
	u := testUser()
	u.Credit *= 2
	d.send(t, shared.UserMsg{User: u})
	if len(d.runways) != 3 || d.runways[2].Runway.Tenths <= rw.Tenths {
		t.Errorf("more credit, a longer runway: %+v", d.runways)
	}
	d.send(t, shared.UserMsg{Err: errors.New("network error")})
	if len(d.runways) != 3 {
		t.Errorf("a failed account read keeps the last account: %+v", d.runways[3:])
	}
}

// A range total past what an amount holds reads "too large to add up",
// never a wrapped or clamped figure. (The feed's bounds keep real pages
// from getting there: it takes 92 million entries of $100 million.)
func TestTotalsOverflowNotShown(t *testing.T) {
	m, _ := loaded(t, 100, 60, testCharges())
	m.totals.Overflow = true
	m.totals.Total = money.MaxAmount
	m.ver++
	if v := view(m); !strings.Contains(rowOf(t, plain(m), "total"), "too large to add up") || strings.Contains(v, money.MaxAmount.String()) {
		t.Errorf("overflowed total:\n%s", v)
	}
	if s := m.status(); !strings.Contains(s.Text, "too large to add up") {
		t.Errorf("the status line should say so: %+v", s)
	}
	m.SetSize(100, 30) // the compact splits
	if v := view(m); !strings.Contains(v, "total too large to add up") {
		t.Errorf("overflowed total, compact:\n%s", v)
	}
}

// A contract the server sends twice counts once, and the screen says one
// was dropped.
func TestRepeatedContractCountedOnce(t *testing.T) {
	cs := fixture()
	pages := paged(cs, 10)
	pages[1] = append(append([]api.Charge(nil), pages[1]...), cs[0])
	m, d, _ := modelWith(t, 100, 40, func(api.ChargesQuery) *billingtest.Pager[api.Charge] {
		return &billingtest.Pager[api.Charge]{Pages: pages, Matching: len(cs)}
	})
	d.run(t, m.Init())
	var tot spend.Totals
	tot.Add(cs)
	if m.totals.Total != tot.Total || m.totals.Contracts != len(cs) {
		t.Errorf("totals %v over %d, want %v over %d", m.totals.Total, m.totals.Contracts, tot.Total, len(cs))
	}
	if v := view(m); !strings.Contains(v, "1 repeated contract dropped") {
		t.Errorf("the drop should show:\n%s", v)
	}
}

func TestShareAndBarNeverOverflow(t *testing.T) {
	big := money.Amount(math.MaxInt64 / 2)
	if got := share(big, big); got != "100.0%" {
		t.Errorf("share of a huge total: %q", got)
	}
	if got := share(big/4, big); got != "25.0%" {
		t.Errorf("share of a huge total: %q", got)
	}
	if got := share(1, money.MaxAmount); got != "—" {
		t.Errorf("share of a saturated total: %q", got)
	}
	if got := barOf(big, big, 10); got != strings.Repeat("█", 10) {
		t.Errorf("bar of a huge total: %q", got)
	}
}
