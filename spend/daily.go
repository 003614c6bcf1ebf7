package spend

import (
	"math/bits"
	"sort"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// DayShare is the part of an amount that falls on one calendar day.
type DayShare struct {
	Day    time.Time // midnight in the location the spread was made in
	Amount money.Amount
}

// Spread divides amount over the calendar days (in loc) that [start, end]
// covers, in proportion to the seconds on each day. The shares are whole
// thousandths and add up to amount exactly: each day gets the floor of its
// exact share, and the thousandths left over go to the days with the largest
// remainders (the earlier day on a tie), so the result is deterministic.
// Days are found with the calendar, so a day with a daylight-saving change
// weighs its 23 or 25 hours. A contract with no duration (end <= start, or a
// missing time) falls wholly on the day it names.
func Spread(amount money.Amount, start, end int64, loc *time.Location) []DayShare {
	if start == 0 {
		start = end
	}
	if end <= start {
		return []DayShare{{Day: midnight(time.Unix(start, 0).In(loc)), Amount: amount}}
	}
	neg := amount < 0
	abs := uint64(amount)
	if neg {
		abs = uint64(-amount)
	}
	total := uint64(end - start)

	type part struct {
		share DayShare
		rem   uint64
	}
	var parts []part
	var given uint64
	day := midnight(time.Unix(start, 0).In(loc))
	for day.Unix() < end {
		next := day.AddDate(0, 0, 1)
		lo, hi := max(day.Unix(), start), min(next.Unix(), end)
		if hi > lo {
			// abs*secs/total without overflow: amounts up to 2^63 times
			// seconds up to 2^63 fit in 128 bits.
			h, l := bits.Mul64(abs, uint64(hi-lo))
			q, r := bits.Div64(h, l, total)
			parts = append(parts, part{share: DayShare{Day: day, Amount: money.Amount(q)}, rem: r})
			given += q
		}
		day = next
	}
	// Hand out the leftover thousandths by largest remainder.
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return parts[order[a]].rem > parts[order[b]].rem })
	for i := uint64(0); i < abs-given; i++ {
		parts[order[i]].share.Amount++
	}
	out := make([]DayShare, len(parts))
	for i, p := range parts {
		out[i] = p.share
		if neg {
			out[i].Amount = -out[i].Amount
		}
	}
	return out
}

// DayTotal is one calendar day of spend.
type DayTotal struct {
	Day    time.Time
	Total  money.Amount
	ByType map[string]money.Amount // by ContractKind
}

// Daily accumulates entries spread over calendar days, by contract kind.
type Daily struct {
	loc   *time.Location
	days  map[int64]*DayTotal // keyed by the day's midnight, unix seconds
	total money.Amount
}

// NewDaily starts an empty accumulator whose days begin at midnight in loc.
func NewDaily(loc *time.Location) *Daily {
	return &Daily{loc: loc, days: map[int64]*DayTotal{}}
}

// Add spreads top-level entries over their days.
func (d *Daily) Add(entries []api.Charge) {
	for i := range entries {
		e := &entries[i]
		kind := ContractKind(e)
		for _, s := range Spread(e.Amount, e.Start, e.End, d.loc) {
			k := s.Day.Unix()
			dt := d.days[k]
			if dt == nil {
				dt = &DayTotal{Day: s.Day, ByType: map[string]money.Amount{}}
				d.days[k] = dt
			}
			dt.Total += s.Amount
			dt.ByType[kind] += s.Amount
			d.total += s.Amount
		}
	}
}

// Total is everything added, on whatever day it fell.
func (d *Daily) Total() money.Amount { return d.total }

// Days returns every calendar day from the day of from to the day of to,
// inclusive, zero days included, in order.
func (d *Daily) Days(from, to time.Time) []DayTotal {
	var out []DayTotal
	for day := midnight(from.In(d.loc)); !day.After(to); day = day.AddDate(0, 0, 1) {
		if dt := d.days[day.Unix()]; dt != nil {
			out = append(out, *dt)
		} else {
			out = append(out, DayTotal{Day: day, ByType: map[string]money.Amount{}})
		}
	}
	return out
}

func midnight(t time.Time) time.Time {
	y, m, dd := t.Date()
	return time.Date(y, m, dd, 0, 0, 0, 0, t.Location())
}
