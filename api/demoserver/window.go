package demoserver

// The amount rule. The specification calls a charge entry's amount the
// contract's total; clients that ran against the live API report that with
// day.gte/lte the amount (and each item's) is only what fell inside the
// queried window. [Options.WindowAmounts] makes this server answer by the
// second rule, so a client can be tested against both.

// window is the span a response's amounts cover: [gte, lte] in unix
// seconds, lte inclusive, or every second when !on (the totals rule).
type window struct {
	on       bool
	gte, lte int64
}

// windowOf is the window of a request's day filter under the server's rule.
func (s *Server) windowOf(gte, lte int64) window {
	return window{on: s.opts.WindowAmounts, gte: gte, lte: lte}
}

// amounts are a contract's amount and its items' amounts as served under w.
type amounts struct {
	total int64
	items [4]int64
}

// amountsIn is what c was charged within w: each item's amount in
// proportion to the contract's seconds inside the window, rounded half up
// to a thousandth, and the contract's amount their exact sum (as on the
// real API, where the contract is the sum of its lines). A contract
// without duration falls wholly inside or outside.
func (c *contract) amountsIn(w window) amounts {
	var a amounts
	for i := 0; i < int(c.nitems); i++ {
		a.items[i] = c.items[i].amount
	}
	a.total = c.amount
	if !w.on {
		return a
	}
	dur := c.end - c.start
	hi := w.lte
	if hi < 1<<62 {
		hi++ // lte is inclusive: its second counts
	}
	overlap := min(c.end, hi) - max(c.start, w.gte)
	switch {
	case dur <= 0 && c.start >= w.gte && c.start < hi:
		return a
	case dur <= 0 || overlap <= 0:
		return amounts{}
	case overlap >= dur:
		return a
	}
	a.total = 0
	for i := 0; i < int(c.nitems); i++ {
		// amount < 2^40 and overlap < dur < 2^31 in any data set built
		// here: the product cannot overflow.
		a.items[i] = (c.items[i].amount*overlap + dur/2) / dur
		a.total += a.items[i]
	}
	return a
}
