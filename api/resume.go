package api

// Resuming a paging run: the ledger (billing/sync.go) writes each page with
// the token of the next one, so that a run cut short goes on from the last
// page it wrote instead of the first. A token is valid only with the
// filters it came from.

// PagerAt is Pager going on after token, a next_token an earlier pager of
// the same query handed out ("" starts at the first page). The pager's
// bounds (cycles, empty pages, pages beyond the total) count from here.
func (c *Client) PagerAt(q ChargesQuery, token string) *Pager {
	p := c.Pager(q)
	p.trail.token = token
	return p
}

// Token is the after_token of the next page: "" before the first page of
// a pager started at the beginning, and after the last.
func (p *Pager) Token() string { return p.trail.token }

// InvoicePagerAt is InvoicePager going on after token (see PagerAt).
func (c *Client) InvoicePagerAt(q InvoicesQuery, token string) *InvoicePager {
	p := c.InvoicePager(q)
	p.trail.token = token
	return p
}

// Token is the after_token of the next page (see Pager.Token).
func (p *InvoicePager) Token() string { return p.trail.token }
