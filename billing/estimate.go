package billing

import (
	"context"
	"errors"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

// RangeQuery is the charges query of [from, to] that every part of the
// program uses for a range: table format, newest first, the server's
// largest page. Using one shape everywhere is what lets the Overview, the
// Charges screen and the commands share a feed.
func RangeQuery(from, to time.Time) api.ChargesQuery {
	return api.ChargesQuery{From: from, To: to, Format: api.FormatTable, Limit: api.MaxLimit}
}

// BurnQuery is the query the burn figures need at the service's now: the 7
// complete days before today and today so far (spend.BurnWindow). It ends
// with today, so it is the same query all day and its feed is shared.
func (s *Service) BurnQuery() api.ChargesQuery {
	from, to := spend.BurnWindow(s.Now(), s.loc)
	return RangeQuery(from, to)
}

// Covers reports that q's range holds the whole burn window up to now, so
// a meter can be fed from q's feed instead of a feed of its own.
func (s *Service) Covers(q api.ChargesQuery) bool {
	now := s.Now()
	from, _ := spend.BurnWindow(now, s.loc)
	return len(q.Types) == 0 && !q.From.After(from) && !q.To.Before(now)
}

// Meter measures the burn rate from charges folded into it: the average of
// the 7 complete days before its day (spend.BurnWeek) and the last 24 hours
// (spend.Window). It keeps only per-day sums, never the entries, and costs
// O(days of its window) whatever the span of a contract.
type Meter struct {
	asOf  time.Time
	daily *spend.Daily
	win   *spend.Window
}

// NewMeter starts a meter measuring at the service's now.
func (s *Service) NewMeter() *Meter {
	now := s.Now()
	from, to := spend.BurnWindow(now, s.loc)
	return &Meter{asOf: now, daily: spend.NewDailyWindow(s.loc, from, to), win: spend.Last24h(now)}
}

// AsOf is the instant the meter measures at.
func (m *Meter) AsOf() time.Time { return m.asOf }

// Add folds top-level entries in, as their feed's Spreadable gives them.
func (m *Meter) Add(entries []api.Charge) {
	m.daily.Add(entries)
	m.win.Add(entries)
}

// Estimate is the burn rate and how long a credit lasts at it.
type Estimate struct {
	Week   spend.Burn // the 7 complete days before today
	Day    spend.Burn // the last 24 hours
	Runway spend.Runway
}

// Estimate is the meter's figures for credit, given the state of the feed
// that filled it. A feed that is not complete, dropped entries, or overflowed
// gives no runway (the Reason says why): a partial figure would overstate how
// long the credit lasts.
func (m *Meter) Estimate(credit money.Amount, st State) Estimate {
	e := Estimate{Week: spend.BurnWeek(m.daily, m.asOf), Day: m.win.Burn24h()}
	if why := m.incomplete(st); why != "" && credit > 0 {
		e.Runway = spend.Runway{Reason: why}
	} else {
		e.Runway = spend.RunwayFor(credit, e.Week, true, m.asOf)
	}
	return e
}

// incomplete says why the meter's figures cannot be trusted yet, given the
// state of the feed that filled it; "" when they can.
func (m *Meter) incomplete(st State) string {
	switch {
	case st.Err != nil && !st.Done:
		return FailReason(st.Err)
	case !st.Whole():
		return "charges still loading"
	case st.Skipped > 0:
		return Plural(st.Skipped, "charge", "charges") + " could not be read"
	case m.daily.Overflow() || m.win.Overflow:
		return "the spend is too large to add up"
	}
	return ""
}

// FailReason says briefly why charges are missing, for a runway note.
func FailReason(err error) string {
	var ae *api.Error
	if errors.As(err, &ae) && errors.Is(err, api.ErrPermission) && ae.Permission != "" {
		return "this API key lacks the " + ae.Permission + " permission"
	}
	return "charges could not be loaded"
}

// Runway reads the burn window's charges and estimates how long credit
// lasts, for the headless commands. progress, if not nil, sees the feed's
// states.
func (s *Service) Runway(ctx context.Context, credit money.Amount, progress func(State)) (Estimate, error) {
	m := s.NewMeter()
	f := s.Feed(s.BurnQuery())
	defer f.Release()
	entries, st, err := f.All(ctx, progress)
	if err != nil {
		return Estimate{}, err
	}
	m.Add(f.Spreadable(entries))
	return m.Estimate(credit, st), nil
}

// LowRunwayTenths is the runway, in tenths of days, under which the credit
// reads "low" whatever the account's threshold: three days is a weekend.
const LowRunwayTenths = 30

// LowBalance reports a credit under the account's own low-balance
// threshold, unless the account switched that threshold off or holds one
// vastdash does not believe (see ThresholdOf), or holds no credit figure.
func LowBalance(u api.User) bool {
	th := ThresholdOf(u)
	return th.On() && !u.CreditMissing && u.Credit < th.Amount
}

// EstimateFor is the burn and runway figures of the account u (nil until
// it is read) from m, the meter, and st, the state of the feed that filled
// it (m nil before any charges are asked for), with the reason there is no
// runway when the figures to make one are missing: the account not read
// yet, a record without a credit figure, charges still loading, no credit
// left. The Overview shows it as it is.
func EstimateFor(u *api.User, m *Meter, st State, now time.Time) Estimate {
	var credit money.Amount
	if u != nil {
		credit = u.Credit
	}
	var e Estimate
	switch {
	case m != nil:
		e = m.Estimate(credit, st)
	case credit <= 0:
		e.Runway = spend.RunwayFor(credit, spend.Burn{}, false, now)
	default:
		e.Runway = spend.Runway{Reason: "charges still loading"}
	}
	switch {
	case u == nil:
		e.Runway = spend.Runway{Reason: "account not loaded yet"}
	case u.CreditMissing:
		e.Runway = spend.Runway{Reason: CreditUnknown}
	}
	return e
}
