package demoserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: Close
// must release hanging and delayed requests.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// testNow is fixed so every test sees the same data set.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const day = int64(86400)

// fakeClock drives pacing and Fault.Until without sleeping.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

type tserver struct {
	*Server
	t      *testing.T
	client *http.Client
}

// start runs a server with test defaults: fixed Now, few contracts, pacing
// off unless the test sets Threshold.
func start(t *testing.T, opts Options) *tserver {
	t.Helper()
	if opts.Now.IsZero() {
		opts.Now = testNow
	}
	if opts.Contracts == 0 {
		opts.Contracts = 300
	}
	if opts.Threshold == 0 {
		opts.Threshold = -1
	}
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(func() {
		s.Close()
		c.CloseIdleConnections()
	})
	return &tserver{Server: s, t: t, client: c}
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request; key "" sends no Authorization header.
func (ts *tserver) do(method, path, key string, body []byte, hdr ...string) response {
	ts.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, ts.URL()+path, rd)
	if err != nil {
		ts.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := ts.client.Do(req)
	if err != nil {
		ts.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		ts.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

func (ts *tserver) get(path, key string) response { return ts.do("GET", path, key, nil) }

func (ts *tserver) prefsPath() string {
	return fmt.Sprintf("/api/v0/users/%d/notification-prefs/", ts.UserID())
}

// chargesPath builds a charges URL; types nil omits the type filter.
// extra are key, value pairs of further query parameters.
func chargesPath(gte, lte int64, types []string, extra ...string) string {
	sf := map[string]any{"day": map[string]int64{"gte": gte, "lte": lte}}
	if types != nil {
		sf["type"] = map[string][]string{"in": types}
	}
	b, _ := json.Marshal(sf)
	q := url.Values{"select_filters": {string(b)}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	return "/api/v0/charges/?" + q.Encode()
}

// entry and page mirror the wire format; amounts stay json.Number so they
// can be checked digit by digit.
type entry struct {
	Start       int64          `json:"start"`
	End         int64          `json:"end"`
	Type        string         `json:"type"`
	Source      *string        `json:"source"`
	Description string         `json:"description"`
	Amount      json.Number    `json:"amount"`
	Metadata    map[string]any `json:"metadata"`
	Items       []entry        `json:"items"`
}

type page struct {
	Success   bool    `json:"success"`
	Count     int     `json:"count"`
	Total     int     `json:"total"`
	NextToken *string `json:"next_token"`
	Results   []entry `json:"results"`
}

func decodePage(t *testing.T, r response) page {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.UseNumber()
	var p page
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if !p.Success || p.Count != len(p.Results) {
		t.Fatalf("success=%v count=%d len=%d", p.Success, p.Count, len(p.Results))
	}
	return p
}

// milli parses a wire amount into thousandths, failing on more than three
// decimals or anything that is not a plain decimal.
func milli(t *testing.T, n json.Number) int64 {
	t.Helper()
	s := string(n)
	whole, frac, _ := strings.Cut(s, ".")
	if len(frac) > 3 || strings.ContainsAny(s, "eE+") {
		t.Fatalf("amount %q is not a decimal with at most 3 places", s)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		t.Fatalf("amount %q: %v", s, err)
	}
	f := int64(0)
	if frac != "" {
		frac += strings.Repeat("0", 3-len(frac))
		if f, err = strconv.ParseInt(frac, 10, 64); err != nil {
			t.Fatalf("amount %q: %v", s, err)
		}
	}
	if strings.HasPrefix(whole, "-") {
		return w*1000 - f
	}
	return w*1000 + f
}

func src(e entry) string {
	if e.Source == nil {
		return "<nil>"
	}
	return *e.Source
}

// all pages through a query and returns every result and the pages seen.
func (ts *tserver) all(gte, lte int64, types []string, extra ...string) ([]entry, int) {
	ts.t.Helper()
	var out []entry
	tok := ""
	for n := 1; ; n++ {
		args := append([]string(nil), extra...)
		if tok != "" {
			args = append(args, "after_token", tok)
		}
		p := decodePage(ts.t, ts.get(chargesPath(gte, lte, types, args...), DemoKey))
		out = append(out, p.Results...)
		if p.NextToken == nil {
			return out, n
		}
		if n > 10_000 {
			ts.t.Fatal("paging does not end")
		}
		tok = *p.NextToken
	}
}

func wantBody(t *testing.T, r response, status int, body string) {
	t.Helper()
	if r.status != status || string(r.body) != body {
		t.Fatalf("got %d %s\nwant %d %s", r.status, r.body, status, body)
	}
}

func ctxTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}
