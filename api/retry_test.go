package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

// Five page fetches in a row against a server that refuses requests closer
// than its threshold: the pacer spaces them so none is refused.
func TestPacingAvoids429(t *testing.T) {
	// Client and server pace at the same threshold on one fake clock: the
	// margin is all the client adds, and time passes only when the pacer
	// waits.
	const threshold = 40 * time.Millisecond
	clk := demoserver.NewClock(1)
	var mu sync.Mutex
	var last time.Time
	refused := 0
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		mu.Lock()
		now := clk.Now()
		tooSoon := !last.IsZero() && now.Sub(last) < threshold
		last = now
		if tooSoon {
			refused++
		}
		mu.Unlock()
		if tooSoon {
			reply(w, 429, `{"detail": "API requests too frequent endpoint threshold=0.04"}`)
			return
		}
		reply(w, 200, pageJSON([]string{contractJSON(n, 1)}, 5, fmt.Sprintf("t%d", n+1)))
	})
	var ev events
	c := f.client(t, WithChargesThreshold(threshold), WithObserver(ev.observe), WithClock(clk))
	token := ""
	start := clk.Now()
	for range 5 {
		page, err := c.Charges(context.Background(), testQuery(), token)
		if err != nil {
			t.Fatal(err)
		}
		token = page.NextToken
	}
	mu.Lock()
	defer mu.Unlock()
	if refused != 0 || len(ev.kinds(EventRateLimited)) != 0 || f.count() != 5 {
		t.Fatalf("%d requests refused (%d sent)", refused, f.count())
	}
	if took, want := clk.Since(start), 4*(threshold+minMargin); took != want {
		t.Fatalf("5 requests took %v, want 4 intervals of threshold and margin, %v", took, want)
	}
}

// Concurrent calls of one Client share its pacing budget: calls from
// several goroutines reach the server one threshold apart.
func TestPacingSharedAcrossGoroutines(t *testing.T) {
	const threshold = 30 * time.Millisecond
	clk := demoserver.NewClock(1) // only the caller holding the pacer's slot waits on it
	var mu sync.Mutex
	var arrivals []time.Time
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		mu.Lock()
		arrivals = append(arrivals, clk.Now())
		mu.Unlock()
		reply(w, 200, pageJSON(nil, 0, ""))
	})
	c := f.client(t, WithChargesThreshold(threshold), WithClock(clk))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := c.Charges(context.Background(), testQuery(), ""); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	// Unpaced they would arrive together.
	if span, want := arrivals[len(arrivals)-1].Sub(arrivals[0]), 3*(threshold+minMargin); len(arrivals) != 4 || span != want {
		t.Fatalf("%d concurrent calls arrived over %v, want 4 over %v", len(arrivals), span, want)
	}
}

// A server that answers 429 a few times and then succeeds: the call
// recovers, waiting the threshold the body names plus at most 25%.
func TestRateLimitedThenRecovers(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n < 3 {
			reply(w, 429, "API requests too frequent endpoint threshold=0.004")
			return
		}
		reply(w, 200, pageJSON([]string{contractJSON(1, 1)}, 1, ""))
	})
	var ev events
	c := f.client(t, WithObserver(ev.observe), WithChargesThreshold(time.Millisecond))
	page, err := c.Charges(context.Background(), testQuery(), "")
	if err != nil || len(page.Results) != 1 {
		t.Fatalf("page %+v, err %v", page, err)
	}
	got := ev.kinds(EventRateLimited)
	if len(got) != 3 || f.count() != 4 {
		t.Fatalf("%d rate-limit events over %d requests, want 3 over 4", len(got), f.count())
	}
	for i, e := range got {
		if e.Attempt != i+1 || e.Op != "GET /api/v0/charges/" || e.Wait < 4*time.Millisecond || e.Wait > 5*time.Millisecond {
			t.Errorf("event %d = %+v", i, e)
		}
	}
	// The server's longer threshold now paces later calls.
	if c.pacer.interval != 4*time.Millisecond {
		t.Errorf("pacer interval %v, want 4ms", c.pacer.interval)
	}
}

// After five refused retries the caller gets ErrRateLimited with the
// server's threshold; a PUT refused with 429 is retried too.
func TestRateLimitedGivesUp(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 429, `{"detail":"API requests too frequent endpoint threshold=0.001"}`)
	})
	c := f.client(t)
	_, err := c.Charges(context.Background(), testQuery(), "")
	e := apiErr(t, err, ErrRateLimited)
	if e.Threshold != time.Millisecond || f.count() != 1+maxRateLimitRetries {
		t.Fatalf("threshold %v after %d requests", e.Threshold, f.count())
	}
	before := f.count()
	_, err = c.SetNotificationPrefs(context.Background(), 3, NewPrefs(map[string]any{"client": map[string]any{}}))
	apiErr(t, err, ErrRateLimited)
	if got := f.count() - before; got != 1+maxRateLimitRetries {
		t.Fatalf("PUT sent %d times, want %d", got, 1+maxRateLimitRetries)
	}
}

// Canceling the context while a call waits (pacer, 429, backoff) returns at
// once with context.Canceled in the chain.
func TestCancelDuringWaits(t *testing.T) {
	run := func(t *testing.T, kind EventKind, handler func(w http.ResponseWriter, r *http.Request, n int), opts ...Option) {
		f := newFake(t, handler)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		waiting := make(chan Event, 1)
		obs := WithObserver(func(e Event) {
			if e.Kind == kind {
				waiting <- e
				cancel()
			}
		})
		c := f.client(t, append(opts, obs)...)
		if kind == EventPacing {
			if _, err := c.Charges(ctx, testQuery(), ""); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan error, 1)
		go func() { _, err := c.Charges(ctx, testQuery(), ""); done <- err }()
		e := <-waiting
		if e.Wait < maxWait {
			t.Fatalf("event %+v: the wait should be long", e)
		}
		var err error
		select {
		case err = <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the call did not return after cancel")
		}
		apiErr(t, err, ErrCanceled)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%v does not wrap context.Canceled", err)
		}
	}
	ok := func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, pageJSON(nil, 0, "")) }
	t.Run("pacer", func(t *testing.T) { run(t, EventPacing, ok, WithChargesThreshold(time.Hour)) })
	t.Run("429", func(t *testing.T) {
		run(t, EventRateLimited, func(w http.ResponseWriter, r *http.Request, n int) {
			reply(w, 429, `{"detail":"too frequent threshold=600"}`)
		})
	})
	t.Run("backoff", func(t *testing.T) {
		run(t, EventRetry, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 503, "busy") },
			WithBackoff(time.Hour, time.Hour))
	})
}

// A caller's deadline is ErrTimeout with context.DeadlineExceeded.
func TestCallerDeadline(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, pageJSON(nil, 0, "")) })
	c := f.client(t, WithChargesThreshold(time.Hour))
	if _, err := c.Charges(context.Background(), testQuery(), ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := c.Charges(ctx, testQuery(), "")
	apiErr(t, err, ErrTimeout)
	if !errors.Is(err, context.DeadlineExceeded) || f.count() != 1 {
		t.Fatalf("%v after %d requests", err, f.count())
	}
}

func TestRetries(t *testing.T) {
	ctx := context.Background()
	t.Run("503 twice then 200", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if n < 2 {
				reply(w, 503, "Service Unavailable")
				return
			}
			reply(w, 200, `{"id":5,"email":"a@b.c"}`)
		})
		var ev events
		u, err := f.client(t, WithObserver(ev.observe)).CurrentUser(ctx)
		if err != nil || u.ID != 5 {
			t.Fatalf("user %+v, err %v", u, err)
		}
		got := ev.kinds(EventRetry)
		if f.count() != 3 || len(got) != 2 || got[0].Attempt != 1 || got[1].Attempt != 2 {
			t.Fatalf("%d requests, retry events %+v", f.count(), got)
		}
		// Exponential: 1 ms, then 2 ms, each plus up to 25%.
		if got[0].Wait < time.Millisecond || got[0].Wait > 1250*time.Microsecond ||
			got[1].Wait < 2*time.Millisecond || got[1].Wait > 2500*time.Microsecond {
			t.Fatalf("backoff waits %v, %v", got[0].Wait, got[1].Wait)
		}
	})
	t.Run("502 504 exhaust", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 502+2*(n%2), "bad gateway") })
		_, err := f.client(t).Charges(ctx, testQuery(), "")
		apiErr(t, err, ErrServer)
		if f.count() != 1+maxRetries {
			t.Fatalf("%d requests, want %d", f.count(), 1+maxRetries)
		}
	})
	// A 500 is the server failing on this request: repeating it only
	// makes the user wait.
	t.Run("500 not retried", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 500, "oops") })
		_, err := f.client(t).Charges(ctx, testQuery(), "")
		apiErr(t, err, ErrServer)
		if f.count() != 1 {
			t.Fatalf("%d requests, want 1", f.count())
		}
	})
	t.Run("PUT not retried on 500 or 503", func(t *testing.T) {
		for _, status := range []int{500, 503} {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, status, "no") })
			_, err := f.client(t).SetNotificationPrefs(ctx, 3, NewPrefs(map[string]any{"client": map[string]any{}}))
			apiErr(t, err, ErrServer)
			if f.count() != 1 {
				t.Fatalf("PUT with %d sent %d times, want 1", status, f.count())
			}
		}
	})
	t.Run("PUT retried after connection reset", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			if n == 0 {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err != nil {
					t.Error(err)
					return
				}
				_ = conn.Close() // no response at all
				return
			}
			reply(w, 200, `{"success":true,"notification_preferences":{"client":{"low_credit":{"email":false}}}}`)
		})
		var ev events
		doc := NewPrefs(map[string]any{"client": map[string]any{"low_credit": map[string]any{"email": false}}})
		got, err := f.client(t, WithObserver(ev.observe)).SetNotificationPrefs(ctx, 3, doc)
		if err != nil {
			t.Fatal(err)
		}
		if on, ok := got.Get(LowCreditEmail); on || !ok {
			t.Fatalf("confirmed prefs: %v %v", on, ok)
		}
		reqs := f.requests()
		if len(reqs) != 2 || len(ev.kinds(EventRetry)) != 1 || string(reqs[0].Body) != string(reqs[1].Body) {
			t.Fatalf("%d requests, %d retry events", len(reqs), len(ev.kinds(EventRetry)))
		}
	})
	t.Run("transport error exhausts", func(t *testing.T) {
		f := newFake(t, nil)
		c := f.client(t)
		f.srv.Close()
		var ev events
		c.observe = ev.observe
		_, err := c.CurrentUser(ctx)
		e := apiErr(t, err, ErrTransport)
		if len(ev.kinds(EventRetry)) != maxRetries || e.Status != 0 || e.Err == nil {
			t.Fatalf("error %+v after %d retries", e, len(ev.kinds(EventRetry)))
		}
		if strings.Contains(err.Error(), "http://") {
			t.Errorf("error text holds the URL: %q", err)
		}
	})
	// A hung server: the attempt times out and is not repeated.
	t.Run("timeout not retried", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { <-r.Context().Done() })
		_, err := f.client(t, WithTimeout(30*time.Millisecond)).Charges(ctx, testQuery(), "")
		apiErr(t, err, ErrTimeout)
		if f.count() != 1 {
			t.Fatalf("%d requests, want 1", f.count())
		}
	})
	// The timeout covers the body too: a server that stalls mid-body.
	t.Run("timeout while reading the body", func(t *testing.T) {
		f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
			w.WriteHeader(200)
			_, _ = w.Write([]byte(`{"results":[`))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		})
		_, err := f.client(t, WithTimeout(30*time.Millisecond)).Charges(ctx, testQuery(), "")
		apiErr(t, err, ErrTimeout)
	})
}
