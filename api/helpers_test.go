package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// canary is the key every test client uses: no error text may ever hold it.
const canary = "CANARY-KEY-do-not-print-7f3a"

// assertNoKey fails when s holds the canary key.
func assertNoKey(t *testing.T, s string) {
	t.Helper()
	if strings.Contains(s, canary) {
		t.Fatalf("key leaked into %q", s)
	}
}

// contractJSON renders one table-format contract with its four items, as
// the real API sends it. id makes every contract distinct; amountMills is
// the total, split over the items.
func contractJSON(id int, amountMills int64) string {
	start := 1700000000 + int64(id)*60
	end := start + 86400
	parts := []int64{amountMills / 2, amountMills / 4, amountMills / 8}
	parts = append(parts, amountMills-parts[0]-parts[1]-parts[2])
	var items []string
	for i, typ := range []string{"gpu", "disk", "bwd", "bwu"} {
		items = append(items, fmt.Sprintf(
			`{"start":%d,"end":%d,"type":%q,"source":null,"description":"%s usage for instance %d at $0.400/hr","amount":%s,"metadata":{},"items":[]}`,
			start, end, typ, typ, id, mills(parts[i])))
	}
	return fmt.Sprintf(
		`{"start":%d,"end":%d,"type":"instance","source":"instance-%d","description":"Instance %d: 1x RTX 4090, 24 GB, on machine 4242","amount":%s,"metadata":{"template_id":%d,"label":"training run %d"},"items":[%s]}`,
		start, end, id, id, mills(amountMills), 1000+id%7, id, strings.Join(items, ","))
}

// mills writes thousandths as a JSON number ("12.345").
func mills(m int64) string {
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	return fmt.Sprintf("%s%d.%03d", sign, m/1000, m%1000)
}

// pageJSON wraps entries into a charges response.
func pageJSON(entries []string, total int, next string) string {
	tok := "null"
	if next != "" {
		b, _ := json.Marshal(next)
		tok = string(b)
	}
	return fmt.Sprintf(`{"success":true,"count":%d,"total":%d,"next_token":%s,"results":[%s]}`,
		len(entries), total, tok, strings.Join(entries, ","))
}

var testFrom = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
var testTo = time.Date(2025, 1, 31, 23, 59, 59, 0, time.UTC)

func testQuery() ChargesQuery { return ChargesQuery{From: testFrom, To: testTo} }

// recorded is one request the fake server saw.
type recorded struct {
	Method, Path string
	Query        url.Values
	RawQuery     string
	Header       http.Header
	Body         []byte
}

// fake is an httptest server that records every request and answers with
// handler; handler sees the request number (0-based).
type fake struct {
	srv     *httptest.Server
	mu      sync.Mutex
	reqs    []recorded
	handler func(w http.ResponseWriter, r *http.Request, n int)
}

func newFake(t *testing.T, handler func(w http.ResponseWriter, r *http.Request, n int)) *fake {
	t.Helper()
	f := &fake{handler: handler}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		n := len(f.reqs)
		f.reqs = append(f.reqs, recorded{
			Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), RawQuery: r.URL.RawQuery,
			Header: r.Header.Clone(), Body: body,
		})
		f.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body)) // the handler may read it too
		f.handler(w, r, n)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// requests returns a copy of what the server saw so far.
func (f *fake) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.reqs)
}

func (f *fake) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// client returns a Client for the fake with the canary key, no pacing and
// millisecond backoffs; opts come last so a test can override them.
func (f *fake) client(t *testing.T, opts ...Option) *Client {
	t.Helper()
	base := []Option{
		WithHTTPClient(f.srv.Client()),
		WithChargesThreshold(0),
		WithBackoff(time.Millisecond, 4*time.Millisecond),
	}
	c, err := New(f.srv.URL, canary, append(base, opts...)...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c
}

// reply writes a JSON (or any) body with a status.
func reply(w http.ResponseWriter, status int, body string) {
	if strings.HasPrefix(strings.TrimSpace(body), "{") {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// apiErr asserts err is an *Error of kind and returns it.
func apiErr(t *testing.T, err error, kind error) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %v", kind)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %q is not an *Error", err, err)
	}
	if !errors.Is(err, kind) {
		t.Fatalf("error kind %v (%q), want %v", e.Kind, err, kind)
	}
	assertNoKey(t, err.Error())
	return e
}

// events collects observer events safely.
type events struct {
	mu sync.Mutex
	ev []Event
}

func (e *events) observe(ev Event) {
	e.mu.Lock()
	e.ev = append(e.ev, ev)
	e.mu.Unlock()
}

func (e *events) kinds(k EventKind) []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Event
	for _, ev := range e.ev {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// everyEntry yields every remaining entry of p, fetching pages as needed. An
// error is yielded once (with a zero entry) and ends the sequence; pages
// stop being fetched as soon as the consumer breaks.
func everyEntry[E any](ctx context.Context, p *Pager[E]) iter.Seq2[E, error] {
	return func(yield func(E, error) bool) {
		for !p.Done() {
			page, err := p.Next(ctx)
			if err != nil {
				var zero E
				yield(zero, err)
				return
			}
			for _, e := range page.Results {
				if !yield(e, nil) {
					return
				}
			}
		}
	}
}
