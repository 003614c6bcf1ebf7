package billing

import (
	"database/sql"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// Window amounts learnt by a first sync from a local midnight (New York's:
// 05:00 UTC): the window was not of whole UTC days, and the part of the
// first UTC day before it was never asked — its contracts short, for good.
// The rule learnt, the days are asked again whole; the range reads as the
// server answers it, now and on the next run.
func TestLedgerRuleLearntInAWindowOfPartDays(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1300, WindowAmounts: true})
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no zone data:", err)
	}
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	n := srv.Now().In(ny)
	q := RangeQuery(time.Date(n.Year(), n.Month(), n.Day()-20, 0, 0, 0, 0, ny), srv.Now())
	got, _ := load(t, r.s, q)
	if r.s.AmountRule() != RuleWindow {
		t.Fatalf("rule %v", r.s.AmountRule())
	}
	closeToServer(t, srv, q, got)
	r.close()

	srv.Advance(time.Hour, 0)
	r = openRun(t, srv, dir)
	q = RangeQuery(q.From, srv.Now())
	got, _ = load(t, r.s, q)
	closeToServer(t, srv, q, got)
}

// A contract the count check finds missing under window amounts comes
// back with all its days in the range, not with those of the one halving
// window that fetched it.
func TestLedgerMissingContractComesBackWhole(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1300, WindowAmounts: true})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	q := yearQuery(srv.Now())
	load(t, r.s, q)
	// The longest ended contract across the middle of the next run's year
	// (where the count check halves it first), lost from the ledger.
	next := yearQuery(srv.Now().Add(time.Hour))
	lo, hi := windowOf(next)
	mid := dayFloor(lo + (hi-lo)/2)
	var src string
	var life int64
	for _, c := range srv.Contracts(wholeFilter(q)) {
		if c.End != srv.Now().Unix() && c.Start < mid-day && c.End > mid+day && c.End-c.Start > life {
			src, life = c.Source, c.End-c.Start
		}
	}
	if src == "" {
		t.Fatal("no contract across the middle of the year")
	}
	path := r.led.Path()
	r.close()
	db, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`DELETE FROM contracts WHERE source = ?`, src); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()

	srv.Advance(time.Hour, 0)
	r = openRun(t, srv, dir)
	q = yearQuery(srv.Now())
	got, _ := load(t, r.s, q)
	closeToServer(t, srv, q, got)
}

func wholeFilter(q api.ChargesQuery) demoserver.Filter {
	return demoserver.Filter{Gte: q.From.Unix(), Lte: q.To.Unix()}
}
