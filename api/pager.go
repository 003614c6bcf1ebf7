package api

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/vastdash/vastdash/money"
)

// The pager's bounds on a server that would page forever.
const (
	// maxEmptyPages bounds how many pages in a row may come back with no
	// entries but a next_token.
	maxEmptyPages = 10
	// maxStalePages is how many pages in a row may hold nothing new (every
	// entry handed out before): one can be the server shifting while
	// paging; two are a server going round.
	maxStalePages = 2
	// maxEntries is the pager's ceiling when the server names no total (or
	// a larger one): pages beyond what a total of that many would allow
	// stop it. A million contracts is far beyond any account seen, and the
	// entries handed out are kept by whoever reads them.
	maxEntries = 1_000_000
)

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
// InstancePager); a new endpoint's pager is newPager over its fetch of one
// page and the identity of its entries.
type Pager[E any] struct {
	op    string // "GET /api/v0/charges/", for errors
	limit int    // the page size asked for; 0: the server default
	fetch func(ctx context.Context, token string) (Page[E], error)
	// key writes an entry's identity: two entries with the same identity
	// are the same row sent twice.
	key func(h *maphash.Hash, e *E)
	// ceiling bounds the entries of a server that names no total (see
	// maxEntries; tests lower it).
	ceiling int

	token string // after_token for the next request
	done  bool
	first int // the first total the server named; -1 while none
	total int // the server's latest total; -1 while none
	pages int // pages handed out
	stale int // pages in a row with nothing new
	// sent and seen hold hashes (a token may be long) of every token sent
	// with an answered request, those followed past empty pages included,
	// and of every entry handed out: a server whose tokens lead back to one
	// already sent, or whose pages hold only rows already sent, would
	// otherwise be paged forever, every page decoded and kept.
	sent map[uint64]bool
	seen map[uint64]bool
	seed maphash.Seed
	h    maphash.Hash
}

// newPager starts paging with fetch, which gets one page after a token
// ("" for the first page). op names the endpoint in errors; limit is the
// page size asked for (0: the server default, 100); key writes an entry's
// identity.
func newPager[E any](op string, limit int, key func(*maphash.Hash, *E), fetch func(ctx context.Context, token string) (Page[E], error)) *Pager[E] {
	p := &Pager[E]{op: op, limit: limit, fetch: fetch, key: key, ceiling: maxEntries,
		first: -1, total: -1, sent: map[uint64]bool{}, seen: map[uint64]bool{}, seed: maphash.MakeSeed()}
	p.h.SetSeed(p.seed)
	return p
}

// ChargePager starts paging the charges of q. An invalid q makes the first
// Next fail with ErrUsage.
func (c *Client) ChargePager(q ChargesQuery) *Pager[Charge] {
	q = q.clone()
	return newPager(chargesOp, q.Limit, chargeKey, func(ctx context.Context, token string) (ChargesPage, error) {
		return c.Charges(ctx, q, token)
	})
}

// chargeKey is a top-level entry's content: a tree-format wrapper's source
// alone does not tell it (one endpoint's contracts may come in parts), so
// the same row is the same type, source, times, amount and item count.
func chargeKey(h *maphash.Hash, c *Charge) {
	h.WriteString(c.Type)
	h.WriteByte(0)
	h.WriteString(c.Source)
	for _, v := range [...]int64{c.Start, c.End, int64(c.Amount), int64(len(c.Items))} {
		maphash.WriteComparable(h, v)
	}
}

const chargesOp = "GET " + chargesPath

// Next fetches the next page. Pages with no entries but a next_token are
// followed within the same call, so a page with entries (or the final
// page) is returned. After a failed Next the pager is unchanged and Next
// may be called again. After the last page Next returns ErrPagerDone.
//
// A server that would page forever is ErrMalformed, with one line that
// says what it did (see check): its tokens lead back to one already sent
// (a cycle); it sends more than maxEmptyPages empty pages in a row, or
// maxStalePages pages in a row that hold only rows already sent; its
// total grows far beyond what it first named; or it sends more pages than
// its total, or the ceiling, allows.
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
		fresh, err := p.check(&page, last)
		if err != nil {
			return Page[E]{}, err
		}
		for _, h := range sent {
			p.sent[h] = true
		}
		for _, h := range fresh {
			p.seen[h] = true
		}
		switch {
		case len(fresh) > 0 || last:
			p.stale = 0
		case len(page.Results) > 0:
			p.stale++
		}
		p.token = page.NextToken
		p.done = last
		if page.Total >= 0 {
			p.total = page.Total
			if p.first < 0 {
				p.first = page.Total
			}
		}
		p.pages++
		return page, nil
	}
}

// check bounds the server by the page it just sent (the pager not yet
// changed) and returns the hashes of the page's entries not handed out
// before.
func (p *Pager[E]) check(page *Page[E], last bool) ([]uint64, error) {
	var fresh []uint64
	for i := range page.Results {
		p.h.Reset()
		p.key(&p.h, &page.Results[i])
		if h := p.h.Sum64(); !p.seen[h] && !slices.Contains(fresh, h) {
			fresh = append(fresh, h)
		}
	}
	pages := p.pages + 1 // with this one
	if !last && len(fresh) == 0 && len(page.Results) > 0 && p.stale+1 >= maxStalePages {
		return nil, malformedMsg(p.op, fmt.Sprintf("the server kept sending pages with nothing new after %d pages; stopped", pages))
	}
	first, total := p.first, p.total
	if page.Total >= 0 {
		total = page.Total
		if first < 0 {
			first = total
		}
	}
	limit := p.limit
	if limit <= 0 {
		limit = defaultLimit
	}
	// A total may grow while paging (a contract starts): by a page, or a
	// tenth, not more.
	if first >= 0 && total > first+max(limit, first/10) {
		return nil, malformedMsg(p.op, fmt.Sprintf("the server's count grew from %s to %s while paging, far beyond what its first page promised; stopped",
			money.Group(int64(first)), money.Group(int64(total))))
	}
	switch bound := min(first, total); {
	case bound >= 0 && bound <= p.ceiling:
		if pages > maxPages(bound, limit) {
			return nil, malformedMsg(p.op, "the server sent more pages than its total allows")
		}
	case pages > maxPages(p.ceiling, limit) && bound < 0:
		return nil, malformedMsg(p.op, fmt.Sprintf("the server sent %s pages without an end or a total; stopped", money.Group(int64(pages))))
	case pages > maxPages(p.ceiling, limit):
		return nil, malformedMsg(p.op, fmt.Sprintf("the server counts %s entries, more than the %s vastdash reads at once; stopped after %s pages",
			money.Group(int64(bound)), money.Group(int64(p.ceiling)), money.Group(int64(pages))))
	}
	return fresh, nil
}

// maxPages is how many pages a server that counts total entries may hand
// out at limit a page: ⌈total/limit⌉, plus two for entries added while
// paging and a final empty page. Pages skipped for being empty do not
// count; maxEmptyPages bounds those.
func maxPages(total, limit int) int {
	return (total+limit-1)/limit + 2
}

// Done reports that the last page has been handed out.
func (p *Pager[E]) Done() bool { return p.done }

// Total is the server's count of matching entries (-1 before the first
// page, or while the server has not said).
func (p *Pager[E]) Total() int { return p.total }
