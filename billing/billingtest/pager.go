// Package billingtest is a fake charges page source for the tests of the
// billing layer and of the screens that read its feeds: fixed pages,
// errors in place of chosen pages, and a gate so a test decides when each
// answer arrives. Only tests import it.
package billingtest

import (
	"context"
	"sync"

	"github.com/vastdash/vastdash/api"
)

// Pager hands out Pages in order, each with the total Contracts. It is safe for a
// feed's loader goroutine and the test to use at once.
type Pager struct {
	// Pages are the answers, in order.
	Pages [][]api.Charge
	// Contracts is the server's total, sent with every page.
	Contracts int
	// Errs holds an error to return once in place of the page of that
	// index; the next call answers that page.
	Errs map[int]error
	// Gate, when set, is received from before each answer (or the
	// call's cancellation): a test lets pages through one at a time.
	Gate chan struct{}
	// Query is what the pager was made for, when its maker records it.
	Query api.ChargesQuery

	mu    sync.Mutex
	calls int // calls answered (past the gate)
	next  int // the next page to answer
}

// Paged cuts entries into pages of per, the total len(entries); no
// entries is one empty page, as a server answers an empty range.
func Paged(entries []api.Charge, per int) *Pager {
	p := &Pager{Contracts: len(entries), Pages: [][]api.Charge{nil}}
	if len(entries) > 0 {
		p.Pages = nil
	}
	for i := 0; i < len(entries); i += per {
		p.Pages = append(p.Pages, entries[i:min(i+per, len(entries))])
	}
	return p
}

// With sets errs in place of the pages of their index and returns p.
func (p *Pager) With(errs map[int]error) *Pager {
	p.Errs = errs
	return p
}

// Next answers the next page, the error in its place, or ErrPagerDone.
func (p *Pager) Next(ctx context.Context) (api.ChargesPage, error) {
	if p.Gate != nil {
		select {
		case <-p.Gate:
		case <-ctx.Done():
			return api.ChargesPage{}, ctx.Err()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
	if err := ctx.Err(); err != nil {
		return api.ChargesPage{}, err
	}
	if err, ok := p.Errs[p.next]; ok {
		delete(p.Errs, p.next)
		return api.ChargesPage{}, err
	}
	if p.next >= len(p.Pages) {
		return api.ChargesPage{}, api.ErrPagerDone
	}
	res := p.Pages[p.next]
	p.next++
	return api.ChargesPage{Results: res, Total: p.Contracts, Count: len(res)}, nil
}

// Done reports that every page was answered.
func (p *Pager) Done() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.next >= len(p.Pages)
}

// Total is the server's count once a page told it, -1 before, as the api
// pager reports it.
func (p *Pager) Total() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next == 0 {
		return -1
	}
	return p.Contracts
}

// Calls is how many calls were answered.
func (p *Pager) Calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

// Allow lets n more calls through the gate (blocking while an unbuffered
// gate has no caller).
func (p *Pager) Allow(n int) {
	for range n {
		p.Gate <- struct{}{}
	}
}
