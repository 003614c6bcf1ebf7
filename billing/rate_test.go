package billing

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing/billingtest"
	"github.com/vastdash/vastdash/money"
)

func rateService(t *testing.T, src *billingtest.Pager[api.Instance]) *Service {
	t.Helper()
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	s := New(context.Background(), nil, WithClock(func() time.Time { return now }), WithLocation(time.UTC),
		withInstances(func() Source[api.Instance] { return src }))
	t.Cleanup(s.Close)
	return s
}

// The rate is the exact sum of dph_total over running instances, in
// millionths: three instances at $0.421333/h are $1.263999/h, where rounding
// each to the mill first would give $1.263 and a float sum may give
// 1.2639990000000001. Stopped instances with storage are listed apart, and
// an exited one without storage is not billing at all.
func TestCurrentRateSumsExactly(t *testing.T) {
	src := &billingtest.Pager[api.Instance]{Pages: [][]api.Instance{
		{
			{ID: 1, Status: "running", DPHTotal: 421_333, StorageTotalCost: 10_000},
			{ID: 2, Status: "exited", DPHTotal: 900_000, StorageTotalCost: 33_333},
			{ID: 3, Status: "running", DPHTotal: 421_333},
		},
		{
			{ID: 1004, Status: "running", DPHTotal: 421_333},
			{ID: 1005, Status: "exited", DPHTotal: 2_000_000},
			{ID: 1006, Status: "stopped", StorageTotalCost: 50_000},
			{ID: 1007, Status: "loading", DPHTotal: 3_000_000},
		},
	}, Matching: -1, Skipped: map[int]int{1: 2}}
	r, err := rateService(t, src).CurrentRate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.PerHour != 1_263_999 || r.PerHour.Decimal() != "1.263999" {
		t.Errorf("rate %s, want 1.263999", r.PerHour.Decimal())
	}
	if r.Storage != 83_333 || r.Running != 3 || r.Stored != 2 {
		t.Errorf("storage %s over %d stored, %d running", r.Storage.Decimal(), r.Stored, r.Running)
	}
	var ids []int64
	for _, in := range r.Billing {
		ids = append(ids, in.ID)
	}
	// Running first, ties by id; then stored, the largest storage first.
	if got, want := ids, []int64{1, 3, 1004, 1006, 2}; !equalIDs(got, want) {
		t.Errorf("billing list %v, want %v", got, want)
	}
	if r.Read != 7 || r.Skipped != 2 || r.Partial || !strings.Contains(r.Note(), "2 instances the server sent could not be read") {
		t.Errorf("read %d skipped %d partial %v note %q", r.Read, r.Skipped, r.Partial, r.Note())
	}
	// Every instance read counts by status, the one billing nothing too.
	if st := r.Statuses; len(st) != 4 || st["running"] != 3 || st["exited"] != 2 || st["stopped"] != 1 || st["loading"] != 1 {
		t.Errorf("statuses %v", st)
	}
}

func equalIDs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A server that lists instances without end is read MaxRatePages pages far
// and no further; the reading says it is a lower bound.
func TestCurrentRateStopsAtThePageCap(t *testing.T) {
	var all []api.Instance
	for i := range 2 * MaxRatePages * api.InstancesLimit {
		all = append(all, api.Instance{ID: int64(i + 1), Status: "running", DPHTotal: api.MaxRate})
	}
	src := billingtest.Paged(all, api.InstancesLimit)
	src.Matching = 1_000_000
	r, err := rateService(t, src).CurrentRate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if src.Calls() != MaxRatePages || !r.Partial {
		t.Fatalf("%d pages read (partial %v), want %d", src.Calls(), r.Partial, MaxRatePages)
	}
	want := api.Rate(MaxRatePages*api.InstancesLimit) * api.MaxRate
	if r.PerHour != want || r.PerHour <= 0 {
		t.Errorf("rate %s, want %s", r.PerHour.Decimal(), want.Decimal())
	}
	if !strings.Contains(r.Note(), "only the first 1,000 instances read") {
		t.Errorf("note %q", r.Note())
	}
	// At $10 million an hour $100 million lasts 10 hours, and the runway
	// says so rather than overflowing.
	if rw := r.Runway(money.Amount(100_000_000_000)); rw.Reason != "" || rw.Tenths >= RunwayShortTenths {
		t.Errorf("runway %+v", rw)
	}
}

// rateDemo is the demo server with instance pacing off and a client with
// key on it.
func rateDemo(t *testing.T, key string, setup func(*demoserver.Server)) *Service {
	t.Helper()
	srv, s, _ := startDemo(t, demoserver.Options{Contracts: 400, Threshold: -1, InstancesThreshold: -1}, key,
		api.WithEndpointThreshold(api.InstancesPath, 0), api.WithTimeout(5*time.Second))
	// The service reads nothing until asked, so the setup still comes
	// before its first request.
	if setup != nil {
		setup(srv)
	}
	return s
}

// Against the demo server the rate is the sum of what it serves, and the
// list holds exactly the running instances and those keeping storage.
func TestCurrentRateFromTheDemoServer(t *testing.T) {
	var truth []demoserver.InstanceTruth
	s := rateDemo(t, demoserver.DemoKey, func(srv *demoserver.Server) { truth = srv.Instances() })
	r, err := s.CurrentRate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var rate, storage api.Rate
	billing := 0
	for _, in := range truth {
		switch {
		case in.Status == "running":
			rate += api.Rate(in.DPH)
			billing++
		case in.Storage > 0:
			storage += api.Rate(in.Storage)
			billing++
		}
	}
	if rate == 0 || storage == 0 {
		t.Fatalf("the demo data has no running (%s) or stored (%s) instances; the test proves nothing", rate.Decimal(), storage.Decimal())
	}
	if r.PerHour != rate || r.Storage != storage || len(r.Billing) != billing || r.Read != len(truth) {
		t.Errorf("got %s + %s over %d of %d read; want %s + %s over %d of %d",
			r.PerHour.Decimal(), r.Storage.Decimal(), len(r.Billing), r.Read, rate.Decimal(), storage.Decimal(), billing, len(truth))
	}
}

// mutateInstances rewrites the first instances page's entries.
func mutateInstances(change func(i int, e map[string]any)) func([]byte) []byte {
	return func(b []byte) []byte {
		var doc map[string]any
		if json.Unmarshal(b, &doc) != nil {
			return b
		}
		list, _ := doc["instances"].([]any)
		for i, raw := range list {
			if e, ok := raw.(map[string]any); ok {
				change(i, e)
			}
		}
		out, _ := json.Marshal(doc)
		return out
	}
}

// Well-typed values that are not sane — a $1e9/h instance, a negative rate,
// a start in year 9999, storage of $1e300 — are skipped and counted: none
// reaches the sum, and the rest is read.
func TestCurrentRateRefusesImplausibleValues(t *testing.T) {
	var truth []demoserver.InstanceTruth
	s := rateDemo(t, demoserver.DemoKey, func(srv *demoserver.Server) {
		truth = srv.Instances()
		srv.AddFault(demoserver.Fault{Path: api.InstancesPath[:len(api.InstancesPath)-1], Times: 1, Mutate: mutateInstances(func(i int, e map[string]any) {
			switch i {
			case 0:
				e["dph_total"] = 1e9
			case 1:
				e["dph_total"] = -2.5
			case 2:
				e["start_date"] = 253402214400.0 // 9999-12-31
			case 3:
				e["storage_total_cost"] = 1e300
			}
		})})
	})
	r, err := s.CurrentRate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if r.Skipped != 4 || r.Read != len(truth)-4 {
		t.Fatalf("skipped %d, read %d of %d", r.Skipped, r.Read, len(truth))
	}
	var rate api.Rate
	for _, in := range truth[4:] {
		if in.Status == "running" {
			rate += api.Rate(in.DPH)
		}
	}
	if r.PerHour != rate {
		t.Errorf("rate %s, want %s (the refused entries left out)", r.PerHour.Decimal(), rate.Decimal())
	}
	if r.PerHour > api.Rate(len(truth))*api.MaxRate || r.PerHour < 0 {
		t.Errorf("rate %s out of bounds", r.PerHour.Decimal())
	}
}

// A key without instance_read gets a typed answer, not an error: the front
// ends say "needs instance_read" in the rate's place and everything else
// works.
func TestCurrentRateNeedsInstanceRead(t *testing.T) {
	s := rateDemo(t, demoserver.KeyReadOnly, nil)
	r, err := s.CurrentRate(context.Background())
	if err != nil {
		t.Fatalf("a missing permission is an error: %v", err)
	}
	if r.NeedsPermission != NeedsInstanceRead || r.PerHour != 0 || len(r.Billing) != 0 {
		t.Fatalf("reading %+v", r)
	}
	if rw := r.Runway(money.Amount(100_000)); !strings.Contains(rw.Reason, "instance_read") {
		t.Errorf("runway reason %q", rw.Reason)
	}
}

// Other failures are errors, so the front ends can offer a retry.
func TestCurrentRateError(t *testing.T) {
	src := &billingtest.Pager[api.Instance]{Fail: &api.Error{Kind: api.ErrServer, Status: 502}}
	if _, err := rateService(t, src).CurrentRate(context.Background()); err == nil {
		t.Fatal("a 502 read as a reading")
	}
}

// The runway at the current rate: $24 at $1/h is one day; nothing billing
// and no credit have reasons instead of figures.
func TestRunwayAtTheCurrentRate(t *testing.T) {
	asOf := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	r := CurrentRate{PerHour: 800_000, Storage: 200_000, AsOf: asOf}
	rw := r.Runway(money.Amount(24_000))
	if rw.Reason != "" || rw.Tenths != 10 || !rw.Until.Equal(asOf.Add(24*time.Hour)) {
		t.Errorf("runway %+v, want 1.0 days until %v", rw, asOf.Add(24*time.Hour))
	}
	if rw := (CurrentRate{AsOf: asOf}).Runway(money.Amount(24_000)); rw.Reason != "nothing is billing now" {
		t.Errorf("nothing billing: %+v", rw)
	}
	if rw := r.Runway(0); rw.Reason != "no credit left" {
		t.Errorf("no credit: %+v", rw)
	}
	// A few millionths an hour is a long runway, not none.
	if rw := (CurrentRate{PerHour: 3, AsOf: asOf}).Runway(money.Amount(1000)); rw.Reason != "" || rw.Tenths < 10 {
		t.Errorf("tiny rate: %+v", rw)
	}
}

// The watch rings once per crossing: not for the state the program started
// in, not again while the credit stays low, again after it recovered and
// fell once more; an unreadable refresh in between is not a crossing.
func TestWatchRingsOncePerCrossing(t *testing.T) {
	threshold, on := money.Amount(50_000), true
	user := func(credit money.Amount) *api.User {
		return &api.User{Credit: credit, BalanceThreshold: &threshold, BalanceThresholdEnabled: &on}
	}
	rate := &CurrentRate{PerHour: 1_000_000, AsOf: time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)}
	var w Watch
	steps := []struct {
		u    *api.User
		r    *CurrentRate
		want []Alarm
	}{
		{user(40_000), rate, nil},                     // start: already low, no ring
		{user(100_000), rate, nil},                    // topped up
		{user(45_000), rate, []Alarm{AlarmThreshold}}, // crossed below
		{user(44_000), rate, nil},                     // still below: no second ring
		{nil, nil, nil},                               // a failed refresh
		{user(43_000), rate, nil},                     // still below after it
		{user(20_000), rate, []Alarm{AlarmRunway}},    // $20 at $1/h: under a day
		{user(19_000), rate, nil},
		{user(19_000), &CurrentRate{NeedsPermission: NeedsInstanceRead}, nil}, // cannot tell
		{user(18_000), rate, nil},
		{user(18_000), &CurrentRate{PerHour: 100_000, AsOf: rate.AsOf}, nil}, // slower: 7.5 days
		{user(17_000), rate, []Alarm{AlarmRunway}},
	}
	for i, s := range steps {
		got := w.Observe(s.u, s.r)
		var alarms []Alarm
		for _, c := range got {
			alarms = append(alarms, c.Alarm)
			if c.Text == "" {
				t.Errorf("step %d: a crossing without a text", i)
			}
		}
		if len(alarms) != len(s.want) || (len(alarms) > 0 && alarms[0] != s.want[0]) {
			t.Errorf("step %d: crossings %v, want %v", i, alarms, s.want)
		}
	}
	if !w.Active(AlarmThreshold) || !w.Active(AlarmRunway) {
		t.Error("the alarms that are on read as off")
	}
	got := w.Observe(user(5_000), rate)
	if len(got) != 0 {
		t.Errorf("still low: %v", got)
	}
}

// The crossing's text names the figures.
func TestWatchText(t *testing.T) {
	threshold := money.Amount(50_000)
	var w Watch
	w.Observe(&api.User{Credit: 60_000, BalanceThreshold: &threshold}, nil)
	got := w.Observe(&api.User{Credit: 49_500, BalanceThreshold: &threshold}, nil)
	if len(got) != 1 || got[0].Text != "credit $49.50 fell below your $50.00 low-balance alert" {
		t.Errorf("crossing %+v", got)
	}
}
