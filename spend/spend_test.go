package spend

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

func TestPresetRange(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	now := time.Date(2026, 11, 21, 15, 4, 5, 0, loc)
	cases := []struct {
		name, from, to string
	}{
		{"24h", "2026-11-20 15:04:05", "2026-11-21 15:04:05"},
		{"7d", "2026-11-15 00:00:00", "2026-11-21 23:59:59"},
		{"30d", "2026-10-23 00:00:00", "2026-11-21 23:59:59"},
		{"90d", "2026-08-24 00:00:00", "2026-11-21 23:59:59"},
		{"this-month", "2026-11-01 00:00:00", "2026-11-21 23:59:59"},
		{"last-month", "2026-10-01 00:00:00", "2026-10-31 23:59:59"},
	}
	for _, c := range cases {
		r, err := PresetRange(c.name, now, loc)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.From.Format(time.DateTime); got != c.from {
			t.Errorf("%s from = %s, want %s", c.name, got, c.from)
		}
		if got := r.To.Format(time.DateTime); got != c.to {
			t.Errorf("%s to = %s, want %s", c.name, got, c.to)
		}
	}
	if _, err := PresetRange("2w", now, loc); !errors.Is(err, ErrRange) {
		t.Fatalf("unknown preset: %v", err)
	}
	// January's "last month" is December of the year before.
	r, _ := PresetRange("last-month", time.Date(2027, 1, 5, 0, 0, 0, 0, time.UTC), time.UTC)
	if r.From.Format(time.DateOnly) != "2026-12-01" || r.To.Format(time.DateOnly) != "2026-12-31" {
		t.Fatalf("last-month in January: %v", r)
	}
}

func TestParseRange(t *testing.T) {
	r, err := ParseRange(" 2026-10-01..2026-10-31 ", time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	if r.From != time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC) || r.To != time.Date(2026, 10, 31, 23, 59, 59, 0, time.UTC) {
		t.Fatalf("got %v", r)
	}
	if r.String() != "2026-10-01..2026-10-31" {
		t.Fatalf("String = %q", r.String())
	}
	one, err := ParseRange("2026-02-28", time.UTC)
	if err != nil || one.To.Format(time.DateTime) != "2026-02-28 23:59:59" {
		t.Fatalf("single day: %v %v", one, err)
	}
	for _, bad := range []string{"", "2026-10-31..2026-10-01", "2026-13-01..2026-12-01", "yesterday", "2026-10-01...2026-10-02", "..", "..2026-10-01"} {
		if _, err := ParseRange(bad, time.UTC); !errors.Is(err, ErrRange) {
			t.Errorf("ParseRange(%q) = %v, want ErrRange", bad, err)
		}
	}
}

// TestParseRangeOpenEnd: "2026-11-01.." runs from that day to the end of
// today, the range --from 2026-11-01 without --to reads; it prints back
// as typed and parses back to itself, and a start after today is refused.
func TestParseRangeOpenEnd(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	// 23:30 UTC on the 20th is already the 21st in Berlin.
	now := time.Date(2026, 11, 20, 23, 30, 0, 0, time.UTC)
	r, err := ParseRangeAt(" 2026-11-01 .. ", now, loc)
	if err != nil {
		t.Fatal(err)
	}
	closed, err := ParseRangeAt("2026-11-01..2026-11-21", now, loc)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Open || !r.From.Equal(closed.From) || !r.To.Equal(closed.To) {
		t.Fatalf("open end = %v .. %v (open %v), want %v .. %v", r.From, r.To, r.Open, closed.From, closed.To)
	}
	if r.String() != "2026-11-01.." {
		t.Fatalf("String = %q, want 2026-11-01..", r.String())
	}
	for _, in := range []Range{r, closed} {
		back, err := ParseRangeAt(in.String(), now, loc)
		if err != nil || back != in {
			t.Fatalf("%q parsed back to %v (%v), want %v", in.String(), back, err, in)
		}
	}
	if _, err := ParseRangeAt("2026-11-22..", now, loc); !errors.Is(err, ErrRange) || !strings.Contains(err.Error(), "after today") {
		t.Fatalf("a start after today: %v", err)
	}
	// Today itself is a one-day open range.
	if r, err := ParseRangeAt("2026-11-21..", now, loc); err != nil || r.To.Sub(r.From) != 24*time.Hour-time.Second {
		t.Fatalf("today..: %v %v", r, err)
	}
}

func TestTotals(t *testing.T) {
	item := func(typ string, a int64) api.Charge { return api.Charge{Type: typ, Amount: moneyOf(a)} }
	entries := []api.Charge{
		{Type: "instance", Amount: 1500, Items: []api.Charge{item("gpu", 1000), item("disk", 300), item("bwd", 150), item("bwu", 50)}},
		{Type: "volume", Amount: 200, Items: []api.Charge{item("disk", 200)}},
		{Type: "serverless", Amount: 700, Items: []api.Charge{ // endpoint → workergroup → contract
			{Type: "serverless", Amount: 700, Items: []api.Charge{
				{Type: "instance", Amount: 700, Items: []api.Charge{item("gpu", 600), item("disk", 100)}},
			}},
		}},
		{Type: "instance", Amount: 40, Meta: api.Metadata{EndpointID: 3}}, // table-format worker, no breakdown
	}
	var tot Totals
	tot.Add(entries[:2])
	tot.Add(entries[2:])
	if tot.Contracts != 4 || tot.Total != 2440 {
		t.Fatalf("contracts %d total %d", tot.Contracts, tot.Total)
	}
	wantType := map[string]int64{"instance": 1500, "volume": 200, "serverless": 740}
	for k, v := range wantType {
		if int64(tot.ByType[k]) != v {
			t.Errorf("ByType[%s] = %d, want %d", k, tot.ByType[k], v)
		}
	}
	wantItem := map[string]int64{"gpu": 1600, "disk": 600, "bwd": 150, "bwu": 50, "other": 40}
	var sum int64
	for k, v := range wantItem {
		if int64(tot.ByItem[k]) != v {
			t.Errorf("ByItem[%s] = %d, want %d", k, tot.ByItem[k], v)
		}
		sum += v
	}
	if sum != int64(tot.Total) {
		t.Fatalf("item split %d does not add up to %d", sum, tot.Total)
	}
}

func moneyOf(a int64) money.Amount { return money.Amount(a) }
