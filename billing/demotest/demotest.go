// Package demotest starts, for the tests of the packages that stand on the
// billing core (billing/access, billing/leaks, billing/notices, the
// screens), a demo
// server, a client of it and a core on that client, each closed when the
// test ends. The core's own tests keep a copy of their own: a package's
// internal tests cannot import a package that imports it.
package demotest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ledger"
)

// Start starts the demo server with opts and a billing core on it for key,
// through a client with copts, in UTC on the server's clock; all stop with
// the test.
func Start(t testing.TB, opts demoserver.Options, key string, copts ...api.Option) (*demoserver.Server, *billing.Service, *api.Client) {
	t.Helper()
	srv, err := demoserver.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	client, err := api.New(srv.URL(), key, copts...)
	if err != nil {
		t.Fatal(err)
	}
	s := billing.New(context.Background(), client, billing.WithLocation(time.UTC), billing.WithClock(srv.Now))
	t.Cleanup(s.Close)
	return srv, s, client
}

// Ledger is a billing core on srv for its demo key, keeping its ledger in
// dir, in UTC on clock (the server's when nil), through a client with
// its charges pacing off and copts; stop closes it before the test ends (once: the test's end
// then does nothing more). Two cores on one dir share the ledger as two
// runs of vastdash do.
func Ledger(tb testing.TB, srv *demoserver.Server, dir string, clock func() time.Time, copts ...api.Option) (s *billing.Service, stop func()) {
	tb.Helper()
	if clock == nil {
		clock = srv.Now
	}
	client, err := api.New(srv.URL(), demoserver.DemoKey, append([]api.Option{api.WithChargesThreshold(0)}, copts...)...)
	if err != nil {
		tb.Fatal(err)
	}
	id := ledger.Identity{Host: "demo", Account: ledger.KeyDigest(demoserver.DemoKey)}
	led, _, err := ledger.Open(ledger.Path(dir, id), id)
	if err != nil {
		tb.Fatal(err)
	}
	base, cancel := context.WithCancel(context.Background())
	s = billing.New(base, client, billing.WithClock(clock), billing.WithLocation(time.UTC), billing.WithLedger(ledger.Opened(led)))
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			s.Close()
			_ = led.Close()
		})
	}
	tb.Cleanup(stop)
	return s, stop
}
