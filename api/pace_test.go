package api

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

func noReport(time.Duration) {}

// The next request departs threshold+margin after the previous one
// departed, not threshold after its response ended: a 200 ms answer is not
// added to the 300 ms interval.
func TestPacerSpacesDepartures(t *testing.T) {
	const interval, answer = 300 * time.Millisecond, 200 * time.Millisecond
	clk := demoserver.NewClock(1)
	p := newPacer(interval, clk)
	if p.margin != minMargin {
		t.Fatalf("margin %v at a 300 ms threshold, want the %v minimum", p.margin, minMargin)
	}
	ctx := context.Background()
	first, err := p.acquire(ctx, noReport)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(answer)
	p.release(first, false, 0)
	second, err := p.acquire(ctx, noReport)
	if err != nil {
		t.Fatal(err)
	}
	p.release(second, false, 0)
	// The old rule (from the response's end) would make it 510 ms.
	if gap := second.at().Sub(first.at()); gap != interval+minMargin {
		t.Fatalf("departures %v apart, want %v", gap, interval+minMargin)
	}

	// 2% of a 1 s threshold.
	if m := newPacer(time.Second, clk).margin; m != 20*time.Millisecond {
		t.Fatalf("margin %v at 1 s, want 20ms", m)
	}
}

// One paced request at a time: an answer slower than the interval holds
// the next request until it has ended.
func TestPacerOneInFlight(t *testing.T) {
	clk := demoserver.NewClock(1)
	p := newPacer(20*time.Millisecond, clk)
	ctx := context.Background()
	first, err := p.acquire(ctx, noReport)
	if err != nil {
		t.Fatal(err)
	}
	asking := make(chan struct{})
	got := make(chan time.Time, 1)
	go func() {
		close(asking)
		d, err := p.acquire(ctx, noReport)
		if err != nil {
			t.Error(err)
			got <- time.Time{}
			return
		}
		got <- d.at()
		p.release(d, false, 0)
	}()
	<-asking
	clk.Advance(100 * time.Millisecond) // the answer takes well past interval+margin
	released := clk.Now()
	p.release(first, false, 0)
	if at := <-got; at.Before(released) {
		t.Fatalf("the second request left %v before the first one's answer ended", released.Sub(at))
	}
}

// The transport's report of the write is the departure: time spent
// dialing before it does not count towards the interval.
func TestPacerDepartureIsTheWrite(t *testing.T) {
	clk := demoserver.NewClock(1)
	p := newPacer(50*time.Millisecond, clk)
	d, err := p.acquire(context.Background(), noReport)
	if err != nil {
		t.Fatal(err)
	}
	if !d.at().Equal(d.start) {
		t.Fatal("before any write the departure is the acquire")
	}
	clk.Advance(5 * time.Millisecond) // a dial and a handshake
	d.written()
	if !d.at().After(d.start) {
		t.Fatal("the write did not move the departure")
	}
	p.release(d, false, 0)
	if !p.last.Equal(d.at()) {
		t.Fatalf("pacer timed from %v, want the write %v", p.last, d.at())
	}
}

// A 429 at the right threshold means the network jitters more than the
// margin: the margin doubles plus 10 ms, up to the interval, for good. A
// 429 naming a longer threshold is explained by it: the interval becomes
// that threshold and the margin only follows its 2%.
func TestPacerLearnsFromRefusals(t *testing.T) {
	clk := demoserver.NewClock(1)
	p := newPacer(100*time.Millisecond, clk)
	want := []time.Duration{30, 70, 100, 100} // ms: 2×10+10, 2×30+10, capped
	for i, w := range want {
		d, err := p.acquire(context.Background(), noReport)
		if err != nil {
			t.Fatal(err)
		}
		p.release(d, true, 100*time.Millisecond)
		if p.margin != w*time.Millisecond || p.interval != 100*time.Millisecond {
			t.Fatalf("after refusal %d: margin %v, interval %v; want %vms, 100ms", i+1, p.margin, p.interval, w)
		}
	}

	q := newPacer(time.Second, clk)
	d, err := q.acquire(context.Background(), noReport)
	if err != nil {
		t.Fatal(err)
	}
	q.release(d, true, 3*time.Second)
	if q.interval != 3*time.Second || q.margin != 60*time.Millisecond {
		t.Fatalf("threshold=3: interval %v, margin %v; want 3s, 60ms", q.interval, q.margin)
	}
}

// No single pacing wait is longer than maxWait, whatever the threshold.
func TestPacerWaitCapped(t *testing.T) {
	clk := demoserver.NewClock(1)
	p := newPacer(time.Hour, clk)
	d, err := p.acquire(context.Background(), noReport)
	if err != nil {
		t.Fatal(err)
	}
	p.release(d, false, 0)
	var reported time.Duration
	before := clk.Now()
	d, err = p.acquire(context.Background(), func(w time.Duration) { reported = w })
	if err != nil {
		t.Fatal(err)
	}
	if waited := clk.Since(before); reported != maxWait || waited != maxWait {
		t.Fatalf("reported a wait of %v and waited %v, want %v", reported, waited, maxWait)
	}
	p.release(d, false, 0)
}

// refusingServer refuses (429) any request that arrives within threshold of
// the previous accepted one, like the real server, on clk; hold(n) moves
// clk on before request n (0-based) arrives, as a slow network path would.
func refusingServer(t *testing.T, clk *demoserver.Clock, threshold time.Duration, hold func(n int) time.Duration) (srv *httptest.Server, refused func() int) {
	t.Helper()
	var mu sync.Mutex
	var last time.Time
	var n, refusals int
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := n
		n++
		mu.Unlock()
		if hold != nil {
			clk.Advance(hold(i))
		}
		mu.Lock()
		now := clk.Now()
		tooSoon := !last.IsZero() && now.Sub(last) < threshold
		if tooSoon {
			refusals++
		} else {
			last = now
		}
		mu.Unlock()
		if tooSoon {
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = fmt.Fprintf(w, `{"detail":"API requests too frequent endpoint threshold=%g"}`, threshold.Seconds())
			return
		}
		_, _ = w.Write([]byte(`{"success":true,"count":0,"total":0,"next_token":null,"results":[]}`))
	}))
	t.Cleanup(srv.Close)
	return srv, func() int {
		mu.Lock()
		defer mu.Unlock()
		return refusals
	}
}

// slowFirst holds the first request on its way to the transport, as a
// busy client might: clk moves on by delay.
type slowFirst struct {
	next  http.RoundTripper
	clk   *demoserver.Clock
	delay time.Duration
	n     atomic.Int32
}

func (s *slowFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	if s.n.Add(1) == 1 {
		s.clk.Advance(s.delay)
	}
	return s.next.RoundTrip(r)
}

// The server measures the gap between arrivals, the pacer the gap between
// departures. A first request held up before it reaches the wire (by the
// client, or by dialing and a handshake) must not bring the second one's
// arrival within the threshold: the departure is the write, after those
// delays. A first request slowed on the wire itself by less than the
// margin must not either: that is what the margin is for. Larger one-way
// jitter is a 429 that widens the margin (TestPacingRefusalWidensMargin).
//
// Client and server share a fake clock, so the delays are exact: counting
// the departure from the hand-over to the transport instead of the write
// fails the first two (the second request arrives right after the first),
// and pacing without the margin fails the third.
func TestPacingSurvivesNetworkJitter(t *testing.T) {
	const threshold = 60 * time.Millisecond
	const margin = minMargin // the pacer's own at this threshold
	run := func(t *testing.T, hc func(*demoserver.Clock, http.RoundTripper) *http.Client, hold func(int) time.Duration) {
		clk := demoserver.NewClock(1)
		srv, refused := refusingServer(t, clk, threshold, hold)
		c, err := New(srv.URL, "k", WithHTTPClient(hc(clk, srv.Client().Transport)), WithChargesThreshold(threshold), WithClock(clk))
		if err != nil {
			t.Fatal(err)
		}
		if c.pacer.margin != margin {
			t.Fatalf("margin %v, want %v", c.pacer.margin, margin)
		}
		for range 3 {
			if _, err := c.Charges(context.Background(), testQuery(), ""); err != nil {
				t.Fatal(err)
			}
		}
		if n := refused(); n != 0 {
			t.Fatalf("%d requests arrived within the threshold and were refused", n)
		}
	}
	const early = threshold + margin // a delay before the wire
	t.Run("first request held before the transport", func(t *testing.T) {
		run(t, func(clk *demoserver.Clock, next http.RoundTripper) *http.Client {
			return &http.Client{Transport: &slowFirst{next: next, clk: clk, delay: early}}
		}, nil)
	})
	t.Run("slow dial", func(t *testing.T) {
		run(t, func(clk *demoserver.Clock, _ http.RoundTripper) *http.Client {
			var dials atomic.Int32
			var d net.Dialer
			return &http.Client{Transport: &http.Transport{
				DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					if dials.Add(1) == 1 {
						clk.Advance(early) // a TCP and TLS handshake far away
					}
					return d.DialContext(ctx, network, addr)
				},
			}}
		}, nil)
	})
	t.Run("first arrival late by less than the margin", func(t *testing.T) {
		run(t, func(_ *demoserver.Clock, next http.RoundTripper) *http.Client { return &http.Client{Transport: next} },
			func(n int) time.Duration {
				if n == 0 {
					return margin / 2
				}
				return 0
			})
	})
}

// A refusal despite pacing at the server's threshold widens the margin
// of the client that got it, for good.
func TestPacingRefusalWidensMargin(t *testing.T) {
	const threshold = 200 * time.Millisecond
	// The first request is held on its way for 2 thresholds, far more than
	// the 10 ms margin: the second leaves as soon as the first is answered
	// and arrives right after it, refused. Its retry waits a threshold
	// after the refusal, so it is accepted.
	clk := demoserver.NewClock(1)
	srv, refused := refusingServer(t, clk, threshold, func(n int) time.Duration {
		if n == 0 {
			return 2 * threshold
		}
		return 0
	})
	var ev events
	c, err := New(srv.URL, "k", WithHTTPClient(srv.Client()), WithChargesThreshold(threshold), WithObserver(ev.observe), WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := c.Charges(context.Background(), testQuery(), ""); err != nil {
			t.Fatal(err)
		}
	}
	if n, got := refused(), len(ev.kinds(EventRateLimited)); n != 1 || got != 1 {
		t.Fatalf("%d refusals, %d rate-limit events; want the one", n, got)
	}
	c.pacer.mu.Lock()
	margin, interval := c.pacer.margin, c.pacer.interval
	c.pacer.mu.Unlock()
	if want := 2*baseMargin(threshold) + marginStep; margin != want || interval != threshold {
		t.Fatalf("margin %v, interval %v; want %v, %v", margin, interval, want, threshold)
	}
}

// Against the demo server answering in 150 ms ± 50 ms, like the real one,
// a fetch of several pages provokes no 429 and takes the floor the server
// allows, (pages−1) × threshold, within 5%, plus the last answer, which
// the floor does not include. The threshold is 250 ms, not the real 1 s;
// it must stay above the slowest answer (200 ms), or the
// one-request-at-a-time rule, not the threshold, sets the pace. The old
// rule (threshold after each response) takes 5 × 150 ms longer. Client and
// server share a fake clock, on which the answers take their time: the
// figures are exact, whatever the machine is doing.
func TestPacingDemoServerJitter(t *testing.T) {
	s := fetchSpec{
		contracts: 600, limit: 100, threshold: 250 * time.Millisecond,
		latency: 150 * time.Millisecond, jitter: 50 * time.Millisecond,
		clock: demoserver.NewClock(1),
	}
	r := fetch(t, s)
	r.check(t, s) // every contract, exactly 6 requests, no 429
	limit := s.floor()*105/100 + r.lastAnswer
	t.Logf("%d pages in %v: floor %v, last answer %v, limit %v", s.pages(), r.elapsed, s.floor(), r.lastAnswer, limit)
	if r.elapsed > limit {
		t.Fatalf("%d pages took %v; the floor is %v, the last answer %v: want at most %v",
			s.pages(), r.elapsed, s.floor(), r.lastAnswer, limit)
	}
}

// A 429 storm naming a huge threshold slows the client to at most maxWait
// between requests, not to whatever the server says, and the lengthened
// interval relaxes back once the server answers again.
func TestPacerStormIsCappedAndRelaxes(t *testing.T) {
	clk := demoserver.NewClock(1)
	p := newPacer(time.Second, clk)
	settle := func(refused bool, threshold time.Duration) {
		p.slot <- struct{}{}
		p.release(&departure{clock: clk, start: clk.Now()}, refused, threshold)
	}
	settle(true, time.Hour)
	if p.interval != maxWait {
		t.Fatalf("after a 429 naming an hour the interval is %v, want the %v cap", p.interval, maxWait)
	}
	for range relaxAfter {
		settle(false, 0)
	}
	if want := time.Second + (maxWait-time.Second)/2; p.interval != want {
		t.Fatalf("after %d calm answers the interval is %v, want %v", relaxAfter, p.interval, want)
	}
	for range 40 * relaxAfter {
		settle(false, 0)
	}
	if p.interval-time.Second > time.Millisecond {
		t.Fatalf("the interval never came back: %v", p.interval)
	}
	if d, _ := ParseRateLimit([]byte(`{"detail":"API requests too frequent endpoint threshold=342"}`)); d > maxWait {
		t.Fatalf("a 342 s threshold parsed as %v, more than a single wait may last", d)
	}
}
