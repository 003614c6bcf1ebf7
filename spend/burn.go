package spend

import (
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// Burn is an average daily spend and the window it was measured over.
type Burn struct {
	PerDay   money.Amount
	From, To time.Time
	Label    string // "last 7 complete days", "last 24 h"
	// Overflow says the spend was too large to sum; PerDay is then
	// money.MaxAmount or money.MinAmount and must not be shown as a figure.
	Overflow bool
}

// BurnWindow is the range of charges the burn figures need at now in loc:
// From is midnight 7 days before today, To the last second of today. Load
// it whole: BurnWeek measures the 7 complete days before today within it
// (today is partial), and the 24-hour burn reaches into today. Days are
// counted on the calendar (like AddDate), so a window across a
// daylight-saving change still holds 7 whole days and all of today. A nil
// loc is UTC.
func BurnWindow(now time.Time, loc *time.Location) (from, to time.Time) {
	today := Midnight(now.In(orUTC(loc)))
	return addDays(today, -7), nextDay(today).Add(-time.Second)
}

// BurnWeek averages the 7 complete calendar days before today (in the
// Daily's location): today is partial, so it would drag the average down.
// A Daily from NewDailyWindow must cover those days (see BurnWindow).
func BurnWeek(d *Daily, now time.Time) Burn {
	today := Midnight(now.In(d.loc))
	from := addDays(today, -7)
	var sum money.Amount
	over := false
	for _, day := range d.Days(from, today.Add(-time.Second)) {
		var ok bool
		sum, ok = sum.AddSaturating(day.Total)
		// A saturated day is an overflow even if a negative sum absorbs it.
		over = over || !ok || day.Total.Saturated()
	}
	b := Burn{PerDay: divRound(sum, 7), From: from, To: today, Label: "last 7 complete days", Overflow: over}
	if over {
		// Dividing a saturated sum would give a plausible, wrong rate.
		b.PerDay = money.MaxAmount
		if sum < 0 {
			b.PerDay = money.MinAmount
		}
	}
	return b
}

// Window sums the parts of entries that fall inside [From, To), each entry's
// amount taken in proportion to its seconds inside the window.
type Window struct {
	From, To time.Time
	Sum      money.Amount
	// Overflow says Sum became too large for an Amount; it is then held
	// at money.MaxAmount or money.MinAmount and must not be shown.
	Overflow bool
}

// Add folds entries into the window. Any int64 start and end is valid
// (0 means missing, as for Spread).
func (w *Window) Add(entries []api.Charge) {
	lo, hi := w.From.Unix(), w.To.Unix()
	for i := range entries {
		e := &entries[i]
		start, end := contractSpan(e.Start, e.End)
		var part money.Amount
		if end == start {
			if start < lo || start >= hi {
				continue
			}
			part = e.Amount
		} else {
			a, b := max(start, lo), min(end, hi)
			if b <= a {
				continue
			}
			// end-start can exceed int64 (MinInt64 to MaxInt64); as
			// unsigned it is exact.
			part = proportion(e.Amount, uint64(b)-uint64(a), uint64(end)-uint64(start))
		}
		var ok bool
		if w.Sum, ok = w.Sum.AddSaturating(part); !ok {
			w.Overflow = true
		}
	}
}

// Burn24h is the window's sum as a daily rate; the window is the 24 hours
// before now.
func (w *Window) Burn24h() Burn {
	return Burn{PerDay: w.Sum, From: w.From, To: w.To, Label: "last 24 h", Overflow: w.Overflow}
}

// Last24h returns an empty window over the 24 hours before now.
func Last24h(now time.Time) *Window {
	return &Window{From: now.Add(-24 * time.Hour), To: now}
}

// Runway is how long the credit lasts at a burn rate.
type Runway struct {
	// Tenths of days; valid only when Reason is empty.
	Tenths int64
	// Seconds is the runway to the second, for Length: a credit that
	// lasts an hour is 0 tenths of days, and must not read as none. 0
	// with Tenths set (a Runway made by hand) is Tenths' seconds.
	Seconds int64
	Until   time.Time
	// Reason says why there is no estimate ("no spend in the last 7
	// complete days", "charges still loading", "no credit left").
	Reason string
}

// RunwayFor estimates credit ÷ burn. complete says whether every charge of
// the burn window was loaded; a partial figure would overstate the runway.
// It cannot overflow: a runway beyond what int64 tenths hold is clamped, and
// an Until past year 9999 is 9999-12-31.
func RunwayFor(credit money.Amount, burn Burn, complete bool, now time.Time) Runway {
	switch {
	case credit <= 0:
		return Runway{Reason: "no credit left"}
	case !complete:
		return Runway{Reason: "charges still loading"}
	case burn.Overflow:
		return Runway{Reason: "spend too large to estimate"}
	case burn.PerDay <= 0:
		return Runway{Reason: "no spend in the " + burn.Label}
	}
	tenths := mulDiv(uint64(credit), 10, uint64(burn.PerDay))
	// credit/burn days, to the second, for the date.
	secs := mulDiv(uint64(credit), 86400, uint64(burn.PerDay))
	until := maxTime.In(now.Location())
	if secs < math.MaxInt64/int64(time.Second) && now.Add(time.Duration(secs)*time.Second).Before(until) {
		until = now.Add(time.Duration(secs) * time.Second)
	}
	return Runway{Tenths: tenths, Seconds: secs, Until: until}
}

// mulDiv is a*b/c for positive values, clamped to math.MaxInt64.
func mulDiv(a, b, c uint64) int64 {
	h, l := bits.Mul64(a, b)
	if h >= c {
		return math.MaxInt64
	}
	q, _ := bits.Div64(h, l, c)
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(q)
}

// Days is the runway in days, for machines (JSON); 0 without an estimate.
// From two days on it is the tenths Length says; under two days, to the
// thousandth, rounded down: an hour and a quarter is 0.052, not 0.0, which
// a status bar would show as none left.
func (r Runway) Days() float64 {
	if r.Tenths >= 20 || r.Seconds == 0 {
		return float64(r.Tenths) / 10
	}
	return float64(r.Seconds*1000/86400) / 1000
}

// yearAfterTenths is the runway, in tenths of days, from which String
// writes the year of Until: "until 13 Oct" is read as the next 13 Oct, so
// it is only wrong from a year on; writing it from 300 days on keeps the
// reader from counting. The runway's own length decides, not the clock,
// so the same Runway always reads the same.
const yearAfterTenths = 3000

// String reads "≈ 12.4 days (until 4 Dec)", "≈ 31 hours (until 4 Dec)"
// or "— no credit left"; from 300 days on it reads "≈ 1234.5 days (until 9
// Apr 2030)".
func (r Runway) String() string {
	if r.Reason != "" {
		return "— " + r.Reason
	}
	layout := "2 Jan"
	if r.Tenths >= yearAfterTenths {
		layout = "2 Jan 2006"
	}
	return fmt.Sprintf("≈ %s (until %s)", r.Length(), r.Until.Format(layout))
}

// Length is how long the runway is, in the unit that reads: days with a
// tenth from two days on ("12.4 days"), whole hours under two days ("31
// hours"), hours and minutes under two hours ("1 h 15 min", "40 min"),
// "under a minute" below that. Every unit is rounded down, so that a
// runway never reads longer than it is, and none reads as no time at all
// while there is some ("0.0 days" for an hour and a quarter). The
// commands, the screens and serve's text all say a runway with it; ""
// when there is no figure (Reason is set).
func (r Runway) Length() string {
	if r.Reason != "" {
		return ""
	}
	secs := r.Seconds
	if secs == 0 {
		secs = r.Tenths * 8640
	}
	switch {
	case secs >= 2*86400:
		return fmt.Sprintf("%d.%d days", r.Tenths/10, r.Tenths%10)
	case secs >= 2*3600:
		return fmt.Sprintf("%d hours", secs/3600)
	case secs >= 3600:
		return fmt.Sprintf("1 h %d min", (secs-3600)/60)
	case secs >= 60:
		return fmt.Sprintf("%d min", secs/60)
	}
	return "under a minute"
}

// proportion is a×num/den rounded to the nearest thousandth, without
// overflowing for any amount and duration.
func proportion(a money.Amount, num, den uint64) money.Amount {
	neg := a < 0
	abs := uint64(a)
	if neg {
		abs = uint64(-a)
	}
	h, l := bits.Mul64(abs, num)
	q, r := bits.Div64(h, l, den)
	if r >= den-r {
		q++
	}
	if neg {
		return -money.Amount(q)
	}
	return money.Amount(q)
}

// divRound divides an amount by n > 0, halves away from zero, for every
// amount: no negation of math.MinInt64, no a+n/2 that overflows near the top.
func divRound(a money.Amount, n int64) money.Amount {
	q, r := int64(a)/n, int64(a)%n
	switch {
	case r > 0 && r >= n-r:
		q++
	case r < 0 && -r >= n+r:
		q--
	}
	return money.Amount(q)
}
