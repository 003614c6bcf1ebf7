package overview

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
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

// modelWith is a model whose pager serves pages; newPager calls are
// counted and their queries kept.
func modelWith(w, h int, pages func(api.ChargesQuery) *fakePager) (*Model, *driver, *[]api.ChargesQuery) {
	m := New(newCtx())
	m.SetSize(w, h)
	d := newDriver(m)
	var qs []api.ChargesQuery
	m.newPager = func(q api.ChargesQuery) pageSource {
		qs = append(qs, q)
		return pages(q)
	}
	return m, d, &qs
}

func loaded(t *testing.T, w, h int, cs []api.Charge) (*Model, *driver) {
	t.Helper()
	m, d, _ := modelWith(w, h, func(api.ChargesQuery) *fakePager {
		return &fakePager{pages: paged(cs, 10), total: len(cs)}
	})
	m.Update(shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	return m, d
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
	var pagers []*fakePager
	m, d, qs := modelWith(100, 30, func(api.ChargesQuery) *fakePager {
		p := &fakePager{pages: paged(cs, 10), total: len(cs)}
		pagers = append(pagers, p)
		return p
	})
	d.run(t, m.Init())
	if len(*qs) != 1 {
		t.Fatalf("30d covers the burn window: want 1 query, got %d", len(*qs))
	}
	q := (*qs)[0]
	r := preset(t, "30d")
	want := api.ChargesQuery{From: r.From, To: r.To, Format: api.FormatTable, Limit: 500}
	if !q.Equal(want) {
		t.Errorf("query %+v, want %+v", q, want)
	}
	if pagers[0].calls != 5 {
		t.Errorf("42 contracts in pages of 10: want 5 Next calls, got %d", pagers[0].calls)
	}
	if !strings.Contains(view(m), "all 42 contracts loaded") || m.Loading() {
		t.Errorf("not all loaded (loading=%v):\n%s", m.Loading(), view(m))
	}
	var tot spend.Totals
	tot.Add(cs)
	if m.main.totals.Total != tot.Total || m.main.totals.Contracts != tot.Contracts {
		t.Errorf("totals %v / %d, want %v / %d", m.main.totals.Total, m.main.totals.Contracts, tot.Total, tot.Contracts)
	}
}

func TestProgressText(t *testing.T) {
	cs := fixture()
	m, d, _ := modelWith(100, 30, func(api.ChargesQuery) *fakePager {
		// The server says 1,600 match: 4 pages of 500.
		return &fakePager{pages: paged(cs, 11), total: 1600}
	})
	cmd := m.Init()
	if !m.Loading() || !strings.Contains(view(m), "loading charges…") {
		t.Fatalf("before the first page (loading=%v):\n%s", m.Loading(), view(m))
	}
	cmd = m.Update(step(t, cmd))
	if !strings.Contains(view(m), "loading charges: 1 of 4 pages") {
		t.Errorf("after one page:\n%s", view(m))
	}
	cmd = m.Update(step(t, cmd))
	if !strings.Contains(view(m), "loading charges: 2 of 4 pages") {
		t.Errorf("after two pages:\n%s", view(m))
	}
	d.run(t, cmd)
	if !strings.Contains(view(m), "all 42 contracts loaded") {
		t.Errorf("at the end:\n%s", view(m))
	}
}

// expectedBurn is what spend computes from cs at now.
func expectedBurn(cs []api.Charge) (week, day spend.Burn) {
	d := spend.NewDaily(time.UTC)
	d.Add(cs)
	w := spend.Last24h(now)
	w.Add(cs)
	return spend.BurnWeek(d, now), w.Burn24h()
}

func TestBurnAndRunwayText(t *testing.T) {
	cs := fixture()
	m, _ := loaded(t, 120, 40, cs)
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
	got, ok := m.Runway()
	if !ok || got != rw {
		t.Errorf("Runway() = %+v, %v; want %+v", got, ok, rw)
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
	if _, ok := m.Runway(); ok {
		t.Error("no spend: Runway() should not be ok")
	}

	// No credit.
	m, _ = loaded(t, 100, 30, fixture())
	u := testUser()
	u.Credit = 0
	m.Update(shared.UserMsg{User: u})
	if l := lineWith(t, m, "Runway"); !strings.Contains(l, "— no credit left") {
		t.Errorf("no credit: %q", l)
	}

	// Partial: the first of several pages.
	m, _, _ = modelWith(100, 30, func(api.ChargesQuery) *fakePager {
		return &fakePager{pages: paged(fixture(), 10), total: 42}
	})
	m.Update(shared.UserMsg{User: testUser()})
	m.Update(step(t, m.Init()))
	if l := lineWith(t, m, "Runway"); !strings.Contains(l, "— charges still loading") {
		t.Errorf("partial: %q", l)
	}
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, "loading the last 7 complete days (14 Nov – 20 Nov)") {
		t.Errorf("partial burn: %q", l)
	}
	if r, ok := m.Runway(); ok || r.Reason != "charges still loading" {
		t.Errorf("partial: Runway() = %+v, %v", r, ok)
	}

	// No account yet.
	m, _ = loaded(t, 100, 30, fixture())
	m.user = nil
	if _, ok := m.Runway(); ok {
		t.Error("without an account there is no runway")
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
	m, d, qs := modelWith(100, 30, func(q api.ChargesQuery) *fakePager {
		return &fakePager{pages: paged(cs, 10), total: len(cs)}
	})
	first := m.Init()
	late := step(t, first) // page 1 of 30d, answered after the range changed

	// 7d starts a day after the burn window: the window is loaded too.
	r7 := preset(t, "7d")
	next := m.SetRange(r7)
	if len(*qs) != 3 {
		t.Fatalf("a new range starts a new query, and 7d one for the burn window: %d", len(*qs))
	}
	if cmd := m.Update(late); cmd != nil {
		t.Error("a late answer must not ask for more")
	}
	if m.main.contracts != 0 || m.main.pages != 0 {
		t.Fatalf("the late page was folded into the new range: %d contracts", m.main.contracts)
	}
	d.run(t, next)
	if !strings.Contains(view(m), "Spend 7d (15 Nov – 21 Nov) · all 42 contracts loaded") {
		t.Errorf("after the change:\n%s", view(m))
	}

	// An old request still in flight when the range changes is cancelled;
	// its error is not shown.
	inflight := m.SetRange(preset(t, "30d"))
	_ = m.SetRange(r7)
	if cmd := m.Update(step(t, inflight)); cmd != nil {
		t.Error("a cancelled answer must not ask for more")
	}
	if v := view(m); strings.Contains(v, "✗") || strings.Contains(v, "canceled") {
		t.Errorf("a cancelled request shows an error:\n%s", v)
	}
}

func TestSameDaysDoNotReload(t *testing.T) {
	m, d, qs := modelWith(100, 30, func(api.ChargesQuery) *fakePager {
		return &fakePager{pages: paged(fixture(), 50), total: 42}
	})
	r := preset(t, "30d")
	d.run(t, m.SetRange(r))
	if m.Init() != nil {
		t.Error("Init after SetRange must not load again")
	}
	r.Preset = ""
	if m.SetRange(r) != nil || len(*qs) != 1 {
		t.Errorf("the same days must not reload (%d queries)", len(*qs))
	}
	if !strings.Contains(view(m), "Spend 2026-10-23..2026-11-21") {
		t.Errorf("the title follows the new name:\n%s", view(m))
	}
}

func TestBurnWindowLoadedWhenRangeMissesIt(t *testing.T) {
	rangeData := fixture()[:10]
	burnData := testCharges()
	m, d, qs := modelWith(100, 40, func(q api.ChargesQuery) *fakePager {
		if q.From.Equal(time.Date(2026, 11, 14, 0, 0, 0, 0, time.UTC)) {
			return &fakePager{pages: paged(burnData, 2), total: len(burnData)}
		}
		return &fakePager{pages: paged(rangeData, 3), total: len(rangeData)}
	})
	m.Update(shared.UserMsg{User: testUser()})
	d.run(t, m.SetRange(preset(t, "last-month")))
	if len(*qs) != 2 {
		t.Fatalf("want the range and the burn window, got %d queries", len(*qs))
	}
	bw := (*qs)[1]
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
	if m.main.totals.Total != tot.Total {
		t.Errorf("range totals %v, want %v", m.main.totals.Total, tot.Total)
	}
	// Another range that misses the window keeps the window's load.
	d.run(t, m.SetRange(spend.Range{From: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 9, 30, 23, 59, 59, 0, time.UTC)}))
	if len(*qs) != 3 {
		t.Errorf("the burn window should be kept, not loaded again: %d queries", len(*qs))
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
	var pager *fakePager
	m, d, qs := modelWith(100, 30, func(api.ChargesQuery) *fakePager {
		p := &fakePager{pages: paged(cs, 10), total: len(cs)}
		if pager == nil {
			p.errs = map[int]error{2: boom} // the first load fails once
			pager = p
		}
		return p
	})
	m.Update(shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	v := view(m)
	if !strings.Contains(v, "✗ charges: ") || !strings.Contains(v, "r to retry") {
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
	d.key(t, "r")
	if len(*qs) != 1 {
		t.Errorf("r after a failure retries the page, not the query: %d queries", len(*qs))
	}
	if v := view(m); !strings.Contains(v, "all 42 contracts loaded") || strings.Contains(v, "✗") {
		t.Errorf("after r:\n%s", v)
	}
	if pager.calls != 6 {
		t.Errorf("5 pages and one failure: want 6 calls, got %d", pager.calls)
	}
	var tot spend.Totals
	tot.Add(cs)
	if m.main.totals.Total != tot.Total {
		t.Errorf("totals after retry %v, want %v", m.main.totals.Total, tot.Total)
	}

	// Once everything is loaded, r loads everything afresh.
	d.key(t, "r")
	if len(*qs) != 2 || !strings.Contains(view(m), "all 42 contracts loaded") {
		t.Errorf("r when loaded should reload (%d queries):\n%s", len(*qs), view(m))
	}
}

func TestRateLimitedRetriesLater(t *testing.T) {
	cs := fixture()
	limited := &api.Error{Kind: api.ErrRateLimited, Op: "GET /api/v0/charges/", Status: 429, Threshold: 3 * time.Second}
	m, d, _ := modelWith(100, 30, func(api.ChargesQuery) *fakePager {
		return &fakePager{pages: paged(cs, 10), total: len(cs), errs: map[int]error{1: limited}}
	})
	d.run(t, m.Init())
	if len(d.ticks) != 1 || d.ticks[0].d != 3*time.Second {
		t.Fatalf("want one retry after the server's 3 s, got %+v", d.ticks)
	}
	if !m.Loading() || !strings.Contains(view(m), "rate limited: retrying shortly") {
		t.Errorf("waiting for the retry (loading=%v):\n%s", m.Loading(), view(m))
	}
	d.run(t, m.Update(d.ticks[0].msg))
	if !strings.Contains(view(m), "all 42 contracts loaded") || m.Loading() {
		t.Errorf("after the retry:\n%s", view(m))
	}
}

func TestPermissionErrorKeepsCredit(t *testing.T) {
	denied := &api.Error{Kind: api.ErrPermission, Op: "GET /api/v0/charges/", Status: 401, Permission: "billing_read"}
	m, d, _ := modelWith(100, 30, func(api.ChargesQuery) *fakePager {
		return &fakePager{errs: map[int]error{0: denied}, pages: [][]api.Charge{nil}}
	})
	m.Update(shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	v := view(m)
	for _, want := range []string{"this API key lacks the billing_read permission", "Credit", "$1,234.57", "Low-balance threshold $50.00"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q:\n%s", want, v)
		}
	}
	if r, ok := m.Runway(); ok || !strings.Contains(r.Reason, "billing_read") {
		t.Errorf("Runway() = %+v, %v", r, ok)
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
			m, _, _ := modelWith(1, 1, func(api.ChargesQuery) *fakePager {
				return &fakePager{pages: paged(fixture(), 10), total: 1600}
			})
			m.Update(shared.UserMsg{User: testUser()})
			m.Update(step(t, m.Init()))
			return m
		},
		"denied": func(t *testing.T) *Model {
			m, d, _ := modelWith(1, 1, func(api.ChargesQuery) *fakePager {
				return &fakePager{errs: map[int]error{0: denied}, pages: [][]api.Charge{nil}}
			})
			m.Update(shared.UserMsg{User: testUser()})
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
				m.SetSize(w, h)
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s %d×%d: panic %v", name, w, h, r)
						}
					}()
					checkExact(t, m, w, h)
				}()
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
	// Without a client, loading fails with a message rather than a panic.
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
	m := New(newCtx())
	m.SetSize(100, 30)
	cs := fixture()
	m.newPager = func(api.ChargesQuery) pageSource { return &fakePager{pages: [][]api.Charge{cs}, total: len(cs)} }
	m.Update(shared.UserMsg{User: testUser()})
	m.Update(m.Init()())
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
	m.ctx.User = &u
	if !strings.Contains(view(m), "Credit $99.00") {
		t.Errorf("a new account in the context did not reach the view:\n%s", view(m))
	}
	m.ctx.Styles = theme.New(false)
	if m.View() == before {
		t.Error("new styles did not reach the view")
	}
}

func TestBurnKeptWhileANewRangeLoads(t *testing.T) {
	cs := fixture()
	m, d, _ := modelWith(100, 30, func(api.ChargesQuery) *fakePager {
		return &fakePager{pages: paged(cs, 10), total: len(cs)}
	})
	m.Update(shared.UserMsg{User: testUser()})
	d.run(t, m.Init())
	wk, day := expectedBurn(cs)
	figures := wk.PerDay.String() + "/day (last 7 complete days: 14 Nov – 20 Nov) · " + day.PerDay.String() + "/day (last 24 h)"

	// 90d also covers the window: while it loads, the 30d figures stand.
	cmd := m.SetRange(preset(t, "90d"))
	cmd = m.Update(step(t, cmd))
	if !strings.Contains(view(m), "loading charges:") {
		t.Fatalf("90d should still be loading:\n%s", view(m))
	}
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, figures) {
		t.Errorf("burn blanked while the new range loads: %q", l)
	}
	if _, ok := m.Runway(); !ok {
		t.Error("the runway of the same window should stand while the new range loads")
	}
	d.run(t, cmd)
	if m.kept != nil {
		t.Error("the kept load should go once the new one is complete")
	}
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, figures) {
		t.Errorf("after loading 90d: %q", l)
	}

	// r reloads afresh: no stale figures while it loads.
	m.Update(step(t, m.Update(tea.KeyPressMsg{Code: 'r', Text: "r"})))
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, "loading") {
		t.Errorf("after r the figures should be measured again: %q", l)
	}
}
