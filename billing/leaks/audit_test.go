package leaks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/demotest"
	"github.com/vastdash/vastdash/money"
)

var auditNow = time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)

// auditDemo starts a demo server whose account has the leaks and decoys,
// every endpoint paced as the real one is but on short thresholds, and a
// service whose client paces the same way (and takes opts).
func auditDemo(t *testing.T, key string, opts ...api.Option) (*demoserver.Server, *billing.Service) {
	t.Helper()
	const th = 30 * time.Millisecond
	srv, s, _ := demotest.Start(t, demoserver.Options{Contracts: 300, Now: auditNow, Leaks: true,
		Threshold: th, InstancesThreshold: th, VolumesThreshold: 2 * th, EndpointsThreshold: th, WorkerGroupsThreshold: th},
		key, append([]api.Option{api.WithChargesThreshold(th), api.WithEndpointThreshold(api.InstancesPath, th),
			api.WithEndpointThreshold(api.VolumesPath, 2*th), api.WithEndpointThreshold(api.EndpointJobsPath, th),
			api.WithEndpointThreshold(api.WorkerGroupsPath, th), api.WithPacingMargin(25 * time.Millisecond)}, opts...)...)
	return srv, s
}

// runAudit is the whole audit, as the command runs it: the reading, then
// so far from the charges.
func runAudit(t *testing.T, s *billing.Service) Audit {
	t.Helper()
	a, err := Read(context.Background(), s)
	if err == nil {
		if a.SoFarRead {
			t.Fatal("the reading read the charges")
		}
		a, err = ExactSoFar(context.Background(), s, a)
	}
	if err != nil || !a.SoFarRead {
		t.Fatal(err)
	}
	return a
}

func findLeak(a Audit, id int64) (Leak, bool) {
	i := slices.IndexFunc(a.Leaks, func(l Leak) bool { return l.ID == id })
	if i < 0 {
		return Leak{}, false
	}
	return a.Leaks[i], true
}

func truthOf(t *testing.T, srv *demoserver.Server, id int64) demoserver.LeakTruth {
	t.Helper()
	f, ok := srv.Leak(id)
	if !ok {
		t.Fatalf("no fixture %d", id)
	}
	return f
}

// Every rule against the demo's account: each kind of leak is found, priced
// exactly, and the decoys are not.
func TestAuditFindsEachLeakAndNoDecoy(t *testing.T) {
	srv, s := auditDemo(t, demoserver.DemoKey)
	a := runAudit(t, s)
	if !a.Complete() {
		t.Fatalf("unreadable %v", a.Unreadable)
	}
	idle := truthOf(t, srv, demoserver.LeakIdleGPU)
	ready, cold := truthOf(t, srv, demoserver.LeakWorkerReady), truthOf(t, srv, demoserver.LeakWorkerCold)
	for _, tc := range []struct {
		id   int64
		kind LeakKind
		rate int64
	}{
		{demoserver.LeakStopped, LeakStoppedInstance, truthOf(t, srv, demoserver.LeakStopped).Storage},
		{demoserver.LeakStopped2, LeakStoppedInstance, truthOf(t, srv, demoserver.LeakStopped2).Storage},
		{demoserver.LeakOrphanVolume, LeakOrphanVolume, truthOf(t, srv, demoserver.LeakOrphanVolume).Storage},
		// Its running worker's dph_total and its cold worker's storage.
		{demoserver.LeakIdleEndpoint, LeakIdleEndpoint, ready.DPH + cold.Storage},
		{demoserver.LeakIdleGPU, LeakIdleGPU, idle.DPH},
	} {
		l, ok := findLeak(a, tc.id)
		if !ok {
			t.Errorf("%d (%s) not found", tc.id, tc.kind)
			continue
		}
		if l.Kind != tc.kind || l.PerHour != api.Rate(tc.rate) || !l.PerHourKnown || l.Partial {
			t.Errorf("%d: %s %s known %v partial %v, want %s %s", tc.id, l.Kind, l.PerHour.Decimal(), l.PerHourKnown, l.Partial, tc.kind, api.Rate(tc.rate).Decimal())
		}
	}
	for _, id := range []int64{demoserver.LeakOffline, demoserver.LeakLoading, demoserver.LeakBusy,
		demoserver.LeakWorkerReady, demoserver.LeakWorkerCold, demoserver.LeakWorkerBusy, demoserver.LeakWorkerBusy2,
		demoserver.LeakBusyEndpoint, demoserver.LeakEmptyEndpoint, demoserver.LeakNetworkVolume} {
		if l, ok := findLeak(a, id); ok {
			t.Errorf("decoy %d counted as %s (%s)", id, l.Kind, l.Why)
		}
	}
	// The generated instances stopped and keeping their disk are leaks
	// too, and nothing else is.
	want := 5
	for _, in := range srv.Instances() {
		if in.ID >= demoserver.LeakStopped {
			continue
		}
		l, found := findLeak(a, in.ID)
		stopped := in.Intended == "stopped" && (in.Status == "exited" || in.Status == "stopped") && in.Storage > 0
		if stopped {
			want++
		}
		if found != stopped || found && (l.Kind != LeakStoppedInstance || l.PerHour != api.Rate(in.Storage)) {
			t.Errorf("instance %d (%s/%s): leak %v %+v", in.ID, in.Status, in.Intended, found, l)
		}
	}
	if len(a.Leaks) != want || want < 7 {
		t.Fatalf("%d leaks, want %d (the generated data must hold stopped instances for this test to mean anything)", len(a.Leaks), want)
	}
	// enter on the endpoint shows its ready worker: the charges list
	// workers as instances.
	if l, _ := findLeak(a, demoserver.LeakIdleEndpoint); l.Source != "instance-"+strconv.FormatInt(demoserver.LeakWorkerReady, 10) {
		t.Errorf("endpoint source %q", l.Source)
	}
	var total api.Rate
	for i, l := range a.Leaks {
		total += l.PerHour
		if i > 0 && l.PerHour > a.Leaks[i-1].PerHour {
			t.Errorf("not largest first: %v after %v", l.PerHour, a.Leaks[i-1].PerHour)
		}
	}
	if a.Total != total || a.Partial {
		t.Errorf("total %s partial %v, want %s", a.Total.Decimal(), a.Partial, total.Decimal())
	}
}

// A stopped disk costs from the day it was made, and so far is the disk
// items of its contract in the charges, to the mill.
func TestAuditSoFarIsTheDiskItems(t *testing.T) {
	srv, s := auditDemo(t, demoserver.DemoKey)
	a := runAudit(t, s)
	contracts := srv.Contracts(demoserver.Filter{Gte: auditNow.AddDate(0, -2, 0).Unix(), Lte: auditNow.Unix()})
	for _, id := range []int64{demoserver.LeakStopped, demoserver.LeakStopped2, demoserver.LeakOrphanVolume} {
		l, _ := findLeak(a, id)
		tr := truthOf(t, srv, id)
		var disk int64
		for _, c := range contracts {
			if c.ID == id {
				for _, it := range c.Items {
					if it.Type == "disk" {
						disk += it.Amount
					}
				}
			}
		}
		if disk == 0 {
			t.Fatalf("%d: no disk item in the charges", id)
		}
		if !l.SoFarKnown || !l.SoFarExact || l.SoFar != money.Amount(disk) || l.Since.Unix() != tr.Start {
			t.Errorf("%d: so far %v (known %v exact %v) since %v; want %v since %v", id, l.SoFar, l.SoFarKnown, l.SoFarExact, l.Since, money.Amount(disk), time.Unix(tr.Start, 0))
		}
	}
	// How long an endpoint or a GPU has been idle is not in the API:
	// unknown, never $0 or "now".
	for _, id := range []int64{demoserver.LeakIdleEndpoint, demoserver.LeakIdleGPU} {
		l, _ := findLeak(a, id)
		if l.SoFarKnown || !l.Since.IsZero() || !strings.Contains(l.Why, "unknown") {
			t.Errorf("%d: so far %v known %v since %v, why %q", id, l.SoFar, l.SoFarKnown, l.Since, l.Why)
		}
	}
}

// Without billing_read the charges cannot say: so far is rate × age, to
// the mill, and a note says it is an estimate.
func TestAuditSoFarWithoutChargesIsRateTimesAge(t *testing.T) {
	srv, s := auditDemo(t, demoserver.KeyNoBilling)
	a := runAudit(t, s)
	tr := truthOf(t, srv, demoserver.LeakStopped)
	l, _ := findLeak(a, demoserver.LeakStopped)
	age := auditNow.Unix() - tr.Start
	want := money.Amount((tr.Storage*age + 1_800_000) / 3_600_000)
	if !l.SoFarKnown || l.SoFarExact || l.SoFar != want {
		t.Errorf("so far %v (exact %v), want %v", l.SoFar, l.SoFarExact, want)
	}
	if !slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, "billing_read") }) {
		t.Errorf("notes %q do not say why so far is estimated", a.Notes)
	}
}

// old → new per hour: the GPU change × the GPUs and the disk change × the
// disk, from prices a second with many decimals, rounded once.
func TestAuditPricesTheIncreases(t *testing.T) {
	srv, s := auditDemo(t, demoserver.DemoKey)
	a := runAudit(t, s)
	if len(a.Increases) != 2 {
		t.Fatalf("increases %+v", a.Increases)
	}
	busy, idle := truthOf(t, srv, demoserver.LeakBusy), truthOf(t, srv, demoserver.LeakIdleGPU)
	for i, tc := range []struct {
		id, instance int64
		old, new     api.Rate
		endIn        time.Duration
	}{
		// (0.000638888889 − 0.000583333333) × 3600 × 1 GPU = 0.2000000016;
		// the disk price unchanged (null).
		{demoserver.LeakIncreaseBusy, demoserver.LeakBusy, api.Rate(busy.DPH), api.Rate(busy.DPH) + 200_000, 3 * 24 * time.Hour},
		// (0.000125 − 0.000116666667) × 3600 × 2 GPUs = 0.0599999976 and
		// (0.0000000416667 − 0.0000000333333) × 3600 × 64 GB =
		// 0.00192001536: 0.06192001296, 61,920 millionths.
		{demoserver.LeakIncreaseIdle, demoserver.LeakIdleGPU, api.Rate(idle.DPH), api.Rate(idle.DPH) + 61_920, 6 * 24 * time.Hour},
	} {
		pc := a.Increases[i]
		if pc.ID != tc.id || pc.InstanceID != tc.instance || !pc.Known || pc.OldPerHour != tc.old || pc.NewPerHour != tc.new || !pc.AppliesAt.Equal(auditNow.Add(tc.endIn)) {
			t.Errorf("%d: %+v, want %d for %d, %s → %s from %v", i, pc, tc.id, tc.instance, tc.old.Decimal(), tc.new.Decimal(), auditNow.Add(tc.endIn))
		}
	}
}

// One audit (and the next at once) is paced per endpoint as the server
// paces it: not one 429.
func TestAuditIsPacedWithoutRefusals(t *testing.T) {
	srv, s := auditDemo(t, demoserver.DemoKey)
	runAudit(t, s)
	runAudit(t, s)
	if n := srv.CountStatus(http.StatusTooManyRequests); n != 0 {
		t.Fatalf("%d requests refused with 429", n)
	}
	seen := map[string]int{}
	for _, r := range srv.Requests() {
		seen[strings.TrimSuffix(r.Path, "/")]++
		if strings.HasPrefix(r.Path, "/api/v0/volumes") && r.Query.Get("type") != "all_volume" {
			t.Errorf("volumes asked with type %q: local_volume misses network volumes", r.Query.Get("type"))
		}
	}
	for _, p := range []string{"/api/v1/instances", "/api/v0/volumes", "/api/v0/endptjobs", "/api/v0/workergroups",
		"/get_endpoint_workers", "/api/v0/instances/pending-price-increases"} {
		// The instances' one page, answered less than its pace before
		// the second audit asks, serves both (the core's instancesPage).
		if seen[p] < 2 && p != "/api/v1/instances" || seen[p] < 1 {
			t.Errorf("%s asked %d times in two audits", p, seen[p])
		}
	}
}

// A key that may read nothing of it gets one line per section naming the
// permission, and no leak: never "no leaks".
func TestAuditNamesWhatItCannotRead(t *testing.T) {
	_, s := auditDemo(t, demoserver.KeyReadOnly)
	a := runAudit(t, s)
	if len(a.Leaks) != 0 || a.Complete() {
		t.Fatalf("leaks %v unreadable %v", a.Leaks, a.Unreadable)
	}
	want := []string{
		"instances: not read — this API key lacks the instance_read permission",
		"volumes: not read — this API key lacks the instance_read permission",
		"serverless endpoints: not read — this API key lacks the misc permission",
		"price increases: not read — this API key lacks the instance_read permission",
	}
	if !slices.Equal(a.Unreadable, want) {
		t.Errorf("unreadable\n%q\nwant\n%q", a.Unreadable, want)
	}
}

// Without misc the endpoints are unreadable, and the note says their
// workers cannot be told from instances.
func TestAuditWithoutMisc(t *testing.T) {
	srv, s := auditDemo(t, "key-no-misc-0123456789")
	srv.AddKey("key-no-misc-0123456789", "nomisc", []string{"instance_read", "billing_read"})
	a := runAudit(t, s)
	if len(a.Unreadable) != 1 || a.Unreadable[0] != "serverless endpoints: not read — this API key lacks the misc permission" {
		t.Fatalf("unreadable %q", a.Unreadable)
	}
	if !slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, "workers cannot be told") }) {
		t.Errorf("notes %q", a.Notes)
	}
	// The instance record does not say whether it is a worker: every
	// stopped instance and idle GPU is marked, in no total, and its kind
	// is not known whole (serve leaves it out). The demo's workers are
	// among them.
	var counted api.Rate
	for _, l := range a.Leaks {
		instance := l.Kind == LeakStoppedInstance || l.Kind == LeakIdleGPU
		if l.MaybeWorker != instance || instance && !strings.Contains(l.Why, "may be a serverless worker") {
			t.Errorf("leak %d (%s): maybe worker %v, why %q", l.ID, l.Kind, l.MaybeWorker, l.Why)
		}
		if !l.MaybeWorker {
			counted += l.PerHour
		}
	}
	for _, id := range []int64{demoserver.LeakWorkerReady, demoserver.LeakWorkerCold, demoserver.LeakWorkerBusy2} {
		if l, ok := findLeak(a, id); ok && !l.MaybeWorker {
			t.Errorf("worker %d counted as a leak: %+v", id, l)
		}
	}
	if a.Total != counted || a.UncertainCount == 0 || a.Counted()+a.UncertainCount != len(a.Leaks) || !strings.Contains(a.FoundText(), "may be serverless workers") {
		t.Errorf("total %v (%d) uncertain %v (%d), want the total %v without the maybe workers; %q", a.Total, a.Counted(), a.Uncertain, a.UncertainCount, counted, a.FoundText())
	}
	for _, k := range []LeakKind{LeakIdleGPU, LeakStoppedInstance} {
		if _, known := a.PerKind(k); known {
			t.Errorf("%s is known whole without the endpoints", k)
		}
	}
}

// The instance rules, decoys included, on readings the demo does not hold.
func TestAuditInstanceRules(t *testing.T) {
	start := auditNow.Add(-10 * time.Hour).Unix()
	for _, tc := range []struct {
		name string
		in   api.Instance
		want LeakKind // "": no leak
	}{
		{"exited, intended stopped", api.Instance{Status: "exited", IntendedStatus: "stopped", StorageTotalCost: 50_000, StorageKnown: true, DPHTotal: 450_000}, LeakStoppedInstance},
		{"stopped, intended stopped", api.Instance{Status: "stopped", IntendedStatus: "stopped", StorageTotalCost: 50_000, StorageKnown: true}, LeakStoppedInstance},
		{"exited on its own, intended running", api.Instance{Status: "exited", IntendedStatus: "running", StorageTotalCost: 50_000, StorageKnown: true}, ""},
		{"offline: not charged", api.Instance{Status: "offline", IntendedStatus: "stopped", StorageTotalCost: 50_000, StorageKnown: true}, ""},
		{"loading", api.Instance{Status: "loading", IntendedStatus: "running", GPUUtilKnown: true, DPHTotal: 1}, ""},
		{"running at 0%", api.Instance{Status: "running", IntendedStatus: "running", GPUUtilKnown: true, DPHTotal: 700_000}, LeakIdleGPU},
		{"running, gpu_util null", api.Instance{Status: "running", IntendedStatus: "running", DPHTotal: 700_000}, ""},
		{"running at 0.2%", api.Instance{Status: "running", GPUUtil: 0.2, GPUUtilKnown: true, DPHTotal: 700_000}, ""},
	} {
		tc.in.ID, tc.in.StartDate = 7, start
		l, ok := instanceLeak(tc.in, auditNow)
		if ok != (tc.want != "") || ok && l.Kind != tc.want {
			t.Errorf("%s: %v %+v, want %q", tc.name, ok, l, tc.want)
			continue
		}
		switch tc.want {
		case LeakStoppedInstance:
			// $0.05/h for 10 h: $0.500, never the $4.50 dph_total would say.
			if l.PerHour != 50_000 || l.SoFar != 500 || !l.SoFarKnown || l.Since.Unix() != start {
				t.Errorf("%s: %s so far %v since %v", tc.name, l.PerHour.Decimal(), l.SoFar, l.Since)
			}
		case LeakIdleGPU:
			if l.PerHour != 700_000 || l.SoFarKnown || !l.Since.IsZero() {
				t.Errorf("%s: %+v", tc.name, l)
			}
		}
	}
}

// The endpoint rule: a ready or loading worker and no traffic anywhere;
// "idle" is the autoscaler's word for ready.
func TestAuditEndpointRule(t *testing.T) {
	byID := map[int64]api.Instance{
		1: {ID: 1, Status: "running", DPHTotal: 400_000, StorageTotalCost: 5_000, StorageKnown: true},
		2: {ID: 2, Status: "exited", DPHTotal: 400_000, StorageTotalCost: 5_000, StorageKnown: true},
		3: {ID: 3, Status: "loading", DPHTotal: 300_000, StorageTotalCost: 4_000, StorageKnown: true},
	}
	for _, tc := range []struct {
		name    string
		workers []api.Worker
		leak    bool
		rate    api.Rate
		partial bool
	}{
		{"ready and cold, no traffic", []api.Worker{{ID: 1, Status: "idle"}, {ID: 2, Status: "stopped"}}, true, 405_000, false},
		{"loading, no traffic", []api.Worker{{ID: 3, Status: "loading"}}, true, 300_000, false},
		{"idle with a load", []api.Worker{{ID: 1, Status: "idle", CurLoad: 3}}, false, 0, false},
		{"idle with a rolling load", []api.Worker{{ID: 1, Status: "idle"}, {ID: 3, Status: "idle", CurLoadRollingAvg: 0.1}}, false, 0, false},
		{"a request in flight", []api.Worker{{ID: 1, Status: "idle", ReqsWorking: 1}}, false, 0, false},
		{"no workers", nil, false, 0, false},
		{"cold workers only", []api.Worker{{ID: 2, Status: "stopped"}}, false, 0, false},
		{"a worker not among the instances", []api.Worker{{ID: 1, Status: "idle"}, {ID: 99, Status: "idle"}}, true, 400_000, true},
	} {
		l, ok := endpointLeak(endpointReading{Endpoint: api.Endpoint{ID: 5, Name: "ep"}, workers: tc.workers}, byID)
		if ok != tc.leak || ok && (l.PerHour != tc.rate || l.Partial != tc.partial || !l.PerHourKnown || l.SoFarKnown) {
			t.Errorf("%s: %v %+v", tc.name, ok, l)
		}
	}
	// Not one worker priced: unknown, not $0.
	l, ok := endpointLeak(endpointReading{Endpoint: api.Endpoint{ID: 5}, workers: []api.Worker{{ID: 99, Status: "idle"}}}, byID)
	if !ok || l.PerHourKnown {
		t.Errorf("unpriced endpoint: %v %+v", ok, l)
	}
	a := Audit{Leaks: []Leak{l}}
	a.finish()
	if !a.Partial || a.TotalText() != "at least $0.000/h" {
		t.Errorf("total %q partial %v", a.TotalText(), a.Partial)
	}
}

// A petabyte disk at the highest price changes by more than an int64 of
// picodollars holds: the delta is still exact.
func TestPriceDeltaDoesNotOverflow(t *testing.T) {
	p := api.PriceIncrease{OldDisk: 0, NewDisk: 2_777_777_777, OldGPU: 100, NewGPU: 100}
	in := api.Instance{NumGPUs: 8, DiskSpace: api.MaxDiskSpace}
	// 2.777777777e-3 $/GB/s × 3600 × 1e6 GB = 9,999,999.9972 $/h: beyond
	// MaxRate, so no delta rather than a wrapped one.
	if got := priceDelta(p, in); got != 0 {
		t.Errorf("delta %d", got)
	}
	in.DiskSpace = 1000 * 1000 // 1,000 GB
	if got := priceDelta(p, in); got != 9_999_999_997 {
		t.Errorf("delta %d, want 9,999,999,997 millionths", got)
	}
	// A decrease rounds half away from zero too.
	p = api.PriceIncrease{OldGPU: 500_000, NewGPU: 499_999}
	if got := priceDelta(p, api.Instance{NumGPUs: 139}); got != -1 { // -0.5004 millionths
		t.Errorf("delta %d", got)
	}
}

// Answering: one PUT with exactly the body the API takes; a second answer
// finds it no longer pending; a key without instance_write is told so.
func TestAnswerIncrease(t *testing.T) {
	srv, s := auditDemo(t, demoserver.DemoKey)
	ctx := context.Background()
	pc, err := PendingIncrease(ctx, s, demoserver.LeakIdleGPU)
	if err != nil || pc.ID != demoserver.LeakIncreaseIdle || !pc.Known {
		t.Fatalf("%+v %v", pc, err)
	}
	srv.ResetRequests()
	if err := AnswerIncrease(ctx, s, pc, true); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Method != http.MethodPut || reqs[0].Path != api.AcceptPriceIncreasePath ||
		string(reqs[0].Body) != `{"pending_price_increase_id":`+strconv.FormatInt(demoserver.LeakIncreaseIdle, 10)+`}` {
		t.Fatalf("requests %+v", reqs)
	}
	err = AnswerIncrease(ctx, s, pc, false)
	var np *NotPendingError
	if !errors.As(err, &np) || !errors.Is(err, api.ErrNotPending) || !strings.Contains(err.Error(), "no longer pending") {
		t.Fatalf("second answer: %v", err)
	}
	if _, err := PendingIncrease(ctx, s, demoserver.LeakIdleGPU); !errors.Is(err, api.ErrNotPending) {
		t.Fatalf("after the answer: %v", err)
	}

	srv.AddKey("key-read-only-instances", "ro", []string{"instance_read", "misc"})
	other, err := api.New(srv.URL(), "key-read-only-instances")
	if err != nil {
		t.Fatal(err)
	}
	ro := billing.New(ctx, other, billing.WithClock(srv.Now))
	t.Cleanup(ro.Close)
	pc, err = PendingIncrease(ctx, ro, demoserver.LeakBusy)
	if err != nil {
		t.Fatal(err)
	}
	if err := AnswerIncrease(ctx, ro, pc, false); !errors.Is(err, api.ErrPermission) || !strings.Contains(err.Error(), "instance_write") {
		t.Fatalf("without instance_write: %v", err)
	}
	if srv.Decided()[demoserver.LeakIncreaseBusy] {
		t.Fatal("the refused answer was recorded")
	}
}

// isWorker reports one of the demo's serverless workers.
func isWorker(id int64) bool {
	return slices.Contains([]int64{demoserver.LeakWorkerReady, demoserver.LeakWorkerCold, demoserver.LeakWorkerBusy, demoserver.LeakWorkerBusy2}, id)
}

// A worker the autoscaler sent beside one it could not read is still a
// worker: never a stopped instance or an idle GPU. The endpoint cannot be
// called idle, and since the unread worker may be any instance, neither
// can the instances' kinds be summed.
func TestAuditWorkersBesideAnUnreadableOne(t *testing.T) {
	srv, s := auditDemo(t, demoserver.DemoKey)
	srv.AddFault(demoserver.Fault{Path: "/get_endpoint_workers", Mutate: func(b []byte) []byte {
		if string(b) == "[]" {
			return []byte(`[{"id":-1}]`)
		}
		return append(b[:len(b)-1], `,{"id":-1}]`...)
	}})
	a := runAudit(t, s)
	for _, l := range a.Leaks {
		if isWorker(l.ID) && l.Kind != LeakIdleEndpoint {
			t.Errorf("worker %d counted as %s (%s)", l.ID, l.Kind, l.Why)
		}
	}
	if _, ok := findLeak(a, demoserver.LeakIdleEndpoint); ok {
		t.Error("an endpoint with a worker not read called idle")
	}
	if !slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, "may be one of them") }) {
		t.Errorf("notes %q do not say an instance may be a worker", a.Notes)
	}
	for _, k := range LeakKinds {
		if want := k == LeakOrphanVolume; a.Knows(k) != want {
			t.Errorf("Knows(%s) = %v, want %v", k, a.Knows(k), want)
		}
	}
}

// An endpoint whose workers the autoscaler would not list (404, 400):
// its workers are unknown, so an instance that may be one of them is
// marked so and the instances' kinds are not known whole; a cold worker
// must not pass for certain as a stopped instance.
func TestAuditEndpointWorkersRefused(t *testing.T) {
	srv, s := auditDemo(t, demoserver.DemoKey)
	srv.AddFault(demoserver.Fault{Path: "/get_endpoint_workers", Status: http.StatusNotFound,
		Body: `{"success":false,"error":"not_found","msg":"no such endpoint"}`})
	a := runAudit(t, s)
	if a.Complete() || !slices.ContainsFunc(a.Unreadable, func(u string) bool { return strings.Contains(u, "'s workers: not read") }) {
		t.Fatalf("unreadable %q", a.Unreadable)
	}
	for _, k := range LeakKinds {
		if want := k == LeakOrphanVolume; a.Knows(k) != want {
			t.Errorf("Knows(%s) = %v, want %v", k, a.Knows(k), want)
		}
	}
	cold, ok := findLeak(a, demoserver.LeakWorkerCold)
	if !ok || !strings.Contains(cold.Why, "may be a serverless worker") {
		t.Errorf("the cold worker: %v %+v", ok, cold)
	}
	for _, l := range a.Leaks {
		if (l.Kind == LeakStoppedInstance || l.Kind == LeakIdleGPU) && !strings.Contains(l.Why, "may be a serverless worker") {
			t.Errorf("%d (%s) not marked: %q", l.ID, l.Kind, l.Why)
		}
	}
}

// dropStorage rewrites a list answer so that the entry of id under field
// holds storage_total_cost as null (or, with absent, not at all). Numbers
// keep their text.
func dropStorage(t *testing.T, field string, id int64, absent bool) func([]byte) []byte {
	return func(b []byte) []byte {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var env map[string]any
		if err := dec.Decode(&env); err != nil {
			t.Errorf("not an object: %v", err)
			return b
		}
		list, _ := env[field].([]any)
		for _, e := range list {
			o, _ := e.(map[string]any)
			if n, _ := o["id"].(json.Number); n.String() == strconv.FormatInt(id, 10) {
				if absent {
					delete(o, "storage_total_cost")
				} else {
					o["storage_total_cost"] = nil
				}
			}
		}
		out, err := json.Marshal(env)
		if err != nil {
			t.Error(err)
			return b
		}
		return out
	}
}

// A storage price the server did not send (null or absent) is unknown,
// not $0: the stopped instance and the orphan volume are still leaks,
// priced "unknown", the total a lower bound; so far comes from the
// charges' disk items where they reach.
func TestAuditStoragePriceMissingIsUnknown(t *testing.T) {
	srv, s := auditDemo(t, demoserver.DemoKey)
	srv.AddFault(demoserver.Fault{Path: api.InstancesPath, Mutate: dropStorage(t, "instances", demoserver.LeakStopped, false)})
	srv.AddFault(demoserver.Fault{Path: api.VolumesPath, Mutate: dropStorage(t, "volumes", demoserver.LeakOrphanVolume, true)})
	a := runAudit(t, s)
	for _, tc := range []struct {
		id   int64
		kind LeakKind
	}{{demoserver.LeakStopped, LeakStoppedInstance}, {demoserver.LeakOrphanVolume, LeakOrphanVolume}} {
		l, ok := findLeak(a, tc.id)
		if !ok {
			t.Errorf("%d: the leak disappeared with its price", tc.id)
			continue
		}
		if l.Kind != tc.kind || l.PerHourKnown || l.PerHour != 0 || !l.SoFarKnown || !l.SoFarExact {
			t.Errorf("%d: %+v", tc.id, l)
		}
	}
	if !a.Partial || !strings.HasPrefix(a.TotalText(), "at least ") {
		t.Errorf("total %q partial %v", a.TotalText(), a.Partial)
	}
}

// An answer whose response is lost may have gone through: it is not sent
// again (a resend would find it answered and say "no longer pending",
// which reads as if nothing had been done), and the error says the
// outcome is unknown.
func TestAnswerIncreaseLostResponse(t *testing.T) {
	srv, s := auditDemo(t, demoserver.DemoKey)
	ctx := context.Background()
	pc, err := PendingIncrease(ctx, s, demoserver.LeakIdleGPU)
	if err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	srv.AddFault(demoserver.Fault{Method: http.MethodPut, Path: strings.TrimSuffix(api.AcceptPriceIncreasePath, "/"), ResetAfterBytes: 3, Times: 1})
	err = AnswerIncrease(ctx, s, pc, true)
	if errors.Is(err, api.ErrNotPending) || !errors.Is(err, ErrAnswerUnknown) || !strings.Contains(err.Error(), "may have been sent") {
		t.Fatalf("lost response: %v", err)
	}
	if n := len(srv.Requests()); n != 1 || !srv.Decided()[demoserver.LeakIncreaseIdle] {
		t.Fatalf("%d requests; decided %v", n, srv.Decided())
	}
}

// The autoscaler failing for an endpoint (down, a gateway's 5xx, a cut
// answer) is that endpoint's workers unread, not the whole audit failed:
// the console's sections still stand, the line says why, and a note says
// what it costs.
func TestAuditAutoscalerDown(t *testing.T) {
	for _, f := range []demoserver.Fault{
		{Path: "/get_endpoint_workers", Status: http.StatusBadGateway, ContentType: "text/html", Body: "<html>502 Bad Gateway</html>"},
		{Path: "/get_endpoint_workers", ResetAfterBytes: 2},
	} {
		srv, s := auditDemo(t, demoserver.DemoKey, api.WithBackoff(time.Millisecond, 5*time.Millisecond))
		srv.AddFault(f)
		a, err := Read(context.Background(), s)
		if err != nil {
			t.Fatalf("%+v: the audit failed: %v", f, err)
		}
		if a.Complete() || !slices.ContainsFunc(a.Unreadable, func(u string) bool { return strings.Contains(u, "'s workers: not read — ") }) {
			t.Errorf("%+v: unreadable %q", f, a.Unreadable)
		}
		if a.Lacks(billing.NeedsMisc) || slices.ContainsFunc(a.Unreadable, func(u string) bool { return strings.Contains(u, "permission") }) {
			t.Errorf("%+v: a failure read as a permission: %q", f, a.Unreadable)
		}
		if !slices.ContainsFunc(a.Notes, func(n string) bool { return strings.Contains(n, "autoscaler") }) {
			t.Errorf("%+v: notes %q", f, a.Notes)
		}
		if _, ok := findLeak(a, demoserver.LeakOrphanVolume); !ok || !a.Knows(LeakOrphanVolume) || a.Knows(LeakIdleEndpoint) {
			t.Errorf("%+v: the volumes lost, or the endpoints known: %+v", f, a.Leaks)
		}
	}
	// The context ending is still the error.
	srv, s := auditDemo(t, demoserver.DemoKey)
	srv.AddFault(demoserver.Fault{Path: "/get_endpoint_workers", Hang: true})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := Read(ctx, s); err == nil {
		t.Error("an audit cut short by its context succeeded")
	}
}

// A price increase whose change cannot be told in full (a new GPU price
// with no old one) still shows today's rate, known, and only the new one
// as unknown; one for an instance not read is unknown whole.
func TestPriceChangeKeepsTodaysRate(t *testing.T) {
	in := api.Instance{ID: 7, NumGPUs: 1, DPHTotal: 2_151_200, DiskSpace: 100_000}
	pcs := priceChanges([]api.PriceIncrease{
		{ID: 1, InstanceID: 7, NewGPU: 200_000_000},
		{ID: 2, InstanceID: 8, Known: true},
		{ID: 3, InstanceID: 7, OldGPU: 100_000_000, NewGPU: 150_000_000, Known: true},
	}, map[int64]api.Instance{7: in})
	want := map[int64]string{1: "$2.151/h → unknown", 2: "price unknown", 3: "$2.151/h → $2.331/h"}
	for _, pc := range pcs {
		if got := pc.ChangeText(); got != want[pc.ID] {
			t.Errorf("increase %d: %q, want %q", pc.ID, got, want[pc.ID])
		}
	}
}
