package demoserver

import (
	"cmp"
	"slices"
	"time"
)

// Move is one step of the history moving on ([Server.Move]): time passes,
// as with [Server.Advance], and the past changes as a live server's may
// between two runs of a client that keeps history. Each change picks its
// contracts at random, deterministically in the seed and the new now.
type Move struct {
	// By is the time that passes: the contracts running at the old now run
	// on to the new one, their lines growing with their time. 0 changes the
	// data in place.
	By time.Duration
	// New is how many new instance contracts start in the time that
	// passed (shaped like recent ones, with new ids).
	New int
	// End is how many of the contracts running at the old now stop in the
	// time that passed, each at a random time in it (By must be positive);
	// the others run on.
	End int
	// Revise is how many of the contracts that ended within Recent before
	// the old now have their amounts revised: each line's quantity scaled
	// by a factor between 0.5 and 1.5, the amount their sum.
	Revise int
	// Recent bounds the contracts Revise picks; 0 means 12 hours.
	Recent time.Duration
	// Vanish is how many ended contracts, anywhere in the history,
	// disappear from it.
	Vanish int
}

// Moved is what a Move changed, by source ("instance-123"), for a test to
// look at.
type Moved struct {
	New, Ended, Revised, Vanished []string
}

// Advance moves the data on by d, as if that much time had passed: every
// contract running at the old now runs on to the new one, its lines
// growing with its time, and n new instance contracts start in the time
// that passed (shaped like recent ones, with new ids). The credit and the
// payment records stay as they were. [Server.Now], [Server.Contracts] and
// every answer follow; a request in flight finishes on the data it began
// with. It is for the tests of a client that keeps history.
func (s *Server) Advance(d time.Duration, n int) { s.Move(Move{By: d, New: n}) }

// Move changes the history as m says (see [Move]); a request in flight
// finishes on the data it began with. The credit and the payment records
// stay as they were ([Server.ChangeInvoices] changes those).
func (s *Server) Move(m Move) Moved {
	step := max(int64(m.By/time.Second), 0)
	recent := int64(m.Recent / time.Second)
	if recent <= 0 {
		recent = 12 * 3600
	}
	s.advance.Lock()
	defer s.advance.Unlock()
	old := s.ds()
	nd := *old
	nd.now = old.now + step
	nd.cs = slices.Clone(old.cs)
	r := &rng{s: s.opts.Seed ^ uint64(nd.now)}
	var moved Moved
	// pick takes up to n of the contracts ok accepts, at random.
	pick := func(n int, ok func(c *contract) bool) []int {
		var all []int
		for i := range nd.cs {
			if ok(&nd.cs[i]) {
				all = append(all, i)
			}
		}
		for k := 0; k < n && k < len(all); k++ {
			j := k + r.intn(len(all)-k)
			all[k], all[j] = all[j], all[k]
		}
		return all[:min(n, len(all))]
	}
	running := func(c *contract) bool { return c.end == old.now && c.end > c.start }
	ending := map[int]bool{}
	if step > 0 {
		for _, i := range pick(m.End, running) {
			ending[i] = true
		}
	}
	for i := range nd.cs {
		c := &nd.cs[i]
		if !running(c) || step == 0 {
			continue
		}
		end := nd.now
		if ending[i] {
			end = old.now + 1 + int64(r.intn(int(max(min(step-1, 1<<30), 1)))) // before the new now: ended
			moved.Ended = append(moved.Ended, nd.source(c))
		}
		c.rescale(end - c.start)
		c.end = end
	}
	for _, i := range pick(m.Revise, func(c *contract) bool {
		return c.end < old.now && c.end >= old.now-recent && c.end > c.start && nd.fixtures[c.id] == nil
	}) {
		c := &nd.cs[i]
		c.revise(50 + int64(r.intn(101)))
		moved.Revised = append(moved.Revised, nd.source(c))
	}
	gone := map[int]bool{}
	for _, i := range pick(m.Vanish, func(c *contract) bool { return c.end < old.now && nd.fixtures[c.id] == nil }) {
		gone[i] = true
		moved.Vanished = append(moved.Vanished, nd.source(&nd.cs[i]))
	}
	if len(gone) > 0 {
		kept := nd.cs[:0:0]
		for i := range nd.cs {
			if !gone[i] {
				kept = append(kept, nd.cs[i])
			}
		}
		nd.cs = kept
	}
	var recents []int
	for i := len(old.cs) - 1; i >= 0 && len(recents) < 64; i-- {
		if old.cs[i].kind == kindInstance && old.cs[i].end > old.cs[i].start {
			recents = append(recents, i)
		}
	}
	id := old.cs[len(old.cs)-1].id
	for k := 0; k < m.New && step > 0 && len(recents) > 0; k++ {
		c := old.cs[recents[r.intn(len(recents))]]
		start := old.now + 1 + int64(r.intn(int(min(step, 1<<30))))
		end := min(start+600+int64(r.intn(4*3600)), nd.now)
		c.rescale(end - start) // from the template's own duration
		c.start, c.end = start, end
		id += 1 + int64(r.intn(40))
		c.id = id
		nd.cs = append(nd.cs, c)
		moved.New = append(moved.New, nd.source(&c))
	}
	slices.SortFunc(nd.cs, func(a, b contract) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.id, b.id))
	})
	for i := range nd.cs {
		nd.maxDur = max(nd.maxDur, nd.cs[i].end-nd.cs[i].start)
	}
	s.data.Store(&nd)
	return moved
}

// rescale makes the contract's lines those of dur seconds, in proportion
// to its present duration, and its amount their sum.
func (c *contract) rescale(dur int64) {
	was := c.end - c.start
	if was <= 0 || dur <= 0 {
		return
	}
	c.scale(dur, was)
}

// revise scales the contract's lines by pct percent: a correction of what
// it was charged.
func (c *contract) revise(pct int64) { c.scale(pct, 100) }

// scale multiplies every line's quantity by num/den and makes the amount
// their sum.
func (c *contract) scale(num, den int64) {
	c.amount = 0
	for i := 0; i < int(c.nitems); i++ {
		it := &c.items[i]
		it.qty = it.qty * num / den
		it.amount = (it.qty*it.rate + 500_000) / 1_000_000
		c.amount += it.amount
	}
}
