package billing

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
)

// endlessRequests is where the servers below give in and end their list,
// so that a feed that does not stop them fails its test instead of
// running forever.
const endlessRequests = 200

// endlessServer answers charges, payment records and instances with a
// fresh next_token on every page: the same rows each time (same), or fresh
// rows under a total that stays one page ahead of what was sent. The
// account record is plain. It counts the requests of each endpoint.
func endlessServer(t *testing.T, same bool) (*Service, *requestCount) {
	t.Helper()
	count := &requestCount{n: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/api/v0/users/current/" {
			_, _ = w.Write([]byte(`{"id":1,"email":"me@example.com","credit":10}`))
			return
		}
		i := count.add(r.URL.Path)
		first, total := 3*i, -1
		if same {
			first = 0
		}
		next := fmt.Sprintf("%q", fmt.Sprintf("t%d", i+1))
		if i+1 >= endlessRequests {
			next = "null"
		}
		// row is the JSON of the entry of id; limit the page size asked for.
		var row func(id int) string
		var head string
		limit := 0
		switch r.URL.Path {
		case api.InstancesPath:
			row = func(id int) string { return fmt.Sprintf(`{"id":%d,"actual_status":"running","dph_total":0.5}`, id) }
			head, limit = `"total_instances"`, api.InstancesLimit
		case api.InvoicesPath:
			at := testNow.Add(-time.Hour).Unix()
			row = func(id int) string {
				return fmt.Sprintf(`{"start":%d,"end":%d,"type":"credit","amount":-1,"metadata":{"invoice_id":"%d"}}`, at, at, id)
			}
			head, limit = `"total"`, api.InvoicesLimit
		default:
			row = func(id int) string {
				c := contract(id, 1500)
				return fmt.Sprintf(`{"start":%d,"end":%d,"type":"instance","source":%q,"amount":1.5,"metadata":{},"items":[]}`, c.Start, c.End, c.Source)
			}
			head, limit = `"total"`, api.MaxLimit
		}
		var rows []string
		for id := first + 1; id <= first+3; id++ {
			rows = append(rows, row(id))
		}
		if !same {
			total = (i + 2) * limit
		}
		body := `{"success":true,"next_token":` + next
		if total >= 0 {
			body += fmt.Sprintf(`,%s:%d`, head, total)
		}
		list := `"results"`
		if r.URL.Path == api.InstancesPath {
			list = `"instances"`
		}
		_, _ = w.Write([]byte(body + "," + list + ":[" + strings.Join(rows, ",") + "]}"))
	}))
	t.Cleanup(srv.Close)
	client, err := api.New(srv.URL, "k", api.WithHTTPClient(srv.Client()), api.WithChargesThreshold(0),
		api.WithEndpointThreshold(api.InvoicesPath, 0), api.WithEndpointThreshold(api.InstancesPath, 0))
	if err != nil {
		t.Fatal(err)
	}
	s := New(context.Background(), client, WithLocation(time.UTC), WithClock(func() time.Time { return testNow }))
	t.Cleanup(s.Close)
	return s, count
}

// requestCount counts requests by path.
type requestCount struct {
	mu sync.Mutex
	n  map[string]int
}

// add counts a request of path and returns how many came before it.
func (c *requestCount) add(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[path]++
	return c.n[path] - 1
}

// most is the largest count of one path.
func (c *requestCount) most() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := 0
	for _, n := range c.n {
		m = max(m, n)
	}
	return m
}

// A server that always has another page stops the charges feed, the
// payments feed, the statement built on both and the current rate with
// one line that says what the server did, after a few requests, where
// each used to page on for as long as the server went on.
func TestFeedsStopAServerThatNeverEnds(t *testing.T) {
	reads := []struct {
		name string
		read func(context.Context, *Service) error
	}{
		{"charges", func(ctx context.Context, s *Service) error {
			f := s.Feed(query())
			defer f.Release()
			_, _, err := f.All(ctx, nil)
			return err
		}},
		{"payments", func(ctx context.Context, s *Service) error {
			f := s.PaymentsFeed(api.InvoicesQuery{From: testNow.AddDate(0, -1, 0), To: testNow})
			defer f.Release()
			_, _, err := f.All(ctx, nil)
			return err
		}},
		{"statement", func(ctx context.Context, s *Service) error {
			_, err := s.Statement(ctx, MonthStart(testNow, time.UTC), testNow, nil)
			return err
		}},
		{"current rate", func(ctx context.Context, s *Service) error {
			_, err := s.CurrentRate(ctx)
			return err
		}},
	}
	for _, same := range []bool{true, false} {
		want := "the server kept sending pages with nothing new after 3 pages; stopped"
		if !same {
			want = "the server's count grew from "
		}
		for _, rd := range reads {
			t.Run(fmt.Sprintf("%s/same rows %v", rd.name, same), func(t *testing.T) {
				s, requests := endlessServer(t, same)
				err := rd.read(context.Background(), s)
				if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("after %d requests: %v, want an error saying %q", requests.most(), err, want)
				}
				if n := requests.most(); n > 4 {
					t.Fatalf("%d requests of one endpoint before it stopped", n)
				}
			})
		}
	}
}
