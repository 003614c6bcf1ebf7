package cli

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// Three runs at once on one key — as a dashboard, a cron command and
// serve would be — share the key's pace through the file beside its
// ledger: the server, which refuses a key's requests closer together than
// its threshold, refuses none, and every run finishes with its answer.
func TestRunsOnOneKeyShareItsPace(t *testing.T) {
	const pace = 80 * time.Millisecond
	srv := startServer(t, demoserver.Options{Contracts: 3000, Threshold: pace / 2})
	isolate(t)
	t.Setenv("VAST_API_KEY", demoserver.DemoKey)
	var wg sync.WaitGroup
	results := make([]result, 3)
	for i := range results {
		wg.Go(func() {
			var out, errb bytes.Buffer
			r := testEnv(&out, &errb)
			r.clientOptions = []api.Option{api.WithChargesThreshold(pace)}
			r.now = srv.Now
			r.context = func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
			code := run([]string{"--url", srv.URL(), "charges", "--from", "2026-08-01", "--output", "csv"}, r)
			results[i] = result{code, out.String(), errb.String()}
		})
	}
	wg.Wait()
	for _, res := range results {
		res.ok(t)
	}
	if n := len(chargesRequests(srv)); n < 9 {
		t.Fatalf("only %d charges requests: the runs did not page", n)
	}
	if n := srv.CountStatus(http.StatusTooManyRequests); n != 0 {
		t.Fatalf("%d requests refused with 429: the runs did not share the key's pace", n)
	}
}
