package billing

import (
	"context"
	"errors"
	"math"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/money"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var testNow = time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC)

// contract is a plausible instance contract of the given id and amount.
func contract(id int, amount money.Amount) api.Charge {
	end := testNow.Add(-time.Duration(id) * time.Hour).Unix()
	return api.Charge{Type: "instance", Source: "instance-" + strconv.Itoa(id), Start: end - 3600, End: end, Amount: amount}
}

func pagesOf(n, per int) [][]api.Charge {
	var out [][]api.Charge
	id := 1
	for p := 0; p < n; p++ {
		var page []api.Charge
		for i := 0; i < per; i++ {
			page = append(page, contract(id, money.Dollar))
			id++
		}
		out = append(out, page)
	}
	return out
}

// newService is a service whose feeds page through src (a fresh source for
// each new pager when src is a func).
func newService(t *testing.T, src func() *billingtest.Pager[api.Charge]) *Service {
	t.Helper()
	s := New(context.Background(), nil,
		WithPages(func(api.ChargesQuery) Source[api.Charge] { return src() }),
		WithClock(func() time.Time { return testNow }),
		WithLocation(time.UTC),
		WithRateWait(time.Millisecond))
	t.Cleanup(s.Close)
	return s
}

func query() api.ChargesQuery {
	return RangeQuery(testNow.AddDate(0, 0, -30), testNow)
}

func all(t *testing.T, f *Feed) ([]api.Charge, State, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return f.All(ctx, nil)
}

func TestFeedIsSharedByQuery(t *testing.T) {
	src := &billingtest.Pager[api.Charge]{Pages: pagesOf(3, 2), Matching: 6}
	s := newService(t, func() *billingtest.Pager[api.Charge] { return src })
	a, b := s.Feed(query()), s.Feed(query())
	defer a.Release()
	defer b.Release()
	if a != b {
		t.Fatal("two holders of the same query got two feeds: the pages would be fetched twice")
	}
	other := s.Feed(api.ChargesQuery{From: query().From, To: query().To, Types: []api.ContractType{api.TypeVolume}, Limit: api.MaxLimit})
	defer other.Release()
	if other == a {
		t.Fatal("a different type filter shares the feed")
	}
	got, st, err := all(t, a)
	if err != nil || len(got) != 6 || st.Contracts != 6 || st.Amount != 6*money.Dollar {
		t.Fatalf("All = %d entries, %+v, %v", len(got), st, err)
	}
	// The second holder reads the same pages without a request.
	got2, _, _ := all(t, b)
	if len(got2) != 6 || src.Calls() != 3 {
		t.Fatalf("second holder: %d entries after %d requests, want 6 after 3", len(got2), src.Calls())
	}
}

func TestFeedLoadsOnDemand(t *testing.T) {
	src := &billingtest.Pager[api.Charge]{Pages: pagesOf(5, 2), Matching: 10}
	s := newService(t, func() *billingtest.Pager[api.Charge] { return src })
	q := query()
	q.Limit = 2
	f := s.Feed(q)
	defer f.Release()
	if st := f.State(); st.Loading || src.Calls() != 0 {
		t.Fatal("a feed nobody asked anything of is loading")
	}
	f.Want(1)
	st := waitFor(t, f, func(st State) bool { return !st.Loading })
	if st.Entries != 2 || src.Calls() != 1 {
		t.Fatalf("Want(1): %d entries after %d requests, want one page", st.Entries, src.Calls())
	}
	if st.Progress() != "page 1 of 5" {
		t.Errorf("progress %q", st.Progress())
	}
}

// waitFor waits for the feed to reach a state cond accepts.
func waitFor(t *testing.T, f *Feed, cond func(State) bool) State {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var ver uint64
	for {
		st := f.Wait(ctx, ver)
		if cond(st) {
			return st
		}
		if ctx.Err() != nil {
			t.Fatalf("state never came: %+v", st)
		}
		ver = st.Version
	}
}

// Values the program must refuse to believe, each in a page of otherwise
// good contracts: the entry is skipped and counted, the rest kept.
func TestFeedRefusesImplausibleValues(t *testing.T) {
	bad := map[string]func(c *api.Charge){
		"end at unix 1e18":       func(c *api.Charge) { c.End = 1e18 },
		"end 9999-12-31":         func(c *api.Charge) { c.End = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC).Unix() },
		"start at -2^63":         func(c *api.Charge) { c.Start = math.MinInt64 },
		"amount of $1e15":        func(c *api.Charge) { c.Amount = 1e18 },
		"negative amount $1e15":  func(c *api.Charge) { c.Amount = -1e18 },
		"item ending in 9999":    func(c *api.Charge) { c.Items = []api.Charge{{Type: "gpu", End: 253402214400}} },
		"item amount beyond max": func(c *api.Charge) { c.Items = []api.Charge{{Type: "gpu", Amount: MaxAmount + 1}} },
	}
	for name, mutate := range bad {
		t.Run(name, func(t *testing.T) {
			pages := pagesOf(1, 3)
			mutate(&pages[0][1])
			src := &billingtest.Pager[api.Charge]{Pages: pages, Matching: 3}
			s := newService(t, func() *billingtest.Pager[api.Charge] { return src })
			f := s.Feed(query())
			defer f.Release()
			got, st, err := all(t, f)
			if err != nil || len(got) != 2 || st.Skipped != 1 || st.Amount != 2*money.Dollar {
				t.Fatalf("%d entries, skipped %d, amount %s, err %v; want the 2 good ones and 1 skipped", len(got), st.Skipped, st.Amount, err)
			}
			if len(st.Warnings()) != 1 {
				t.Errorf("warnings %q", st.Warnings())
			}
		})
	}
}

func TestTwelveHugeAmountsDoNotWrap(t *testing.T) {
	page := make([]api.Charge, 12)
	for i := range page {
		page[i] = contract(i+1, 999_999_999_999_999_000) // $999,999,999,999,999 each
	}
	src := &billingtest.Pager[api.Charge]{Pages: [][]api.Charge{page, {contract(99, money.Dollar)}}, Matching: 13}
	s := newService(t, func() *billingtest.Pager[api.Charge] { return src })
	f := s.Feed(query())
	defer f.Release()
	_, st, err := all(t, f)
	if err != nil || st.Amount != money.Dollar || st.Skipped != 12 {
		t.Fatalf("amount %s, skipped %d, err %v: the huge amounts must be refused, never summed", st.Amount, st.Skipped, err)
	}
}

func TestFeedDropsRepeatedContracts(t *testing.T) {
	pages := pagesOf(2, 3)
	pages[1][0] = pages[0][2] // the server repeats a contract on the next page
	src := &billingtest.Pager[api.Charge]{Pages: pages, Matching: 6}
	s := newService(t, func() *billingtest.Pager[api.Charge] { return src })
	f := s.Feed(query())
	defer f.Release()
	got, st, err := all(t, f)
	if err != nil || len(got) != 5 || st.Duplicates != 1 || st.Contracts != 5 {
		t.Fatalf("%d entries, %d duplicates, %d contracts, %v", len(got), st.Duplicates, st.Contracts, err)
	}
	if w := st.Warnings(); len(w) != 1 || w[0][:19] != "1 repeated contract" {
		t.Errorf("warnings %q", w)
	}
}

func TestFeedStopsBeyondTheTotal(t *testing.T) {
	src := &billingtest.Pager[api.Charge]{Pages: pagesOf(40, 100), Matching: 100}
	s := newService(t, func() *billingtest.Pager[api.Charge] { return src })
	f := s.Feed(api.ChargesQuery{From: query().From, To: query().To, Limit: 100})
	defer f.Release()
	_, st, err := all(t, f)
	if err == nil || st.Contracts > 300 || src.Calls() > 3 {
		t.Fatalf("err %v after %d contracts and %d requests: rows far beyond the total must stop the feed", err, st.Contracts, src.Calls())
	}
}

func TestFeedRestartsAfterARefusedToken(t *testing.T) {
	pages := pagesOf(3, 2)
	first := &billingtest.Pager[api.Charge]{Pages: pages, Matching: 6, Errs: map[int]error{2: &api.Error{Kind: api.ErrInvalidToken, Status: 400}}}
	second := &billingtest.Pager[api.Charge]{Pages: pages, Matching: 6}
	n := 0
	s := newService(t, func() *billingtest.Pager[api.Charge] {
		n++
		if n == 1 {
			return first
		}
		return second
	})
	f := s.Feed(query())
	defer f.Release()
	got, st, err := all(t, f)
	if err != nil || len(got) != 6 || st.Contracts != 6 || st.Duplicates != 0 || !st.Restarted {
		t.Fatalf("%d entries, %+v, %v: want every contract once after the restart", len(got), st, err)
	}
}

func TestFeedWaitsOutRateLimits(t *testing.T) {
	limited := &api.Error{Kind: api.ErrRateLimited, Status: 429, Threshold: time.Millisecond}
	src := &billingtest.Pager[api.Charge]{Pages: pagesOf(2, 1), Matching: 2, Errs: map[int]error{1: limited}}
	s := newService(t, func() *billingtest.Pager[api.Charge] { return src })
	f := s.Feed(query())
	defer f.Release()
	got, _, err := all(t, f)
	if err != nil || len(got) != 2 {
		t.Fatalf("%d entries, %v: one 429 must be waited out", len(got), err)
	}

	// A server that keeps refusing ends in an error, not a loop.
	s2 := newService(t, func() *billingtest.Pager[api.Charge] { return &billingtest.Pager[api.Charge]{Fail: limited} })
	f2 := s2.Feed(query())
	defer f2.Release()
	if _, _, err := all(t, f2); !errors.Is(err, api.ErrRateLimited) {
		t.Fatalf("err %v, want the rate limit after the feed's rounds", err)
	}
	if st := f2.State(); st.Loading {
		t.Fatal("the feed still loads after giving up")
	}
}

func TestRetryResumesAFailedFeed(t *testing.T) {
	src := &billingtest.Pager[api.Charge]{Pages: pagesOf(2, 1), Matching: 2, Errs: map[int]error{1: &api.Error{Kind: api.ErrServer, Status: 500}}}
	s := newService(t, func() *billingtest.Pager[api.Charge] { return src })
	f := s.Feed(query())
	defer f.Release()
	if _, st, err := all(t, f); !errors.Is(err, api.ErrServer) || st.Entries != 1 {
		t.Fatalf("%+v %v", st, err)
	}
	f.Retry()
	got, _, err := all(t, f)
	if err != nil || len(got) != 2 {
		t.Fatalf("after Retry: %d entries, %v", len(got), err)
	}
}

func TestReleaseStopsTheLoader(t *testing.T) {
	src := &billingtest.Pager[api.Charge]{Pages: pagesOf(3, 1), Matching: 3, Gate: make(chan struct{})}
	s := newService(t, func() *billingtest.Pager[api.Charge] { return src })
	f := s.Feed(query())
	f.WantAll()
	f.Release()
	st := waitFor(t, f, func(st State) bool { return st.Closed })
	if st.Loading {
		t.Fatal("a released feed still loads")
	}
	if g := s.Feed(query()); g == f {
		t.Fatal("a released feed was handed out again")
	} else {
		g.Release()
	}
}

func TestFreshFeedStartsOver(t *testing.T) {
	n := 0
	s := newService(t, func() *billingtest.Pager[api.Charge] {
		n++
		return &billingtest.Pager[api.Charge]{Pages: pagesOf(1, 1), Matching: 1}
	})
	a := s.Feed(query())
	defer a.Release()
	all(t, a)
	b := s.FreshFeed(query())
	defer b.Release()
	if a == b {
		t.Fatal("a reload got the old feed")
	}
	if _, _, err := all(t, b); err != nil || n != 2 {
		t.Fatalf("reload: %v after %d pagers, want a new one", err, n)
	}
	if c := s.Feed(query()); c != b {
		t.Fatal("later holders must share the reloaded feed")
	} else {
		c.Release()
	}
}

// A listener of an idle feed is let go when the service closes, whatever
// its own context.
func TestWaitEndsWhenTheServiceCloses(t *testing.T) {
	src := &billingtest.Pager[api.Charge]{Pages: pagesOf(2, 1), Matching: 2}
	s := New(context.Background(), nil, WithPages(func(api.ChargesQuery) Source[api.Charge] { return src }))
	f := s.Feed(query())
	f.Want(1)
	st := waitFor(t, f, func(st State) bool { return !st.Loading })
	got := make(chan State, 1)
	go func() { got <- f.Wait(context.Background(), st.Version) }()
	s.Close()
	select {
	case st := <-got:
		if !st.Closed {
			t.Fatalf("Wait returned %+v, want the feed closed", st)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a listener of an idle feed outlived its service")
	}
}

// TestFeedEndsNotLoading: the state that carries a feed's end — the last
// page, or the error that stops it — already says it is not loading, so a
// screen never shows a spinner beside a finished or failed load (nor a
// command reads "still loading" after All returned).
func TestFeedEndsNotLoading(t *testing.T) {
	for i := range 20 {
		errs := map[int]error{}
		if i%2 == 1 {
			errs[1] = &api.Error{Kind: api.ErrServer, Status: 500}
		}
		src := &billingtest.Pager[api.Charge]{Pages: pagesOf(2, 1), Matching: 2, Errs: errs}
		s := newService(t, func() *billingtest.Pager[api.Charge] { return src })
		f := s.Feed(query())
		_, st, err := all(t, f)
		if (err != nil) != (i%2 == 1) {
			t.Fatalf("run %d: err %v", i, err)
		}
		if st.Loading || f.State().Loading {
			t.Fatalf("run %d: the feed ended (done %v, err %v) and still says loading", i, st.Done, err)
		}
		f.Release()
	}
}

// How old the ledger's rows are reads with the year of a sync in another
// year: on 3 January "synced on 28 Dec 2026", never a "28 Dec" that reads
// as this year's, in now's zone (20:00 UTC on 28 December is the 29th in
// Tokyo).
func TestSyncedTextAcrossNewYear(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	synced := time.Date(2026, 12, 28, 20, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		now  time.Time
		want string
	}{
		{time.Date(2027, 1, 3, 10, 0, 0, 0, time.UTC), "synced on 28 Dec 2026"},
		{time.Date(2027, 1, 3, 10, 0, 0, 0, tokyo), "synced on 29 Dec 2026"},
		{time.Date(2026, 12, 31, 10, 0, 0, 0, time.UTC), "synced on 28 Dec"},
		{time.Date(2026, 12, 29, 10, 0, 0, 0, time.UTC), "synced 14 h ago"},
	} {
		if got := (State{Synced: synced}).SyncedText(c.now); got != c.want {
			t.Errorf("at %v: %q, want %q", c.now, got, c.want)
		}
	}
}

// A reload whose first page fails keeps the entries loaded before, marked
// stale (never nothing); asked again, its first page replaces them as a
// whole (a new generation), each counted once.
func TestFreshFeedKeepsEntriesUntilTheServerAnswers(t *testing.T) {
	n := 0
	s := newService(t, func() *billingtest.Pager[api.Charge] {
		n++
		p := &billingtest.Pager[api.Charge]{Pages: pagesOf(2, 2), Matching: 4}
		if n == 2 {
			p.With(map[int]error{0: errors.New("connection refused")})
		}
		return p
	})
	a := s.Feed(query())
	if _, _, err := all(t, a); err != nil {
		t.Fatal(err)
	}
	b := s.FreshFeed(query())
	a.Release()
	defer b.Release()
	if st := b.State(); !st.Stale || st.Contracts != 4 || len(b.Pages(0)) != 2 {
		t.Fatalf("a fresh feed before any answer: %+v with %d pages, want the 4 contracts loaded, stale", st, len(b.Pages(0)))
	}
	b.Want(1) // as much as a screen wants: the carried entries do not count
	st := waitFor(t, b, func(st State) bool { return st.Err != nil })
	if !st.Stale || st.Contracts != 4 || len(b.Pages(0)) != 2 {
		t.Fatalf("after the reload failed: %+v, want the 4 contracts kept, stale", st)
	}
	b.Retry()
	got, st, err := all(t, b)
	if err != nil || st.Stale || st.Contracts != 4 || len(got) != 4 || st.Generation == 0 {
		t.Fatalf("after the retry: %v, %+v, %d entries; want 4 fresh ones, a new generation", err, st, len(got))
	}
}
