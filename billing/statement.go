package billing

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

// MaxStatementMonths bounds a statement: ten years, the most the daily
// spreading covers (spend.MaxDays).
const MaxStatementMonths = 120

// Month is one calendar month of a statement. The identity
// Opening = Closing − MoneyIn + MoneyOut + Spend holds exactly.
type Month struct {
	Start time.Time // the month's first instant in the statement's zone
	// Opening and Closing are the credit at the month's start and end,
	// reconstructed back from the credit now.
	Opening, Closing money.Amount
	// MoneyIn is paid top-ups and transfers received; MoneyOut refunds,
	// reserved prepays, transfers sent and payouts (positive); Spend the
	// charges spread over the month's days.
	MoneyIn, MoneyOut, Spend money.Amount
	// Pending is the would-be effect of the month's pending records, which
	// count nowhere.
	Pending money.Amount
	// Records are the month's payment records, oldest first, placed by
	// CountsAt: paid ones by payment time, pending ones and unknown types
	// by creation time. Records dated in the future are the current
	// month's, listed and not counted.
	Records []api.Invoice
	// Incomplete is set when a feed stopped before reaching this month's
	// start: its figures (and, the statement running back from today,
	// every earlier month's) are short.
	Incomplete bool
}

// Label is "2026-11".
func (m Month) Label() string { return m.Start.Format("2006-01") }

// Statement is the months asked for, oldest first. Every figure is a
// reconstruction from today's credit (Reconstructed is always true, for
// the outputs to say so).
type Statement struct {
	Months        []Month
	Credit        money.Amount // the credit now, the current month's closing
	AsOf          time.Time
	Reconstructed bool
	// Pending, Future and Unknown are the records of the months shown that
	// count nowhere, oldest first: pending ones (their sum is the months'
	// Pending), those dated in the future, those of a type the program
	// does not know.
	Pending    []api.Invoice
	Future     []api.Invoice
	Unknown    []api.Invoice
	Incomplete bool // some month is incomplete
	// Warnings are what the feeds said of what they read: records and
	// charges skipped as malformed, repeats dropped (State.Warnings). The
	// figures stand without what was skipped, so every output says them.
	Warnings []string
}

// StatementInput is what a statement is built from.
type StatementInput struct {
	Loc      *time.Location
	Now      time.Time
	From, To time.Time // any instant of the first and of the last month shown
	Credit   money.Amount
	Payments []api.Invoice
	// Charges are spread over the months' days as given: pass them
	// through their feed's Spreadable.
	Charges []api.Charge
	// Spent, when set, is the charges already spread over the days of
	// From's month to Now (a NewDailyWindow in Loc, as the ledger's fold
	// makes it: ledgerSpent), used instead of Charges.
	Spent *spend.Daily
	// PaymentsStopped and ChargesStopped are set when that feed stopped on
	// an error; the records and charges then reach back only as far as
	// they were read (both feeds read newest first).
	PaymentsStopped, ChargesStopped bool
}

// MonthStart is the first instant of t's calendar month in loc: the first
// instant of its first local day, in every zone (spend.MonthStart), so a
// month whose midnight does not exist still begins on its own 1st.
func MonthStart(t time.Time, loc *time.Location) time.Time { return spend.MonthStart(t, loc) }

// LastMonths is the span of a statement of the last n months at now: the
// first instant of the month n−1 before now's, and of now's month. Both
// front ends ask for "the last N months" through it (the command's
// --months, the screen's twelve).
func LastMonths(now time.Time, loc *time.Location, n int) (from, to time.Time) {
	to = MonthStart(now, loc)
	return spend.AddMonths(to, 1-max(n, 1)), to
}

// ParseMonth reads a month typed as YYYY-MM as its first instant in loc.
func ParseMonth(s string, loc *time.Location) (time.Time, error) {
	t, err := time.Parse("2006-01", strings.TrimSpace(s))
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a month like 2026-11", s)
	}
	// Parsed in UTC, then placed: parsed in loc, a month whose first
	// midnight is skipped would come back as the last hour of the month
	// before.
	return spend.DayStart(t.Year(), t.Month(), 1, loc), nil
}

// StatementMonths checks a month range (any instants of the first and last
// month) against now: not after the current month, not reversed, at most
// MaxStatementMonths back and within 2015..2100. It is the one check of
// the months: a range that fails it is a *MonthsError, which the command
// maps to its flag and the screen shows as it reads.
func StatementMonths(from, to, now time.Time, loc *time.Location) error {
	from, to, now = MonthStart(from, loc), MonthStart(to, loc), MonthStart(now, loc)
	earliest, _ := LastMonths(now, loc, MaxStatementMonths)
	switch {
	case from.After(now):
		return &MonthsError{Problem: MonthNotBegun, Month: from}
	case to.After(now):
		return &MonthsError{Problem: MonthNotBegun, Month: to, Last: true}
	case from.After(to):
		return &MonthsError{Problem: MonthsReversed, Month: from, Other: to}
	case monthsBetween(from, now) >= MaxStatementMonths:
		return &MonthsError{Problem: MonthTooFarBack, Month: from, Earliest: earliest}
	case from.Before(MinTime):
		return &MonthsError{Problem: MonthBeforeMin, Month: from}
	}
	return nil
}

// MonthsProblem is what is wrong with a month range (MonthsError).
type MonthsProblem int

// The problems of a month range.
const (
	// MonthNotBegun: a month after the current one.
	MonthNotBegun MonthsProblem = iota
	// MonthsReversed: the last month before the first.
	MonthsReversed
	// MonthTooFarBack: the first month more than MaxStatementMonths back.
	MonthTooFarBack
	// MonthBeforeMin: the first month before those vastdash accepts.
	MonthBeforeMin
)

// MonthsError is a month range a statement cannot cover (StatementMonths).
// It matches ErrRange.
type MonthsError struct {
	Problem MonthsProblem
	// Month is the month at fault, its first instant: the one not begun,
	// the first of a reversed pair, the one too far back. Last is set when
	// it is the last month asked for, not the first.
	Month time.Time
	Last  bool
	// Other is the last month of a reversed pair.
	Other time.Time
	// Earliest is the first month a statement reaches now
	// (MonthTooFarBack).
	Earliest time.Time
}

func (e *MonthsError) Error() string {
	m := e.Month.Format("2006-01")
	switch e.Problem {
	case MonthNotBegun:
		return m + " has not begun: months reach up to the current one"
	case MonthsReversed:
		return fmt.Sprintf("%v: %s is before %s", ErrRange, e.Other.Format("2006-01"), m)
	case MonthTooFarBack:
		return fmt.Sprintf("a statement reaches back at most %d months", MaxStatementMonths)
	}
	return m + " is before the months vastdash accepts (from 2015-01)"
}

// Is makes every MonthsError an ErrRange.
func (e *MonthsError) Is(target error) bool { return target == ErrRange }

func monthsBetween(a, b time.Time) int {
	return (b.Year()-a.Year())*12 + int(b.Month()) - int(a.Month())
}

// BuildStatement computes the statement: every month from in.From's to the
// current one (the reconstruction runs back from today), then the months
// asked for. in.From..in.To must have passed StatementMonths.
func BuildStatement(in StatementInput) Statement {
	loc := in.Loc
	if loc == nil {
		loc = time.UTC
	}
	now := in.Now.In(loc)
	first := MonthStart(in.From, loc)
	n := monthsBetween(first, MonthStart(now, loc)) + 1
	months := make([]Month, n)
	for i := range months {
		months[i].Start = spend.AddMonths(first, i)
	}
	// index of the month holding unix time t; -1 before the first.
	index := func(t int64) int {
		tm := time.Unix(t, 0).In(loc)
		if tm.Before(first) {
			return -1
		}
		return min(monthsBetween(first, tm), n-1) // a time past now counts now
	}
	st := Statement{Credit: in.Credit, AsOf: now, Reconstructed: true}
	// The months shown end at in.To's; the later ones are reconstructed
	// only to reach back from today.
	last := min(monthsBetween(first, MonthStart(in.To, loc)), n-1)
	recs := slices.Clone(in.Payments)
	slices.SortStableFunc(recs, func(a, b api.Invoice) int { return cmp.Compare(CountsAt(&a), CountsAt(&b)) })
	for i := range recs {
		r := &recs[i]
		k := index(CountsAt(r))
		if k < 0 {
			continue // read for the slack before the first month, in none
		}
		months[k].Records = append(months[k].Records, *r)
		if k > last {
			continue
		}
		// The lists under the months are the records of the months shown,
		// the same set their PENDING column adds up: a record pending
		// since before the first month, or of a month not shown, is in
		// neither.
		switch StandingOf(r, now) {
		case Pending:
			st.Pending = append(st.Pending, *r)
		case Future:
			st.Future = append(st.Future, *r)
		case UnknownType:
			st.Unknown = append(st.Unknown, *r)
		}
	}
	for i := range months {
		m := &months[i]
		t := TotalPayments(m.Records, now)
		m.MoneyIn, m.MoneyOut, m.Pending = t.In, t.Out, t.Pending
	}
	daily := in.Spent
	if daily == nil {
		daily = spend.NewDailyWindow(loc, first, now)
		daily.Add(in.Charges)
	}
	for _, d := range daily.Days(first, now) {
		if k := index(d.Day.Unix()); k >= 0 {
			months[k].Spend += d.Total
		}
	}
	// Back from today: each month closes where the next one opens.
	closing := in.Credit
	for i := n - 1; i >= 0; i-- {
		m := &months[i]
		m.Closing = closing
		m.Opening = m.Closing - m.MoneyIn + m.MoneyOut + m.Spend
		closing = m.Opening
	}
	reached := now.Unix() + 1 // the oldest time both feeds are known to reach
	if in.PaymentsStopped {
		reached = min(reached, oldest(in.Payments, func(r *api.Invoice) int64 { return r.Created }, now.Unix()))
	}
	if in.ChargesStopped {
		reached = min(reached, oldest(in.Charges, func(c *api.Charge) int64 { return c.Start }, now.Unix()))
	}
	for i := range months {
		if months[i].Start.Unix() <= reached && (in.PaymentsStopped || in.ChargesStopped) {
			months[i].Incomplete = true
			st.Incomplete = true
		}
	}
	st.Months = months[:max(last+1, 0)]
	return st
}

// oldest is the earliest time of the entries, or def when there are none.
func oldest[E any](es []E, at func(*E) int64, def int64) int64 {
	o := def
	for i := range es {
		if t := at(&es[i]); t > 0 {
			o = min(o, t)
		}
	}
	return o
}

// StatementQueries are the two reports a statement starting in from's
// month needs, up to now: the payment records and the charges, 500 a page.
// The records are asked for from PaidSlack before the first month: a
// record counts in the month of its payment, at most PaidSlack after its
// creation (CountsAt), so every record the months hold was created since
// then, however many months are asked for.
func (s *Service) StatementQueries(from time.Time) (api.InvoicesQuery, api.ChargesQuery) {
	now := s.Now()
	start := MonthStart(from, s.loc)
	return api.InvoicesQuery{From: start.Add(-PaidSlack), To: now},
		api.ChargesQuery{From: start, To: now, Limit: api.MaxLimit}
}

// StatementProgress is where the two feeds of a statement are.
type StatementProgress struct{ Payments, Charges State }

// String reads "payments 1 of 2 · charges 4 of 12".
func (p StatementProgress) String() string {
	return "payments " + p.Payments.Progress()[len("page "):] + " · charges " + p.Charges.Progress()[len("page "):]
}

// StatementOf builds the statement of from..to from two feeds (complete
// or stopped) and the credit now: the seam both front ends use.
func (s *Service) StatementOf(pf *PaymentsFeed, cf *Feed, credit money.Amount, from, to time.Time) Statement {
	in := StatementInput{Loc: s.loc, Now: s.Now(), From: from, To: to, Credit: credit}
	for _, p := range pf.Pages(0) {
		in.Payments = append(in.Payments, p...)
	}
	for _, p := range cf.Pages(0) {
		in.Charges = append(in.Charges, cf.Spreadable(p)...)
	}
	pst, cst := pf.State(), cf.State()
	in.PaymentsStopped, in.ChargesStopped = !pst.Whole(), !cst.Whole()
	st := BuildStatement(in)
	st.Warnings = joinWarnings(pst.Warnings(), cst.Warnings())
	return st
}

// Statement reads the credit and both feeds side by side (each paced on its
// own endpoint's budget) and builds the statement of from..to. progress,
// if not nil, is called with every change of either feed. On an error the
// statement is returned too, its unreached months marked incomplete.
func (s *Service) Statement(ctx context.Context, from, to time.Time, progress func(StatementProgress)) (Statement, error) {
	if err := StatementMonths(from, to, s.Now(), s.loc); err != nil {
		return Statement{}, err
	}
	pq, cq := s.StatementQueries(from)
	pf, cf := s.PaymentsFeed(pq), s.Feed(cq)
	defer pf.Release()
	defer cf.Release()
	var (
		mu     sync.Mutex
		prog   StatementProgress
		wg     sync.WaitGroup
		user   api.User
		errs   [3]error
		labels = [3]string{"payments", "charges", "credit"}
		report = func(set func()) {
			mu.Lock()
			defer mu.Unlock()
			set()
			if progress != nil {
				progress(prog)
			}
		}
	)
	wg.Add(3)
	go func() {
		defer wg.Done()
		_, _, errs[0] = pf.All(ctx, func(st State) { report(func() { prog.Payments = st }) })
	}()
	var held heldSpend
	go func() {
		defer wg.Done()
		charges := func(st State) { report(func() { prog.Charges = st }) }
		// A range the ledger holds is folded a contract at a time, not
		// loaded.
		if held, errs[1] = s.ledgerSpent(ctx, cq, charges); held.ok || errs[1] != nil {
			return
		}
		_, _, errs[1] = cf.All(ctx, charges)
	}()
	go func() {
		defer wg.Done()
		user, errs[2] = s.Account(ctx)
	}()
	wg.Wait()
	if errs[2] == nil {
		// The months run back from the credit: without it there is no
		// statement, never one from $0.
		_, errs[2] = CreditOf(user)
	}
	var st Statement
	if held.ok {
		st = s.StatementOfHeld(pf, &HeldSpent{daily: held.daily, now: held.now}, held.st, user.Credit, from, to)
	} else {
		st = s.StatementOf(pf, cf, user.Credit, from, to)
	}
	for i, err := range errs {
		if err != nil {
			return st, fmt.Errorf("%s: %w", labels[i], err)
		}
	}
	return st, nil
}
