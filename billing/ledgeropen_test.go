package billing

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/ledger"
)

// openBeside is a service whose ledger, in dir, is opened beside its start
// (ledger.Handle.Start) and waits for release before naming whose it is:
// what the dashboard does while its first frame is drawn.
func openBeside(t *testing.T, srv *demoserver.Server, dir string, identity func() (ledger.Identity, error)) (*Service, *ledger.Handle, chan struct{}) {
	t.Helper()
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0),
		api.WithEndpointThreshold(api.InvoicesPath, 0), api.WithTimeout(syncWait))
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	h := ledger.Opening(dir, func() (ledger.Identity, error) { <-release; return identity() }, nil)
	h.Start()
	s := New(context.Background(), client, WithLocation(time.UTC), WithClock(srv.Now), WithLedger(h))
	return s, h, release
}

// feedUnblocked is s.Feed(q), failing the test if asking for it waits (on
// the ledger's open): the dashboard asks on its first frame's path.
func feedUnblocked(t *testing.T, s *Service, q api.ChargesQuery) *Feed {
	t.Helper()
	got := make(chan *Feed, 1)
	go func() { got <- s.Feed(q) }()
	select {
	case f := <-got:
		return f
	case <-time.After(10 * time.Second):
		t.Fatal("asking for a feed waited for the ledger being opened")
		return nil
	}
}

// The dashboard opens its ledger beside its first frame: a feed asked for
// while the file is still being opened is had at once, and once the file
// is open its rows are the ledger's — the second run asks the server only
// what changed and the count, as when the ledger was open first.
func TestLedgerOpenedBesideTheStart(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1300})
	dir := t.TempDir()
	q := yearQuery(srv.Now())
	r := openRun(t, srv, dir)
	load(t, r.s, q)
	r.close()
	srv.ResetRequests()

	id := ledger.Identity{Host: "demo", Account: ledger.KeyDigest(demoserver.DemoKey)}
	s, h, release := openBeside(t, srv, dir, func() (ledger.Identity, error) { return id, nil })
	f := feedUnblocked(t, s, q)
	if st := f.State(); st.Done {
		t.Fatalf("the feed is done before the ledger is open: %+v", st)
	}
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), syncWait)
	defer cancel()
	got, st, err := f.All(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameAsServer(t, srv, q, got)
	if !st.Ledger {
		t.Fatalf("the rows are not the ledger's: %+v", st)
	}
	if n := srv.CountPath(chargesPath); n > 3 {
		t.Fatalf("reopening a covered year with the ledger opened beside the start: %d requests", n)
	}
	if s.AmountRule() == RuleUnknown {
		t.Error("the amount rule the ledger keeps was not taken")
	}
	f.Release()
	s.Close()
	if err := h.Close(); err != nil {
		t.Error(err)
	}
}

// A ledger that cannot be opened beside the start: the feed asked for
// meanwhile pages the server, exact, and says why in its warnings.
func TestLedgerOpenedBesideTheStartFails(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 700})
	s, h, release := openBeside(t, srv, t.TempDir(), func() (ledger.Identity, error) {
		return ledger.Identity{}, errors.New("read-only folder")
	})
	defer func() { _ = h.Close() }()
	defer s.Close()
	q := yearQuery(srv.Now())
	f := feedUnblocked(t, s, q)
	defer f.Release()
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), syncWait)
	defer cancel()
	got, st, err := f.All(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameAsServer(t, srv, q, got)
	if st.Ledger || s.Ledger() != nil {
		t.Fatalf("a ledger in use after its open failed: %+v", st)
	}
	if w := st.Warnings(); len(w) != 1 || !strings.Contains(w[0], "read-only folder") {
		t.Errorf("warnings %q", w)
	}
}
