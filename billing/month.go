package billing

import (
	"context"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// MonthSpend is what the current calendar month has cost so far.
type MonthSpend struct {
	// Start is the month's first instant in the service's zone; AsOf the
	// instant the figure reaches.
	Start, AsOf time.Time
	// Spend is the month's part of every charge read, each spread over its
	// seconds: the figure the statement shows for the month.
	Spend money.Amount
	// Skipped counts entries the feed refused (see State.Skipped): Spend
	// leaves them out.
	Skipped int
}

// MonthSoFar reads the charges of the current month up to now (one feed,
// 500 contracts a page, paced by the client) and sums the month's part of
// them exactly as the statement's current month does, so the two never
// disagree. progress, if not nil, sees the feed's states. A key without
// billing_read gets the feed's permission error.
func (s *Service) MonthSoFar(ctx context.Context, progress func(State)) (MonthSpend, error) {
	now := s.Now()
	start := MonthStart(now, s.loc)
	q := RangeQuery(start, now)
	// A month the ledger holds is spread a contract at a time from it, not
	// loaded (the exporter reads it every few minutes).
	if held, err := s.ledgerSpent(ctx, q, progress); err != nil {
		return MonthSpend{}, err
	} else if held.ok {
		st := BuildStatement(StatementInput{Loc: s.loc, Now: held.now, From: held.now, To: held.now, Spent: held.daily})
		return MonthSpend{Start: MonthStart(held.now, s.loc), AsOf: held.now.In(s.loc), Spend: st.Months[0].Spend, Skipped: held.st.Skipped}, nil
	}
	f := s.Feed(q)
	defer f.Release()
	entries, st, err := f.All(ctx, progress)
	if err != nil {
		return MonthSpend{}, err
	}
	m := MonthSpendOf(f.Spreadable(entries), now, s.loc)
	m.Skipped = st.Skipped
	return m, nil
}

// MonthSpendOf is the current month's spend at now in loc from charges
// (as their feed's Spreadable gives them): the statement's spreading
// (BuildStatement) applied to the one month.
func MonthSpendOf(charges []api.Charge, now time.Time, loc *time.Location) MonthSpend {
	if loc == nil {
		loc = time.UTC
	}
	st := BuildStatement(StatementInput{Loc: loc, Now: now, From: now, To: now, Charges: charges})
	return MonthSpend{Start: MonthStart(now, loc), AsOf: now.In(loc), Spend: st.Months[0].Spend}
}
