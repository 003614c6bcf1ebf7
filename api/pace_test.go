package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowFirst delays the first request on its way to the server, as a
// congested network might.
type slowFirst struct {
	next  http.RoundTripper
	delay time.Duration
	n     atomic.Int32
}

func (s *slowFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	if s.n.Add(1) == 1 {
		time.Sleep(s.delay)
	}
	return s.next.RoundTrip(r)
}

// The server measures the gap between arrivals. A first request delayed on
// the way must not bring the second one's arrival within the threshold:
// pacing from the end of the previous response keeps the gap whatever the
// network does.
func TestPacingSurvivesNetworkJitter(t *testing.T) {
	const threshold = 60 * time.Millisecond
	var mu sync.Mutex
	var last time.Time
	var refused int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		now := time.Now()
		tooSoon := !last.IsZero() && now.Sub(last) < threshold
		if !tooSoon {
			last = now
		} else {
			refused++
		}
		mu.Unlock()
		if tooSoon {
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"detail":"API requests too frequent endpoint threshold=0.06"}`))
			return
		}
		_, _ = w.Write([]byte(`{"success":true,"count":0,"total":0,"next_token":null,"results":[]}`))
	}))
	defer srv.Close()
	hc := &http.Client{Transport: &slowFirst{next: http.DefaultTransport, delay: 50 * time.Millisecond}}
	c, err := New(srv.URL, "k", WithHTTPClient(hc), WithChargesThreshold(threshold))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		if _, err := c.Charges(context.Background(), testQuery(), ""); err != nil {
			t.Fatal(err)
		}
	}
	if refused != 0 {
		t.Fatalf("%d requests arrived within the threshold and were refused", refused)
	}
}

// Concurrent callers share one pacing slot: their requests reach the server
// one threshold apart, in some order.
func TestPacingSerializesConcurrentCallers(t *testing.T) {
	const threshold = 30 * time.Millisecond
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, time.Now())
		mu.Unlock()
		_, _ = w.Write([]byte(`{"success":true,"count":0,"total":0,"next_token":null,"results":[]}`))
	}))
	defer srv.Close()
	c, err := New(srv.URL, "k", WithChargesThreshold(threshold))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Go(func() {
			if _, err := c.Charges(context.Background(), testQuery(), ""); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i := 1; i < len(arrivals); i++ {
		if gap := arrivals[i].Sub(arrivals[i-1]); gap < threshold {
			t.Fatalf("arrivals %d and %d only %v apart", i-1, i, gap)
		}
	}
}
