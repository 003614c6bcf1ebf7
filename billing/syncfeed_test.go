package billing

import (
	"context"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// TestSyncFeedSyncsWithoutRows: a sync-only feed of a year brings the
// ledger up to date — afterwards the window reads the same count and
// total as the full feed — while it hands out no rows; its state says
// the sync ended (Done, Ledger, Synced) and its generation moved, which
// tells a holder to read the window again.
func TestSyncFeedSyncsWithoutRows(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 300})
	r := openRun(t, srv, t.TempDir())
	q := yearQuery(srv.Now())
	f := r.s.SyncFeed(q, false)
	ctx, cancel := context.WithTimeout(context.Background(), syncWait)
	defer cancel()
	rows, st, err := f.All(ctx, nil)
	f.Release()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 0 || st.Entries != 0 || len(f.Pages(0)) != 0 {
		t.Fatalf("a sync-only feed held %d rows (%d entries)", len(rows), st.Entries)
	}
	if !st.Done || !st.Ledger || st.Synced.IsZero() || st.Generation == 0 || st.Pages == 0 {
		t.Fatalf("state after the sync: %+v", st)
	}
	w, ok := r.s.ChargesWindow(ctx, q)
	if !ok {
		t.Fatal("after the sync-only feed the ledger does not hold the range")
	}
	n, total, err := w.Totals(ctx)
	full, _ := load(t, r.s, q)
	var want int64
	for i := range full {
		want += int64(full[i].Amount)
	}
	if err != nil || n != len(full) || n == 0 || int64(total) != want {
		t.Fatalf("window after the sync: %d contracts, %v (%v); the full feed's %d, %d", n, total, err, len(full), want)
	}
}

// TestSyncFeedWithoutLedger: without a ledger a sync-only feed stops at
// once with an error LedgerUnavailable recognises, asking the server
// nothing, so its holder takes the full feed.
func TestSyncFeedWithoutLedger(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 30})
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0), api.WithTimeout(syncWait))
	if err != nil {
		t.Fatal(err)
	}
	s := New(context.Background(), client, WithLocation(time.UTC), WithClock(srv.Now))
	defer s.Close()
	f := s.SyncFeed(yearQuery(srv.Now()), false)
	defer f.Release()
	ctx, cancel := context.WithTimeout(context.Background(), syncWait)
	defer cancel()
	rows, st, err := f.All(ctx, nil)
	if !LedgerUnavailable(err) || len(rows) != 0 || st.Pages != 0 {
		t.Fatalf("without a ledger: %d rows, %d pages, %v", len(rows), st.Pages, err)
	}
	if LedgerUnavailable(api.ErrRateLimited) {
		t.Fatal("a server's refusal taken for a missing ledger")
	}
}

// TestSyncFeedWithoutLedgerAtOnce: without a ledger (or a client) a
// sync-only feed stops the moment it is asked for its sync, on an error
// LedgerUnavailable recognises, and never makes a page source: a screen
// that tries it first and falls back to the full feed in the same update
// costs the server, and a test's fake pages, nothing.
func TestSyncFeedWithoutLedgerAtOnce(t *testing.T) {
	made := 0
	s := New(context.Background(), nil, WithPages(func(api.ChargesQuery) Source[api.Charge] {
		made++
		return nil
	}))
	defer s.Close()
	f := s.SyncFeed(yearQuery(time.Now()), false)
	defer f.Release()
	f.WantAll()
	if st := f.State(); !LedgerUnavailable(st.Err) || st.Loading {
		t.Fatalf("without a ledger, once asked: %+v", st)
	}
	if made != 0 {
		t.Fatalf("a sync-only feed made %d page sources", made)
	}
}
