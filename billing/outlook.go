package billing

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"sync"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

// Where the month is heading: this month so far, last month by the same
// point, a forecast to the month's end and a budget. The Overview's month
// panel and `vastdash spend` both build it here, from one charges query
// (OutlookQuery) and the current rate.

// The bases of a forecast.
const (
	// BasisRate is the current rate (running instances and the storage of
	// stopped ones, CurrentRate.Total) plus the bandwidth of the last seven
	// complete days per hour: the platform's $/h figures leave bandwidth
	// out.
	BasisRate = "rate"
	// BasisBurn is the last seven complete days' whole spend per hour, for
	// when the rate is unknown (a key without instance_read, a reading
	// that failed).
	BasisBurn = "burn"
)

// Outlook is where one month's spend stands and where it is heading.
type Outlook struct {
	// Month is the month's first instant, End the next month's (both the
	// first instant of their first local day).
	Month, End time.Time
	// AsOf is the instant SoFar reaches: the reading's, or End for a past
	// month.
	AsOf time.Time
	// Now is the instant of the reading (OutlookInput.Now), for a past
	// month too: the dates the texts write carry their year when it is
	// not Now's ("5 Dec 2025" read in January).
	Now time.Time
	// Past is set for a month before the current one, shown in full
	// against the month before: it has no forecast.
	Past bool
	// SoFar is the month's spend from Month to AsOf: every charge spread
	// over its seconds as the statement spreads it (MonthSpendOf).
	SoFar money.Amount
	// Prev is the first instant of the month before. PrevPoint is the
	// instant of it that AsOf compares with: the same day of the month and
	// time of day, capped at that month's end (the 30th of March compares
	// with the whole of a 28-day February); for a past month, that month's
	// end. PrevSoFar is its spend from Prev to PrevPoint.
	Prev, PrevPoint time.Time
	PrevSoFar       money.Amount
	// Change is SoFar against PrevSoFar in tenths of a percent (Change);
	// ChangeOK is false when there is no meaningful change (nothing spent
	// the month before).
	Change   int64
	ChangeOK bool
	// Forecast is the month's spend at End: SoFar plus PerHour for every
	// hour of Left. Basis is BasisRate or BasisBurn, "" when there is no
	// forecast (a past month). Bandwidth is the part of PerHour that is
	// bandwidth on the rate basis.
	Forecast           money.Amount
	Basis              string
	PerHour, Bandwidth api.Rate
	Left               time.Duration
	// Budget is the month's budget, 0 when none. Used and ForecastUsed
	// are SoFar's and Forecast's share of it in tenths of a percent.
	// CrossedAt is when the spend crossed the budget or, when it has not
	// yet, when the forecast does: zero when neither reaches it this month.
	Budget             money.Amount
	Used, ForecastUsed int64
	CrossedAt          time.Time
	// Incomplete is set when the charges stopped part-way: every figure
	// may be short, and must say so.
	Incomplete bool
	// TooLarge is set when a sum left what an amount holds: the figures
	// must not be shown.
	TooLarge bool
	// Notes say what makes the forecast less than exact (why it runs on
	// the burn, a rate read only in part), one sentence each.
	Notes []string
	// Warnings are what the feed dropped (State.Warnings): the figures
	// stand without it.
	Warnings []string
}

// Label is the month as "2026-11".
func (o Outlook) Label() string { return o.Month.Format("2006-01") }

// OutlookInput is what an outlook is built from.
type OutlookInput struct {
	Loc *time.Location
	// Now is the instant of the reading; Month any instant of the month
	// shown (zero: Now's). A month before Now's is shown in full.
	Now, Month time.Time
	// Charges are the entries of OutlookQuery(Month), as their feed's
	// Spreadable gives them; Stopped is set when their feed stopped on an
	// error.
	Charges []api.Charge
	Stopped bool
	// Rate is the current rate; nil when unknown (RateErr says why, if it
	// failed). A rate whose NeedsPermission is set is unknown too.
	Rate    *CurrentRate
	RateErr error
	// Budget is the monthly budget, 0 when none.
	Budget money.Amount
	// days, when set, are the charges already spread (ledgerOutlook),
	// read instead of Charges.
	days *outlookDays
}

// OutlookQuery is the one charges query the outlook of month reads (any
// instant of it): from the first instant of the month before to the end of
// month or, for the current month, to the end of today, so that the query
// is the same all day and its feed is shared. It holds both months and the
// last seven complete days, which never reach back past the month before.
func (s *Service) OutlookQuery(month time.Time) api.ChargesQuery {
	now := s.Now()
	start := MonthStart(month, s.loc)
	to := spend.AddMonths(start, 1).Add(-time.Second)
	if !start.Before(MonthStart(now, s.loc)) {
		_, to = spend.BurnWindow(now, s.loc)
	}
	return RangeQuery(spend.AddMonths(start, -1), to)
}

// BuildOutlook computes the outlook. Every figure is exact thousandths;
// the forecast's rates are exact millionths an hour.
func BuildOutlook(in OutlookInput) Outlook {
	o, loc, last := in.frame()
	days := in.days
	if days == nil {
		days = newOutlookDays(loc, o, last)
		days.add(in.Charges)
	}
	now := o.Now
	ok := true
	check := func(a money.Amount) money.Amount {
		ok = ok && !a.Saturated()
		return a
	}
	o.SoFar = check(monthSpend(days.all, last, loc))
	if o.PrevPoint.Equal(o.Month) {
		o.PrevSoFar = check(monthSpend(days.all, o.Month.Add(-time.Second), loc))
	} else {
		o.PrevSoFar = check(monthSpend(days.before, o.PrevPoint, loc))
	}
	o.Change, o.ChangeOK = SpendChange(o.PrevSoFar, o.SoFar)
	if !o.Past {
		ok = o.forecast(in, days, now, loc) && ok
	}
	if !ok {
		return Outlook{Month: o.Month, End: o.End, AsOf: o.AsOf, Now: o.Now, Past: o.Past, Prev: o.Prev, PrevPoint: o.PrevPoint,
			Budget: o.Budget, Incomplete: o.Incomplete, TooLarge: true}
	}
	if o.Budget > 0 {
		o.Used, _ = SharePerMille(o.SoFar, o.Budget)
		o.ForecastUsed = o.Used
		if !o.Past {
			o.ForecastUsed, _ = SharePerMille(o.Forecast, o.Budget)
		}
		o.CrossedAt = o.crossing(days.all, loc)
	}
	return o
}

// frame is the outlook's months and instants before any charge is read,
// its zone, and the last instant its spend reaches (AsOf, or a past
// month's last second).
func (in OutlookInput) frame() (o Outlook, loc *time.Location, last time.Time) {
	loc = in.Loc
	if loc == nil {
		loc = time.UTC
	}
	now := in.Now.In(loc)
	month := in.Month
	if month.IsZero() {
		month = now
	}
	o = Outlook{Month: MonthStart(month, loc), Now: now, Budget: max(in.Budget, 0), Incomplete: in.Stopped}
	o.End = spend.AddMonths(o.Month, 1)
	o.Prev = spend.AddMonths(o.Month, -1)
	o.Past = o.Month.Before(MonthStart(now, loc))
	o.AsOf, last = now, now
	if o.Past {
		o.AsOf, last = o.End, o.End.Add(-time.Second)
	}
	o.PrevPoint = samePoint(o.AsOf, o.Prev, o.Month, loc)
	return o, loc, last
}

// outlookDays are an outlook's charges spread over their days (in the
// outlook's zone, from the month before's start to last): all of them,
// their parts before the month before's point (clipBefore), and their
// bandwidth lines (bandwidthOf). Every figure is read from them, and they
// are folded a contract at a time: from a feed's rows, or from the
// ledger's (ledgerOutlook) without holding the range.
type outlookDays struct {
	all, before, bandwidth *spend.Daily
	prevPoint              time.Time
}

func newOutlookDays(loc *time.Location, o Outlook, last time.Time) *outlookDays {
	return &outlookDays{
		all:       spend.NewDailyWindow(loc, o.Prev, last),
		before:    spend.NewDailyWindow(loc, o.Prev, o.PrevPoint),
		bandwidth: spend.NewDailyWindow(loc, o.Prev, last),
		prevPoint: o.PrevPoint,
	}
}

// add spreads charges (Spreadable's entries) over the days.
func (d *outlookDays) add(charges []api.Charge) {
	d.all.Add(charges)
	d.before.Add(clipBefore(charges, d.prevPoint))
	d.bandwidth.Add(bandwidthOf(charges))
}

// monthSpend is MonthSpendOf of the charges spread in d: their spend from
// the start of t's month to t.
func monthSpend(d *spend.Daily, t time.Time, loc *time.Location) money.Amount {
	return BuildStatement(StatementInput{Loc: loc, Now: t, From: t, To: t, Spent: d}).Months[0].Spend
}

// forecast sets the forecast at now from the rate or the last seven
// complete days; false when a sum overflowed.
func (o *Outlook) forecast(in OutlookInput, days *outlookDays, now time.Time, loc *time.Location) bool {
	weekFrom, _ := spend.BurnWindow(now, loc)
	today := spend.Midnight(now)
	secs := today.Unix() - weekFrom.Unix() // 168 hours, 167 or 169 across a clock change
	var (
		perHour int64
		ok      bool
	)
	switch r := in.Rate; {
	case r != nil && r.NeedsPermission == "":
		o.Basis = BasisRate
		bw, okB := daysSum(days.bandwidth, weekFrom, today)
		bwh, okH := mulDiv(int64(bw), 3_600_000, secs)
		o.Bandwidth = api.Rate(max(bwh, 0))
		var okS bool
		perHour, okS = addInt(int64(r.Total()), int64(o.Bandwidth))
		ok = okB && okH && okS
		if r.Partial {
			o.Notes = append(o.Notes, "only the first "+Plural(r.Read, "instance", "instances")+" read: the forecast is at least this")
		}
	default:
		o.Basis = BasisBurn
		week, okW := daysSum(days.all, weekFrom, today)
		var okH bool
		perHour, okH = mulDiv(int64(week), 3_600_000, secs)
		ok = okW && okH
		switch {
		case r != nil:
			o.Notes = append(o.Notes, "this API key lacks the "+r.NeedsPermission+" permission: the forecast runs on the last seven complete days' spend")
		case in.RateErr != nil:
			o.Notes = append(o.Notes, "the current rate could not be read ("+in.RateErr.Error()+"): the forecast runs on the last seven complete days' spend")
		default:
			o.Notes = append(o.Notes, "the current rate is unknown: the forecast runs on the last seven complete days' spend")
		}
	}
	// A week of refunds does not make the month cheaper than it is.
	o.PerHour = api.Rate(max(perHour, 0))
	o.Left = o.End.Sub(o.AsOf)
	add, okA := mulDiv(int64(o.PerHour), o.End.Unix()-o.AsOf.Unix(), 3_600_000)
	f, okF := o.SoFar.Add(money.Amount(add))
	o.Forecast = f
	return ok && okA && okF && !f.Saturated()
}

// crossing is when the spend crossed the budget (found among the month's
// days, within the day in proportion to its spend), or when the forecast
// does; zero when neither reaches it this month.
func (o *Outlook) crossing(d *spend.Daily, loc *time.Location) time.Time {
	if o.SoFar < o.Budget {
		if o.Past || o.Forecast < o.Budget || o.PerHour <= 0 {
			return time.Time{}
		}
		secs, ok := ceilDiv(int64(o.Budget-o.SoFar), 3_600_000, int64(o.PerHour))
		if !ok {
			return time.Time{}
		}
		// The forecast rounds to the mill: the instant stays in the month.
		return time.Unix(min(o.AsOf.Unix()+secs, o.End.Unix()-1), 0).In(loc)
	}
	last := o.AsOf
	if o.Past {
		last = o.End.Add(-time.Second)
	}
	days := d.Days(o.Month, last)
	var sum money.Amount
	for i, day := range days {
		if day.Total > 0 && sum+day.Total >= o.Budget {
			end := o.AsOf
			if i+1 < len(days) {
				end = days[i+1].Day
			}
			secs, ok := ceilDiv(int64(o.Budget-sum), end.Unix()-day.Day.Unix(), int64(day.Total))
			if !ok {
				break
			}
			return day.Day.Add(time.Duration(secs) * time.Second)
		}
		sum += day.Total
	}
	return o.Month
}

// samePoint is the instant of the month before (which begins at prev) at
// at's day of the month and time of day, capped at that month's end
// (start, where at's month begins) and within its day.
func samePoint(at, prev, start time.Time, loc *time.Location) time.Time {
	at = at.In(loc)
	if !at.Before(spend.AddMonths(start, 1)) { // a past month in full
		return start
	}
	days := start.Add(-time.Second).In(loc).Day()
	d := at.Day()
	if d > days {
		return start
	}
	y, m, _ := prev.Date()
	dayFrom, dayTo := spend.DayStart(y, m, d, loc), start
	if d < days {
		dayTo = spend.DayStart(y, m, d+1, loc)
	}
	h, mi, s := at.Clock()
	p := time.Date(y, m, d, h, mi, s, 0, loc)
	switch {
	case p.Before(dayFrom):
		return dayFrom
	case p.After(dayTo):
		return dayTo
	}
	return p
}

// clipBefore is charges cut at p: each contract's part before p, on its
// seconds before p, with the amount in proportion (to the mill, halves
// away from zero); what lies wholly after p is left out.
func clipBefore(charges []api.Charge, p time.Time) []api.Charge {
	out := make([]api.Charge, 0, len(charges))
	at := p.Unix()
	for i := range charges {
		c := charges[i]
		start, end := c.Start, max(c.Start, c.End) // 0 is "not sent": see spend.Spread
		if start == 0 {
			start = c.End
		}
		switch {
		case start >= at:
		case end <= at:
			out = append(out, c)
		default:
			w := spend.Window{From: time.Unix(start, 0), To: p}
			w.Add(charges[i : i+1])
			c.Start, c.End, c.Amount, c.Items = start, at, w.Sum, nil
			out = append(out, c)
		}
	}
	return out
}

// bandwidthOf lists the bandwidth items (bwd, bwu) of entries as charges of
// their own, each on its own seconds (its contract's where it names none),
// for spreading over days.
func bandwidthOf(entries []api.Charge) []api.Charge {
	var out []api.Charge
	var walk func(c *api.Charge, start, end int64)
	walk = func(c *api.Charge, start, end int64) {
		if c.Start != 0 {
			start = c.Start
		}
		if c.End != 0 {
			end = c.End
		}
		switch c.Type {
		case "bwd", "bwu":
			out = append(out, api.Charge{Type: c.Type, Start: start, End: end, Amount: c.Amount})
			return
		case "gpu", "disk":
			return
		}
		for i := range c.Items {
			walk(&c.Items[i], start, end)
		}
	}
	for i := range entries {
		walk(&entries[i], 0, 0)
	}
	return out
}

// daysSum is the spend d holds on the calendar days from from's to the
// day before to's; false when it overflowed.
func daysSum(d *spend.Daily, from, to time.Time) (money.Amount, bool) {
	var sum money.Amount
	ok := !d.Overflow()
	for _, day := range d.Days(from, to.Add(-time.Second)) {
		var fits bool
		sum, fits = sum.AddSaturating(day.Total)
		ok = ok && fits
	}
	return sum, ok
}

// mulDiv is a×b/c (c > 0) rounded to the nearest, halves away from zero;
// false when it leaves an int64.
func mulDiv(a, b, c int64) (int64, bool) {
	if c <= 0 {
		return 0, false
	}
	x := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	q, r := new(big.Int).QuoRem(x, big.NewInt(c), new(big.Int))
	if r.Abs(r).Lsh(r, 1).Cmp(big.NewInt(c)) >= 0 {
		q.Add(q, big.NewInt(int64(x.Sign())))
	}
	return q.Int64(), q.IsInt64()
}

// ceilDiv is ⌈a×b/c⌉ for a, b ≥ 0 and c > 0; false when it leaves an
// int64.
func ceilDiv(a, b, c int64) (int64, bool) {
	if c <= 0 || a < 0 || b < 0 {
		return 0, false
	}
	x := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	x.Add(x, big.NewInt(c-1))
	q := x.Quo(x, big.NewInt(c))
	return q.Int64(), q.IsInt64()
}

// addInt is a+b, false when it overflows.
func addInt(a, b int64) (int64, bool) {
	s := a + b
	return s, (b >= 0) == (s >= a)
}

// ChangeText is a change in tenths of a percent as "+12.3 %", "-4.0 %",
// "+32,843.5 %" (thousands grouped, as amounts are), or "—" when there is
// none.
func ChangeText(pm int64, ok bool) string {
	if !ok {
		return "—"
	}
	sign := ""
	switch {
	case pm > 0:
		sign = "+"
	case pm < 0:
		sign = "-"
	}
	if pm < 0 {
		pm = -pm
	}
	return sign + money.Group(pm/10) + "." + strconv.FormatInt(pm%10, 10) + " %"
}

// SpendChange is to against from in tenths of a percent, for a month
// against the month before; false when from is not positive.
func SpendChange(from, to money.Amount) (int64, bool) {
	diff, fits := to.Add(-from)
	if !fits || from <= 0 {
		return 0, false
	}
	return SharePerMille(diff, from)
}

// BudgetLevel is where a month stands against its budget.
type BudgetLevel int

// The levels, from good to bad.
const (
	BudgetNone  BudgetLevel = iota // no budget
	BudgetOK                       // spend and forecast under 80 %
	BudgetNear                     // spend or forecast at 80 % or more
	BudgetAhead                    // the forecast at 100 % or more
	BudgetOver                     // the spend at 100 % or more
)

// String is the level in a word or two, for beside a gauge whose colour
// must not carry the meaning alone.
func (l BudgetLevel) String() string {
	switch l {
	case BudgetOK:
		return "on track"
	case BudgetNear:
		return "near"
	case BudgetAhead:
		return "heading over"
	case BudgetOver:
		return "over"
	}
	return ""
}

// BudgetWarn and BudgetFull are the shares of the budget, in tenths of a
// percent, whose first crossing in a month is told.
const (
	BudgetWarn = 800
	BudgetFull = 1000
)

// Level is where the month stands against its budget.
func (o Outlook) Level() BudgetLevel {
	switch {
	case o.Budget <= 0 || o.TooLarge:
		return BudgetNone
	case o.Used >= BudgetFull:
		return BudgetOver
	case o.ForecastUsed >= BudgetFull:
		return BudgetAhead
	case o.ForecastUsed >= BudgetWarn:
		return BudgetNear
	}
	return BudgetOK
}

// BudgetWatch tells the first time in a month that the spend or the
// forecast reaches BudgetWarn and BudgetFull of the budget, so a front end
// says it once rather than on every reading. The first reading of a
// session tells where things stand without a ring: the user opened the
// program in that state. An incomplete outlook, one without a budget and a
// past month's tell nothing. The zero value is ready.
type BudgetWatch struct {
	month time.Time
	told  [2][2]bool // spend, forecast × BudgetWarn, BudgetFull
	seen  bool
}

// BudgetAlarm is what a reading crossed: one line for the status line, and
// whether to ring.
type BudgetAlarm struct {
	Text string
	Ring bool
}

// Observe takes an outlook and returns what it crossed for the first time
// this month; false when nothing.
func (w *BudgetWatch) Observe(o Outlook) (BudgetAlarm, bool) {
	if o.Budget <= 0 || o.Past || o.Incomplete || o.TooLarge {
		return BudgetAlarm{}, false
	}
	if !w.month.Equal(o.Month) {
		w.month, w.told = o.Month, [2][2]bool{}
	}
	ring := w.seen
	w.seen = true
	// The highest level each figure newly reached.
	newly := func(k int, share int64) int {
		got := -1
		for j, level := range [2]int64{BudgetWarn, BudgetFull} {
			if share >= level && !w.told[k][j] {
				w.told[k][j] = true
				got = j
			}
		}
		return got
	}
	spent, ahead := newly(0, o.Used), newly(1, o.ForecastUsed)
	at := -1 // the level the spend stands at
	switch {
	case o.Used >= BudgetFull:
		at = 1
	case o.Used >= BudgetWarn:
		at = 0
	}
	name, budget := o.Month.Format("January"), o.Budget.Credit()
	var parts []string
	switch spent {
	case 1:
		parts = append(parts, name+"'s spend "+o.SoFar.String()+" is over your "+budget)
	case 0:
		parts = append(parts, name+"'s spend "+o.SoFar.String()+" passed 80 % of your "+budget)
	}
	// The forecast is said only above where the spend already stands.
	if ahead > at {
		if ahead == 1 {
			parts = append(parts, name+" heads to "+o.Forecast.String()+", over your "+budget+" from "+o.day(o.CrossedAt))
		} else {
			parts = append(parts, name+" heads to "+o.Forecast.String()+", 80 % of your "+budget)
		}
	}
	if len(parts) == 0 {
		return BudgetAlarm{}, false
	}
	text := "budget: " + parts[0]
	for _, p := range parts[1:] {
		text += "; " + p
	}
	return BudgetAlarm{Text: text, Ring: ring}, true
}

// OutlookOf builds the outlook of month (zero: the current one) at asOf
// from a feed of OutlookQuery (complete or stopped) and the rate (nil when
// unknown, rateErr why): the seam both front ends use.
func (s *Service) OutlookOf(f *Feed, rate *CurrentRate, rateErr error, month, asOf time.Time, budget money.Amount) Outlook {
	in := OutlookInput{Loc: s.loc, Now: asOf, Month: month, Rate: rate, RateErr: rateErr, Budget: budget}
	for _, p := range f.Pages(0) {
		in.Charges = append(in.Charges, f.Spreadable(p)...)
	}
	st := f.State()
	in.Stopped = !st.Whole()
	o := BuildOutlook(in)
	o.Warnings = st.Warnings()
	return o
}

// Outlook reads the charges of month (any instant of it; zero: the
// current month) and the month before through one feed and, for the
// current month, the current rate beside them, and builds the outlook
// against budget (0: none). progress, if not nil, sees the feed's states.
// A key without billing_read gets the feed's error naming it; one without
// instance_read a forecast on the burn. When the charges fail part-way the
// outlook comes back too, marked incomplete.
func (s *Service) Outlook(ctx context.Context, month time.Time, budget money.Amount, progress func(State)) (Outlook, error) {
	now := s.Now()
	if month.IsZero() {
		month = now
	}
	if err := StatementMonths(month, month, now, s.loc); err != nil {
		return Outlook{}, err
	}
	q := s.OutlookQuery(month)
	var (
		wg      sync.WaitGroup
		rate    *CurrentRate
		rateErr error
	)
	if !MonthStart(month, s.loc).Before(MonthStart(now, s.loc)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := s.CurrentRate(ctx)
			if err == nil {
				rate = &r
			} else {
				rateErr = errors.New(s.Explain(err))
			}
		}()
	}
	// A range the ledger holds is folded from it a contract at a time;
	// otherwise (or when that fails: the feed meets the failure again and
	// says it as it always has) the feed reads it.
	in := OutlookInput{Loc: s.loc, Now: now, Month: month, Budget: budget}
	if days, st, ok, err := s.ledgerOutlook(ctx, q, in, progress); ok && err == nil {
		wg.Wait()
		in.days, in.Rate, in.RateErr = days, rate, rateErr
		o := BuildOutlook(in)
		o.Warnings = st.Warnings()
		return o, nil
	}
	if ctx.Err() != nil {
		wg.Wait()
		return Outlook{}, ctx.Err()
	}
	f := s.Feed(q)
	defer f.Release()
	_, _, err := f.All(ctx, progress)
	wg.Wait()
	o := s.OutlookOf(f, rate, rateErr, month, now, budget)
	if err != nil {
		return o, fmt.Errorf("charges: %w", err)
	}
	if ctx.Err() != nil {
		return o, ctx.Err()
	}
	return o, nil
}

// PrevText names what SoFar is compared with: "October to 21 Oct 15:30",
// in January "December to 5 Dec 2025" (spend.Short), or "all of February"
// when the comparison is capped at that month's end.
func (o Outlook) PrevText() string {
	name := o.Prev.Format("January")
	if o.PrevPoint.Equal(o.Month) {
		return "all of " + name
	}
	return name + " to " + spend.Short(o.PrevPoint, o.Now)
}

// EndText is the month's last day, which a forecast runs to: "30 Nov".
func (o Outlook) EndText() string { return o.day(o.End.Add(-time.Second)) }

// day is t's day (in the outlook's zone, as all its instants are) in the
// one short form against the reading: "5 Nov", "5 Dec 2025"
// (spend.ShortDay).
func (o Outlook) day(t time.Time) string { return spend.ShortDay(t, o.Now) }

// BasisText says what the forecast adds per hour: "current rate $2.050/h
// + bandwidth $0.114/h" or "last 7 complete days $1.000/h"; "" without a
// forecast.
func (o Outlook) BasisText() string {
	switch o.Basis {
	case BasisRate:
		return "current rate " + (o.PerHour - o.Bandwidth).String() + " + bandwidth " + o.Bandwidth.String()
	case BasisBurn:
		return "last 7 complete days " + o.PerHour.String()
	}
	return ""
}

// CrossText says when the budget is crossed: "crossed on 5 Nov",
// "forecast crosses it on 27 Nov", a past year's day with its year
// ("crossed on 5 Dec 2025"); "" when neither happens this month.
func (o Outlook) CrossText() string {
	switch {
	case o.CrossedAt.IsZero():
		return ""
	case o.CrossedAt.After(o.AsOf):
		return "forecast crosses it on " + o.day(o.CrossedAt)
	}
	return "crossed on " + o.day(o.CrossedAt)
}

// UsedText is a share of the budget in tenths of a percent as "40.8 %".
func UsedText(pm int64) string { return PerMilleText(pm) + " %" }
