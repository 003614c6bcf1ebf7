package billing

import (
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

func labelled(id int, label string, amount money.Amount) api.Charge {
	c := contract(id, amount)
	c.Meta.Label = label
	return c
}

func TestGroupByLabel(t *testing.T) {
	g := NewGrouping(ByLabel, time.UTC, testNow.AddDate(0, 0, -30), testNow)
	wrapper := api.Charge{Type: "serverless", Source: "endpoint-7", Amount: 5 * money.Dollar, Items: []api.Charge{
		{Type: "serverless", Source: "workergroup-9", Amount: 5 * money.Dollar, Items: []api.Charge{
			labelled(10, "llm", 2*money.Dollar), labelled(11, "", 3*money.Dollar)}}}}
	g.Add([]api.Charge{labelled(1, "llm", 4*money.Dollar), labelled(2, "", money.Dollar), labelled(3, "sd", 6*money.Dollar), wrapper})
	got := g.Groups()
	want := []Group{{"llm", 2, 6 * money.Dollar}, {"sd", 1, 6 * money.Dollar}, {NoLabel, 2, 4 * money.Dollar}}
	if len(got) != len(want) {
		t.Fatalf("groups %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("group %d = %+v, want %+v (contracts inside wrappers count one by one; no label is its own group)", i, got[i], want[i])
		}
	}
	if g.Total() != 16*money.Dollar {
		t.Errorf("total %s", g.Total())
	}
}

// By day the amounts are spread over the days they ran, exactly: the days
// add up to the amounts that fall inside the window.
func TestGroupByDaySpreadsExactly(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2026, 11, 3, 23, 59, 59, 0, time.UTC)
	g := NewGrouping(ByDay, time.UTC, from, to)
	c := api.Charge{Type: "instance", Source: "instance-1", Amount: 1000, // $1.000 over 48 h from noon on the 1st
		Start: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).Unix(), End: time.Date(2026, 11, 3, 12, 0, 0, 0, time.UTC).Unix()}
	g.Add([]api.Charge{c})
	got := g.Groups()
	want := []Group{{"2026-11-01", 1, 250}, {"2026-11-02", 1, 500}, {"2026-11-03", 1, 250}}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("days %+v, want %+v", got, want)
	}
}

func TestGroupKeysAndShares(t *testing.T) {
	if _, err := ParseGroupKey("Label "); err != nil {
		t.Error(err)
	}
	if _, err := ParseGroupKey("user"); err == nil {
		t.Error("an unknown grouping was accepted")
	}
	g := NewGrouping(ByEndpoint, nil, time.Time{}, time.Time{})
	e := contract(1, money.Dollar)
	e.Meta.EndpointID = 7
	g.Add([]api.Charge{e, contract(2, money.Dollar)})
	if gs := g.Groups(); len(gs) != 2 || gs[0].Key != NoID || gs[1].Key != "7" {
		t.Errorf("by endpoint %+v", gs)
	}
	for _, c := range []struct {
		a, total money.Amount
		want     string
	}{{1, 3, "33.3%"}, {2, 3, "66.7%"}, {0, 0, "—"}, {money.Amount(1 << 62), 1, "—"}, {-1, 3, "-33.3%"}} {
		if got := ShareText(c.a, c.total); got != c.want {
			t.Errorf("ShareText(%d, %d) = %q, want %q", c.a, c.total, got, c.want)
		}
	}
}

// Recount counts what --label kept as the feed counts a page: contracts one
// by one, the amount summed, an overflow marked; the rest of the state
// stays that of the whole feed.
func TestRecountKept(t *testing.T) {
	st := State{Entries: 9, Contracts: 9, Amount: 99 * money.Dollar, Overflow: true, Skipped: 2}
	kept := KeepLabels([]api.Charge{labelled(1, "llm", 4*money.Dollar), labelled(2, "sd", money.Dollar), labelled(3, "llm", 2*money.Dollar)}, []string{"llm"})
	got := st.Recount(kept)
	if got.Contracts != 2 || got.Amount != 6*money.Dollar || got.Overflow || got.Skipped != 2 || got.Entries != 9 {
		t.Fatalf("recounted %+v", got)
	}
	huge := []api.Charge{labelled(1, "x", money.MaxAmount), labelled(2, "x", money.Dollar)}
	if got := st.Recount(huge); !got.Overflow || got.Contracts != 2 {
		t.Fatalf("a sum past the range: %+v", got)
	}
}

// Issue 27 item 2: by day, a range of more than spend.MaxDays days would
// lose its days past the first 3,660 — from 2015-01-01, every day since
// January 2025. Such a range is refused with the limit; one of 3,660 days
// keeps every day, its last included.
func TestGroupByDayRefusesWhatItCannotHoldWhole(t *testing.T) {
	to := time.Date(2026, 11, 23, 23, 59, 59, 0, time.UTC)
	err := CheckGrouping(ByDay, time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC), to, time.UTC)
	if err == nil || !strings.Contains(err.Error(), "at most 3,660 days") || !strings.Contains(err.Error(), "2015-01-01 to 2026-11-23 is 4,345 days") {
		t.Fatalf("twelve years by day: %v", err)
	}
	if err := CheckGrouping(ByLabel, time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC), to, time.UTC); err != nil {
		t.Fatalf("by label: %v", err)
	}
	from := to.AddDate(0, 0, -spend.MaxDays+1).Truncate(24 * time.Hour)
	if err := CheckGrouping(ByDay, from, to, time.UTC); err != nil {
		t.Fatalf("%v..%v: %v", from, to, err)
	}
	g := NewGrouping(ByDay, time.UTC, from, to)
	last := api.Charge{Type: "instance", Source: "instance-1", Amount: 1500, Start: to.Add(-2 * time.Hour).Unix(), End: to.Unix()}
	first := api.Charge{Type: "instance", Source: "instance-2", Amount: 700, Start: from.Unix(), End: from.Add(time.Hour).Unix()}
	g.Add([]api.Charge{last, first})
	got := g.Groups()
	if len(got) != 2 || got[0].Key != from.Format(time.DateOnly) || got[1].Key != "2026-11-23" || g.Total() != 2200 {
		t.Fatalf("groups %+v, total %v", got, g.Total())
	}
}
