package api

import (
	"context"
	"slices"
)

// pageTrail is the token bookkeeping every pager of an endpoint with
// opaque next_token pagination shares: where the next page starts, which
// tokens have been sent (to stop on a cycle), and how many pages the
// server's total allows.
type pageTrail struct {
	token string // after_token for the next request
	done  bool
	total int // the server's count; -1 while unknown
	pages int // pages handed out
	// sent holds every token sent with an answered request, those followed
	// past empty pages included: a server whose tokens lead back to one of
	// them would otherwise be paged forever, every page decoded and kept.
	sent map[string]bool
}

func newPageTrail() pageTrail { return pageTrail{total: -1, sent: map[string]bool{}} }

// pageShape is what the trail needs to know of a fetched page.
type pageShape struct {
	next    string // next_token; "" on the last page
	entries int    // entries kept plus entries skipped
	total   int    // the server's total, -1 when it did not say
}

// nextPage fetches the page after t's token with fetch. Pages with no
// entries but a next_token are followed within the same call, so a page
// with entries (or the final page) is returned. t changes only when the
// call succeeds, so a failed call may be repeated. A next_token that
// repeats one already sent (a cycle), more than maxEmptyPages empty pages
// in a row, or more pages than ⌈total/limit⌉+2 once the server has named
// its total, is ErrMalformed of op: each would otherwise be paged forever.
// limit is the page size asked for (0: the server default, 100).
func nextPage[P any](ctx context.Context, t *pageTrail, op string, limit int,
	fetch func(ctx context.Context, token string) (P, error), shape func(*P) pageShape) (P, error) {
	var zero P
	if t.done {
		return zero, ErrPagerDone
	}
	token := t.token
	// Tokens sent in this call; they join t.sent only if it succeeds, so a
	// retried call may send them again.
	var sent []string
	for empty := 0; ; empty++ {
		page, err := fetch(ctx, token)
		if err != nil {
			return zero, err
		}
		if token != "" {
			sent = append(sent, token)
		}
		sh := shape(&page)
		last := sh.next == ""
		if !last && (t.sent[sh.next] || slices.Contains(sent, sh.next)) {
			return zero, malformedMsg(op, "the server's page tokens repeat (a cycle)")
		}
		if sh.entries == 0 && !last {
			if empty+1 >= maxEmptyPages {
				return zero, malformedMsg(op, "the server keeps sending empty pages")
			}
			token = sh.next
			continue
		}
		total := t.total
		if sh.total >= 0 {
			total = sh.total
		}
		if total >= 0 && t.pages+1 > maxPages(total, limit) {
			return zero, malformedMsg(op, "the server sent more pages than its total allows")
		}
		for _, tok := range sent {
			t.sent[tok] = true
		}
		t.token = sh.next
		t.done = last
		t.total = total
		t.pages++
		return page, nil
	}
}
