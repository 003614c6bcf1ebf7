// Package billingtest is the fake page source for the tests of the billing
// layer and of the screens that read its feeds: fixed pages of any kind of
// entry (charges, payment records, instances), errors in place of chosen
// pages, and a gate so a test decides when each answer arrives. It
// satisfies billing.Source. Only tests import it.
package billingtest

import (
	"context"
	"sync"

	"github.com/vastdash/vastdash/api"
)

// Pager hands out Pages in order, each with the total Matching. It is safe
// for a feed's loader goroutine and the test to use at once.
type Pager[E any] struct {
	// Pages are the answers, in order.
	Pages [][]E
	// Matching is the server's total, sent with every page (-1: the server
	// does not say).
	Matching int
	// Skipped holds, by page index, how many entries of that page the
	// server sent that the decoder dropped.
	Skipped map[int]int
	// Errs holds an error to return once in place of the page of that
	// index; the next call answers that page.
	Errs map[int]error
	// Fail, when set, is returned by every call: a server that always
	// refuses.
	Fail error
	// Gate, when set, is received from before each answer (or the
	// call's cancellation): a test lets pages through one at a time.
	Gate chan struct{}

	mu    sync.Mutex
	calls int // calls answered (past the gate)
	next  int // the next page to answer
}

// Paged cuts entries into pages of per, the total len(entries); no
// entries is one empty page, as a server answers an empty range.
func Paged[E any](entries []E, per int) *Pager[E] {
	p := &Pager[E]{Matching: len(entries), Pages: [][]E{nil}}
	if len(entries) > 0 {
		p.Pages = nil
	}
	for i := 0; i < len(entries); i += per {
		p.Pages = append(p.Pages, entries[i:min(i+per, len(entries))])
	}
	return p
}

// With sets errs in place of the pages of their index and returns p.
func (p *Pager[E]) With(errs map[int]error) *Pager[E] {
	p.Errs = errs
	return p
}

// Next answers the next page, the error in its place, or ErrPagerDone.
func (p *Pager[E]) Next(ctx context.Context) (api.Page[E], error) {
	if p.Gate != nil {
		select {
		case <-p.Gate:
		case <-ctx.Done():
			return api.Page[E]{}, ctx.Err()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if err := ctx.Err(); err != nil {
		return api.Page[E]{}, err
	}
	if p.Fail != nil {
		return api.Page[E]{}, p.Fail
	}
	if err, ok := p.Errs[p.next]; ok {
		delete(p.Errs, p.next)
		return api.Page[E]{}, err
	}
	if p.next >= len(p.Pages) {
		return api.Page[E]{}, api.ErrPagerDone
	}
	i := p.next
	p.next++
	return api.Page[E]{Results: p.Pages[i], Total: p.Matching, Skipped: p.Skipped[i]}, nil
}

// Done reports that every page was answered.
func (p *Pager[E]) Done() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.next >= len(p.Pages) && p.Fail == nil
}

// Total is the server's count once a page told it, -1 before, as the api
// pager reports it.
func (p *Pager[E]) Total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next == 0 {
		return -1
	}
	return p.Matching
}

// Calls is how many calls were answered.
func (p *Pager[E]) Calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

// Allow lets n more calls through the gate (blocking while an unbuffered
// gate has no caller).
func (p *Pager[E]) Allow(n int) {
	for range n {
		p.Gate <- struct{}{}
	}
}
