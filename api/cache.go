package api

import (
	"context"
	"sync"
	"time"
)

// maxCachedPages bounds the page cache: at the largest page size it is half
// a million contracts, more than any one range of a heavy user, so it only
// bites when many ranges are browsed within the ttl.
const maxCachedPages = 1024

// WithPageCache keeps charges pages for ttl, so two parts of a program
// paging the same query (the dashboard's overview loading a range in the
// background while its charges screen pages the same range) fetch each page
// once: Charges answers a request it has answered within ttl from memory,
// and a request identical to one in flight waits for that one instead of
// sending its own. Requests are identical when their encoded query is
// (ChargesQuery.Values: filters, format, order, limit and after_token).
// Errors are never kept. ttl <= 0 leaves the cache off (the default).
//
// A cached ChargesPage shares its Results, and everything they point to,
// with every caller that receives it: callers must treat results as
// read-only.
func WithPageCache(ttl time.Duration) Option {
	return func(c *Client) {
		if ttl > 0 {
			c.pages = newPageCache(ttl)
		} else {
			c.pages = nil
		}
	}
}

// ClearPageCache forgets every cached page, so the next request of each
// goes to the server (the dashboard calls it on reload). Requests already in
// flight still answer their callers but are not kept. Without WithPageCache
// it does nothing.
func (c *Client) ClearPageCache() {
	if c.pages != nil {
		c.pages.clear()
	}
}

// pageCache holds recent charges pages by encoded request, and the requests
// in flight so identical ones are coalesced.
type pageCache struct {
	ttl time.Duration
	now func() time.Time // the clock; tests replace it

	mu       sync.Mutex
	entries  map[string]cachedPage
	inflight map[string]*flight
	// epoch counts clears: a flight started before a clear must not store
	// its page after it.
	epoch uint64
	// joined, when set (tests), is called after a caller has joined a
	// flight, so a test can release the server once every caller waits.
	joined func()
}

type cachedPage struct {
	page ChargesPage
	at   time.Time
}

// flight is one request in progress and the callers waiting for it. It runs
// on its own context, cancelled only when every caller waiting for it has
// given up: one caller leaving must not fail the others.
type flight struct {
	done    chan struct{}
	page    ChargesPage
	err     error
	waiters int
	cancel  context.CancelFunc
	epoch   uint64
}

func newPageCache(ttl time.Duration) *pageCache {
	return &pageCache{
		ttl:      ttl,
		now:      time.Now,
		entries:  map[string]cachedPage{},
		inflight: map[string]*flight{},
	}
}

// get answers key from the cache, from the identical request in flight, or
// by starting fetch. Each caller honours its own ctx: when it ends, that
// caller returns at once with ErrCanceled or ErrTimeout (op names the call).
func (pc *pageCache) get(ctx context.Context, op, key string, fetch func(context.Context) (ChargesPage, error)) (ChargesPage, error) {
	if ctx.Err() != nil {
		return ChargesPage{}, ctxError(op, ctx)
	}
	pc.mu.Lock()
	if e, ok := pc.entries[key]; ok {
		if pc.fresh(e) {
			pc.mu.Unlock()
			return e.page, nil
		}
		delete(pc.entries, key)
	}
	f := pc.inflight[key]
	if f == nil {
		// The flight keeps the first caller's values (none matter to the
		// client today) but not its cancellation or deadline.
		fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight{done: make(chan struct{}), cancel: cancel, epoch: pc.epoch}
		pc.inflight[key] = f
		go pc.run(fctx, key, f, fetch)
	}
	f.waiters++
	joined := pc.joined
	pc.mu.Unlock()
	if joined != nil {
		joined()
	}

	select {
	case <-f.done:
		return f.page, f.err
	case <-ctx.Done():
		pc.leave(key, f)
		return ChargesPage{}, ctxError(op, ctx)
	}
}

// leave drops a caller that gave up; the last one cancels the request and
// unlists it, so a later caller starts afresh instead of joining a request
// that is being cancelled.
func (pc *pageCache) leave(key string, f *flight) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	f.waiters--
	if f.waiters > 0 {
		return
	}
	f.cancel()
	if pc.inflight[key] == f {
		delete(pc.inflight, key)
	}
}

// run performs the request of f and hands its outcome to the waiters; a
// success is kept unless the cache was cleared meanwhile.
func (pc *pageCache) run(ctx context.Context, key string, f *flight, fetch func(context.Context) (ChargesPage, error)) {
	page, err := fetch(ctx)
	f.cancel() // release the context's resources
	pc.mu.Lock()
	f.page, f.err = page, err
	if pc.inflight[key] == f {
		delete(pc.inflight, key)
	}
	if err == nil && f.epoch == pc.epoch {
		pc.store(key, page)
	}
	pc.mu.Unlock()
	close(f.done)
}

func (pc *pageCache) fresh(e cachedPage) bool { return pc.now().Sub(e.at) < pc.ttl }

// store keeps page under key, first dropping expired entries and, when the
// cache is still full, the oldest one. Called with mu held.
func (pc *pageCache) store(key string, page ChargesPage) {
	if len(pc.entries) >= maxCachedPages {
		oldest, oldestAt := "", time.Time{}
		for k, e := range pc.entries {
			if !pc.fresh(e) {
				delete(pc.entries, k)
				continue
			}
			if oldest == "" || e.at.Before(oldestAt) {
				oldest, oldestAt = k, e.at
			}
		}
		if len(pc.entries) >= maxCachedPages {
			delete(pc.entries, oldest)
		}
	}
	pc.entries[key] = cachedPage{page: page, at: pc.now()}
}

// clear drops every entry and unlists the flights, whose pages will then not
// be kept.
func (pc *pageCache) clear() {
	pc.mu.Lock()
	pc.epoch++
	clear(pc.entries)
	clear(pc.inflight)
	pc.mu.Unlock()
}
