package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
)

// A dense account under window amounts, read without a ledger — the data
// set of docs/performance.md's paced year: 60,000 contracts, an hour
// moved on. The first page of a range (newest first) holds only contracts
// begun in its last hours: none lay wholly inside it to be compared, nor
// on the fallback page of the newest of the last 30 days, and the few that
// reach past the range's end were asked over a day oldest first, whose
// first page held weeks-long volumes instead. The rule stayed unknown and
// window amounts were spread as totals over whole lives: October's spend
// $50,635.173 where the server charged $52,945.645, a grouping by day
// short by what it called "outside it … left out". Each figure is what the
// server charged for the month, to a thousandth a contract.
func TestDenseAccountLearnsWindowAmounts(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 60_000, Now: time.Date(2026, 11, 29, 6, 4, 56, 0, time.UTC),
		Threshold: -1, WindowAmounts: true, Span: 365 * 24 * time.Hour, Leaks: true, Payments: 500})
	srv.Advance(time.Hour, 60)
	october := []string{"--from", "2026-10-01", "--to", "2026-10-31", "--utc"}
	lo := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).Unix()
	cs := srv.Contracts(demoserver.Filter{Gte: lo, Lte: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Unix() - 1})
	var want money.Amount
	for _, c := range cs {
		want += money.Amount(c.Amount)
	}
	near := func(got money.Amount) bool {
		d := got - want
		return d <= money.Amount(len(cs)) && -d <= money.Amount(len(cs))
	}

	byDay := headless(t, srv, demoserver.DemoKey, append([]string{"--no-ledger", "charges", "--group-by", "day", "--output", "json"}, october...)...)
	byDay.ok(t)
	var days struct {
		Total money.Amount `json:"total"`
	}
	if err := json.Unmarshal([]byte(byDay.out), &days); err != nil || !near(days.Total) || strings.Contains(byDay.errOut, "left out") {
		t.Errorf("October by day: %v (%v), stderr %q; the server charged %v", days.Total, err, byDay.errOut, want)
	}
	spend := headless(t, srv, demoserver.DemoKey, "--no-ledger", "spend", "--month", "2026-10", "--utc", "--output", "json")
	spend.ok(t)
	var month struct {
		SoFar money.Amount `json:"so_far"`
	}
	if err := json.Unmarshal([]byte(spend.out), &month); err != nil || !near(month.SoFar) {
		t.Errorf("spend --month 2026-10: %v (%v); the server charged %v", month.SoFar, err, want)
	}
}

// The same with the 60 days before yesterday of 20,000 contracts, where
// neither the range's newest page nor the newest of the last 30 days held
// a contract lying wholly inside its window: each day is what the server
// charged for it (before, the last one 22% short).
func TestDenseAccountDaysAreTheServers(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 20_000, Threshold: -1, WindowAmounts: true, Span: 365 * 24 * time.Hour})
	yesterday := demoNow.AddDate(0, 0, -1)
	rng := []string{"--from", demoNow.AddDate(0, 0, -60).Format(time.DateOnly), "--to", yesterday.Format(time.DateOnly), "--utc"}
	byDay := headless(t, srv, demoserver.DemoKey, append([]string{"--no-ledger", "charges", "--group-by", "day", "--output", "json"}, rng...)...)
	byDay.ok(t)
	byType := headless(t, srv, demoserver.DemoKey, append([]string{"--no-ledger", "charges", "--group-by", "type", "--output", "json"}, rng...)...)
	byType.ok(t)
	if byDay.errOut != byType.errOut || strings.Contains(byDay.errOut, "left out") {
		t.Errorf("by day the totals line is %q, by type (the server's amounts as sent) %q", byDay.errOut, byType.errOut)
	}
	var got struct {
		Groups []groupJSON `json:"groups"`
	}
	if err := json.Unmarshal([]byte(byDay.out), &got); err != nil || len(got.Groups) == 0 {
		t.Fatalf("%v: %.200s", err, byDay.out)
	}
	last := got.Groups[len(got.Groups)-1]
	day := time.Date(yesterday.Year(), yesterday.Month(), yesterday.Day(), 0, 0, 0, 0, time.UTC)
	var want money.Amount
	cs := srv.Contracts(demoserver.Filter{Gte: day.Unix(), Lte: day.Unix() + 86400 - 1})
	for _, c := range cs {
		want += money.Amount(c.Amount)
	}
	if d := last.Amount - want; last.Group != day.Format(time.DateOnly) || d > money.Amount(len(cs)) || -d > money.Amount(len(cs)) {
		t.Errorf("%s: %v, the server charged %v for %s (%d contracts)", last.Group, last.Amount, want, day.Format(time.DateOnly), len(cs))
	}
}
