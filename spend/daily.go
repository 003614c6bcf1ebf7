package spend

import (
	"math/bits"
	"slices"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// DayShare is the part of an amount that falls on one calendar day.
type DayShare struct {
	Day    time.Time // the day's start (Midnight) in the spread's location
	Amount money.Amount
}

// Spread divides amount over the calendar days (in loc) that [start, end]
// covers, in proportion to the seconds on each day. The shares are whole
// thousandths and add up to amount exactly: the part of the amount before
// each day's end is rounded to the nearest thousandth, and a day gets the
// difference between its end's and its start's, so the result is
// deterministic and a day's share does not depend on which other days are
// asked for.
// Days are found with the calendar, so a day with a daylight-saving change
// weighs its 23 or 25 hours. A contract with no duration (end <= start, or a
// missing time) falls wholly on the day it names. A nil loc is UTC.
//
// Spread walks at most MaxDays days, so any start and end cost at most that
// much, whatever their values: the shares are those of SpreadWithin over the
// MaxDays days from the contract's first day, except that the part of a
// longer contract after them is one more share on its last day. A part before
// year 1 (a start near math.MinInt64) is added to the first share. Days
// outside years 1..9999 are named by the nearest day inside them. For a
// contract covering at most MaxDays calendar days this is the plain
// proportional spread.
// Callers that show a date range should use SpreadWithin, whose cost is the
// range's, not the contract's.
func Spread(amount money.Amount, start, end int64, loc *time.Location) []DayShare {
	loc = orUTC(loc)
	start, end = contractSpan(start, end)
	first := dayOf(start, loc)
	lo, hi := first.Unix(), addDays(first, MaxDays).Unix()
	out, before, after := spreadWithin(amount, start, end, loc, Day, lo, hi)
	if start < lo {
		if len(out) > 0 && out[0].Day.Equal(first) {
			out[0].Amount += before // same sign as every share: cannot overflow
		} else {
			out = slices.Insert(out, 0, DayShare{Day: first, Amount: before})
		}
	}
	lastSec := start // the contract's last second; end itself is not in it
	if end > start {
		lastSec = end - 1
	}
	if lastSec >= hi {
		last := dayOf(lastSec, loc)
		if n := len(out); n > 0 && !last.After(out[n-1].Day) {
			out[n-1].Amount += after
		} else {
			out = append(out, DayShare{Day: last, Amount: after})
		}
	}
	return out
}

// SpreadWithin is Spread seen through a window: it returns the shares of the
// contract's calendar days (in loc) that intersect [from, to], in order, and
// the parts of amount that fall before the window's first day and after its
// last day as two lumps. Shares, before and after add up to amount
// exactly, by the same rule as Spread, so every day's share is Spread's
// whatever the window: a month reads the same in a statement of one month
// and of twelve.
//
// It costs O(days of the window), however long the contract: a charge
// running to 9999-12-31 or to math.MaxInt64 costs the same as one running a
// day. Every int64 start and end is valid (0 means missing; see Spread). A
// window longer than MaxDays days is cut to its first MaxDays days, the rest
// counting as after; an empty window (to before from's day) has no days, and
// the contract splits at from's midnight into before and after. Times
// outside years 1..9999 are clamped into them. A nil loc is UTC.
func SpreadWithin(amount money.Amount, start, end int64, loc *time.Location, from, to time.Time) (in []DayShare, before, after money.Amount) {
	loc = orUTC(loc)
	start, end = contractSpan(start, end)
	lo, hi := window(Day, loc, from, to)
	return spreadWithin(amount, start, end, loc, Day, lo, hi)
}

// Period is the length of the steps a windowed Daily sums into: calendar
// days, or calendar months for a range too long to walk by the day.
type Period int

// The periods.
const (
	Day Period = iota
	Month
)

// PeriodFor is the finest period that covers [from, to] in loc within
// MaxDays steps: Day for a range of at most MaxDays days (ten years), Month
// beyond. A window in months covers every range vastdash accepts
// (2015..2100), so nothing of a long range is cut.
func PeriodFor(from, to time.Time, loc *time.Location) Period {
	if CountDays(from, to, loc) <= MaxDays {
		return Day
	}
	return Month
}

// CountDays is how many calendar dates (in loc) [from, to] touches, from's
// date and to's included; 0 when to's date is before from's. It costs the
// same for any range: the dates are counted on the calendar, not walked.
func CountDays(from, to time.Time, loc *time.Location) int {
	loc = orUTC(loc)
	date := func(t time.Time) int64 {
		y, m, d := clampTime(t).In(loc).Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
	}
	n := date(to) - date(from) + 1
	return int(max(n, 0))
}

// start is the first instant of t's period.
func (p Period) start(t time.Time) time.Time {
	if p == Month {
		return MonthStart(t, t.Location())
	}
	return Midnight(t)
}

// next is the first instant of the period after the one that begins at
// start. It always moves forward.
func (p Period) next(start time.Time) time.Time {
	if p == Month {
		return AddMonths(start, 1)
	}
	return nextDay(start)
}

// window is the half-open span of unix seconds [lo, hi) that the periods
// (in loc) of [from, to] cover, at most MaxDays of them.
func window(p Period, loc *time.Location, from, to time.Time) (lo, hi int64) {
	first := p.start(clampTime(from).In(loc))
	to = clampTime(to).In(loc)
	if to.Before(first) {
		return first.Unix(), first.Unix()
	}
	end, limit := p.next(p.start(to)), first
	if p == Day {
		limit = addDays(first, MaxDays)
	} else {
		limit = AddMonths(first, MaxDays)
	}
	if end.After(limit) {
		end = limit
	}
	return first.Unix(), end.Unix()
}

// partsOf divides amount over [start, end) (start < end): upTo(x) is the
// part of its magnitude abs before instant x (start <= x <= end),
// abs*(x-start)/(end-start) rounded to the nearest thousandth in 128 bits
// (x-start <= end-start, so the quotient fits), and signed gives a part
// the amount's sign. Every share is the difference of two upTo, so the
// shares add up to the amount exactly, and a day's share is the same in
// every window that holds it: a month of a one-month statement is the
// month of a year's.
func partsOf(amount money.Amount, start, end int64) (upTo func(int64) uint64, signed func(uint64) money.Amount, abs uint64) {
	neg := amount < 0
	abs = uint64(amount)
	if neg {
		abs = -abs // two's complement: right for math.MinInt64 too
	}
	// end-start may not fit in an int64 (MinInt64 to MaxInt64), but it
	// always fits in a uint64, and unsigned subtraction gets it exactly.
	total := uint64(end) - uint64(start)
	upTo = func(x int64) uint64 {
		secs := uint64(x) - uint64(start)
		h, l := bits.Mul64(abs, secs)
		var c uint64
		l, c = bits.Add64(l, total/2, 0)
		q, _ := bits.Div64(h+c, l, total)
		return q
	}
	signed = func(q uint64) money.Amount {
		if neg {
			return -money.Amount(q) // q = 2^63 wraps to MinInt64, which is right
		}
		return money.Amount(q)
	}
	return upTo, signed, abs
}

// spreadWithin is SpreadWithin on a normalized span (start <= end) and a
// window of period boundaries [lo, hi) in loc: days, or months.
func spreadWithin(amount money.Amount, start, end int64, loc *time.Location, p Period, lo, hi int64) (in []DayShare, before, after money.Amount) {
	if start == end { // a point in time: all of it on one side or one day
		switch {
		case start < lo:
			return nil, amount, 0
		case start >= hi:
			return nil, 0, amount
		}
		return []DayShare{{Day: p.start(time.Unix(start, 0).In(loc)), Amount: amount}}, 0, 0
	}
	upTo, signed, abs := partsOf(amount, start, end)
	if start < lo {
		before = signed(upTo(min(end, lo)))
	}
	if cur, stop := max(start, lo), min(end, hi); cur < stop {
		// Both are inside the window, so inside years 1..9999.
		day := p.start(time.Unix(cur, 0).In(loc))
		for n := 0; cur < stop; n++ {
			next := p.next(day)
			seg := min(next.Unix(), stop)
			if n > MaxDays+2 {
				seg = stop // cannot happen; a bound on the loop all the same
			}
			if seg > cur {
				in = append(in, DayShare{Day: day, Amount: signed(upTo(seg) - upTo(cur))})
				cur = seg
			}
			day = next
		}
	}
	if end > hi {
		after = signed(abs - upTo(max(start, hi)))
	}
	return in, before, after
}

// DayTotal is one calendar day of spend (or one month, in a Daily by
// months). A Total or ByType value that is money.MaxAmount or
// money.MinAmount overflowed (see Amount.Saturated).
type DayTotal struct {
	Day    time.Time // the first instant of the day (or month)
	Total  money.Amount
	ByType map[string]money.Amount // by ContractKind
}

// Daily accumulates entries spread over calendar days (or, windowed by
// NewPeriodWindow, months), by contract kind.
type Daily struct {
	loc      *time.Location
	period   Period
	windowed bool
	sp       *Spreader           // the window's periods, when windowed
	days     map[int64]*DayTotal // keyed by the day's midnight, unix seconds
	total    money.Amount
	before   money.Amount // windowed: the parts before and after the window
	after    money.Amount
	overflow bool
	shares   []DayShare // Add's, reused from one contract to the next
}

// NewDaily starts an empty accumulator whose days begin at midnight in loc.
// Its Add uses Spread, so a contract costs O(its days) up to MaxDays; a
// longer one (a corrupt end such as 9999-12-31) keeps its first MaxDays days
// and has the rest lumped on its last day. Prefer NewDailyWindow, which costs
// O(days shown) per contract.
func NewDaily(loc *time.Location) *Daily {
	return &Daily{loc: orUTC(loc), days: map[int64]*DayTotal{}}
}

// NewDailyWindow starts an empty accumulator that keeps only the calendar
// days (in loc) that intersect [from, to], at most MaxDays of them (see
// SpreadWithin). Its Add costs O(days of the window) per contract whatever
// the contract's span. Days outside the window read as zero in Days; what
// fell there is in Outside and in Total.
func NewDailyWindow(loc *time.Location, from, to time.Time) *Daily {
	return NewPeriodWindow(loc, from, to, Day)
}

// NewPeriodWindow is NewDailyWindow by period: with Month, each contract is
// spread over the calendar months (in loc) it ran, in proportion to its
// seconds in each, and Days returns one DayTotal per month, starting at
// the month's first instant. At most MaxDays periods are kept, so a window
// in months covers any range vastdash accepts (see PeriodFor).
func NewPeriodWindow(loc *time.Location, from, to time.Time, p Period) *Daily {
	loc = orUTC(loc)
	return &Daily{loc: loc, period: p, windowed: true, sp: NewSpreader(loc, from, to, p), days: map[int64]*DayTotal{}}
}

// Spreader is SpreadWithin for one window and many contracts: the
// window's periods are found on the calendar once, and each contract is
// spread by a search and sums — a million contracts in a fraction of the
// time the calendar would take them, to the same shares.
type Spreader struct {
	loc    *time.Location
	period Period
	lo, hi int64 // the window's first and last boundaries
	// bounds are the period boundaries from lo to hi; starts each
	// period's first instant (len(bounds)-1 of them).
	bounds []int64
	starts []time.Time
}

// NewSpreader is the spreader over the periods (in loc) of [from, to],
// at most MaxDays of them, as NewPeriodWindow keeps them.
func NewSpreader(loc *time.Location, from, to time.Time, p Period) *Spreader {
	loc = orUTC(loc)
	lo, hi := window(p, loc, from, to)
	s := &Spreader{loc: loc, period: p, lo: lo, hi: hi}
	if lo < hi {
		// Both are inside years 1..9999 (window clamps), as every
		// boundary between them is.
		day := p.start(time.Unix(lo, 0).In(loc))
		for n := 0; day.Unix() < hi && n <= MaxDays+2; n++ {
			s.bounds, s.starts = append(s.bounds, day.Unix()), append(s.starts, day)
			day = p.next(day)
		}
		s.bounds = append(s.bounds, hi)
	}
	return s
}

// Spread is SpreadWithin of the spreader's window (its periods), the
// shares appended to in (which may be a buffer reused: in[:0]).
func (s *Spreader) Spread(amount money.Amount, start, end int64, in []DayShare) (shares []DayShare, before, after money.Amount) {
	start, end = contractSpan(start, end)
	return s.spread(amount, start, end, in)
}

// Period is what each DayTotal of Days covers: a day or a month.
func (d *Daily) Period() Period { return d.period }

// Add spreads top-level entries over their days. Sums that would overflow
// stay saturated and set Overflow.
func (d *Daily) Add(entries []api.Charge) {
	for i := range entries {
		e := &entries[i]
		kind := ContractKind(e)
		var shares []DayShare
		if d.windowed {
			var before, after money.Amount
			shares, before, after = d.sp.Spread(e.Amount, e.Start, e.End, d.shares[:0])
			d.shares = shares
			d.add(&d.before, before)
			d.add(&d.after, after)
		} else {
			shares = Spread(e.Amount, e.Start, e.End, d.loc)
		}
		for _, s := range shares {
			k := s.Day.Unix()
			dt := d.days[k]
			if dt == nil {
				dt = &DayTotal{Day: s.Day, ByType: map[string]money.Amount{}}
				d.days[k] = dt
			}
			d.add(&dt.Total, s.Amount)
			v := dt.ByType[kind]
			d.add(&v, s.Amount)
			dt.ByType[kind] = v
		}
		d.add(&d.total, e.Amount)
	}
}

// spread is spreadWithin over the periods found once (bounds, starts) of
// a normalized span: the same shares, lumps and rounding, appended to in.
func (s *Spreader) spread(amount money.Amount, start, end int64, in []DayShare) ([]DayShare, money.Amount, money.Amount) {
	lo, hi := s.lo, s.hi
	if start == end || len(s.bounds) < 2 {
		shares, before, after := spreadWithin(amount, start, end, s.loc, s.period, lo, hi)
		return append(in, shares...), before, after
	}
	upTo, signed, abs := partsOf(amount, start, end)
	var before, after money.Amount
	if start < lo {
		before = signed(upTo(min(end, lo)))
	}
	if cur, stop := max(start, lo), min(end, hi); cur < stop {
		// The period holding cur: the last bound at or before it.
		i, found := slices.BinarySearch(s.bounds, cur)
		if !found {
			i--
		}
		for ; cur < stop && i < len(s.starts); i++ {
			seg := min(s.bounds[i+1], stop)
			if seg > cur {
				in = append(in, DayShare{Day: s.starts[i], Amount: signed(upTo(seg) - upTo(cur))})
				cur = seg
			}
		}
	}
	if end > hi {
		after = signed(abs - upTo(max(start, hi)))
	}
	return in, before, after
}

// add is a saturating running sum that remembers any overflow.
func (d *Daily) add(sum *money.Amount, a money.Amount) {
	var ok bool
	if *sum, ok = sum.AddSaturating(a); !ok {
		d.overflow = true
	}
}

// Total is everything added, on whatever day it fell. It is saturated when
// Overflow is true.
func (d *Daily) Total() money.Amount { return d.total }

// Overflow reports whether some sum (the total, a day, a day's type, a lump
// outside the window) became too large for an Amount. Such a sum is held at
// money.MaxAmount or money.MinAmount; show "too large", not the figure.
func (d *Daily) Overflow() bool { return d.overflow }

// Outside is what a NewDailyWindow accumulator put before its first day and
// after its last; both are zero for NewDaily.
func (d *Daily) Outside() (before, after money.Amount) { return d.before, d.after }

// Days returns every calendar day from the day of from to the day of to,
// inclusive, zero days included, in order (by months: every month). It
// returns at most MaxDays of them, the first ones, so an absurd range (year
// 1 to 9999) costs no more than a ten-year one; times outside years
// 1..9999 are clamped into them.
func (d *Daily) Days(from, to time.Time) []DayTotal {
	var out []DayTotal
	to = clampTime(to)
	day := d.period.start(clampTime(from).In(d.loc))
	for n := 0; n < MaxDays && !day.After(to); n++ {
		if dt := d.days[day.Unix()]; dt != nil {
			out = append(out, *dt)
		} else {
			out = append(out, DayTotal{Day: day, ByType: map[string]money.Amount{}})
		}
		day = d.period.next(day)
	}
	return out
}
