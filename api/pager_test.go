package api

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/money"
)

// chargesServer pages n contracts like the real endpoint: opaque tokens
// that are valid only with the filters they came from.
type chargesServer struct {
	n      int
	amount func(i int) int64 // mills of contract i
}

type fakeCursor struct {
	Offset  int    `json:"offset"`
	Filters string `json:"filters"`
}

func (s *chargesServer) handle(w http.ResponseWriter, r *http.Request, _ int) {
	q := r.URL.Query()
	filters := q.Get("select_filters") + "|" + q.Get("format") + "|" + q.Get("latest_first") + "|" + q.Get("limit")
	var sf struct {
		Day struct{ Gte, Lte *int64 } `json:"day"`
	}
	if json.Unmarshal([]byte(q.Get("select_filters")), &sf) != nil || sf.Day.Gte == nil || sf.Day.Lte == nil {
		reply(w, 400, `{"success":false,"msg":"Both gte and lte of day must be given"}`)
		return
	}
	limit := 100
	if l := q.Get("limit"); l != "" {
		limit, _ = strconv.Atoi(l)
	}
	offset := 0
	if tok := q.Get("after_token"); tok != "" {
		raw, _ := base64.StdEncoding.DecodeString(tok)
		var cur fakeCursor
		if json.Unmarshal(raw, &cur) != nil || cur.Filters != filters {
			reply(w, 400, `{"success":false,"error":"invalid_token","msg":"Invalid pagination token"}`)
			return
		}
		offset = cur.Offset
	}
	end := min(offset+limit, s.n)
	var entries []string
	for i := offset; i < end; i++ {
		entries = append(entries, contractJSON(i, s.amount(i)))
	}
	next := ""
	if end < s.n {
		raw, _ := json.Marshal(fakeCursor{Offset: end, Filters: filters})
		next = base64.StdEncoding.EncodeToString(raw)
	}
	reply(w, 200, pageJSON(entries, s.n, next))
}

func contractID(t *testing.T, c Charge) int {
	t.Helper()
	id, err := strconv.Atoi(strings.TrimPrefix(c.Source, "instance-"))
	if err != nil {
		t.Fatalf("unexpected source %q", c.Source)
	}
	return id
}

// 1,234 contracts at 100 a page: each arrives exactly once, paging stops
// at the null token, Total follows, and the money adds up exactly.
func TestPagerWalksEveryPage(t *testing.T) {
	amount := func(i int) int64 { return int64(i%7)*100 + 1 + int64(i%3) } // 0.001, 0.102, …
	srv := &chargesServer{n: 1234, amount: amount}
	f := newFake(t, srv.handle)
	q := testQuery()
	q.Limit = 100
	p := f.client(t).ChargePager(q)
	if p.Total() != -1 || p.Done() {
		t.Fatalf("fresh pager: total %d done %v", p.Total(), p.Done())
	}
	seen := make(map[int]int)
	var sum money.Amount
	pages := 0
	for !p.Done() {
		page, err := p.Next(context.Background())
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		pages++
		for _, c := range page.Results {
			seen[contractID(t, c)]++
			sum += c.Amount
		}
		if p.Total() != 1234 || len(seen) != min(pages*100, 1234) {
			t.Fatalf("after page %d: total %d, %d distinct seen", pages, p.Total(), len(seen))
		}
	}
	if pages != 13 || len(seen) != 1234 {
		t.Fatalf("%d pages, %d contracts; want 13, 1234", pages, len(seen))
	}
	var want int64
	for i := range 1234 {
		if seen[i] != 1 {
			t.Fatalf("contract %d seen %d times", i, seen[i])
		}
		want += amount(i)
	}
	if sum != money.Amount(want) {
		t.Fatalf("sum %v, want exactly %v", sum, money.Amount(want))
	}
	if _, err := p.Next(context.Background()); !errors.Is(err, ErrPagerDone) {
		t.Fatalf("Next after the last page: %v, want ErrPagerDone", err)
	}
	if got := f.count(); got != 13 {
		t.Fatalf("server saw %d requests, want 13", got)
	}
	// Every request carried the same filters; only the token moved on.
	reqs := f.requests()
	for i, r := range reqs {
		if r.Query.Get("select_filters") != reqs[0].Query.Get("select_filters") || r.Query.Get("limit") != "100" {
			t.Fatalf("request %d changed the filters: %s", i, r.RawQuery)
		}
		if (i == 0) != (r.Query.Get("after_token") == "") {
			t.Fatalf("request %d after_token = %q", i, r.Query.Get("after_token"))
		}
	}
}

// Every entry once and in order, and a reader that stops after 150
// entries has cost two pages, not thirteen.
func TestPagerFetchesOnlyWhatIsRead(t *testing.T) {
	srv := &chargesServer{n: 1234, amount: func(i int) int64 { return 1 }}
	f := newFake(t, srv.handle)
	c := f.client(t)

	n := 0
	for ch, err := range everyEntry(context.Background(), c.ChargePager(testQuery())) {
		if err != nil {
			t.Fatal(err)
		}
		if contractID(t, ch) != n {
			t.Fatalf("entry %d is contract %d", n, contractID(t, ch))
		}
		n++
	}
	if n != 1234 || f.count() != 13 {
		t.Fatalf("All yielded %d entries over %d requests", n, f.count())
	}

	before := f.count()
	n = 0
	for _, err := range everyEntry(context.Background(), c.ChargePager(testQuery())) {
		if err != nil {
			t.Fatal(err)
		}
		if n++; n == 150 {
			break
		}
	}
	if got := f.count() - before; got != 2 {
		t.Fatalf("breaking after 150 entries made %d requests, want 2", got)
	}
}

// An error mid-way reaches the reader once, after the pages before it.
func TestPagerErrorMidWay(t *testing.T) {
	srv := &chargesServer{n: 500, amount: func(i int) int64 { return 1 }}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 2 {
			reply(w, 400, `{"success":false,"error":"invalid_token","msg":"Invalid pagination token"}`)
			return
		}
		srv.handle(w, r, n)
	})
	entries, errs := 0, 0
	for _, err := range everyEntry(context.Background(), f.client(t).ChargePager(testQuery())) {
		if err != nil {
			errs++
			apiErr(t, err, ErrInvalidToken)
			continue
		}
		entries++
	}
	if entries != 200 || errs != 1 || f.count() != 3 {
		t.Fatalf("%d entries, %d errors, %d requests; want 200, 1, 3", entries, errs, f.count())
	}
}

// Empty pages that still carry a token are followed within one Next; a
// server that never stops sending them is cut off.
func TestPagerEmptyPages(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n < 3 {
			reply(w, 200, pageJSON(nil, 1, fmt.Sprintf("t%d", n)))
			return
		}
		reply(w, 200, pageJSON([]string{contractJSON(9, 1)}, 1, ""))
	})
	p := f.client(t).ChargePager(testQuery())
	page, err := p.Next(context.Background())
	if err != nil || len(page.Results) != 1 || !p.Done() || f.count() != 4 {
		t.Fatalf("page %+v, err %v, done %v, %d requests", page, err, p.Done(), f.count())
	}

	endless := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 200, pageJSON(nil, 1, fmt.Sprintf("t%d", n)))
	})
	_, err = endless.client(t).ChargePager(testQuery()).Next(context.Background())
	apiErr(t, err, ErrMalformed)
	if endless.count() != maxEmptyPages {
		t.Fatalf("gave up after %d requests, want %d", endless.count(), maxEmptyPages)
	}

	looping := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 200, pageJSON([]string{contractJSON(n, 1)}, 9, "same"))
	})
	lp := looping.client(t).ChargePager(testQuery())
	if _, err := lp.Next(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err = lp.Next(context.Background())
	apiErr(t, err, ErrMalformed)
}

// A failed Next leaves the pager where it was, so the UI can retry.
func TestPagerRetryAfterError(t *testing.T) {
	srv := &chargesServer{n: 250, amount: func(i int) int64 { return 1 }}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			reply(w, 500, `{"success":false,"msg":"boom"}`)
			return
		}
		srv.handle(w, r, n)
	})
	p := f.client(t).ChargePager(testQuery())
	ctx := context.Background()
	if _, err := p.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if page, err := p.Next(ctx); !errors.Is(err, ErrServer) || len(page.Results) != 0 {
		t.Fatalf("second page: %d entries, %v; want none and ErrServer", len(page.Results), err)
	}
	if p.Done() {
		t.Fatal("done after the error")
	}
	page, err := p.Next(ctx)
	if err != nil || contractID(t, page.Results[0]) != 100 {
		t.Fatalf("retried page: %v, first entry %+v", err, page.Results)
	}
}

// The pager's filters cannot change under it, and a bad query is refused
// before anything is sent.
func TestPagerQueryFixed(t *testing.T) {
	srv := &chargesServer{n: 150, amount: func(i int) int64 { return 1 }}
	f := newFake(t, srv.handle)
	q := testQuery()
	q.Types = []ContractType{TypeInstance}
	p := f.client(t).ChargePager(q)
	q.Types[0] = TypeVolume // the caller reuses its slice
	ctx := context.Background()
	for !p.Done() {
		if _, err := p.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range f.requests() {
		if !strings.Contains(r.Query.Get("select_filters"), `"instance"`) {
			t.Fatalf("filters changed: %s", r.Query.Get("select_filters"))
		}
	}

	bad := f.client(t).ChargePager(ChargesQuery{})
	before := f.count()
	_, err := bad.Next(ctx)
	apiErr(t, err, ErrUsage)
	if f.count() != before {
		t.Fatal("an invalid query was sent")
	}
}

// tokenServer answers each after_token from a script: the entries a page
// holds and the token that follows it ("" ends). Unknown tokens are 400.
func tokenServer(script map[string]struct {
	entries int
	next    string
}) func(w http.ResponseWriter, r *http.Request, n int) {
	return func(w http.ResponseWriter, r *http.Request, n int) {
		step, ok := script[r.URL.Query().Get("after_token")]
		if !ok {
			reply(w, 400, `{"success":false,"error":"invalid_token","msg":"Invalid pagination token"}`)
			return
		}
		var entries []string
		for i := range step.entries {
			entries = append(entries, contractJSON(n*10+i, 1))
		}
		reply(w, 200, pageJSON(entries, 1000, step.next))
	}
}

// Page tokens that lead back to one already sent are a cycle, however long
// and whether the repeated token was handed out or followed past an empty
// page; the pager stops at the repeat instead of paging forever.
func TestPagerTokenCycle(t *testing.T) {
	type step = struct {
		entries int
		next    string
	}
	cases := []struct {
		name   string
		script map[string]step
		pages  int // pages handed out before the error
	}{
		{"A→B→A", map[string]step{"": {1, "A"}, "A": {1, "B"}, "B": {1, "A"}}, 2},
		{"back to a token followed past an empty page",
			map[string]step{"": {1, "A"}, "A": {0, "B"}, "B": {1, "C"}, "C": {1, "B"}}, 2},
		{"within one Next, empty pages only",
			map[string]step{"": {0, "A"}, "A": {0, "B"}, "B": {0, "A"}}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tokenServer(tc.script))
			p := f.client(t).ChargePager(testQuery())
			for i := 0; ; i++ {
				if i > 20 {
					t.Fatalf("%d pages over %d requests and no error: the cycle went unnoticed", i, f.count())
				}
				_, err := p.Next(context.Background())
				if err == nil {
					continue
				}
				e := apiErr(t, err, ErrMalformed)
				if !strings.Contains(e.Error(), "the server's page tokens repeat (a cycle)") || i != tc.pages {
					t.Fatalf("after %d pages: %v", i, err)
				}
				break
			}
			// Each token was sent once; the one that repeats was not sent again.
			seen := map[string]bool{}
			for _, r := range f.requests() {
				tok := r.Query.Get("after_token")
				if seen[tok] {
					t.Fatalf("token %q sent twice", tok)
				}
				seen[tok] = true
			}
		})
	}

	// A failed Next is retried with the same tokens: not a cycle.
	t.Run("retry after an error while following empty pages", func(t *testing.T) {
		script := tokenServer(map[string]step{"": {0, "A"}, "A": {1, "B"}, "B": {1, ""}})
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 1 { // the first request for A
				reply(w, 500, `{"success":false,"msg":"boom"}`)
				return
			}
			script(w, r, n)
		})
		p := f.client(t).ChargePager(testQuery())
		ctx := context.Background()
		if _, err := p.Next(ctx); !errors.Is(err, ErrServer) {
			t.Fatalf("first Next: %v, want ErrServer", err)
		}
		loaded := 0
		for !p.Done() {
			page, err := p.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			loaded += len(page.Results)
		}
		if loaded != 2 {
			t.Fatalf("loaded %d, want 2", loaded)
		}
	})
}

// Once the server has named its total, it may hand out at most
// ⌈total/limit⌉ + 2 pages; one that keeps sending fresh tokens is cut off
// there instead of being paged forever.
func TestPagerPagesBeyondTotal(t *testing.T) {
	for _, tc := range []struct {
		limit, total, allowed int
	}{
		{0, 150, 4},   // server default of 100: ⌈1.5⌉ + 2
		{500, 500, 3}, // ⌈1⌉ + 2
		{100, 0, 2},
	} {
		t.Run(fmt.Sprintf("limit=%d,total=%d", tc.limit, tc.total), func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				reply(w, 200, pageJSON([]string{contractJSON(n, 1)}, tc.total, fmt.Sprintf("t%d", n)))
			})
			q := testQuery()
			q.Limit = tc.limit
			p := f.client(t).ChargePager(q)
			for i := 0; ; i++ {
				if i > 20 {
					t.Fatalf("%d pages of a total of %d and no error", i, tc.total)
				}
				_, err := p.Next(context.Background())
				if err == nil {
					continue
				}
				e := apiErr(t, err, ErrMalformed)
				if !strings.Contains(e.Error(), "the server sent more pages than its total allows") || i != tc.allowed {
					t.Fatalf("after %d pages: %v", i, err)
				}
				if f.count() != tc.allowed+1 {
					t.Fatalf("%d pages handed out over %d requests", i, f.count())
				}
				return
			}
		})
	}
}

// endpoint is one paged endpoint as the hostile servers below serve it:
// body renders a page of rows with those ids, a total (-1: none) and a
// next token; pager pages it (ceiling: the pager's ceiling of entries, 0
// for the default) and reports how many entries each page held.
type endpoint struct {
	name  string
	limit int
	body  func(ids []int, total int, next string) string
	pager func(c *Client, ceiling int) func(context.Context) (int, error)
}

// reader reads p a page at a time, its ceiling of entries lowered to
// ceiling when > 0.
func reader[E any](p *Pager[E], ceiling int) func(context.Context) (int, error) {
	if ceiling > 0 {
		p.ceiling = ceiling
	}
	return func(ctx context.Context) (int, error) {
		pg, err := p.Next(ctx)
		return len(pg.Results), err
	}
}

// withTotal is `,"field":n`, or nothing for a total < 0.
func withTotal(field string, n int) string {
	if n < 0 {
		return ""
	}
	return fmt.Sprintf(`,%q:%d`, field, n)
}

func endpoints() []endpoint {
	const limit = 5
	return []endpoint{
		{"charges", limit, func(ids []int, total int, next string) string {
			var rows []string
			for _, id := range ids {
				rows = append(rows, contractJSON(id, 1))
			}
			return fmt.Sprintf(`{"success":true,"next_token":%q%s,"results":[%s]}`, next, withTotal("total", total), strings.Join(rows, ","))
		}, func(c *Client, ceiling int) func(context.Context) (int, error) {
			q := testQuery()
			q.Limit = limit
			return reader(c.ChargePager(q), ceiling)
		}},
		{"payment records", InvoicesLimit, func(ids []int, total int, next string) string {
			var rows []string
			for _, id := range ids {
				rows = append(rows, fmt.Sprintf(`{"start":1767225600,"end":1767225601,"type":"credit","amount":-1,"metadata":{"invoice_id":"%d"}}`, id))
			}
			return fmt.Sprintf(`{"success":true,"next_token":%q%s,"results":[%s]}`, next, withTotal("total", total), strings.Join(rows, ","))
		}, func(c *Client, ceiling int) func(context.Context) (int, error) {
			return reader(c.InvoicePager(invoicesQuery()), ceiling)
		}},
		{"instances", InstancesLimit, func(ids []int, total int, next string) string {
			var rows []string
			for _, id := range ids {
				rows = append(rows, fmt.Sprintf(`{"id":%d,"actual_status":"running","dph_total":0.5}`, id))
			}
			return fmt.Sprintf(`{"instances":[%s],"next_token":%q%s}`, strings.Join(rows, ","), next, withTotal("total_instances", total))
		}, func(c *Client, ceiling int) func(context.Context) (int, error) {
			return reader(c.InstancePager(), ceiling)
		}},
	}
}

// A server that always has another page is stopped, on every endpoint:
// the same rows under a fresh token each time, a total that stays one
// page ahead of what was sent, or fresh rows without a total or an end.
// Each stops within a few requests (the last within the pager's ceiling,
// lowered here), with one line that says what the server did.
func TestPagerStopsAServerThatNeverEnds(t *testing.T) {
	type answer struct {
		ids   []int
		total int
	}
	same := func(n, limit int) answer { return answer{[]int{1, 2, 3}, -1} }
	fresh := func(n int) []int { return []int{3*n + 1, 3*n + 2, 3*n + 3} }
	cases := []struct {
		name    string
		page    func(n, limit int) answer // the n-th answer (0-based)
		ceiling int                       // the pager's ceiling of entries; 0: the default
		words   string                    // in the error
		most    int                       // requests at most
	}{
		{"the same rows under fresh tokens, no total", same,
			0, "the server kept sending pages with nothing new after 3 pages; stopped", 3},
		{"the same rows under fresh tokens, the total one page ahead",
			func(n, limit int) answer { return answer{[]int{1, 2, 3}, (n + 2) * limit} },
			0, "; stopped", 3},
		{"fresh rows, the total one page ahead",
			func(n, limit int) answer { return answer{fresh(n), (n + 2) * limit} },
			0, "the server's count grew from ", 4},
		{"fresh rows, no total, no end",
			func(n, limit int) answer { return answer{fresh(n), -1} },
			30, "without an end or a total; stopped", 12},
		{"fresh rows, a total beyond the ceiling",
			func(n, limit int) answer { return answer{fresh(n), 1_000_000_000} },
			30, "the server counts 1,000,000,000 entries, more than the 30 vastdash reads at once; stopped after", 12},
	}
	for _, ep := range endpoints() {
		for _, tc := range cases {
			t.Run(ep.name+"/"+tc.name, func(t *testing.T) {
				f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
					a := tc.page(n, ep.limit)
					reply(w, 200, ep.body(a.ids, a.total, fmt.Sprintf("t%d", n+1)))
				})
				next := ep.pager(f.client(t, noEndpointPacing()...), tc.ceiling)
				var err error
				for i := 0; err == nil; i++ {
					if i > 1000 {
						t.Fatalf("%d pages over %d requests and no error", i, f.count())
					}
					_, err = next(context.Background())
				}
				e := apiErr(t, err, ErrMalformed)
				t.Logf("%d requests: %v", f.count(), e)
				if !strings.Contains(e.Error(), tc.words) || strings.Contains(e.Error(), "\n") || f.count() > tc.most {
					t.Fatalf("after %d requests (at most %d): %q, want it to say %q", f.count(), tc.most, e, tc.words)
				}
			})
		}
	}
}

// What a real server may do while paging is not an error: one page that
// repeats rows already sent (the list shifted) and a total that grows by a
// few entries (a contract started).
func TestPagerToleratesAShiftWhilePaging(t *testing.T) {
	ids := [][]int{{1, 2, 3, 4, 5}, {1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, {11, 12, 13, 14}}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		var rows []string
		for _, id := range ids[n] {
			rows = append(rows, contractJSON(id, 1))
		}
		next := ""
		if n+1 < len(ids) {
			next = fmt.Sprintf("t%d", n+1)
		}
		reply(w, 200, pageJSON(rows, 12+n/2, next))
	})
	q := testQuery()
	q.Limit = 5
	seen := map[int]bool{}
	for ch, err := range everyEntry(context.Background(), f.client(t).ChargePager(q)) {
		if err != nil {
			t.Fatalf("after %d contracts: %v", len(seen), err)
		}
		seen[contractID(t, ch)] = true
	}
	if len(seen) != 14 || f.count() != 4 {
		t.Fatalf("%d contracts over %d requests, want 14 over 4", len(seen), f.count())
	}
}
