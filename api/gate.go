package api

import (
	"context"
	"time"
)

// Gate shares a key's pace with the other processes using it (a
// dashboard, a cron command and serve on one key): the server counts
// every request of the key against one budget per endpoint, so clients
// that pace only themselves starve each other with 429s. What is shared
// and how is the caller's (config keeps it in a locked file beside the
// ledger); the client asks it for each paced request.
//
// class names the budget: an endpoint's path ("/api/v0/charges/" for the
// charges). Times are the wall clock's.
type Gate interface {
	// Reserve returns when a request of class may depart: not before
	// earliest (this process's own pacing), nor before gap after the
	// last request any sharer reserved or sent; it holds that moment,
	// so the next sharer's request goes gap after it. An error means the
	// gate cannot be used: the client paces itself alone.
	Reserve(ctx context.Context, class string, earliest time.Time, gap time.Duration) (time.Time, error)
	// Departed says a request of class departed at at (later than it
	// reserved, when a dial or a handshake held it): the next may go
	// gap after that.
	Departed(class string, at time.Time, gap time.Duration)
}

// WithGate makes every paced request also wait for its turn at g, shared
// with other processes; nil (the default) paces this client alone.
func WithGate(g Gate) Option { return func(c *Client) { c.gate = g } }

// reserve is what is left to wait before a paced request of p may
// depart, given the wait p's own pacing asks (wait): with a gate, that
// wait is waited at the gate with the other processes' turns, and what
// is left is until the turn it gave (nothing, once claimed); without
// one, or when the gate fails, wait itself.
func (p *pacer) reserve(ctx context.Context, wait time.Duration) time.Duration {
	if p.gate == nil {
		return wait
	}
	p.mu.Lock()
	gap := p.interval + p.margin
	p.mu.Unlock()
	slot, err := p.gate.Reserve(ctx, p.class, time.Now().Add(max(wait, 0)), gap)
	if err != nil {
		return wait
	}
	return min(max(time.Until(slot), 0), maxWait)
}

// departed tells the gate when d's request departed.
func (p *pacer) departed(at time.Time) {
	if p.gate == nil {
		return
	}
	p.mu.Lock()
	gap := p.interval + p.margin
	p.mu.Unlock()
	p.gate.Departed(p.class, at, gap)
}
