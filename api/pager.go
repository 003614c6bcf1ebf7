package api

import (
	"context"
	"errors"
	"hash/maphash"
	"iter"
	"slices"
)

// maxEmptyPages bounds how many pages in a row may come back with no
// entries but a next_token before the pager gives up: a server that keeps
// doing that would otherwise be polled forever.
const maxEmptyPages = 10

// defaultLimit is the server's page size when the query sets none.
const defaultLimit = 100

// ErrPagerDone is returned by Next after the last page.
var ErrPagerDone = errors.New("no more pages")

// Page is one page of a paged endpoint (charges, payment records,
// instances): the entries kept, where the next page starts and the
// server's count.
type Page[E any] struct {
	Results []E
	// NextToken is the after_token of the next page; "" on the last page.
	NextToken string
	// Total is the server's count of the entries matching the query; -1
	// when it did not say.
	Total int
	// Skipped counts entries the decoder dropped: a field of the wrong
	// type, a missing id, a value out of bounds, or more entries than one
	// page may hold. The rest of the page is still usable.
	Skipped int
}

// ChargesPage is one page of the charges report (top-level entries).
type ChargesPage = Page[Charge]

// InvoicesPage is one page of GET /api/v1/invoices/.
type InvoicesPage = Page[Invoice]

// InstancesPage is one page of GET /api/v1/instances/.
type InstancesPage = Page[Instance]

// Pager hands out the pages of one query of one endpoint in order, on
// opaque next_token pagination. The query is fixed when the pager is made:
// a token is valid only with the filters it came from. Not safe for
// concurrent use: one Next at a time.
//
// Every endpoint's pager is this one (ChargePager, InvoicePager,
// InstancePager); a new endpoint gets its pager from newPager with its
// fetch of one page.
type Pager[E any] struct {
	op    string // "GET /api/v0/charges/", for errors
	limit int    // the page size asked for; 0: the server default
	fetch func(ctx context.Context, token string) (Page[E], error)

	token string // after_token for the next request
	done  bool
	total int // the server's count; -1 while unknown
	pages int // pages handed out
	// sent holds a hash of every token sent with an answered request,
	// those followed past empty pages included: a server whose tokens lead
	// back to one of them would otherwise be paged forever, every page
	// decoded and kept. Hashes, not the tokens: a token may be long.
	sent map[uint64]bool
	seed maphash.Seed
}

// newPager starts paging with fetch, which gets one page after a token
// ("" for the first page). op names the endpoint in errors; limit is the
// page size asked for (0: the server default, 100).
func newPager[E any](op string, limit int, fetch func(ctx context.Context, token string) (Page[E], error)) *Pager[E] {
	return &Pager[E]{op: op, limit: limit, fetch: fetch, total: -1, sent: map[uint64]bool{}, seed: maphash.MakeSeed()}
}

// ChargePager starts paging the charges of q. An invalid q makes the first
// Next fail with ErrUsage.
func (c *Client) ChargePager(q ChargesQuery) *Pager[Charge] {
	q = q.clone()
	return newPager(chargesOp, q.Limit, func(ctx context.Context, token string) (ChargesPage, error) {
		return c.Charges(ctx, q, token)
	})
}

const chargesOp = "GET " + chargesPath

// Next fetches the next page. Pages with no entries but a next_token are
// followed within the same call, so a page with entries (or the final
// page) is returned. After a failed Next the pager is unchanged and Next
// may be called again. After the last page Next returns ErrPagerDone.
//
// A server whose next_token repeats one already sent (a cycle), that sends
// more than maxEmptyPages empty pages in a row, or more than
// ⌈total/limit⌉+2 pages once it has named its total, is ErrMalformed:
// each would otherwise be paged forever.
func (p *Pager[E]) Next(ctx context.Context) (Page[E], error) {
	if p.done {
		return Page[E]{}, ErrPagerDone
	}
	token := p.token
	// Tokens sent in this call; they join p.sent only if it succeeds, so a
	// retried call may send them again.
	var sent []uint64
	for empty := 0; ; empty++ {
		page, err := p.fetch(ctx, token)
		if err != nil {
			return Page[E]{}, err
		}
		if token != "" {
			sent = append(sent, maphash.String(p.seed, token))
		}
		last := page.NextToken == ""
		if next := maphash.String(p.seed, page.NextToken); !last && (p.sent[next] || slices.Contains(sent, next)) {
			return Page[E]{}, malformedMsg(p.op, "the server's page tokens repeat (a cycle)")
		}
		if len(page.Results)+page.Skipped == 0 && !last {
			if empty+1 >= maxEmptyPages {
				return Page[E]{}, malformedMsg(p.op, "the server keeps sending empty pages")
			}
			token = page.NextToken
			continue
		}
		total := p.total
		if page.Total >= 0 {
			total = page.Total
		}
		if total >= 0 && p.pages+1 > maxPages(total, p.limit) {
			return Page[E]{}, malformedMsg(p.op, "the server sent more pages than its total allows")
		}
		for _, h := range sent {
			p.sent[h] = true
		}
		p.token = page.NextToken
		p.done = last
		p.total = total
		p.pages++
		return page, nil
	}
}

// maxPages is how many pages a server that counts total entries may hand
// out at limit a page (0: the server default, 100): ⌈total/limit⌉, plus
// two for entries added while paging and a final empty page. Pages skipped
// for being empty do not count; maxEmptyPages bounds those.
func maxPages(total, limit int) int {
	if limit <= 0 {
		limit = defaultLimit
	}
	return (total+limit-1)/limit + 2
}

// Done reports that the last page has been handed out.
func (p *Pager[E]) Done() bool { return p.done }

// Total is the server's count of matching entries (-1 before the first
// page, or while the server has not said).
func (p *Pager[E]) Total() int { return p.total }

// All yields every remaining entry, fetching pages as needed. An error is
// yielded once (with a zero entry) and ends the sequence; pages stop being
// fetched as soon as the consumer breaks.
func (p *Pager[E]) All(ctx context.Context) iter.Seq2[E, error] {
	return func(yield func(E, error) bool) {
		for !p.done {
			page, err := p.Next(ctx)
			if err != nil {
				var zero E
				yield(zero, err)
				return
			}
			for _, e := range page.Results {
				if !yield(e, nil) {
					return
				}
			}
		}
	}
}
