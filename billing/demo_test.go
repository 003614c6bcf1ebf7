package billing

import (
	"context"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// startDemo starts the demo server with opts and a service on it for key,
// through a client with copts, in UTC on the server's clock; both stop
// with the test.
func startDemo(t *testing.T, opts demoserver.Options, key string, copts ...api.Option) (*demoserver.Server, *Service, *api.Client) {
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
	s := New(context.Background(), client, WithLocation(time.UTC), WithClock(srv.Now))
	t.Cleanup(s.Close)
	return srv, s, client
}
