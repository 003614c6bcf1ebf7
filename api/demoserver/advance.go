package demoserver

import (
	"cmp"
	"slices"
	"time"
)

// Advance moves the data on by d, as if that much time had passed: every
// contract running at the old now runs on to the new one, its lines
// growing with its time, and n new instance contracts start in the time
// that passed (shaped like recent ones, with new ids). The credit and the
// payment records stay as they were. [Server.Now], [Server.Contracts] and
// every answer follow; a request in flight finishes on the data it began
// with. It is for the tests of a client that keeps history.
func (s *Server) Advance(d time.Duration, n int) {
	step := int64(d / time.Second)
	if step <= 0 {
		return
	}
	s.advance.Lock()
	defer s.advance.Unlock()
	old := s.ds()
	nd := *old
	nd.now = old.now + step
	nd.cs = slices.Clone(old.cs)
	for i := range nd.cs {
		c := &nd.cs[i]
		if c.end != old.now || c.end == c.start {
			continue
		}
		c.rescale(nd.now - c.start)
		c.end = nd.now
	}
	r := &rng{s: s.opts.Seed ^ uint64(nd.now)}
	var recent []int
	for i := len(old.cs) - 1; i >= 0 && len(recent) < 64; i-- {
		if old.cs[i].kind == kindInstance && old.cs[i].end > old.cs[i].start {
			recent = append(recent, i)
		}
	}
	id := old.cs[len(old.cs)-1].id
	for k := 0; k < n && len(recent) > 0; k++ {
		c := old.cs[recent[r.intn(len(recent))]]
		start := old.now + 1 + int64(r.intn(int(min(step, 1<<30))))
		end := min(start+600+int64(r.intn(4*3600)), nd.now)
		c.rescale(end - start) // from the template's own duration
		c.start, c.end = start, end
		id += 1 + int64(r.intn(40))
		c.id = id
		nd.cs = append(nd.cs, c)
	}
	slices.SortFunc(nd.cs, func(a, b contract) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.id, b.id))
	})
	for i := range nd.cs {
		nd.maxDur = max(nd.maxDur, nd.cs[i].end-nd.cs[i].start)
	}
	s.data.Store(&nd)
}

// rescale makes the contract's lines those of dur seconds, in proportion
// to its present duration, and its amount their sum.
func (c *contract) rescale(dur int64) {
	was := c.end - c.start
	if was <= 0 || dur <= 0 {
		return
	}
	c.amount = 0
	for i := 0; i < int(c.nitems); i++ {
		it := &c.items[i]
		it.qty = it.qty * dur / was
		it.amount = (it.qty*it.rate + 500_000) / 1_000_000
		c.amount += it.amount
	}
}
