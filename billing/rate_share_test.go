package billing

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// instanceReads counts the requests for the instances' first page.
func instanceReads(srv *demoserver.Server) int {
	n := 0
	for _, r := range srv.Requests() {
		if strings.TrimSuffix(r.Path, "/") == "/api/v1/instances" && r.Query.Get("after_token") == "" {
			n++
		}
	}
	return n
}

// The dashboard's opening and every refresh ask for the instances three
// ways: the key's access probe (after the account is read), the current
// rate and the audit. One read of the first page serves them all —
// whichever asks first, side by side or a moment after the page came
// back — and the next refresh, an interval later, reads it again.
func TestOpeningReadsTheInstancesFirstPageOnce(t *testing.T) {
	const pace, th = time.Second, 30 * time.Millisecond
	srv, s, _ := startDemo(t, demoserver.Options{Contracts: 30, Now: auditNow, Leaks: true,
		Threshold: th, InstancesThreshold: pace, VolumesThreshold: th, EndpointsThreshold: th, WorkerGroupsThreshold: th, InvoicesThreshold: th},
		demoserver.DemoKey, api.WithChargesThreshold(th), api.WithEndpointThreshold(api.InstancesPath, pace),
		api.WithEndpointThreshold(api.VolumesPath, th), api.WithEndpointThreshold(api.EndpointJobsPath, th),
		api.WithEndpointThreshold(api.WorkerGroupsPath, th), api.WithEndpointThreshold(api.InvoicesPath, th))
	ctx := context.Background()
	probe := func() {
		if err := s.ProbeInstances(ctx); err != nil {
			t.Error(err)
		}
	}
	read := func() {
		if _, err := s.CurrentRate(ctx); err != nil {
			t.Error(err)
		}
	}
	audit := func() {
		if _, err := s.Audit(ctx); err != nil {
			t.Error(err)
		}
	}
	// The opening: all three at once.
	var wg sync.WaitGroup
	wg.Go(read)
	wg.Go(audit)
	wg.Go(probe)
	wg.Wait()
	if n := instanceReads(srv); n != 1 {
		t.Fatalf("the opening read the instances' first page %d times", n)
	}
	// A refresh, once that page is older than the endpoint's pace: the
	// reading starts, and the probe comes as soon as the first page is
	// answered (as the account comes back a moment after it).
	time.Sleep(pace)
	wg.Go(read)
	wg.Go(audit)
	for answered := false; !answered; time.Sleep(time.Millisecond) {
		var last demoserver.Request
		for _, r := range srv.Requests() {
			if strings.TrimSuffix(r.Path, "/") == "/api/v1/instances" && r.Query.Get("after_token") == "" {
				last = r
			}
		}
		answered = instanceReads(srv) == 2 && last.Status != 0
	}
	probe()
	wg.Wait()
	if n := instanceReads(srv); n != 2 {
		t.Fatalf("the refresh read the instances' first page %d times in all, want 2", n-1)
	}
}
