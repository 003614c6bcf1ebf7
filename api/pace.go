package api

import (
	"context"
	"sync"
	"time"
)

// MaxWait is the longest single wait the client makes for pacing or a 429,
// whatever a server says; callers that wait on their own (the billing
// layer's feeds) cap theirs at it too.
const MaxWait = maxWait

// Pacing constants.
const (
	// maxWait caps any single pacing or 429 wait: a misconfigured
	// threshold or a server naming a long one must not park a call for
	// longer than a user would sit through. The real API's thresholds are
	// 1 to 5 s.
	maxWait = 10 * time.Second
	// relaxAfter is how many answers in a row without a 429 bring a
	// lengthened interval halfway back to the configured one: a storm that
	// named a long threshold must not slow the rest of the session.
	relaxAfter = 10
	// minMargin is the smallest margin: 2% of a short threshold would be
	// less than the few milliseconds that scheduling alone can add to a
	// request's way.
	minMargin = 10 * time.Millisecond
	// marginStep is added when a refusal doubles the margin, so the first
	// lesson is worth 20 ms at least, not the 10 ms of doubling the
	// smallest margin.
	marginStep = 10 * time.Millisecond
)

// pacer spaces the charges requests of one Client: each is sent at least
// interval+margin after the previous one departed, and never while the
// previous one is still in flight (one paced request at a time).
//
// The server enforces a minimum interval between the *arrivals* of a key's
// requests. Two arrivals are as far apart as the two departures, plus the
// second request's one-way delay, minus the first one's: only the first
// request travelling slower than the second can bring the arrivals closer
// than the departures. The margin (2% of the interval, at least 10 ms)
// absorbs that much one-way jitter.
//
// A request departs when the transport reports it written (httptrace
// WroteRequest), not when it is handed to the transport: dialing and the
// TLS handshake of a fresh connection can take longer than the margin,
// and the server sees nothing of the request until they are done.
//
// The previous rule timed each interval from the end of the previous
// response. That was safe whatever the jitter, since the previous request
// had arrived before its answer came back, but it added one round trip and
// the server's answer time to every interval: 40 pages from a server
// answering in 150 ms ± 50 ms took 45.1 s against a floor of 39 s
// (BenchmarkFetch20k; 39.9 s now). Timing from departures costs the margin
// instead, and gives up that guarantee: jitter larger than the margin,
// including a loaded machine stalling between the write and the server
// reading it, is a 429. The 429 is waited out and retried like any other,
// and it teaches: the margin doubles (plus 10 ms, at most the interval)
// for the rest of the Client's life, so a network that jitters more than
// assumed costs one refusal, not one per page. Against a server that
// answers at once the margin is pure cost (BenchmarkFetch5000: +20 ms a
// page, where the old rule cost the few ms of the answer).
type pacer struct {
	slot  chan struct{} // one paced request at a time
	clock Clock

	mu       sync.Mutex
	interval time.Duration // the server's threshold, as far as we know it
	margin   time.Duration // added to interval; grows on refusals
	base     time.Duration // the configured interval, which a storm's lengthening relaxes back to
	calm     int           // answers without a 429 since the last one
	last     time.Time     // departure of the previous paced request; zero before the first

	// gate, if not nil, shares the pace with other processes of the
	// key, under class (the endpoint's path); see Gate.
	gate  Gate
	class string
}

func newPacer(interval time.Duration, clk Clock) *pacer {
	return &pacer{slot: make(chan struct{}, 1), clock: clk, interval: interval, base: interval, margin: baseMargin(interval)}
}

// Clock is the time pacing and retries wait on: the wall clock, or a
// test's fake that moves only when told (demoserver.Clock; see WithClock).
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx ends, whichever is first; it returns
	// ctx's error if that came first.
	Sleep(ctx context.Context, d time.Duration) error
}

// wallClock is time.Now and a timer.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// baseMargin is the starting margin for an interval: 2%, at least
// minMargin.
func baseMargin(interval time.Duration) time.Duration {
	return max(interval/50, minMargin)
}

// departure is one paced request between acquire and release. The
// transport reports the moment the request was written from its own
// goroutine, possibly after the response has been read, hence the lock.
type departure struct {
	clock Clock
	mu    sync.Mutex
	start time.Time // when acquire let the request go
	wrote time.Time // when the transport finished writing it; zero if never
}

// written records that the transport has written the request. A transport
// that retries on a fresh connection writes again; the latest write counts,
// which spaces the next request from the later of the two.
func (d *departure) written() {
	d.mu.Lock()
	d.wrote = d.clock.Now()
	d.mu.Unlock()
}

// at is the departure time: the write if the transport reported one (a
// custom RoundTripper may never do so), else the moment acquire returned.
func (d *departure) at() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.wrote.After(d.start) {
		return d.wrote
	}
	return d.start
}

// acquire waits for the slot (the previous paced request has been
// released, so its response has ended) and for interval+margin since that
// request's departure, at most maxWait; report is told a wait long enough
// to mention. The returned departure must be passed to release.
func (p *pacer) acquire(ctx context.Context, report func(time.Duration)) (*departure, error) {
	select {
	case p.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	p.mu.Lock()
	var wait time.Duration
	if !p.last.IsZero() {
		wait = min(p.last.Add(p.interval+p.margin).Sub(p.clock.Now()), maxWait)
	}
	p.mu.Unlock()
	wait = p.reserve(ctx, wait)
	if wait >= pacingReportMin {
		report(wait)
	}
	if err := p.clock.Sleep(ctx, wait); err != nil {
		<-p.slot
		return nil, err
	}
	return &departure{clock: p.clock, start: p.clock.Now()}, nil
}

// release records d's departure for the next request's wait, learns from a
// refusal (refused: the server answered 429, naming threshold if > 0) and
// frees the slot. Learning happens before the slot is freed, so a
// concurrent caller waiting for it is already paced by the lesson.
func (p *pacer) release(d *departure, refused bool, threshold time.Duration) {
	at := d.at()
	p.mu.Lock()
	if at.After(p.last) {
		p.last = at
	}
	if refused {
		p.learn(threshold)
		p.calm = 0
	} else if p.interval > p.base {
		if p.calm++; p.calm >= relaxAfter {
			p.interval = max(p.base, p.base+(p.interval-p.base)/2)
			p.calm = 0
		}
	}
	p.mu.Unlock()
	p.departed(at)
	<-p.slot
}

// learn adapts to a 429. A threshold longer than the interval explains the
// refusal: the interval becomes it (slowTo). Otherwise the requests were
// spaced at the server's threshold and still arrived too close together,
// so the network jitters more than the margin allows: the margin doubles,
// plus marginStep, at most the interval. p.mu must be held.
func (p *pacer) learn(threshold time.Duration) {
	if threshold > p.interval {
		p.slowTo(threshold)
		return
	}
	p.margin = max(min(2*p.margin+marginStep, p.interval), p.margin)
}

// slowTo lengthens the interval when the server names a longer threshold,
// so later calls stop provoking 429s. p.mu must be held.
func (p *pacer) slowTo(d time.Duration) {
	d = min(d, maxWait)
	if d > p.interval {
		p.interval = d
		p.margin = max(p.margin, baseMargin(d))
	}
}
