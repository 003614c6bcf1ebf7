package spend

import (
	"fmt"
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
}

// BurnWeek averages the 7 complete calendar days before today (in the
// Daily's location): today is partial, so it would drag the average down.
func BurnWeek(d *Daily, now time.Time) Burn {
	today := midnight(now.In(d.loc))
	from := today.AddDate(0, 0, -7)
	var sum money.Amount
	for _, day := range d.Days(from, today.Add(-time.Second)) {
		sum += day.Total
	}
	return Burn{PerDay: divRound(sum, 7), From: from, To: today, Label: "last 7 complete days"}
}

// Window sums the parts of entries that fall inside [From, To), each entry's
// amount taken in proportion to its seconds inside the window.
type Window struct {
	From, To time.Time
	Sum      money.Amount
}

// Add folds entries into the window.
func (w *Window) Add(entries []api.Charge) {
	lo, hi := w.From.Unix(), w.To.Unix()
	for i := range entries {
		e := &entries[i]
		start, end := e.Start, e.End
		if start == 0 {
			start = end
		}
		if end <= start {
			if start >= lo && start < hi {
				w.Sum += e.Amount
			}
			continue
		}
		a, b := max(start, lo), min(end, hi)
		if b <= a {
			continue
		}
		w.Sum += proportion(e.Amount, uint64(b-a), uint64(end-start))
	}
}

// Burn24h is the window's sum as a daily rate; the window is the 24 hours
// before now.
func (w *Window) Burn24h() Burn {
	return Burn{PerDay: w.Sum, From: w.From, To: w.To, Label: "last 24 h"}
}

// Last24h returns an empty window over the 24 hours before now.
func Last24h(now time.Time) *Window {
	return &Window{From: now.Add(-24 * time.Hour), To: now}
}

// Runway is how long the credit lasts at a burn rate.
type Runway struct {
	// Tenths of days; valid only when Reason is empty.
	Tenths int64
	Until  time.Time
	// Reason says why there is no estimate ("no spend in the last 7
	// complete days", "charges still loading", "no credit left").
	Reason string
}

// RunwayFor estimates credit ÷ burn. complete says whether every charge of
// the burn window was loaded; a partial figure would overstate the runway.
func RunwayFor(credit money.Amount, burn Burn, complete bool, now time.Time) Runway {
	switch {
	case credit <= 0:
		return Runway{Reason: "no credit left"}
	case !complete:
		return Runway{Reason: "charges still loading"}
	case burn.PerDay <= 0:
		return Runway{Reason: "no spend in the " + burn.Label}
	}
	tenths := int64(credit) * 10 / int64(burn.PerDay)
	// credit/burn days, to the second, for the date.
	secs := int64(credit) * 86400 / int64(burn.PerDay)
	return Runway{Tenths: tenths, Until: now.Add(time.Duration(secs) * time.Second)}
}

// Days is the runway in days, for machines (JSON); 0 without an estimate.
func (r Runway) Days() float64 { return float64(r.Tenths) / 10 }

// String reads "≈ 12.4 days (until 4 Dec)" or "— no credit left".
func (r Runway) String() string {
	if r.Reason != "" {
		return "— " + r.Reason
	}
	return fmt.Sprintf("≈ %d.%d days (until %s)", r.Tenths/10, r.Tenths%10, r.Until.Format("2 Jan"))
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

// divRound divides an amount by n, halves away from zero.
func divRound(a money.Amount, n int64) money.Amount {
	if a < 0 {
		return -divRound(-a, n)
	}
	return money.Amount((int64(a) + n/2) / n)
}
