package billing

import (
	"context"
	"database/sql"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
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

func openRun(t *testing.T, srv *demoserver.Server, dir string) ledgerRun {
	t.Helper()
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0),
		api.WithEndpointThreshold(api.InvoicesPath, 0), api.WithTimeout(syncWait))
	if err != nil {
		t.Fatal(err)
	}
	id := ledger.Identity{Host: "demo", Account: ledger.KeyDigest(demoserver.DemoKey)}
	led, moved, err := ledger.Open(ledger.Path(dir, id), id)
	if err != nil || moved != "" {
		t.Fatalf("ledger: %v %q", err, moved)
	}
	s := New(context.Background(), client, WithLocation(time.UTC), WithClock(srv.Now), WithLedger(led))
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
	r.s.ruleMu.Lock()
	r.s.ruleTried = true // as when nothing could be compared
	r.s.ruleMu.Unlock()
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
	srv.AddFault(demoserver.Fault{Path: chargesPath, Mutate: demoserver.MutatePages(func(_ int, p demoserver.Page) {
		rs := p.Results()
		for i := range rs {
			var e struct {
				End   int64
				Items []map[string]any
			}
			if json.Unmarshal(rs[i], &e) != nil || e.End != srv.Now().Unix() {
				continue
			}
			for _, it := range e.Items {
				it["end"], it["description"] = nil, it["type"] // no quantity that grows
			}
			items, _ := json.Marshal(e.Items)
			p.SetField(i, i+1, "end", "null")
			p.SetField(i, i+1, "items", string(items))
		}
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
	s := New(context.Background(), client, WithLocation(time.UTC), WithClock(srv.Now), WithLedger(led))
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
