package api

import (
	"context"
	"sync"
	"time"
)

// pacer spaces the charges requests of one Client so that each is sent at
// least interval after the previous one's response ended.
//
// The server enforces a minimum interval between the *arrivals* of a key's
// requests. A limiter that spaces *departures* (golang.org/x/time/rate) lets
// network jitter bring two arrivals closer than the threshold — the first
// request delayed, the second not — and that is a 429 (the end-to-end test
// caught exactly this). Timing from the end of the previous response is safe
// whatever the jitter: the previous request arrived before its answer came
// back, and the next one arrives after it is sent. The price is one round
// trip per interval.
type pacer struct {
	slot chan struct{} // one paced request at a time

	mu       sync.Mutex
	interval time.Duration
	next     time.Time // earliest start of the next request
}

func newPacer(interval time.Duration) *pacer {
	return &pacer{slot: make(chan struct{}, 1), interval: interval}
}

// acquire waits for the slot and the interval; report is told a wait long
// enough to mention. release must be called once the response has ended.
func (p *pacer) acquire(ctx context.Context, report func(time.Duration)) error {
	select {
	case p.slot <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	p.mu.Lock()
	wait := time.Until(p.next)
	p.mu.Unlock()
	if wait >= pacingReportMin {
		report(wait)
	}
	if err := sleepCtx(ctx, wait); err != nil {
		<-p.slot
		return err
	}
	return nil
}

// release starts the interval from now and frees the slot.
func (p *pacer) release() {
	p.mu.Lock()
	p.next = time.Now().Add(p.interval)
	p.mu.Unlock()
	<-p.slot
}

// slowTo lengthens the interval when the server names a longer threshold,
// so later calls stop provoking 429s.
func (p *pacer) slowTo(d time.Duration) {
	p.mu.Lock()
	if d > p.interval {
		p.interval = d
	}
	p.mu.Unlock()
}
