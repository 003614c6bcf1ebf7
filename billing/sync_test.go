package billing

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
)

const chargesPath = "/api/v0/charges"

// ledgerRun is one run of the program against srv keeping its ledger in
// dir: a service with the ledger open, both closed with the test (or by
// the test, to start the next run).
type ledgerRun struct {
	s   *Service
	led *ledger.Ledger
}

func (r ledgerRun) close() {
	r.s.Close()
	_ = r.led.Close()
}

// couldNotTell makes the run's service as one whose detection of the
// amount rule found nothing to compare: it does not try again.
func (r ledgerRun) couldNotTell() {
	r.s.ruleMu.Lock()
	r.s.ruleTried = true
	r.s.ruleMu.Unlock()
}

func openRun(t *testing.T, srv *demoserver.Server, dir string, opts ...ledger.Option) ledgerRun {
	t.Helper()
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0),
		api.WithEndpointThreshold(api.InvoicesPath, 0), api.WithTimeout(syncWait))
	if err != nil {
		t.Fatal(err)
	}
	id := ledger.Identity{Host: "demo", Account: ledger.KeyDigest(demoserver.DemoKey)}
	led, moved, err := ledger.Open(ledger.Path(dir, id), id, opts...)
	if err != nil || moved != "" {
		t.Fatalf("ledger: %v %q", err, moved)
	}
	s := New(context.Background(), client, WithLocation(time.UTC), WithClock(srv.Now), WithLedger(ledger.Opened(led)))
	r := ledgerRun{s: s, led: led}
	t.Cleanup(r.close)
	return r
}

func startServer(t *testing.T, opts demoserver.Options) *demoserver.Server {
	t.Helper()
	opts.Threshold, opts.InvoicesThreshold = -1, -1
	if opts.Now.IsZero() {
		opts.Now = time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC)
	}
	srv, err := demoserver.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// sameAsServer checks that entries are exactly the server's answer to q.
func sameAsServer(t *testing.T, srv *demoserver.Server, q api.ChargesQuery, got []api.Charge) {
	t.Helper()
	want := srv.Contracts(demoserver.Filter{Gte: q.From.Unix(), Lte: q.To.Unix(), OldestFirst: q.OldestFirst})
	if len(got) != len(want) {
		t.Fatalf("%d contracts, the server has %d", len(got), len(want))
	}
	var gs, ws money.Amount
	for i := range want {
		g, w := &got[i], &want[i]
		gs += g.Amount
		ws += money.Amount(w.Amount)
		if g.Source != w.Source || g.Start != w.Start || g.End != w.End || g.Amount != money.Amount(w.Amount) ||
			g.Meta.Label != w.Label || len(g.Items) != len(w.Items) {
			t.Fatalf("row %d: %s %d..%d %v %q, the server's %s %d..%d %v %q", i, g.Source, g.Start, g.End, g.Amount, g.Meta.Label,
				w.Source, w.Start, w.End, money.Amount(w.Amount), w.Label)
		}
		for k := range w.Items {
			if g.Items[k].Amount != money.Amount(w.Items[k].Amount) || g.Items[k].Type != w.Items[k].Type {
				t.Fatalf("%s item %d: %v, the server's %v", g.Source, k, g.Items[k].Amount, w.Items[k].Amount)
			}
		}
	}
	if gs != ws {
		t.Fatalf("sum %v, the server's %v", gs, ws)
	}
}

func yearQuery(now time.Time) api.ChargesQuery {
	return RangeQuery(now.AddDate(-1, 0, 0), now)
}

// syncWait bounds a load through the ledger: generous, as SQLite under
// the race detector runs many times slower than without.
const syncWait = time.Minute

func load(t *testing.T, s *Service, q api.ChargesQuery) ([]api.Charge, State) {
	t.Helper()
	f := s.Feed(q)
	defer f.Release()
	ctx, cancel := context.WithTimeout(context.Background(), syncWait)
	defer cancel()
	entries, st, err := f.All(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return entries, st
}

// The first sync of a year asks the floor, ⌈N/500⌉ pages and nothing else
// (its one window's total is the count); a second run reads the ledger,
// asks what changed since (nothing) and one count: 2 requests, the same
// answer as the server's.
func TestLedgerFirstSyncThenReopen(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1300})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	q := yearQuery(srv.Now())
	got, st := load(t, r.s, q)
	sameAsServer(t, srv, q, got)
	if n, floor := srv.CountPath(chargesPath), (len(got)+499)/500; n != floor || srv.CountStatus(http.StatusTooManyRequests) != 0 {
		t.Fatalf("first sync: %d requests for %d contracts, the floor is %d", n, len(got), floor)
	}
	if !st.Ledger || !st.Done || st.Synced.IsZero() {
		t.Fatalf("state %+v", st)
	}
	r.close()

	srv.ResetRequests()
	r = openRun(t, srv, dir)
	got, _ = load(t, r.s, q)
	sameAsServer(t, srv, q, got)
	if n := srv.CountPath(chargesPath); n > 3 {
		dumpReqs(t, srv)
		t.Fatalf("reopening a covered year: %d requests", n)
	}
}

// The server's data moves on between two runs: running contracts grow and
// new ones start. The second run asks only since the last sync and is
// exact; the feed hands out the ledger's rows first, then the new ones as
// a new generation.
func TestLedgerAfterTheDataMovedOn(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1300})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	load(t, r.s, yearQuery(srv.Now()))
	r.close()

	srv.Advance(3*time.Hour, 40)
	srv.ResetRequests()
	r = openRun(t, srv, dir)
	q := yearQuery(srv.Now())
	f := r.s.Feed(q)
	defer f.Release()
	f.WantAll()
	first := waitFor(t, f, func(st State) bool { return st.Ledger && st.Entries > 0 })
	if first.Done && first.Generation == 1 {
		t.Fatal("the sync was done before the ledger's rows were handed out")
	}
	ctx, cancel := context.WithTimeout(context.Background(), syncWait)
	defer cancel()
	got, st, err := f.All(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameAsServer(t, srv, q, got)
	if st.Generation < 2 {
		t.Errorf("the new rows did not come as a new generation (%d)", st.Generation)
	}
	if n := srv.CountPath(chargesPath); n > 3 {
		t.Errorf("%d requests after three hours moved on", n)
	}
	// The rule was learnt from what the ledger held, without a request
	// of its own: a contract taken whole, now reaching back before the
	// window asked again, kept its amount.
	if r.s.AmountRule() != RuleTotals {
		t.Errorf("rule %v after the refresh", r.s.AmountRule())
	}
	for _, q := range srv.Requests() {
		if q.Query.Get("latest_first") == "false" {
			dumpReqs(t, srv)
			t.Fatal("a day was asked to learn the rule")
		}
	}
}

// Rows deleted behind the ledger's back are found by the count and
// fetched again, by halving down to the windows that lost them.
func TestLedgerFindsDeletedRows(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1600})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	q := yearQuery(srv.Now())
	load(t, r.s, q)
	path := r.led.Path()
	r.close()

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	// Five contracts of one month in spring, and their lines and days.
	if _, err := db.Exec(`DELETE FROM contracts WHERE id IN (SELECT id FROM contracts WHERE start BETWEEN ? AND ? LIMIT 5)`,
		srv.Now().AddDate(0, -7, 0).Unix(), srv.Now().AddDate(0, -6, 0).Unix()); err != nil {
		t.Fatal(err)
	}
	db.Close()

	srv.ResetRequests()
	r = openRun(t, srv, dir)
	got, _ := load(t, r.s, q)
	sameAsServer(t, srv, q, got)
	if n := srv.CountPath(chargesPath); n > 2+2*maxHalvings+2 {
		t.Errorf("%d requests to find five rows", n)
	}
}

// A sync cut after two pages leaves the ledger consistent, and the next
// run goes on from the third page: every page is asked once in all.
func TestLedgerSyncResumes(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1600})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	q := yearQuery(srv.Now())
	ctx, cancel := context.WithCancel(context.Background())
	_, err := r.s.SyncCharges(ctx, q.From, q.To, func(st SyncState) {
		if st.Pages == 2 {
			cancel()
		}
	})
	if err == nil {
		t.Fatal("a cancelled sync reported no error")
	}
	if w, ok, _ := r.led.Progress(context.Background(), ledger.KindCharges, 0, 1<<40); !ok || w.Pages != 2 || w.Token == "" {
		t.Fatalf("progress after two pages: %+v %v", w, ok)
	}
	r.close()
	r = openRun(t, srv, dir)
	got, _ := load(t, r.s, q)
	sameAsServer(t, srv, q, got)
	// The pages once, then what changed since the window began, the
	// day that learns the amount rule, and the count.
	if n, floor := srv.CountPath(chargesPath), (len(got)+499)/500; n > floor+3 {
		dumpReqs(t, srv)
		t.Errorf("%d requests in both runs for %d pages", n, floor)
	}
}

// Under window amounts the ledger keeps each contract's charge per UTC day,
// so a range never asked as such is answered from it: a month inside the
// synced year matches what the server answers for that month, lines too.
// The year's first sync wrote most of its pages before it met a contract
// reaching back before the year (where the rules differ) and learnt the
// rule: those pages' lines are right as well.
func TestLedgerUnderWindowAmounts(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1000, WindowAmounts: true})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	now := srv.Now()
	year := yearQuery(now)
	got, _ := load(t, r.s, year)
	closeToServer(t, srv, year, got)
	t.Logf("DBG %v %v rule %v", got[0].Amount, lineAmounts(got[0].Items), r.s.AmountRule())
	r.close()

	srv.ResetRequests()
	r = openRun(t, srv, dir)
	from := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	q := RangeQuery(from, from.AddDate(0, 1, 0).Add(-time.Second))
	got, _ = load(t, r.s, q)
	closeToServer(t, srv, q, got)
	if n := srv.CountPath(chargesPath); n > 3 {
		dumpReqs(t, srv)
		t.Errorf("a month inside the synced year asked %d requests", n)
	}
	if r.s.AmountRule() != RuleWindow || r.led.Meta("amount_rule") != "window" {
		t.Fatalf("rule %v, kept %q", r.s.AmountRule(), r.led.Meta("amount_rule"))
	}
}

// A window whose contracts reached outside it while the rule was unknown
// (the detection found nothing to compare) read their amounts as totals,
// though they may be the window's. Once window amounts are learnt (here by
// another run), that span is fetched again, and a range inside it reads
// the server's amounts, not a clipped amount spread over a whole life.
func TestLedgerFetchesAgainWhatWasReadBeforeTheRule(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1000, WindowAmounts: true})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	r.couldNotTell()
	now := srv.Now()
	load(t, r.s, RangeQuery(now.AddDate(0, 0, -10), now))
	if sp, _ := r.led.Spans(context.Background(), ledger.KindCharges); len(sp) != 1 || !sp[0].Unsure {
		t.Fatalf("spans after a sync that could not tell the rule: %+v", sp)
	}
	if err := r.led.SetMeta(context.Background(), "amount_rule", "window"); err != nil {
		t.Fatal(err)
	}
	r.close()

	r = openRun(t, srv, dir)
	q := RangeQuery(now.AddDate(0, 0, -7), now)
	got, _ := load(t, r.s, q)
	closeToServer(t, srv, q, got)
}

// A running contract whose end the server leaves out (null) is held up
// to the last sync: the hours since hold it, and the count check of a
// range of them agrees, so a reopen asks no more than a covered range
// costs (the fingerprint under window amounts leaves the amount out, so
// such a contract reads as unchanged when its lines' words do not grow).
func TestLedgerRunningContractWithoutAnEnd(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1000, WindowAmounts: true})
	// The page is decoded once and encoded once: field by field, a page of
	// 500 entries takes seconds under the race detector.
	srv.AddFault(demoserver.Fault{Path: chargesPath, Mutate: demoserver.MutatePages(func(_ int, p demoserver.Page) {
		rs := p.Results()
		for i := range rs {
			var e map[string]any
			if json.Unmarshal(rs[i], &e) != nil || e["end"] != float64(srv.Now().Unix()) {
				continue
			}
			items, _ := e["items"].([]any)
			for _, it := range items {
				if it, ok := it.(map[string]any); ok {
					it["end"], it["description"] = nil, it["type"] // no quantity that grows
				}
			}
			e["end"] = nil
			rs[i], _ = json.Marshal(e)
		}
		p.SetResults(rs)
	})})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	load(t, r.s, yearQuery(srv.Now()))
	if err := r.led.SetMeta(context.Background(), "amount_rule", "window"); err != nil {
		t.Fatal(err) // as a run that met a contract reaching back learns
	}
	r.close()

	for run := 2; run <= 4; run++ {
		srv.Advance(3*time.Hour, 0)
		srv.ResetRequests()
		r = openRun(t, srv, dir)
		recent := RangeQuery(srv.Now().Add(-time.Hour), srv.Now())
		got, _ := load(t, r.s, recent)
		if want := srv.Contracts(demoserver.Filter{Gte: recent.From.Unix(), Lte: recent.To.Unix()}); len(got) != len(want) || len(want) == 0 {
			t.Fatalf("run %d: %d contracts in the last hour, the server has %d", run, len(got), len(want))
		}
		if n := srv.CountPath(chargesPath); run > 2 && n > 3 {
			dumpReqs(t, srv)
			t.Errorf("run %d: %d requests for the last hour", run, n)
		}
		r.close()
	}
}

// Entries the server counts but the sync drops (out of bounds, without a
// source, undecodable; a payment record that does not decode) count with
// the ledger's rows: the count check agrees, and a covered year reopens in
// the requests it always costs instead of halving down to them and
// fetching them again on every run.
func TestLedgerCountsWhatItDropped(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1600, Payments: 300})
	now := srv.Now()
	all := srv.Contracts(demoserver.Filter{Gte: now.AddDate(-1, 0, 0).Unix(), Lte: now.Unix()})
	spoil := map[string][2]string{ // source → field, value
		all[100].Source:  {"amount", "1e15"},
		all[700].Source:  {"source", `""`},
		all[1200].Source: {"start", `"yesterday"`},
		all[400].Source:  {"end", "4102444900"}, // 2100: beyond what vastdash believes
	}
	srv.AddFault(demoserver.Fault{Path: chargesPath, Mutate: demoserver.MutatePages(func(_ int, p demoserver.Page) {
		rs := p.Results()
		for i := range rs {
			var e struct{ Source string }
			if json.Unmarshal(rs[i], &e) == nil {
				if f, ok := spoil[e.Source]; ok {
					p.SetField(i, i+1, f[0], f[1])
				}
			}
		}
	})})
	srv.AddFault(demoserver.Fault{Path: api.InvoicesPath, Mutate: demoserver.MutatePages(func(_ int, p demoserver.Page) {
		p.SetField(0, 1, "amount", `"lots"`)
	})})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	q := yearQuery(now)
	from, to := now.AddDate(0, -11, 0), now
	load(t, r.s, q)
	if _, err := r.s.Statement(context.Background(), from, to, nil); err != nil {
		t.Fatal(err)
	}
	r.close()

	for run := 2; run <= 3; run++ {
		srv.ResetRequests()
		r = openRun(t, srv, dir)
		got, _ := load(t, r.s, q)
		if len(got) != len(all)-len(spoil) {
			t.Fatalf("run %d: %d contracts, the server has %d of which %d are spoilt", run, len(got), len(all), len(spoil))
		}
		if _, err := r.s.Statement(context.Background(), from, to, nil); err != nil {
			t.Fatal(err)
		}
		if chg, inv := srv.CountPath(chargesPath), srv.CountPath(api.InvoicesPath); chg > 3 || inv > 2 {
			dumpReqs(t, srv)
			t.Errorf("run %d: reopening a covered year asked %d charges and %d invoices requests", run, chg, inv)
		}
		r.close()
	}
}

// closeToServer checks contracts read from the ledger under window amounts
// against the server's answer to q: the same contracts, each amount and
// each line's within a few thousandths (the ledger's days are the
// server's window rounded by line), the sum within a thousandth a
// contract.
func closeToServer(t *testing.T, srv *demoserver.Server, q api.ChargesQuery, got []api.Charge) {
	t.Helper()
	want := srv.Contracts(demoserver.Filter{Gte: q.From.Unix(), Lte: q.To.Unix()})
	if len(got) != len(want) {
		t.Fatalf("%d contracts, the server has %d", len(got), len(want))
	}
	held := map[string]*api.Charge{}
	for i := range got {
		held[got[i].Source] = &got[i]
	}
	near := func(a money.Amount, b int64) bool { d := int64(a) - b; return d <= 8 && d >= -8 }
	var gs, ws money.Amount
	bad := 0
	for _, w := range want {
		g := held[w.Source]
		if g == nil {
			t.Fatalf("%s missing", w.Source)
		}
		gs += g.Amount
		ws += money.Amount(w.Amount)
		ok := near(g.Amount, w.Amount) && len(g.Items) == len(w.Items)
		for k := 0; ok && k < len(w.Items); k++ {
			ok = near(g.Items[k].Amount, w.Items[k].Amount)
		}
		if !ok {
			if bad++; bad <= 3 {
				t.Errorf("%s: %v (lines %v), the server's %v (lines %v)", w.Source, g.Amount, lineAmounts(g.Items),
					money.Amount(w.Amount), w.Items)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d contracts differ from the server's", bad, len(want))
	}
	if d := gs - ws; d > money.Amount(len(want)) || -d > money.Amount(len(want)) {
		t.Errorf("the range sums to %v, the server's %v", gs, ws)
	}
}

func lineAmounts(items []api.Charge) []money.Amount {
	out := make([]money.Amount, len(items))
	for i := range items {
		out[i] = items[i].Amount
	}
	return out
}

// Payments go through the same ledger: the statement of a covered year
// asks the records since the last sync and one count.
func TestLedgerPaymentsAndStatement(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 800, Payments: 300})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	now := srv.Now()
	first, err := r.s.Statement(context.Background(), now.AddDate(0, -11, 0), now, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.close()
	srv.ResetRequests()
	r = openRun(t, srv, dir)
	again, err := r.s.Statement(context.Background(), now.AddDate(0, -11, 0), now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(first.Months, again.Months, func(a, b Month) bool {
		return a.Opening == b.Opening && a.Spend == b.Spend && a.MoneyIn == b.MoneyIn && len(a.Records) == len(b.Records)
	}) {
		t.Fatal("the statement from the ledger differs from the one from the server")
	}
	if inv, chg := srv.CountPath(api.InvoicesPath), srv.CountPath(chargesPath); inv > 2 || chg > 3 {
		t.Errorf("a covered year's statement: %d invoices and %d charges requests", inv, chg)
	}
}

// dumpReqs logs the server's requests, for a failure about their count.
func dumpReqs(t *testing.T, srv *demoserver.Server) {
	t.Helper()
	for _, r := range srv.Requests() {
		t.Logf("%s %s limit=%s latest_first=%s token=%v", r.Path, r.Query.Get("select_filters"), r.Query.Get("limit"),
			r.Query.Get("latest_first"), r.Query.Get("after_token") != "")
	}
}

// A full disk: the first page the ledger cannot write gives it up with one
// warning, and the feed pages the server as it would without one — the
// answer exact.
func TestLedgerFullFallsBackToTheServer(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 900})
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0), api.WithTimeout(syncWait))
	if err != nil {
		t.Fatal(err)
	}
	id := ledger.Identity{Host: "demo", Account: ledger.KeyDigest(demoserver.DemoKey)}
	led, _, err := ledger.Open(ledger.Path(t.TempDir(), id), id, ledger.MaxPages(40))
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	s := New(context.Background(), client, WithLocation(time.UTC), WithClock(srv.Now), WithLedger(ledger.Opened(led)))
	defer s.Close()
	q := yearQuery(srv.Now())
	got, st := load(t, s, q)
	sameAsServer(t, srv, q, got)
	if s.Ledger() != nil || st.Ledger {
		t.Fatal("the ledger is still in use after a write failed")
	}
	if w := st.Warnings(); len(w) != 1 || !strings.Contains(w[0], "cannot be used") || !strings.Contains(w[0], "full") {
		t.Errorf("warnings %q", w)
	}
}

// A window left unfinished is taken up by the next sync that asks for its
// time whole, not by one of other days, nor by one of a day inside it: the
// dashboard's recent range is not made to wait for an old or a year's sync
// cut short. The sync asked by name takes it up again, though its year
// begins a minute later.
func TestLedgerLeavesAnotherRangesResumeAlone(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 6000})
	now := srv.Now()
	for _, cut := range []api.ChargesQuery{RangeQuery(now.AddDate(0, -11, 0), now.AddDate(0, -2, 0)), yearQuery(now)} {
		r := openRun(t, srv, t.TempDir())
		ctx, cancel := context.WithCancel(context.Background())
		if _, err := r.s.SyncCharges(ctx, cut.From, cut.To, func(st SyncState) {
			if st.Pages == 1 {
				cancel()
			}
		}); err == nil {
			t.Fatal("a cancelled sync reported no error")
		}
		srv.ResetRequests()
		load(t, r.s, RangeQuery(now.AddDate(0, 0, -1), now))
		for _, q := range srv.Requests() {
			if q.Query.Get("after_token") != "" {
				dumpReqs(t, srv)
				t.Fatalf("the sync of %v cut short was taken up by a sync of the last day", cut.From)
			}
		}
		if n := srv.CountPath(chargesPath); n > 3 {
			dumpReqs(t, srv)
			t.Errorf("the last day cost %d requests", n)
		}
		if _, ok, _ := r.led.Progress(context.Background(), ledger.KindCharges, cut.From.Unix(), cut.To.Unix()); !ok {
			t.Errorf("the resume point of %v is gone", cut.From)
		}
		r.close()
	}

	r := openRun(t, srv, t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := r.s.SyncCharges(ctx, now.AddDate(-1, 0, 0), now, func(st SyncState) {
		if st.Pages == 1 {
			cancel()
		}
	}); err == nil {
		t.Fatal("a cancelled sync reported no error")
	}
	srv.Advance(time.Minute, 0)
	srv.ResetRequests()
	if _, err := r.s.SyncCharges(context.Background(), srv.Now().AddDate(-1, 0, 0), srv.Now(), nil); err != nil {
		t.Fatal(err)
	}
	if reqs := srv.Requests(); len(reqs) == 0 || reqs[0].Query.Get("after_token") == "" {
		dumpReqs(t, srv)
		t.Error("vastdash sync again did not go on from the page it was cut after")
	}
}

// What one process learns of the spans the ledger holds is there for the
// next. Two opens of one file (a dashboard and a cron sync) finish their
// windows at the same time, day after day: each one's span is merged with
// the other's in the transaction that writes it, not written over with
// what it read before the other's landed. A third open then holds the
// two months whole — asking only the count — and believes it holds no
// more than that: a range reaching past them is not covered.
func TestLedgerSpansBetweenProcesses(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1300})
	dir := t.TempDir()
	a, b := openRun(t, srv, dir), openRun(t, srv, dir)
	first := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	const days = 60
	var wg sync.WaitGroup
	for k, r := range []ledgerRun{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := k; d < days; d += 2 {
				from := first.AddDate(0, 0, d)
				if _, err := r.s.SyncCharges(context.Background(), from, from.Add(day*time.Second-time.Second), nil); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	a.close()
	b.close()

	srv.ResetRequests()
	c := openRun(t, srv, dir)
	last := first.AddDate(0, 0, days).Add(-time.Second)
	if _, err := c.s.SyncCharges(context.Background(), first, last, nil); err != nil {
		t.Fatal(err)
	}
	if n := srv.CountPath(chargesPath); n > 1 {
		sp, _ := c.led.Spans(context.Background(), ledger.KindCharges)
		t.Errorf("a third open asked %d requests for days the first two had synced (spans %+v)", n, sp)
	}
	covered := func(from, to time.Time) bool {
		return !(&chargesLedger{s: c.s, q: RangeQuery(from, to)}).covered(context.Background()).IsZero()
	}
	if !covered(first.AddDate(0, 0, 10), first.AddDate(0, 0, 40)) {
		t.Error("a range inside the synced days is not covered")
	}
	if covered(first.AddDate(0, 0, 10), srv.Now()) {
		t.Error("a range reaching months past the synced days reads as covered")
	}
}

// The amount rule another process learnt (a cron sync) reaches a process
// that opened the ledger before (a dashboard open for hours, which could
// not tell the rule itself): its next sync writes and reads by it.
func TestLedgerRuleLearntByAnotherProcess(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1000, WindowAmounts: true})
	dir := t.TempDir()
	dash := openRun(t, srv, dir)
	dash.couldNotTell()
	cron := openRun(t, srv, dir)
	load(t, cron.s, yearQuery(srv.Now()))
	cron.close()
	// The next run: contracts reaching back before the week tell the rule.
	q := RangeQuery(srv.Now().AddDate(0, 0, -7), srv.Now())
	cron = openRun(t, srv, dir)
	load(t, cron.s, q)
	if cron.s.AmountRule() != RuleWindow {
		t.Fatalf("the cron sync learnt %v", cron.s.AmountRule())
	}
	got, _ := load(t, dash.s, q)
	closeToServer(t, srv, q, got)
	if dash.s.AmountRule() != RuleWindow {
		t.Errorf("the dashboard's rule %v", dash.s.AmountRule())
	}
}

// A contract the ledger took whole, asked again over a window it reaches
// back before, tells the amount rule — unless what it was charged was
// corrected since: a smaller amount that is not its part inside the window
// is a correction, not a window's amount, and learns nothing.
func TestLedgerRuleNotFooledByACorrection(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 100})
	r := openRun(t, srv, t.TempDir())
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 6, 0, 0, 0, time.UTC).Unix()
	held := api.Charge{Source: "instance-77", Type: "instance", Description: "Instance 77", Start: t0, End: t0 + 10*day,
		Amount: 10 * money.Dollar, Items: []api.Charge{{Type: "gpu", Description: "gpu", Start: t0, End: t0 + 10*day, Amount: 10 * money.Dollar}}}
	if _, err := r.led.WriteCharges(ctx, ledger.ChargesPage{Window: ledger.Window{Lo: t0, Hi: t0 + 20*day, Started: t0 + 20*day},
		Rows: dayRows([]api.Charge{held}, ledger.Window{Lo: t0, Hi: t0 + 20*day}, RuleTotals), Done: true}); err != nil {
		t.Fatal(err)
	}
	lo, hi := t0+5*day, t0+30*day // half its life before the window
	for _, c := range []struct {
		amount money.Amount
		want   AmountRule
	}{
		{7 * money.Dollar, RuleUnknown}, // corrected to 70 %: not the window's half
		{5 * money.Dollar, RuleWindow},
		{10 * money.Dollar, RuleTotals},
	} {
		r.s.ruleMu.Lock()
		r.s.rule = RuleUnknown
		r.s.ruleMu.Unlock()
		e := held
		e.Amount, e.Items = c.amount, []api.Charge{held.Items[0]}
		e.Items[0].Amount = c.amount
		if got := r.s.ruleFromLedger(ctx, r.led, []api.Charge{e}, lo, hi); got != c.want {
			t.Errorf("held %v, asked %v over half its life: %v, want %v", held.Amount, c.amount, got, c.want)
		}
	}
}

// A payment record not final when synced is read again by the next sync
// until it is: one pending then paid, one made the day before corrected,
// one created weeks ago but paid just before the sync and corrected since.
// A record long final is not asked again: the second run costs the
// records of the last days and the count.
func TestLedgerPaymentsReadAgainUntilFinal(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC)
	n := now.Unix()
	rec := func(id string, created, paid int64, amount int64) demoserver.Invoice {
		return demoserver.Invoice{ID: id, Created: created, Paid: paid, Type: "credit", Source: "stripe",
			Description: "Card payment", Service: "stripe_payments", Amount: amount}
	}
	srv := startServer(t, demoserver.Options{Contracts: 100, Now: now, Invoices: []demoserver.Invoice{
		rec("old", n-100*day, n-100*day, -50_000),
		rec("pending", n-10*day, 0, -100_000),
		rec("yesterday", n-day, n-day+5, -25_000),
		rec("late", n-20*day, n-3600, -30_000),
	}})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	ctx := context.Background()
	if _, err := r.s.SyncPayments(ctx, now.AddDate(-1, 0, 0), now, nil); err != nil {
		t.Fatal(err)
	}
	r.close()

	srv.Move(demoserver.Move{By: time.Hour})
	srv.ChangeInvoices(func(recs []demoserver.Invoice) []demoserver.Invoice {
		for i := range recs {
			switch r := &recs[i]; r.ID {
			case "pending":
				r.Paid = n + 1800
			case "yesterday", "late":
				r.Amount += 1_000
			}
		}
		return recs
	})
	srv.ResetRequests()
	r = openRun(t, srv, dir)
	if _, err := r.s.SyncPayments(ctx, srv.Now().AddDate(-1, 0, 0), srv.Now(), nil); err != nil {
		t.Fatal(err)
	}
	held, err := r.led.Payments(ctx, 0, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]api.Invoice{}
	for _, in := range srv.Invoices() {
		want[in.ID] = api.Invoice{ID: in.ID, Paid: in.Paid, Amount: money.Amount(in.Amount)}
	}
	for _, h := range held {
		if w := want[h.ID]; h.Paid != w.Paid || h.Amount != w.Amount {
			t.Errorf("%s: paid %d, %v; the server's paid %d, %v", h.ID, h.Paid, h.Amount, w.Paid, w.Amount)
		}
	}
	if len(held) != len(want) {
		t.Errorf("%d records held, the server has %d", len(held), len(want))
	}
	if n := srv.CountPath(api.InvoicesPath); n > 2 {
		dumpReqs(t, srv)
		t.Errorf("the second sync asked %d requests", n)
	}
}

// Another process holds the ledger locked for writing longer than a write
// waits: the feed gives the ledger up with one warning in words and pages
// the server, the answer exact; the file keeps what it held. A sync asked
// by name fails in one line saying why.
func TestLedgerLockedFallsBackToTheServer(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 900})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	load(t, r.s, yearQuery(srv.Now()))
	held, _ := r.led.CountCharges(context.Background(), 0, 1<<40)
	path := r.led.Path()
	r.close()

	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	srv.Advance(time.Hour, 10)
	r = openRun(t, srv, dir, ledger.BusyTimeout(50*time.Millisecond))
	q := yearQuery(srv.Now())
	got, st := load(t, r.s, q)
	sameAsServer(t, srv, q, got)
	w := st.Warnings()
	if st.Ledger || len(w) != 1 || !strings.Contains(w[0], path) || !strings.Contains(w[0], "locked") || strings.Contains(w[0], "SQLITE") {
		t.Errorf("ledger %v, warnings %q", st.Ledger, w)
	}
	r.close()

	r = openRun(t, srv, dir, ledger.BusyTimeout(50*time.Millisecond))
	_, err = r.s.SyncCharges(ctx, q.From, q.To, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "cannot sync the ledger "+path+": ") || !strings.Contains(err.Error(), "locked") {
		t.Errorf("sync: %v", err)
	}
	r.close()
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	r = openRun(t, srv, dir)
	if n, _ := r.led.CountCharges(ctx, 0, 1<<40); n != held {
		t.Errorf("the ledger holds %d contracts after the lock, %d before", n, held)
	}
}
