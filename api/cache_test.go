package api

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// cachedClient is a client of f with a page cache of ttl on a fake clock.
func cachedClient(t *testing.T, f *fake, ttl time.Duration) (*Client, *fakeClock) {
	t.Helper()
	c := f.client(t, WithPageCache(ttl))
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	c.pages.now = clk.now
	return c, clk
}

// walk pages q to the end and returns how many contracts arrived.
func walk(t *testing.T, c *Client, q ChargesQuery) int {
	t.Helper()
	n := 0
	for _, err := range c.All(context.Background(), q) {
		if err != nil {
			t.Fatalf("paging: %v", err)
		}
		n++
	}
	return n
}

// pageQuery is testQuery with 100 contracts a page.
func pageQuery() ChargesQuery {
	q := testQuery()
	q.Limit = 100
	return q
}

func TestPageCacheTwoPagersFetchEachPageOnce(t *testing.T) {
	srv := &chargesServer{n: 250, amount: func(i int) int64 { return int64(i) }}
	f := newFake(t, srv.handle)
	c, _ := cachedClient(t, f, time.Minute)

	// Interleaved, like the overview and the charges screen.
	a, b := c.Pager(pageQuery()), c.Pager(pageQuery())
	for !a.Done() || !b.Done() {
		for _, p := range []*Pager{a, b} {
			if p.Done() {
				continue
			}
			if _, err := p.Next(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a.Loaded() != 250 || b.Loaded() != 250 {
		t.Fatalf("loaded %d and %d, want 250 each", a.Loaded(), b.Loaded())
	}
	if n := walk(t, c, pageQuery()); n != 250 {
		t.Fatalf("a third walk saw %d contracts", n)
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("server saw %d requests, want each of the 3 pages once", len(reqs))
	}
	seen := map[string]bool{}
	for _, r := range reqs {
		if seen[r.RawQuery] {
			t.Fatalf("page requested twice: %s", r.RawQuery)
		}
		seen[r.RawQuery] = true
	}
}

func TestPageCacheKeysOnTheWholeRequest(t *testing.T) {
	srv := &chargesServer{n: 50, amount: func(i int) int64 { return 1 }}
	f := newFake(t, srv.handle)
	c, _ := cachedClient(t, f, time.Minute)

	base := pageQuery()
	limit := base
	limit.Limit = 500
	types := base
	types.Types = []ContractType{TypeVolume}
	order := base
	order.OldestFirst = true
	format := base
	format.Format = FormatTree
	later := base
	later.From = later.From.AddDate(0, 0, 1)
	for _, q := range []ChargesQuery{base, limit, types, order, format, later, base, limit} {
		walk(t, c, q)
	}
	if got := f.count(); got != 6 {
		t.Fatalf("server saw %d requests; want one for each of the 6 distinct queries", got)
	}
}

func TestPageCacheCoalescesConcurrentRequests(t *testing.T) {
	const callers = 8
	arrived, release := make(chan struct{}, callers), make(chan struct{})
	srv := &chargesServer{n: 10, amount: func(i int) int64 { return 1 }}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		arrived <- struct{}{}
		<-release
		srv.handle(w, r, n)
	})
	c, _ := cachedClient(t, f, time.Minute)
	joined := make(chan struct{}, callers)
	c.pages.joined = func() { joined <- struct{}{} }

	var wg sync.WaitGroup
	pages := make([]ChargesPage, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { pages[i], errs[i] = c.Charges(context.Background(), pageQuery(), "") })
	}
	for range callers {
		<-joined
	}
	<-arrived
	close(release)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || len(pages[i].Results) != 10 {
			t.Fatalf("caller %d: %d results, %v", i, len(pages[i].Results), errs[i])
		}
	}
	if got := f.count(); got != 1 {
		t.Fatalf("server saw %d requests for %d identical concurrent calls, want 1", got, callers)
	}
}

// A caller that gives up returns at once; the others still get the page.
// When every caller has given up, the request itself is cancelled and
// nothing is kept.
func TestPageCacheWaitersHonourTheirOwnContext(t *testing.T) {
	arrived, release := make(chan struct{}, 4), make(chan struct{})
	cancelled := make(chan struct{}, 4)
	srv := &chargesServer{n: 10, amount: func(i int) int64 { return 1 }}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 0: // held until released
			arrived <- struct{}{}
			<-release
		case 1: // held until its caller gives up
			arrived <- struct{}{}
			<-r.Context().Done()
			cancelled <- struct{}{}
			return
		}
		srv.handle(w, r, n)
	})
	c, _ := cachedClient(t, f, time.Minute)
	joined := make(chan struct{}, 4)
	c.pages.joined = func() { joined <- struct{}{} }

	// The first caller starts the request and gives up; the second stays.
	ctx1, cancel1 := context.WithCancel(context.Background())
	res1 := make(chan error, 1)
	go func() { _, err := c.Charges(ctx1, pageQuery(), ""); res1 <- err }()
	<-joined
	<-arrived
	res2 := make(chan ChargesPage, 1)
	go func() { p, _ := c.Charges(context.Background(), pageQuery(), ""); res2 <- p }()
	<-joined
	cancel1()
	apiErr(t, <-res1, ErrCanceled)
	close(release)
	if p := <-res2; len(p.Results) != 10 {
		t.Fatalf("the caller that stayed got %d results", len(p.Results))
	}

	// Every caller of another request gives up: the server sees it
	// cancelled.
	other := pageQuery()
	other.Limit = 5
	ctx3, cancel3 := context.WithCancel(context.Background())
	res3 := make(chan error, 1)
	go func() { _, err := c.Charges(ctx3, other, ""); res3 <- err }()
	<-joined
	<-arrived
	cancel3()
	apiErr(t, <-res3, ErrCanceled)
	<-cancelled
	// Nothing was kept for it: asking again asks the server.
	p, err := c.Charges(context.Background(), other, "")
	if err != nil || len(p.Results) != 5 {
		t.Fatalf("asking again: %d results, %v", len(p.Results), err)
	}
	if got := f.count(); got != 3 {
		t.Fatalf("server saw %d requests, want 3", got)
	}
}

func TestPageCacheExpires(t *testing.T) {
	srv := &chargesServer{n: 10, amount: func(i int) int64 { return 1 }}
	f := newFake(t, srv.handle)
	c, clk := cachedClient(t, f, 10*time.Minute)
	get := func() {
		t.Helper()
		if _, err := c.Charges(context.Background(), pageQuery(), ""); err != nil {
			t.Fatal(err)
		}
	}
	get()
	clk.advance(10*time.Minute - time.Second)
	get()
	if got := f.count(); got != 1 {
		t.Fatalf("within the ttl: %d requests, want 1", got)
	}
	clk.advance(time.Second)
	get()
	if got := f.count(); got != 2 {
		t.Fatalf("after the ttl: %d requests, want 2", got)
	}
	get()
	if got := f.count(); got != 2 {
		t.Fatalf("the fresh answer was not kept: %d requests", got)
	}
}

func TestPageCacheKeepsNoErrors(t *testing.T) {
	srv := &chargesServer{n: 10, amount: func(i int) int64 { return 1 }}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			reply(w, 500, `{"success":false,"msg":"boom"}`)
			return
		}
		srv.handle(w, r, n)
	})
	c, _ := cachedClient(t, f, time.Minute)
	_, err := c.Charges(context.Background(), pageQuery(), "")
	apiErr(t, err, ErrServer)
	p, err := c.Charges(context.Background(), pageQuery(), "")
	if err != nil || len(p.Results) != 10 {
		t.Fatalf("after an error: %d results, %v", len(p.Results), err)
	}
	if got := f.count(); got != 2 {
		t.Fatalf("server saw %d requests, want 2 (the error was not kept)", got)
	}
}

func TestPageCacheClear(t *testing.T) {
	srv := &chargesServer{n: 150, amount: func(i int) int64 { return 1 }}
	f := newFake(t, srv.handle)
	c, _ := cachedClient(t, f, time.Minute)
	walk(t, c, pageQuery())
	walk(t, c, pageQuery())
	if got := f.count(); got != 2 {
		t.Fatalf("%d requests before the clear, want 2", got)
	}
	c.ClearPageCache()
	walk(t, c, pageQuery())
	if got := f.count(); got != 4 {
		t.Fatalf("%d requests after the clear, want 4", got)
	}
}

// A page that was in flight during a clear answers its caller but is not
// kept: it may predate what the user asked to reload.
func TestPageCacheClearDuringFlight(t *testing.T) {
	arrived, release := make(chan struct{}, 2), make(chan struct{})
	srv := &chargesServer{n: 10, amount: func(i int) int64 { return 1 }}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 0 {
			arrived <- struct{}{}
			<-release
		}
		srv.handle(w, r, n)
	})
	c, _ := cachedClient(t, f, time.Minute)
	res := make(chan error, 1)
	go func() { _, err := c.Charges(context.Background(), pageQuery(), ""); res <- err }()
	<-arrived
	c.ClearPageCache()
	close(release)
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if _, err := c.Charges(context.Background(), pageQuery(), ""); err != nil {
		t.Fatal(err)
	}
	if got := f.count(); got != 2 {
		t.Fatalf("server saw %d requests, want 2", got)
	}
}

func TestPageCacheOffByDefault(t *testing.T) {
	srv := &chargesServer{n: 10, amount: func(i int) int64 { return 1 }}
	f := newFake(t, srv.handle)
	for _, c := range []*Client{f.client(t), f.client(t, WithPageCache(0))} {
		c.ClearPageCache() // harmless without a cache
		walk(t, c, pageQuery())
		walk(t, c, pageQuery())
	}
	if got := f.count(); got != 4 {
		t.Fatalf("server saw %d requests, want 4 without a cache", got)
	}
}

// The cache stays bounded: past maxCachedPages the oldest page goes.
func TestPageCacheBounded(t *testing.T) {
	pc := newPageCache(time.Minute)
	clk := &fakeClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	pc.now = clk.now
	ok := func(context.Context) (ChargesPage, error) { return ChargesPage{Count: 1}, nil }
	for i := range maxCachedPages + 10 {
		clk.advance(time.Millisecond)
		if _, err := pc.get(context.Background(), chargesOp, strconv.Itoa(i), ok); err != nil {
			t.Fatal(err)
		}
	}
	pc.mu.Lock()
	n := len(pc.entries)
	_, oldest := pc.entries["0"]
	_, newest := pc.entries[strconv.Itoa(maxCachedPages+9)]
	pc.mu.Unlock()
	if n != maxCachedPages || oldest || !newest {
		t.Fatalf("%d entries (want %d), oldest kept %v, newest kept %v", n, maxCachedPages, oldest, newest)
	}
}
