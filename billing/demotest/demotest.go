// Package demotest starts, for the tests of the packages that stand on the
// billing core (billing/access, billing/leaks, billing/notices), a demo
// server, a client of it and a core on that client, each closed when the
// test ends. The core's own tests keep a copy of their own: a package's
// internal tests cannot import a package that imports it.
package demotest

import (
	"context"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
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
