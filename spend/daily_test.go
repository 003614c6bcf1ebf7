package spend

import (
	"math/rand/v2"
	"testing"
	"time"
	_ "time/tzdata" // the DST test needs Europe/Berlin even where the OS has no zoneinfo

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

func TestSpreadProportional(t *testing.T) {
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Unix()
	// 36 hours from noon on the 1st: 12 h on the 1st, 24 h on the 2nd.
	got := Spread(3000, day+12*3600, day+48*3600, time.UTC)
	if len(got) != 2 || got[0].Amount != 1000 || got[1].Amount != 2000 {
		t.Fatalf("got %+v", got)
	}
	// 1.000 over three equal days: the part before each day's end, to the
	// nearest thousandth, is 333, 667, 1000, so the days get 333, 334, 333.
	got = Spread(1000, day, day+72*3600, time.UTC)
	if got[0].Amount != 333 || got[1].Amount != 334 || got[2].Amount != 333 {
		t.Fatalf("got %+v", got)
	}
	// Negative amounts (refunds) spread the same way.
	got = Spread(-1000, day, day+72*3600, time.UTC)
	if got[0].Amount != -333 || got[1].Amount != -334 || got[2].Amount != -333 {
		t.Fatalf("got %+v", got)
	}
	// No duration: the whole amount on its day.
	got = Spread(500, day+100, day+100, time.UTC)
	if len(got) != 1 || got[0].Amount != 500 || got[0].Day.Unix() != day {
		t.Fatalf("got %+v", got)
	}
}

func TestSpreadDaylightSaving(t *testing.T) {
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zoneinfo:", err)
	}
	// 2026-10-25 has 25 hours in Berlin. A contract covering the 24th..26th
	// whole gives that day 25/73 of the amount.
	start := time.Date(2026, 10, 24, 0, 0, 0, 0, loc).Unix()
	end := time.Date(2026, 10, 27, 0, 0, 0, 0, loc).Unix()
	got := Spread(73000, start, end, loc)
	if len(got) != 3 {
		t.Fatalf("got %d days: %+v", len(got), got)
	}
	if got[0].Amount != 24000 || got[1].Amount != 25000 || got[2].Amount != 24000 {
		t.Fatalf("got %+v", got)
	}
	if got[1].Day.Day() != 25 || got[1].Day.Hour() != 0 {
		t.Fatalf("second day is %v", got[1].Day)
	}
}

// Property: over random contracts, the days add up exactly to the amounts,
// and no share falls on a day outside the contract.
func TestSpreadProperty(t *testing.T) {
	locs := []*time.Location{time.UTC, time.FixedZone("odd", 5*3600+45*60)}
	if berlin, err := time.LoadLocation("Europe/Berlin"); err == nil {
		locs = append(locs, berlin)
	}
	r := rand.New(rand.NewPCG(7, 8))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for _, loc := range locs {
		d := NewDaily(loc)
		var want money.Amount
		for i := 0; i < 3000; i++ {
			start := base + r.Int64N(330*86400)
			end := start + r.Int64N(40*86400)
			amount := money.Amount(r.Int64N(5_000_000) - 100_000)
			shares := Spread(amount, start, end, loc)
			var sum money.Amount
			for _, s := range shares {
				sum += s.Amount
				dayEnd := s.Day.AddDate(0, 0, 1).Unix()
				if dayEnd <= start || s.Day.Unix() > end {
					t.Fatalf("share on %v outside [%d, %d]", s.Day, start, end)
				}
			}
			if sum != amount {
				t.Fatalf("shares sum to %d, amount %d", sum, amount)
			}
			d.Add([]api.Charge{{Type: "instance", Amount: amount, Start: start, End: end}})
			want += amount
		}
		var days money.Amount
		for _, dt := range d.Days(time.Unix(base, 0).Add(-48*time.Hour), time.Unix(base, 0).AddDate(1, 2, 0)) {
			days += dt.Total
		}
		if days != want || d.Total() != want {
			t.Fatalf("%s: days sum %d, total %d, want %d", loc, days, d.Total(), want)
		}
	}
}

func TestDailyDaysIncludesEmptyDays(t *testing.T) {
	d := NewDaily(time.UTC)
	day := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	d.Add([]api.Charge{{Type: "volume", Amount: 700, Start: day.Unix() + 60, End: day.Unix() + 120}})
	days := d.Days(day.AddDate(0, 0, -2), day.AddDate(0, 0, 1).Add(-time.Second))
	if len(days) != 3 || days[0].Total != 0 || days[2].Total != 700 || days[2].ByType["volume"] != 700 {
		t.Fatalf("got %+v", days)
	}
}

// The Spreader's spreading over periods found once (the windowed
// Daily's, by day's grouping) is
// spreadWithin's, share for share, lump for lump: random contracts
// (points, negative and huge amounts, spans reaching far past either
// edge) over windows of days across a daylight-saving change and of
// months.
func TestSpreadKnownIsSpreadWithin(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skip("no zone database:", err)
	}
	rng := rand.New(rand.NewPCG(38, 1))
	windows := []struct {
		from, to time.Time
		p        Period
	}{
		{time.Date(2026, 3, 20, 13, 0, 0, 0, berlin), time.Date(2026, 4, 2, 9, 0, 0, 0, berlin), Day},
		{time.Date(2026, 10, 1, 0, 0, 0, 0, berlin), time.Date(2026, 11, 29, 23, 0, 0, 0, berlin), Day},
		{time.Date(2015, 1, 1, 0, 0, 0, 0, berlin), time.Date(2100, 1, 1, 0, 0, 0, 0, berlin), Month},
	}
	for _, w := range windows {
		d := NewSpreader(berlin, w.from, w.to, w.p)
		lo, hi := d.lo, d.hi
		for range 8000 {
			a := money.Amount(rng.Int64N(2_000_000) - 500_000)
			if rng.IntN(50) == 0 {
				a = money.Amount(rng.Int64()) // huge
			}
			span := hi - lo
			start := lo - span + rng.Int64N(3*span)
			end := start
			if rng.IntN(10) != 0 {
				end = start + rng.Int64N(span+1)
			}
			want, wb, wa := spreadWithin(a, start, end, berlin, w.p, lo, hi)
			got, gb, ga := d.spread(a, start, end, nil)
			if gb != wb || ga != wa || len(got) != len(want) {
				t.Fatalf("%v..%v: %v over %d..%d: %v %v %v, want %v %v %v", w.from, w.to, a, start, end, got, gb, ga, want, wb, wa)
			}
			for i := range want {
				if !got[i].Day.Equal(want[i].Day) || got[i].Amount != want[i].Amount {
					t.Fatalf("%v over %d..%d: share %d %v, want %v", a, start, end, i, got[i], want[i])
				}
			}
		}
	}
}
