package api

import (
	"context"
	"errors"
	"iter"
)

// maxEmptyPages bounds how many pages in a row may come back with no
// entries but a next_token before the pager gives up: a server that keeps
// doing that would otherwise be polled forever.
const maxEmptyPages = 10

// defaultLimit is the server's page size when the query sets none.
const defaultLimit = 100

// ErrPagerDone is returned by Next after the last page.
var ErrPagerDone = errors.New("no more pages")

// Pager hands out the pages of one ChargesQuery in order. Its filters are
// fixed: a token is valid only with the filters it came from. Not safe for
// concurrent use: one Next at a time.
type Pager struct {
	c      *Client
	q      ChargesQuery
	trail  pageTrail
	loaded int
}

// Pager starts paging q. An invalid q makes the first Next fail with
// ErrUsage.
func (c *Client) Pager(q ChargesQuery) *Pager {
	return &Pager{c: c, q: q.clone(), trail: newPageTrail()}
}

// Next fetches the next page. Pages with no entries but a next_token are
// followed within the same call, so a page with entries (or the final
// page) is returned. After a failed Next the pager is unchanged and Next
// may be called again. After the last page Next returns ErrPagerDone.
//
// A server whose next_token repeats one already sent (a cycle), or that
// sends more than ⌈total/limit⌉+2 pages once it has named its total, is
// ErrMalformed: either would otherwise be paged forever.
func (p *Pager) Next(ctx context.Context) (ChargesPage, error) {
	fetch := func(ctx context.Context, token string) (ChargesPage, error) { return p.c.Charges(ctx, p.q, token) }
	page, err := nextPage(ctx, &p.trail, chargesOp, p.q.Limit, fetch, func(pg *ChargesPage) pageShape {
		return pageShape{next: pg.NextToken, entries: len(pg.Results) + pg.Skipped, total: pg.Total}
	})
	if err != nil {
		return ChargesPage{}, err
	}
	p.loaded += len(page.Results)
	return page, nil
}

// maxPages is how many pages a server that counts total entries may hand
// out at limit a page (0: the server default, 100): ⌈total/limit⌉, plus
// two for entries added while paging and a final empty page. Pages skipped
// for being empty do not count; maxEmptyPages bounds those.
func maxPages(total, limit int) int {
	if limit <= 0 {
		limit = defaultLimit
	}
	n := total / limit
	if total%limit != 0 {
		n++
	}
	return n + 2
}

const chargesOp = "GET " + chargesPath

// Done reports that the last page has been handed out.
func (p *Pager) Done() bool { return p.trail.done }

// Total is the server's count of matching contracts (-1 before the first
// page, or while the server has not said).
func (p *Pager) Total() int { return p.trail.total }

// Loaded counts the top-level entries handed out so far.
func (p *Pager) Loaded() int { return p.loaded }

// Query returns the pager's filters.
func (p *Pager) Query() ChargesQuery { return p.q.clone() }

// All yields every remaining top-level entry, fetching pages as needed. An
// error is yielded once (with a zero Charge) and ends the sequence; pages
// stop being fetched as soon as the consumer breaks.
func (p *Pager) All(ctx context.Context) iter.Seq2[Charge, error] {
	return func(yield func(Charge, error) bool) {
		for !p.trail.done {
			page, err := p.Next(ctx)
			if err != nil {
				yield(Charge{}, err)
				return
			}
			for _, ch := range page.Results {
				if !yield(ch, nil) {
					return
				}
			}
		}
	}
}

// All yields every top-level entry of q, fetching pages as needed (see
// Pager.All).
func (c *Client) All(ctx context.Context, q ChargesQuery) iter.Seq2[Charge, error] {
	return c.Pager(q).All(ctx)
}
