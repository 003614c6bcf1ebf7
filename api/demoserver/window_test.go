package demoserver

import "testing"

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
