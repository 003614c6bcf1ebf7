package billing

import (
	"context"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

// forEachRule runs test against a demo server answering by each amount
// rule: the figures must come out right whichever the live API follows.
func forEachRule(t *testing.T, opts demoserver.Options, test func(t *testing.T, srv *demoserver.Server, s *Service, want AmountRule)) {
	for _, window := range []bool{false, true} {
		want := RuleTotals
		if window {
			want = RuleWindow
		}
		t.Run(ruleName(window), func(t *testing.T) {
			o := opts
			o.WindowAmounts = window
			srv, s := demoService(t, o, demoserver.DemoKey, nil)
			test(t, srv, s, want)
		})
	}
}

// ruleName names a subtest by the demo server's amount rule.
func ruleName(window bool) string {
	if window {
		return "window"
	}
	return "totals"
}

// truth spreads every contract's total over its life, as the days really
// were charged, whatever rule the server answers by.
func truth(srv *demoserver.Server, loc *time.Location, from, to time.Time) *spend.Daily {
	d := spend.NewDailyWindow(loc, from, to)
	for _, c := range srv.Contracts(demoserver.Filter{}) {
		d.Add([]api.Charge{{Start: c.Start, End: c.End, Type: c.Type, Source: c.Source, Amount: money.Amount(c.Amount)}})
	}
	return d
}

// crossing counts the contracts reaching across t: under window amounts
// each may differ from the truth by a thousandth per item, rounded by the
// server.
func crossing(srv *demoserver.Server, t time.Time) int {
	n := 0
	for _, c := range srv.Contracts(demoserver.Filter{Gte: t.Unix(), Lte: t.Unix()}) {
		if c.Start < t.Unix() {
			n++
		}
	}
	return n
}

func near(a, b money.Amount, slack int) bool {
	d := a - b
	return d <= money.Amount(slack) && -d <= money.Amount(slack)
}

// The rule is detected from an ended contract of several days asked over
// one day inside it, with at most three requests beside the feed's own.
func TestDetectAmountRule(t *testing.T) {
	forEachRule(t, demoserver.Options{Contracts: 600}, func(t *testing.T, srv *demoserver.Server, s *Service, want AmountRule) {
		now := s.Now()
		q := RangeQuery(now.AddDate(0, 0, -30), now)
		f := s.Feed(q)
		defer f.Release()
		_, st, err := all(t, f)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.AmountRule(); got != want {
			t.Fatalf("detected %v, the server answers by %v", got, want)
		}
		if st.WindowAmounts != (want == RuleWindow) {
			t.Errorf("the feed's WindowAmounts is %v under %v", st.WindowAmounts, want)
		}
		paging := (st.Entries + api.MaxLimit - 1) / api.MaxLimit
		if n := srv.CountPath("/api/v0/charges"); n > paging+ruleProbes || n <= paging {
			t.Errorf("%d requests for %d pages: detection asked %d", n, paging, n-paging)
		}
		// Known now: a second feed asks nothing more than its pages.
		srv.ResetRequests()
		g := s.Feed(RangeQuery(now.AddDate(0, 0, -60), now))
		defer g.Release()
		_, st, err = all(t, g)
		if err != nil {
			t.Fatal(err)
		}
		if n := srv.CountPath("/api/v0/charges"); n != (st.Entries+api.MaxLimit-1)/api.MaxLimit {
			t.Errorf("the rule known, a feed of %d entries asked %d requests", st.Entries, n)
		}
	})
}

// A range whose contracts all lie inside it does not depend on the rule:
// nothing is asked to learn it.
func TestNoDetectionWhenNothingReachesOut(t *testing.T) {
	forEachRule(t, demoserver.Options{Contracts: 300}, func(t *testing.T, srv *demoserver.Server, s *Service, _ AmountRule) {
		f := s.Feed(RangeQuery(MinTime, s.Now()))
		defer f.Release()
		_, st, err := all(t, f)
		if err != nil {
			t.Fatal(err)
		}
		if s.AmountRule() != RuleUnknown || srv.CountPath("/api/v0/charges") != st.Pages {
			t.Fatalf("rule %v after %d requests for %d pages", s.AmountRule(), srv.CountPath("/api/v0/charges"), st.Pages)
		}
	})
}

// The statement's months, the burn and a grouping by day are right under
// both rules. Under window amounts the first month used to come out short
// by the part of every contract begun before it: its clipped amount was
// spread over its whole life, the share before the month dropped.
func TestFiguresUnderBothRules(t *testing.T) {
	forEachRule(t, demoserver.Options{Contracts: 1500}, func(t *testing.T, srv *demoserver.Server, s *Service, _ AmountRule) {
		loc := s.Location()
		now := s.Now()
		st, err := s.Statement(context.Background(), now.AddDate(0, -5, 0), now, nil)
		if err != nil {
			t.Fatal(err)
		}
		first := st.Months[0].Start
		td := truth(srv, loc, first, now)
		slack := 4 * (crossing(srv, first) + 1)
		for _, m := range st.Months {
			var want money.Amount
			for _, d := range td.Days(m.Start, m.Start.AddDate(0, 1, 0).Add(-time.Second)) {
				if d.Day.Before(now) {
					want += d.Total
				}
			}
			if !near(m.Spend, want, slack) {
				t.Errorf("%s: spend %v, the days were charged %v", m.Label(), m.Spend, want)
			}
		}

		// The burn of the last 7 complete days, from the meter.
		e, err := s.Runway(context.Background(), 1000*money.Dollar, nil)
		if err != nil {
			t.Fatal(err)
		}
		from, to := spend.BurnWindow(now, loc)
		bt := spend.BurnWeek(truth(srv, loc, from, to), now)
		if !near(e.Week.PerDay, bt.PerDay, slack) {
			t.Errorf("burn %v a day, the days were charged %v", e.Week.PerDay, bt.PerDay)
		}

		// A grouping by day over a range that cuts contracts at both ends.
		gfrom := spend.Midnight(now.AddDate(0, 0, -20))
		gto := spend.Midnight(now.AddDate(0, 0, -10)).Add(-time.Second)
		f := s.Feed(RangeQuery(gfrom, gto))
		defer f.Release()
		entries, _, err := all(t, f)
		if err != nil {
			t.Fatal(err)
		}
		g := NewGrouping(ByDay, loc, gfrom, gto)
		g.Add(f.Spreadable(entries))
		days := map[string]money.Amount{}
		for _, d := range truth(srv, loc, gfrom, gto).Days(gfrom, gto) {
			days[d.Day.Format(time.DateOnly)] = d.Total
		}
		for _, gr := range g.Groups() {
			if !near(gr.Amount, days[gr.Key], 4*(crossing(srv, gfrom)+crossing(srv, gto)+1)) {
				t.Errorf("day %s: %v, the day was charged %v", gr.Key, gr.Amount, days[gr.Key])
			}
		}
	})
}

// clipped narrows only what reaches outside, recursing into wrappers, and
// leaves the caller's entries alone.
func TestClippedCopies(t *testing.T) {
	in := []api.Charge{
		{Source: "instance-1", Start: 100, End: 200, Amount: 5},
		{Source: "instance-2", Start: 50, End: 400, Amount: 7},
		{Source: "endpoint-3", Start: 10, End: 500, Items: []api.Charge{{Source: "workergroup-4", Start: 10, End: 500,
			Items: []api.Charge{{Source: "instance-5", Start: 10, End: 150}}}}},
	}
	out := clipped(in, 80, 300)
	if in[1].Start != 50 || in[2].Items[0].Items[0].Start != 10 {
		t.Fatal("clipped changed the caller's entries")
	}
	if out[0].Start != 100 || out[1].Start != 80 || out[1].End != 300 || out[2].Items[0].Items[0].Start != 80 {
		t.Fatalf("clipped %+v", out)
	}
	if got := clipped(in[:1], 80, 300); &got[0] != &in[0] {
		t.Error("entries inside the window were copied")
	}
	for _, r := range []AmountRule{RuleUnknown, RuleTotals, RuleWindow} {
		if ParseAmountRule(r.String()) != r {
			t.Errorf("%v does not read back", r)
		}
	}
}
