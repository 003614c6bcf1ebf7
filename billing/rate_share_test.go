package billing

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
)

// auditNow is the demo's clock in these tests, the day its leaks are set
// against.
var auditNow = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

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
	audit := func() { // the audit's reading of the instances (billing/leaks)
		if _, err := s.Instances(ctx); err != nil {
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

// gatedInstances serves one page once gate closes, counting the pages
// asked for.
type gatedInstances struct {
	gate   chan struct{}
	mu     sync.Mutex
	served int
}

func (g *gatedInstances) Next(ctx context.Context) (api.Page[api.Instance], error) {
	<-g.gate
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.served > 0 {
		return api.Page[api.Instance]{}, api.ErrPagerDone
	}
	g.served++
	return api.Page[api.Instance]{Results: []api.Instance{
		{ID: 1, Status: "running", IntendedStatus: "running", DPHTotal: 500_000, GPUUtilKnown: true},
		{ID: 2, Status: "exited", IntendedStatus: "stopped", StorageTotalCost: 20_000, StorageKnown: true},
	}}, nil
}

func (g *gatedInstances) Done() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.served > 0
}

func (g *gatedInstances) Total() int { return -1 }

// The rate and the audit start together (at start, on r, on a refresh):
// they share one reading of the instances (the audit reads it through
// Instances) rather than paging the endpoint twice side by side on one
// pacing budget, which provoked a 429.
func TestRateAndAuditShareOneInstanceReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &gatedInstances{gate: make(chan struct{})}
		s := New(context.Background(), nil, WithClock(func() time.Time { return auditNow }), WithLocation(time.UTC),
			withInstances(func() Source[api.Instance] { return src }))
		defer s.Close()
		var (
			rate CurrentRate
			rd   InstanceReading
			errs [2]error
			wg   sync.WaitGroup
		)
		wg.Add(2)
		go func() { defer wg.Done(); rate, errs[0] = s.CurrentRate(context.Background()) }()
		go func() { defer wg.Done(); rd, errs[1] = s.Instances(context.Background()) }()
		synctest.Wait() // both readers wait: one on the page, one on the reading
		close(src.gate)
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatal(errs)
		}
		if src.served != 1 || rate.PerHour != 500_000 || rate.Storage != 20_000 || len(rd.Instances) != 2 {
			t.Fatalf("%d pages served; rate %s + %s; instances %+v", src.served, rate.PerHour.Decimal(), rate.Storage.Decimal(), rd.Instances)
		}
	})
}
