package demoserver

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Clock is a fake clock for tests, shared by the server (Options.Clock:
// its Now) and the client (api.WithClock): it moves only when told
// (Advance) or when every party sharing it waits on it (Sleep): then it
// jumps to the earliest wake-up and wakes whoever is due. A test whose
// waits all go through it runs in no wall time, and what it measures
// (departures, arrivals, intervals) is exact, however loaded the machine:
// time does not pass while a request is on its way unless the test says
// so.
//
// NewClock's parties is how many goroutines wait on it in turn (the test's own, or
// one per concurrent caller); each that finishes calls Leave, so the
// others are not left waiting for it.
type Clock struct {
	mu       sync.Mutex
	now      time.Time
	parties  int
	sleepers []*sleeper
}

// sleeper is one Sleep in progress.
type sleeper struct {
	until time.Time
	wake  chan struct{}
}

// NewClock returns a fake clock for parties goroutines, at a fixed instant
// (any does: it is not the data's Options.Now).
func NewClock(parties int) *Clock {
	return &Clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), parties: parties}
}

// Now is the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Since is the fake time since t.
func (c *Clock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Sleep waits until the clock has moved d on, or ctx ends.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	c.mu.Lock()
	s := &sleeper{until: c.now.Add(d), wake: make(chan struct{})}
	c.sleepers = append(c.sleepers, s)
	c.jumpLocked()
	c.mu.Unlock()
	select {
	case <-s.wake:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		c.sleepers = slices.DeleteFunc(c.sleepers, func(x *sleeper) bool { return x == s })
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Advance moves the clock on by d (a request slow on its way, a server
// slow to answer), waking the sleepers due.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.wakeLocked()
}

// Leave says one party is done: the others no longer wait for it to sleep.
func (c *Clock) Leave() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.parties--
	c.jumpLocked()
}

// jumpLocked moves the clock to the earliest wake-up once every party
// sleeps.
func (c *Clock) jumpLocked() {
	if len(c.sleepers) == 0 || len(c.sleepers) < c.parties {
		return
	}
	first := c.sleepers[0].until
	for _, s := range c.sleepers[1:] {
		if s.until.Before(first) {
			first = s.until
		}
	}
	if first.After(c.now) {
		c.now = first
	}
	c.wakeLocked()
}

// wakeLocked wakes the sleepers due.
func (c *Clock) wakeLocked() {
	c.sleepers = slices.DeleteFunc(c.sleepers, func(s *sleeper) bool {
		if s.until.After(c.now) {
			return false
		}
		close(s.wake)
		return true
	})
}
