package billing

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// The month so far counts each charge's seconds inside the month only: a
// contract that began last month counts from the 1st at midnight in the
// zone, one that runs on counts up to now, and a contract wholly of last
// month counts nothing.
func TestMonthSpendOfCountsTheMonthsSecondsOnly(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 3, 0, 0, 0, 0, berlin) // two days into November
	monthStart := time.Date(2026, 11, 1, 0, 0, 0, 0, berlin)
	charges := []api.Charge{
		// Four days at $1/day, two in October, two in November: $2.
		{Amount: 4_000, Start: monthStart.AddDate(0, 0, -2).Unix(), End: now.Unix()},
		// All of October: nothing.
		{Amount: 31_000, Start: monthStart.AddDate(0, -1, 0).Unix(), End: monthStart.Unix()},
		// One hour this morning: all of it.
		{Amount: 1_500, Start: now.Add(-2 * time.Hour).Unix(), End: now.Add(-time.Hour).Unix()},
	}
	m := MonthSpendOf(charges, now, berlin)
	if m.Spend != 3_500 || !m.Start.Equal(monthStart) || !m.AsOf.Equal(now) {
		t.Fatalf("spend %v from %v as of %v, want $3.500 from %v", m.Spend, m.Start, m.AsOf, monthStart)
	}
	// In UTC the month began an hour later (01:00 in Berlin): the first
	// contract has 47 of its 96 hours in November, $1.958.
	if got := MonthSpendOf(charges, now, time.UTC).Spend; got != 1_958+1_500 {
		t.Fatalf("UTC: spend %v, want $3.458", got)
	}
}

// Through the demo server: MonthSoFar reads the month's charges once and
// agrees with the statement's current month to the mill; a key without
// billing_read gets the error naming it.
func TestMonthSoFarMatchesTheStatement(t *testing.T) {
	srv, s := demoService(t, demoserver.Options{Contracts: 800}, demoserver.DemoKey, nil)
	now := s.Now()
	var last State
	m, err := s.MonthSoFar(context.Background(), func(st State) { last = st })
	if err != nil {
		t.Fatal(err)
	}
	want := (last.Contracts + 499) / 500
	if s.AmountRule() != RuleUnknown {
		want++ // a contract reaches back before the month: the rule was asked, with one day
	}
	if srv.CountPath("/api/v0/charges") != want {
		t.Fatalf("%d charges requests for %d contracts, want %d", srv.CountPath("/api/v0/charges"), last.Contracts, want)
	}
	st, err := s.Statement(context.Background(), now, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Spend <= 0 || m.Spend != st.Months[0].Spend || !m.Start.Equal(MonthStart(now, s.Location())) {
		t.Fatalf("month so far %v from %v; the statement's %s spent %v", m.Spend, m.Start, st.Months[0].Label(), st.Months[0].Spend)
	}
	if m.Spend == last.Amount {
		t.Fatalf("month so far %v equals the whole of the contracts read: nothing of last month's part was cut", m.Spend)
	}

	_, nb := demoService(t, demoserver.Options{}, demoserver.KeyNoBilling, nil)
	_, err = nb.MonthSoFar(context.Background(), nil)
	if !errors.Is(err, api.ErrPermission) || !strings.Contains(err.Error(), "billing_read") {
		t.Fatalf("err %v, want the billing_read permission", err)
	}
}
