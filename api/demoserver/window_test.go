package demoserver

import (
	"testing"
	"time"
)

// Under WindowAmounts an entry's amount is the part of the contract inside
// the queried window, its items add up to it, and a window holding the
// whole contract gives its total; without the switch every window gives
// the total.
func TestWindowAmounts(t *testing.T) {
	for _, windowed := range []bool{false, true} {
		ts := start(t, Options{WindowAmounts: windowed})
		now := ts.Now().Unix()
		whole := map[string]int64{}
		var long *entry
		es, _ := ts.all(now-400*day, now, nil, "limit", "500")
		for i := range es {
			e := &es[i]
			whole[src(*e)] = milli(t, e.Amount)
			if e.End-e.Start > 3*day && e.End < now && milli(t, e.Amount) > 1000 && long == nil {
				long = e
			}
		}
		if long == nil {
			t.Fatal("the data set holds no ended contract of more than three days")
		}
		// One day in the middle of the long contract.
		mid := long.Start + (long.End-long.Start)/2
		got, _ := ts.all(mid, mid+day-1, nil, "limit", "500")
		found := false
		for _, e := range got {
			if src(e) != src(*long) {
				continue
			}
			found = true
			a := milli(t, e.Amount)
			var items int64
			for _, it := range e.Items {
				items += milli(t, it.Amount)
			}
			if items != a {
				t.Errorf("windowed=%v: items add up to %d, the entry says %d", windowed, items, a)
			}
			// A day of a contract of more than three days is at most a
			// third of it, give or take a thousandth per item.
			switch {
			case !windowed && a != whole[src(e)]:
				t.Errorf("totals: one day of %s reads %d, its total is %d", src(e), a, whole[src(e)])
			case windowed && (a >= whole[src(e)] || a*3 > whole[src(e)]+12):
				t.Errorf("window amounts: one day of %s reads %d of its %d", src(e), a, whole[src(e)])
			}
		}
		if !found {
			t.Fatalf("windowed=%v: %s is missing from a day inside it", windowed, src(*long))
		}
		// The ground truth follows the same rule.
		truth := ts.Contracts(Filter{Gte: mid, Lte: mid + day - 1})
		for _, c := range truth {
			if c.Source == src(*long) && !windowed && c.Amount != whole[c.Source] {
				t.Errorf("Contracts under totals gives %d, not the total %d", c.Amount, whole[c.Source])
			}
			if c.Source == src(*long) && windowed && c.Amount >= whole[c.Source] {
				t.Errorf("Contracts under window amounts gives the total %d", c.Amount)
			}
		}
	}
}

// Advance runs the running contracts on and adds new ones; a query of the
// new now sees both, and the ground truth follows.
func TestAdvance(t *testing.T) {
	ts := start(t, Options{})
	before := ts.Now().Unix()
	running := map[string]int64{}
	for _, c := range ts.Contracts(Filter{}) {
		if c.End == before && c.End > c.Start {
			running[c.Source] = c.Amount
		}
	}
	if len(running) == 0 {
		t.Fatal("nothing runs at the data's end")
	}
	ts.Advance(3*time.Hour, 5)
	now := ts.Now().Unix()
	if now != before+3*3600 {
		t.Fatalf("now moved %d s", now-before)
	}
	got, _ := ts.all(before-day, now, nil, "limit", "500")
	fresh, grew := 0, 0
	for _, e := range got {
		if e.Start > before {
			fresh++
		}
		if was, ok := running[src(e)]; ok && e.End == now && milli(t, e.Amount) >= was {
			grew++
		}
	}
	if fresh != 5 || grew != len(running) {
		t.Fatalf("%d new contracts (want 5), %d of %d running ones ran on", fresh, grew, len(running))
	}
}

// Move changes the past as it says: running contracts end before the new
// now, recent ones are charged anew, others vanish from every answer; the
// rest is as it was. ChangeInvoices replaces the payment records.
func TestMove(t *testing.T) {
	ts := start(t, Options{Contracts: 600})
	before := ts.Now().Unix()
	was := map[string]Contract{}
	for _, c := range ts.Contracts(Filter{}) {
		was[c.Source] = c
	}
	m := ts.Move(Move{By: 2 * time.Hour, New: 3, End: 4, Revise: 5, Vanish: 2, Recent: 48 * time.Hour})
	if len(m.New) != 3 || len(m.Ended) != 4 || len(m.Revised) != 5 || len(m.Vanished) != 2 {
		t.Fatalf("moved %+v", m)
	}
	now := ts.Now().Unix()
	is := map[string]Contract{}
	for _, c := range ts.Contracts(Filter{}) {
		is[c.Source] = c
	}
	for _, s := range m.Ended {
		if c := is[s]; was[s].End != before || c.End <= before || c.End >= now {
			t.Errorf("%s ran %d..%d, then %d..%d: not ended in the step", s, was[s].Start, was[s].End, c.Start, c.End)
		}
	}
	for _, s := range m.Revised {
		if c := is[s]; c.End < before-48*3600 || c.End >= before || c.End != was[s].End || c.Amount == was[s].Amount {
			t.Errorf("%s: %d ending %d, was %d", s, c.Amount, c.End, was[s].Amount)
		}
	}
	for _, s := range m.Vanished {
		if _, ok := is[s]; ok {
			t.Errorf("%s is still there", s)
		}
	}
	if len(is) != len(was)+3-2 {
		t.Errorf("%d contracts, were %d", len(is), len(was))
	}
	got, _ := ts.all(0, now, nil, "limit", "500")
	if len(got) != len(is) {
		t.Errorf("the endpoint serves %d contracts, the truth has %d", len(got), len(is))
	}

	recs := ts.Invoices()
	ts.ChangeInvoices(func(in []Invoice) []Invoice {
		in[0].Amount *= 2
		return in[1:]
	})
	if got := ts.Invoices(); len(got) != len(recs)-1 || got[0].ID != recs[1].ID {
		t.Errorf("the records after a change: %d, first %s", len(got), got[0].ID)
	}
}
