package api

// Resuming a paging run: the ledger (billing/sync.go) writes each page with
// the token of the next one, so that a run cut short goes on from the last
// page it wrote instead of the first. A token is valid only with the
// filters it came from.

// From makes a pager that has handed out no page yet go on after token, a
// next_token an earlier pager of the same query handed out ("" starts at
// the first page), and returns it. The pager's bounds (cycles, stale and
// empty pages, pages beyond the total) count from there.
func (p *Pager[E]) From(token string) *Pager[E] {
	if p.pages == 0 {
		p.token = token
	}
	return p
}

// Token is the after_token of the next page: "" before the first page of
// a pager started at the beginning, and after the last.
func (p *Pager[E]) Token() string { return p.token }
