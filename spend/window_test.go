package spend

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// refSpread is Spread as it was before windows: a walk over every day of the
// contract with AddDate. It is the reference for ordinary contracts, where
// the new code must agree to the thousandth.
func refSpread(amount money.Amount, start, end int64, loc *time.Location) []DayShare {
	midnight := func(t time.Time) time.Time {
		y, m, dd := t.Date()
		return time.Date(y, m, dd, 0, 0, 0, 0, t.Location())
	}
	if start == 0 {
		start = end
	}
	if end <= start {
		return []DayShare{{Day: midnight(time.Unix(start, 0).In(loc)), Amount: amount}}
	}
	// The part before instant x: amount*(x-start)/(end-start), to the
	// nearest thousandth (halves away from zero), in big integers.
	a, total := big.NewInt(int64(amount)), big.NewInt(end-start)
	upTo := func(x int64) int64 {
		n := new(big.Int).Mul(a, big.NewInt(x-start))
		n.Mul(n, big.NewInt(2))
		if n.Sign() >= 0 {
			n.Add(n, total)
		} else {
			n.Sub(n, total)
		}
		return n.Quo(n, new(big.Int).Mul(total, big.NewInt(2))).Int64()
	}
	var out []DayShare
	for day := midnight(time.Unix(start, 0).In(loc)); day.Unix() < end; day = day.AddDate(0, 0, 1) {
		next := day.AddDate(0, 0, 1)
		lo, hi := max(day.Unix(), start), min(next.Unix(), end)
		if hi > lo {
			out = append(out, DayShare{Day: day, Amount: money.Amount(upTo(hi) - upTo(lo))})
		}
	}
	return out
}

func sameShares(a, b []DayShare) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Day.Equal(b[i].Day) || a[i].Amount != b[i].Amount {
			return false
		}
	}
	return true
}

// sumShares adds shares and lumps exactly, in a big.Int: the parts of
// money.MinAmount may sum to exactly the bound, which a saturating sum would
// report as an overflow.
func sumShares(t *testing.T, shares []DayShare, lumps ...money.Amount) money.Amount {
	t.Helper()
	sum := new(big.Int)
	for _, a := range lumps {
		sum.Add(sum, big.NewInt(int64(a)))
	}
	for _, s := range shares {
		sum.Add(sum, big.NewInt(int64(s.Amount)))
	}
	if !sum.IsInt64() {
		t.Fatalf("%d shares and %d lumps of one amount sum to %s", len(shares), len(lumps), sum)
	}
	return money.Amount(sum.Int64())
}

func testLocs(t *testing.T) []*time.Location {
	locs := []*time.Location{time.UTC, time.FixedZone("odd", 5*3600+45*60), time.FixedZone("west", -11*3600)}
	for _, z := range []string{"Europe/Berlin", "America/New_York", "Australia/Lord_Howe"} {
		if loc, err := time.LoadLocation(z); err == nil {
			locs = append(locs, loc)
		}
	}
	return locs
}

// Property: for a contract wholly inside the window, SpreadWithin is exactly
// a day-by-day reference spread with no lumps; and so is Spread. For one
// that crosses the window, the window's shares are exactly Spread's for the
// days inside it (a day's share does not depend on the window), and shares
// plus lumps still add up to the amount.
func TestSpreadWithinMatchesSpread(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	for _, loc := range testLocs(t) {
		from := time.Date(2026, 3, 10, 0, 0, 0, 0, loc)
		to := time.Date(2026, 11, 20, 23, 59, 59, 0, loc)
		lo, hi := from.Unix(), time.Date(2026, 11, 21, 0, 0, 0, 0, loc).Unix()
		for i := 0; i < 4000; i++ {
			start := base + r.Int64N(365*86400)
			end := start + r.Int64N(60*86400)
			if i%10 == 0 {
				end = start // a point in time
			}
			amount := money.Amount(r.Int64N(5_000_000) - 1_000_000)
			if i%50 == 0 {
				amount = money.Amount(r.Int64N(math.MaxInt64)) // big amounts too
			}
			want := refSpread(amount, start, end, loc)
			if got := Spread(amount, start, end, loc); !sameShares(got, want) {
				t.Fatalf("%s: Spread(%d, %d, %d) = %v, want %v", loc, amount, start, end, got, want)
			}
			in, before, after := SpreadWithin(amount, start, end, loc, from, to)
			if sum := sumShares(t, in, before, after); sum != amount {
				t.Fatalf("%s: shares + lumps = %d, amount %d", loc, sum, amount)
			}
			if start >= lo && end <= hi {
				if before != 0 || after != 0 || !sameShares(in, want) {
					t.Fatalf("%s: inside the window SpreadWithin(%d, %d, %d) = %v %d %d, want %v", loc, amount, start, end, in, before, after, want)
				}
				continue
			}
			// Crossing the window: the same days as Spread's inside it,
			// each with exactly Spread's share.
			var inside []DayShare
			for _, s := range want {
				if s.Day.Unix() >= lo && s.Day.Unix() < hi {
					inside = append(inside, s)
				}
			}
			if len(inside) != len(in) {
				t.Fatalf("%s: %d window days, Spread has %d: %v vs %v", loc, len(in), len(inside), in, inside)
			}
			for j := range in {
				if !in[j].Day.Equal(inside[j].Day) || in[j].Amount != inside[j].Amount {
					t.Fatalf("%s: window share %v, Spread's %v", loc, in[j], inside[j])
				}
			}
		}
	}
}

func TestSpreadWithinOnDaylightSavingDay(t *testing.T) {
	loc := mustLoad(t, "Europe/Berlin")
	// A contract from 20 Oct to 30 Oct 2026 (241 hours: 25 Oct has 25) seen
	// through a window of 24..26 Oct: 73 of its hours are inside.
	start := time.Date(2026, 10, 20, 0, 0, 0, 0, loc).Unix()
	end := time.Date(2026, 10, 30, 0, 0, 0, 0, loc).Unix()
	from := time.Date(2026, 10, 24, 0, 0, 0, 0, loc)
	to := time.Date(2026, 10, 26, 23, 59, 59, 0, loc)
	in, before, after := SpreadWithin(241_000, start, end, loc, from, to)
	if len(in) != 3 || in[0].Amount != 24000 || in[1].Amount != 25000 || in[2].Amount != 24000 {
		t.Fatalf("window shares %+v", in)
	}
	if in[1].Day.Day() != 25 || in[1].Day.Hour() != 0 || in[2].Day.Sub(in[1].Day) != 25*time.Hour {
		t.Fatalf("the 25-hour day is %v", in[1].Day)
	}
	if before != 96_000 || after != 72_000 {
		t.Fatalf("before %d after %d", before, after)
	}
	// São Paulo skipped 00:00 on 4 Nov 2018: that day starts at 01:00 and
	// has 23 hours, and must be filed under the 4th, not 23:00 on the 3rd.
	sp := mustLoad(t, "America/Sao_Paulo")
	start = time.Date(2018, 11, 3, 0, 0, 0, 0, sp).Unix()
	end = time.Date(2018, 11, 6, 0, 0, 0, 0, sp).Unix() // 24 + 23 + 24 hours
	in, before, after = SpreadWithin(71_000, start, end, sp, time.Date(2018, 11, 4, 12, 0, 0, 0, sp), time.Date(2018, 11, 4, 13, 0, 0, 0, sp))
	if len(in) != 1 || in[0].Amount != 23000 || in[0].Day.Format("2006-01-02 15:04") != "2018-11-04 01:00" || before != 24000 || after != 24000 {
		t.Fatalf("São Paulo: %v %d %d", in, before, after)
	}
}

// Samoa skipped 30 Dec 2011. Walking days with AddDate from the 29th named
// the 29th again forever: Spread never returned.
func TestSpreadOverSkippedDay(t *testing.T) {
	apia := mustLoad(t, "Pacific/Apia")
	start := time.Date(2011, 12, 28, 0, 0, 0, 0, apia).Unix()
	end := start + 4*86400 // 28, 29, 31 Dec and 1 Jan: 24 hours each
	got := Spread(4000, start, end, apia)
	var days []int
	for _, s := range got {
		days = append(days, s.Day.Day())
		if s.Amount != 1000 {
			t.Fatalf("shares %v", got)
		}
	}
	if len(days) != 4 || days[2] != 31 || days[3] != 1 {
		t.Fatalf("days %v", days)
	}
	in, before, after := SpreadWithin(4000, start, end, apia, time.Date(2011, 12, 29, 5, 0, 0, 0, apia), time.Date(2011, 12, 31, 5, 0, 0, 0, apia))
	if len(in) != 2 || before != 1000 || after != 1000 {
		t.Fatalf("window %v %d %d", in, before, after)
	}
}

// Corrupt end times used to make Spread walk every day to them: 1e18 seconds
// allocated until the machine ran out, 9999-12-31 cost 1.1 GB and 8 s.
func TestSpreadHugeEnds(t *testing.T) {
	start := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC).Unix()
	from, to := day(1), day(30).Add(24*time.Hour-time.Second)
	for _, end := range []int64{
		1e18,
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix(),
		math.MaxInt64,
	} {
		for _, amount := range []money.Amount{12_345_678, -1, money.MaxAmount, money.MinAmount} {
			t0 := time.Now()
			shares := Spread(amount, start, end, time.UTC)
			if len(shares) > MaxDays+2 {
				t.Fatalf("end %d: %d shares, want at most MaxDays+2", end, len(shares))
			}
			if sum := sumShares(t, shares); sum != amount {
				t.Fatalf("end %d: Spread shares sum to %d, want %d", end, sum, amount)
			}
			in, before, after := SpreadWithin(amount, start, end, time.UTC, from, to)
			if len(in) != 30 || before != 0 {
				t.Fatalf("end %d: %d window days, before %d", end, len(in), before)
			}
			if sum := sumShares(t, in, before, after); sum != amount {
				t.Fatalf("end %d: window shares sum to %d, want %d", end, sum, amount)
			}
			if el := time.Since(t0); el > 2*time.Second {
				t.Fatalf("end %d took %v", end, el)
			}
		}
	}
	// The rule for Spread: MaxDays days from the start, the rest on the
	// last day (clamped to 9999-12-31).
	shares := Spread(1_000_000, start, 1e18, time.UTC)
	last := shares[len(shares)-1]
	if len(shares) != MaxDays+1 || last.Day.Year() != 9999 || shares[0].Day.Unix() != day(1).Unix() {
		t.Fatalf("%d shares, first %v, last %v", len(shares), shares[0], last)
	}
}

// A start of math.MinInt64 used to overflow end-start and crash.
func TestSpreadExtremeTimes(t *testing.T) {
	times := []int64{math.MinInt64, math.MinInt64 + 1, -62135596801, -1, 0, 1, now.Unix(), 253402300799, 1e18, math.MaxInt64 - 1, math.MaxInt64}
	amounts := []money.Amount{0, 1, -1, 1_000, money.MaxAmount, money.MinAmount, 1e18}
	berlin := mustLoad(t, "Europe/Berlin")
	for _, loc := range []*time.Location{berlin, nil} {
		w := NewDailyWindow(loc, day(1), day(30))
		d := NewDaily(loc)
		for _, start := range times {
			for _, end := range times {
				for _, amount := range amounts {
					shares := Spread(amount, start, end, loc)
					if len(shares) == 0 || len(shares) > MaxDays+2 {
						t.Fatalf("Spread(%d, %d, %d): %d shares", amount, start, end, len(shares))
					}
					if sum := sumShares(t, shares); sum != amount {
						t.Fatalf("Spread(%d, %d, %d) sums to %d", amount, start, end, sum)
					}
					in, before, after := SpreadWithin(amount, start, end, loc, day(1), day(30))
					if sum := sumShares(t, in, before, after); sum != amount || len(in) > 30 {
						t.Fatalf("SpreadWithin(%d, %d, %d): %d days, sum %d", amount, start, end, len(in), sum)
					}
				}
				c := []api.Charge{{Type: "instance", Amount: money.MinAmount, Start: start, End: end}}
				d.Add(c)
				w.Add(c)
				win := Last24h(now)
				win.Add(c)
			}
		}
	}
}

// Twelve charges of $1e15 (1e18 thousandths) are past int64; every running
// sum used to wrap to a negative figure.
func TestSumsSaturateOnOverflow(t *testing.T) {
	var charges []api.Charge
	for i := 0; i < 12; i++ {
		charges = append(charges, api.Charge{Type: "instance", Amount: 1e18, Start: now.Add(-time.Hour).Unix(), End: now.Unix(),
			Items: []api.Charge{{Type: "gpu", Amount: 1e18}}})
	}
	var tot Totals
	tot.Add(charges)
	if !tot.Overflow || tot.Total != money.MaxAmount || tot.ByType["instance"] != money.MaxAmount || tot.ByItem["gpu"] != money.MaxAmount {
		t.Fatalf("totals: overflow %v total %d by type %v by item %v", tot.Overflow, tot.Total, tot.ByType, tot.ByItem)
	}
	// A refund after the overflow must not bring the total back to a
	// plausible figure.
	tot.Add([]api.Charge{{Type: "instance", Amount: -5e18}})
	if tot.Total != money.MaxAmount || !tot.Total.Saturated() {
		t.Fatalf("total after refund %d", tot.Total)
	}

	for _, d := range []*Daily{NewDaily(time.UTC), NewDailyWindow(time.UTC, day(20), day(21))} {
		d.Add(charges)
		days := d.Days(day(21), day(21))
		if !d.Overflow() || d.Total() != money.MaxAmount || len(days) != 1 || days[0].Total != money.MaxAmount || days[0].ByType["instance"] != money.MaxAmount {
			t.Fatalf("daily: overflow %v total %d days %+v", d.Overflow(), d.Total(), days)
		}
	}

	w := Last24h(now)
	w.Add(charges)
	if !w.Overflow || w.Sum != money.MaxAmount {
		t.Fatalf("window: overflow %v sum %d", w.Overflow, w.Sum)
	}
	b := w.Burn24h()
	if !b.Overflow || RunwayFor(1000, b, true, now).Reason == "" {
		t.Fatalf("burn %+v gave a runway", b)
	}

	// A week of such days: the weekly burn says overflow instead of
	// dividing a saturated sum into a plausible rate.
	d := NewDaily(time.UTC)
	for i := 0; i < 12; i++ {
		d.Add([]api.Charge{{Amount: 1e18, Start: day(15).Unix(), End: day(20).Unix()}})
	}
	if wk := BurnWeek(d, now); !wk.Overflow || wk.PerDay != money.MaxAmount {
		t.Fatalf("week burn %+v", wk)
	}
	// Below the limit nothing is flagged.
	var small Totals
	small.Add(charges[:9])
	if small.Overflow || small.Total != 9e18 {
		t.Fatalf("nine: overflow %v total %d", small.Overflow, small.Total)
	}
}

func TestDaysIsBounded(t *testing.T) {
	d := NewDaily(time.UTC)
	days := d.Days(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC))
	if len(days) != MaxDays || days[0].Day.Year() != 1 {
		t.Fatalf("%d days from %v", len(days), days[0].Day)
	}
	// Times past what a calendar day can name are clamped, not overflowed.
	if days := d.Days(time.Unix(1e18, 0), time.Unix(1e18, 0)); len(days) > 1 {
		t.Fatalf("%d days at 1e18", len(days))
	}
	if days := d.Days(day(5), day(1)); len(days) != 0 {
		t.Fatalf("reversed range gave %d days", len(days))
	}
	// A window longer than MaxDays keeps its first MaxDays days.
	in, _, after := SpreadWithin(1000, 1, math.MaxInt64, time.UTC, time.Unix(0, 0), time.Unix(1e18, 0))
	if len(in) != MaxDays || after == 0 {
		t.Fatalf("%d window days, after %d", len(in), after)
	}
}

func TestWindowedDailyMatchesDaily(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	base := day(1).Unix()
	from, to := day(10), day(20).Add(-time.Second)
	full, win := NewDaily(time.UTC), NewDailyWindow(time.UTC, from, to)
	var inside money.Amount
	for i := 0; i < 500; i++ {
		start := base + r.Int64N(25*86400)
		// Contracts wholly inside the window spread the same way in both.
		if start < from.Unix() || start >= to.Unix()-3*86400 {
			continue
		}
		c := []api.Charge{{Type: "volume", Amount: money.Amount(r.Int64N(100_000)), Start: start, End: start + r.Int64N(3*86400)}}
		full.Add(c)
		win.Add(c)
		inside += c[0].Amount
	}
	// One long contract crossing the window, ending at 9999-12-31.
	long := []api.Charge{{Type: "instance", Amount: 5_000_000, Start: day(1).Unix(), End: time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC).Unix()}}
	win.Add(long)
	before, after := win.Outside()
	if before == 0 || after == 0 || win.Total() != inside+5_000_000 || win.Overflow() {
		t.Fatalf("outside %d %d, total %d", before, after, win.Total())
	}
	fd, wd := full.Days(from, to), win.Days(from, to)
	var shown money.Amount
	for i := range wd {
		shown += wd[i].Total
		if wd[i].ByType["volume"] != fd[i].Total {
			t.Fatalf("%v: windowed %d, full %d", wd[i].Day, wd[i].ByType["volume"], fd[i].Total)
		}
	}
	if shown+before+after != win.Total() {
		t.Fatalf("days %d + outside %d %d != total %d", shown, before, after, win.Total())
	}
}

func TestDivRoundAndRunwayExtremes(t *testing.T) {
	cases := map[money.Amount]money.Amount{10: 1, 11: 2, -10: -1, -11: -2, 3: 0, 4: 1, -4: -1,
		money.MinAmount: money.MinAmount / 7, money.MaxAmount: money.MaxAmount / 7}
	for a, want := range cases {
		if got := divRound(a, 7); got != want {
			t.Errorf("divRound(%d, 7) = %d, want %d", a, got, want)
		}
	}
	r := RunwayFor(money.MaxAmount-1, Burn{PerDay: 1}, true, now)
	if r.Reason != "" || r.Tenths != math.MaxInt64 || r.Until.Year() != 9999 {
		t.Fatalf("runway %+v", r)
	}
	if r := RunwayFor(1_000_000, Burn{PerDay: 1000}, true, now); r.Tenths != 10000 || !r.Until.Equal(now.AddDate(0, 0, 1000)) {
		t.Fatalf("runway %+v", r)
	}
}

// SpreadWithin's cost is the window's: a contract to 9999-12-31 costs what a
// one-month one does.
func BenchmarkSpreadWithinHugeSpan(b *testing.B) {
	start := time.Date(2026, 11, 1, 6, 0, 0, 0, time.UTC).Unix()
	from, to := day(1), day(30).Add(24*time.Hour-time.Second)
	for _, bc := range []struct {
		name string
		end  int64
	}{
		{"month", day(30).Unix()},
		{"9999-12-31", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()},
		{"MaxInt64", math.MaxInt64},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				SpreadWithin(12_345_678, start, bc.end, time.UTC, from, to)
			}
		})
	}
}

func FuzzSpreadWithin(f *testing.F) {
	f.Add(int64(12345), int64(1_790_000_000), int64(1_800_000_000), int64(0), int64(20))
	f.Add(int64(math.MinInt64), int64(math.MinInt64), int64(math.MaxInt64), int64(-3), int64(3))
	f.Add(int64(-1), int64(0), int64(253402300799), int64(5), int64(-5))
	f.Add(int64(1e18), int64(1_790_000_000), int64(1e18), int64(-MaxDays*2), int64(MaxDays*2))
	loc := time.FixedZone("odd", 5*3600+45*60)
	f.Fuzz(func(t *testing.T, amount, start, end, fromDays, toDays int64) {
		fromDays, toDays = fromDays%(3*MaxDays), toDays%(3*MaxDays)
		mid := time.Date(2026, 6, 1, 0, 0, 0, 0, loc)
		from, to := mid.AddDate(0, 0, int(fromDays)), mid.AddDate(0, 0, int(toDays))
		in, before, after := SpreadWithin(money.Amount(amount), start, end, loc, from, to)
		if len(in) > MaxDays {
			t.Fatalf("%d days", len(in))
		}
		if sum := sumShares(t, in, before, after); sum != money.Amount(amount) {
			t.Fatalf("sum %d, amount %d", sum, amount)
		}
		for i := 1; i < len(in); i++ {
			if !in[i].Day.After(in[i-1].Day) {
				t.Fatalf("days out of order: %v", in)
			}
		}
		if shares := Spread(money.Amount(amount), start, end, loc); sumShares(t, shares) != money.Amount(amount) {
			t.Fatalf("Spread does not add up: %v", shares)
		}
	})
}
