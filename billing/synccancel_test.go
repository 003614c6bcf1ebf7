package billing

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/ledger"
)

// cutAfter is a transport that, once armed, runs its func when a charges
// page has been answered whole (its body read): the page reaches the sync,
// which then writes it with its context cancelled — a feed replaced while
// it writes, exactly.
type cutAfter struct {
	next  http.RoundTripper
	armed atomic.Pointer[func()]
}

func (c *cutAfter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(r)
	if err != nil || !strings.HasPrefix(r.URL.Path, chargesPath) {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if f := c.armed.Swap(nil); f != nil {
		(*f)()
	}
	return resp, nil
}

// A feed replaced while its sync writes a page (the range changed with `d`
// while a page loads, a remembered range other than the setting's) is no
// fault of the ledger: the next feed still reads and syncs it, with no
// warning, and a sync asked by name and interrupted says nothing of the
// ledger either.
func TestLedgerKeptWhenAFeedIsReplacedMidSync(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1300})
	cut := &cutAfter{next: http.DefaultTransport}
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0), api.WithTimeout(syncWait),
		api.WithHTTPClient(&http.Client{Transport: cut}))
	if err != nil {
		t.Fatal(err)
	}
	id := ledger.Identity{Host: "demo", Account: ledger.KeyDigest(demoserver.DemoKey)}
	led, _, err := ledger.Open(ledger.Path(t.TempDir(), id), id)
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	s := New(context.Background(), client, WithLocation(time.UTC), WithClock(srv.Now), WithLedger(ledger.Opened(led)), WithAmountRule(RuleTotals))
	defer s.Close()

	q := yearQuery(srv.Now())
	f := s.Feed(q)
	release := f.Release
	cut.armed.Store(&release)
	f.WantAll()
	ctx, cancel := context.WithTimeout(context.Background(), syncWait)
	defer cancel()
	for st := f.State(); !st.Closed; {
		st = f.Wait(ctx, st.Version)
		if ctx.Err() != nil {
			t.Fatalf("the replaced feed never closed: %+v", f.State())
		}
	}
	if s.Ledger() == nil {
		t.Fatalf("the ledger was given up for a feed replaced mid-sync: %q", s.lh.Note())
	}
	got, st := load(t, s, q)
	sameAsServer(t, srv, q, got)
	if !st.Ledger || len(st.Warnings()) != 0 {
		t.Errorf("the next feed: ledger %v, warnings %q", st.Ledger, st.Warnings())
	}

	// `vastdash sync` interrupted as it writes: the error is the
	// interruption's, the ledger is kept.
	sctx, scancel := context.WithCancel(context.Background())
	defer scancel()
	stop := func() { scancel() }
	cut.armed.Store(&stop)
	srv.Advance(time.Hour, 5)
	_, err = s.SyncCharges(sctx, srv.Now().AddDate(-1, 0, 0), srv.Now(), nil)
	if err == nil || strings.Contains(err.Error(), "cannot sync") || s.Ledger() == nil {
		t.Errorf("an interrupted sync: %v; ledger kept %v", err, s.Ledger() != nil)
	}
}

// The ledger's note (why it was given up, or started anew) is one thing
// to say: the statement, built of two feeds each carrying it, says it once.
func TestStatementSaysTheLedgersNoteOnce(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 50, Payments: 5})
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0),
		api.WithEndpointThreshold(api.InvoicesPath, 0), api.WithTimeout(syncWait))
	if err != nil {
		t.Fatal(err)
	}
	const note = "the ledger /x/ledger.db cannot be used (the disk is full): this run reads the server"
	s := New(context.Background(), client, WithLocation(time.UTC), WithClock(srv.Now), WithLedger(ledger.Off(note)))
	defer s.Close()
	st, err := s.Statement(context.Background(), srv.Now().AddDate(0, -2, 0), srv.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range st.Warnings {
		if w == note {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the note said %d times: %q", n, st.Warnings)
	}
}

// This machine's clock three hours ahead of the server's: the contracts
// running at a sync still read as running (by the server's clock, the
// newest end it reported), so those that end before the next sync are
// asked again and held with what they came to — not kept at their
// amount of the first sync, for good.
func TestLedgerLocalClockAheadOfTheServer(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1300})
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0), api.WithTimeout(syncWait))
	if err != nil {
		t.Fatal(err)
	}
	id := ledger.Identity{Host: "demo", Account: ledger.KeyDigest(demoserver.DemoKey)}
	led, _, err := ledger.Open(ledger.Path(t.TempDir(), id), id)
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	ahead := func() time.Time { return srv.Now().Add(3 * time.Hour) }
	s := New(context.Background(), client, WithLocation(time.UTC), WithClock(ahead), WithLedger(ledger.Opened(led)), WithAmountRule(RuleTotals))
	defer s.Close()
	// The range to now, as the dashboard's: to this machine's now.
	q := RangeQuery(srv.Now().AddDate(0, -1, 0), ahead())
	load(t, s, q)
	moved := srv.Move(demoserver.Move{By: time.Hour, End: 20})
	if len(moved.Ended) == 0 {
		t.Fatal("no contract ended")
	}
	if _, err := s.SyncCharges(context.Background(), q.From, ahead(), nil); err != nil {
		t.Fatal(err)
	}
	q = RangeQuery(q.From, srv.Now())
	got, err := s.ledgerCharges(context.Background(), led, q, RuleTotals)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(got) // oldest first, as sameAsServer asks
	q.OldestFirst = true
	sameAsServer(t, srv, q, got)
}

// A payment record pending since August does not hold the ledger open
// behind it: with nothing changed, a sync asks its day again, the last
// days and the count — not every record since August, at a request
// every 3 s — and never more than a fresh read of the range would.
func TestLedgerPendingRecordAsksItsDayAlone(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC)
	n := now.Unix()
	var recs []demoserver.Invoice
	for i := range 400 {
		c := n - int64(100-i/4)*day - int64(i%4)*3600
		recs = append(recs, demoserver.Invoice{ID: "paid-" + strconv.Itoa(i), Created: c, Paid: c + 60, Type: "credit",
			Source: "stripe", Description: "Card payment", Service: "stripe_payments", Amount: -10_000})
	}
	recs = append(recs, demoserver.Invoice{ID: "crypto", Created: n - 110*day, Type: "credit", Source: "coinbase",
		Description: "Crypto payment", Service: "coinbase", Amount: -500_000})
	srv := startServer(t, demoserver.Options{Contracts: 50, Now: now, Invoices: recs})
	dir := t.TempDir()
	r := openRun(t, srv, dir)
	ctx := context.Background()
	from := now.AddDate(0, -6, 0)
	if _, err := r.s.SyncPayments(ctx, from, now, nil); err != nil {
		t.Fatal(err)
	}
	fresh := srv.CountPath(api.InvoicesPath)
	r.close()

	srv.Advance(time.Hour, 0)
	srv.ResetRequests()
	r = openRun(t, srv, dir)
	if _, err := r.s.SyncPayments(ctx, from, srv.Now(), nil); err != nil {
		t.Fatal(err)
	}
	if got := srv.CountPath(api.InvoicesPath); got > 3 || got > fresh {
		dumpReqs(t, srv)
		t.Errorf("with nothing changed a sync asked %d requests (a fresh read: %d)", got, fresh)
	}
	held, err := r.led.Payments(ctx, 0, 1<<40)
	if err != nil || len(held) != len(recs) {
		t.Errorf("%d records held (%v), the server has %d", len(held), err, len(recs))
	}
}

// A command run while another vastdash writes the ledger: it reads a
// fraction of the range (the other's first page), then its own sync finds
// every row current — the other wrote them meanwhile — and changes
// nothing. It must still answer the whole range, not what it read first.
func TestLedgerAnotherWriterFillsTheRangeMeanwhile(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1300})
	dir := t.TempDir()
	other := openRun(t, srv, dir)
	q := yearQuery(srv.Now())
	ctx, cancel := context.WithCancel(context.Background())
	_, _ = other.s.SyncCharges(ctx, q.From, q.To, func(st SyncState) {
		if st.Pages == 1 {
			cancel()
		}
	})
	cancel()

	cut := &cutAfter{next: http.DefaultTransport}
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithChargesThreshold(0), api.WithTimeout(syncWait),
		api.WithHTTPClient(&http.Client{Transport: cut}))
	if err != nil {
		t.Fatal(err)
	}
	id := ledger.Identity{Host: "demo", Account: ledger.KeyDigest(demoserver.DemoKey)}
	led, _, err := ledger.Open(ledger.Path(dir, id), id)
	if err != nil {
		t.Fatal(err)
	}
	defer led.Close()
	s := New(context.Background(), client, WithLocation(time.UTC), WithClock(srv.Now), WithLedger(ledger.Opened(led)), WithAmountRule(RuleTotals))
	defer s.Close()
	// Its first request: the other process finishes the range first.
	finish := func() {
		if _, err := other.s.SyncCharges(context.Background(), q.From, q.To, nil); err != nil {
			t.Error(err)
		}
	}
	cut.armed.Store(&finish)
	got, _ := load(t, s, q)
	sameAsServer(t, srv, q, got)
}
