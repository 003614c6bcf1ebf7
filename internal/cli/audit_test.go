package cli

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing/leaks"
)

// auditServer is a demo server whose account has the leaks and decoys,
// every endpoint paced like the real one on short thresholds.
func auditServer(t *testing.T) *demoserver.Server {
	t.Helper()
	return startServer(t, demoserver.Options{Contracts: 300, Leaks: true, InstancesThreshold: threshold,
		VolumesThreshold: threshold, EndpointsThreshold: threshold, WorkerGroupsThreshold: threshold})
}

// auditRun runs vastdash with a client paced like auditServer; tweak, if
// not nil, changes the env further.
func auditRun(t *testing.T, srv *demoserver.Server, key string, tweak func(*env), args ...string) result {
	t.Helper()
	return headlessWith(t, srv, key, func(e *env) {
		for _, p := range []string{api.InstancesPath, api.VolumesPath, api.EndpointJobsPath, api.WorkerGroupsPath} {
			e.clientOptions = append(e.clientOptions, api.WithEndpointThreshold(p, threshold))
		}
		if tweak != nil {
			tweak(e)
		}
	}, args...)
}

// A leak found is exit 1, with every kind in the table and its total;
// the decoys are not in it; the price increases are beside it.
func TestAuditText(t *testing.T) {
	srv := auditServer(t)
	res := auditRun(t, srv, demoserver.DemoKey, nil, "audit", "--utc")
	if res.code != exitRuntime || !strings.HasPrefix(res.errOut, "vastdash: ") || !strings.Contains(res.errOut, "leaks found: $") {
		t.Fatalf("exit %d, stderr %q", res.code, res.errOut)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(res.out, "\n") {
		if f := strings.Fields(line); len(f) > 2 {
			rows[f[2]] = line // the id follows a two-word kind
			rows[f[1]] = line // or a one-word one
		}
	}
	for id, kind := range map[int64]string{
		demoserver.LeakStopped: "stopped instance", demoserver.LeakStopped2: "stopped instance", demoserver.LeakOrphanVolume: "orphan volume",
		demoserver.LeakIdleEndpoint: "idle endpoint", demoserver.LeakIdleGPU: "idle GPU",
	} {
		if row := rows[strconv.FormatInt(id, 10)]; !strings.HasPrefix(row, kind) {
			t.Errorf("%d: row %q, want a %s", id, row, kind)
		}
	}
	for _, id := range []int64{demoserver.LeakOffline, demoserver.LeakLoading, demoserver.LeakBusy, demoserver.LeakWorkerReady,
		demoserver.LeakWorkerCold, demoserver.LeakBusyEndpoint, demoserver.LeakEmptyEndpoint, demoserver.LeakNetworkVolume} {
		if row, ok := rows[strconv.FormatInt(id, 10)]; ok && !strings.Contains(row, "the contract ends then") {
			t.Errorf("decoy %d listed: %q", id, row)
		}
	}
	tr, _ := srv.Leak(demoserver.LeakIdleGPU)
	if row := rows[strconv.FormatInt(demoserver.LeakIdleGPU, 10)]; !strings.Contains(row, api.Rate(tr.DPH).String()) || !strings.Contains(row, "unknown") {
		t.Errorf("idle GPU row %q: its rate, and unknown since and so far", row)
	}
	// The creation, named as the Audit screen names it: "SINCE" read as
	// "leaking since".
	if head := strings.Fields(strings.SplitN(res.out, "\n", 2)[0]); !slices.Contains(head, leaks.CreatedHeader) || slices.Contains(head, "SINCE") {
		t.Errorf("header %q", head)
	}
	for _, want := range []string{"\ntotal $", "Price increases waiting for an answer", "the contract ends then"} {
		if !strings.Contains(res.out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, res.out)
		}
	}
}

// The JSON answer has exactly the shape, figures exact.
func TestAuditJSON(t *testing.T) {
	srv := auditServer(t)
	res := auditRun(t, srv, demoserver.DemoKey, nil, "audit", "--json")
	if res.code != exitRuntime {
		t.Fatalf("exit %d: %s", res.code, res.errOut)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(res.out), &top); err != nil {
		t.Fatal(err)
	}
	keys := func(m map[string]json.RawMessage) []string {
		var k []string
		for n := range m {
			k = append(k, n)
		}
		sort.Strings(k)
		return k
	}
	if got := keys(top); !slices.Equal(got, []string{"leaks", "price_increases", "total_at_least", "total_per_hour", "unreadable"}) {
		t.Fatalf("keys %v", got)
	}
	if string(top["total_at_least"]) != "false" {
		t.Errorf("total_at_least %s with every leak priced", top["total_at_least"])
	}
	var leaks, incs []map[string]json.RawMessage
	var unreadable []string
	if json.Unmarshal(top["leaks"], &leaks) != nil || json.Unmarshal(top["price_increases"], &incs) != nil || json.Unmarshal(top["unreadable"], &unreadable) != nil {
		t.Fatalf("shapes: %s", res.out)
	}
	if unreadable == nil || len(unreadable) != 0 {
		t.Errorf("unreadable %s, want []", top["unreadable"])
	}
	byID := map[string]map[string]json.RawMessage{}
	var total api.Rate
	for _, l := range leaks {
		if got := keys(l); !slices.Equal(got, []string{"id", "kind", "label", "maybe_worker", "per_hour", "since", "so_far", "why"}) {
			t.Fatalf("leak keys %v", got)
		}
		byID[string(l["id"])] = l
		var r api.Rate
		if err := json.Unmarshal(l["per_hour"], (*rateJSONValue)(&r)); err != nil {
			t.Fatalf("per_hour %s: %v", l["per_hour"], err)
		}
		total += r
	}
	var tot api.Rate
	if err := json.Unmarshal(top["total_per_hour"], (*rateJSONValue)(&tot)); err != nil || tot != total {
		t.Errorf("total_per_hour %s, the leaks sum to %s", top["total_per_hour"], total.Decimal())
	}
	ready, _ := srv.Leak(demoserver.LeakWorkerReady)
	cold, _ := srv.Leak(demoserver.LeakWorkerCold)
	ep := byID[strconv.FormatInt(demoserver.LeakIdleEndpoint, 10)]
	if string(ep["kind"]) != `"idle_endpoint"` || string(ep["per_hour"]) != api.Rate(ready.DPH+cold.Storage).Decimal() ||
		string(ep["since"]) != "null" || string(ep["so_far"]) != "null" {
		t.Errorf("idle endpoint %v", ep)
	}
	vol := byID[strconv.FormatInt(demoserver.LeakOrphanVolume, 10)]
	vt, _ := srv.Leak(demoserver.LeakOrphanVolume)
	if string(vol["kind"]) != `"orphan_volume"` || string(vol["since"]) != `"`+rfc3339(timeIn(vt.Start, time.UTC))+`"` || !strings.Contains(string(vol["so_far"]), ".") {
		t.Errorf("orphan volume %v (since %s)", vol, rfc3339(timeIn(vt.Start, time.UTC)))
	}
	if len(incs) != 2 {
		t.Fatalf("price increases %s", top["price_increases"])
	}
	if got := keys(incs[0]); !slices.Equal(got, []string{"applies_at", "instance_id", "new_per_hour", "old_per_hour", "pending_price_increase_id"}) {
		t.Fatalf("increase keys %v", got)
	}
	busy, _ := srv.Leak(demoserver.LeakBusy)
	if string(incs[0]["pending_price_increase_id"]) != strconv.FormatInt(demoserver.LeakIncreaseBusy, 10) ||
		string(incs[0]["old_per_hour"]) != api.Rate(busy.DPH).Decimal() || string(incs[0]["new_per_hour"]) != api.Rate(busy.DPH+200_000).Decimal() {
		t.Errorf("increase %v", incs[0])
	}
}

// rateJSONValue reads a JSON number of six decimals back into a Rate.
type rateJSONValue api.Rate

func (r *rateJSONValue) UnmarshalJSON(b []byte) error {
	s := string(b)
	whole, frac, _ := strings.Cut(s, ".")
	frac = (frac + "000000")[:6]
	v, err := strconv.ParseInt(whole+frac, 10, 64)
	*r = rateJSONValue(v)
	return err
}

// A key that may read none of it: one line per section naming the
// permission, never "no leaks found", exit 1.
func TestAuditUnreadable(t *testing.T) {
	srv := auditServer(t)
	res := auditRun(t, srv, demoserver.KeyReadOnly, nil, "audit")
	if res.code != exitRuntime || !strings.Contains(res.errOut, "the audit is incomplete: 4 sections could not be read") {
		t.Fatalf("exit %d, stderr %q", res.code, res.errOut)
	}
	want := "no leaks found in what could be read\n" +
		"instances: not read — this API key lacks the instance_read permission\n" +
		"volumes: not read — this API key lacks the instance_read permission\n" +
		"serverless endpoints: not read — this API key lacks the misc permission\n" +
		"price increases: not read — this API key lacks the instance_read permission\n"
	if res.out != want {
		t.Errorf("stdout\n%s\nwant\n%s", res.out, want)
	}
}

// No leak and every section read: exit 0, "no leaks found".
func TestAuditNoLeaks(t *testing.T) {
	// A small account whose instances all run (the seed is found, not
	// assumed: the data set decides).
	var srv *demoserver.Server
	for seed := uint64(1); seed < 200 && srv == nil; seed++ {
		o := demoserver.Options{Seed: seed, Contracts: 40, Now: demoNow}
		clean := true
		for _, in := range demoserver.New(o).Instances() {
			clean = clean && in.Status == "running"
		}
		if clean {
			srv = startServer(t, o)
		}
	}
	if srv == nil {
		t.Fatal("no seed gives an account without stopped instances")
	}
	res := auditRun(t, srv, demoserver.DemoKey, nil, "audit")
	res.ok(t)
	if res.out != "no leaks found\n" {
		t.Fatalf("stdout %q", res.out)
	}
}

// Usage errors are exit 2 and send nothing: a stray argument, a missing or
// bad INSTANCE_ID, and an answer off a terminal without --yes.
func TestAuditUsage(t *testing.T) {
	srv := auditServer(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"audit", "now"}, "unexpected argument"},
		{[]string{"audit", "accept"}, "want one INSTANCE_ID"},
		{[]string{"audit", "reject", "12x"}, "is not an instance id"},
		{[]string{"audit", "accept", "-5"}, ""},
		{[]string{"audit", "accept", strconv.FormatInt(demoserver.LeakBusy, 10)}, "audit accept asks before it sends its answer, and stdin is not a terminal to ask on: add --yes (nothing was sent)"},
	} {
		res := auditRun(t, srv, demoserver.DemoKey, nil, tc.args...)
		res.failed(t, exitUsage, tc.want)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// accept --yes: one PUT with exactly the body the API takes; again: no
// longer pending, exit 1.
func TestAuditAcceptThenAgain(t *testing.T) {
	srv := auditServer(t)
	id := strconv.FormatInt(demoserver.LeakBusy, 10)
	res := auditRun(t, srv, demoserver.DemoKey, nil, "audit", "accept", id, "--yes")
	res.ok(t)
	if !strings.HasPrefix(res.out, "accepted the price increase of instance "+id+" (pretrain): $") || !strings.Contains(res.out, "goes on at the new price until") {
		t.Fatalf("stdout %q", res.out)
	}
	var puts []demoserver.Request
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPut {
			puts = append(puts, r)
		}
	}
	if len(puts) != 1 || puts[0].Path != api.AcceptPriceIncreasePath || string(puts[0].Body) != `{"pending_price_increase_id":501}` {
		t.Fatalf("PUTs %+v", puts)
	}
	auditRun(t, srv, demoserver.DemoKey, nil, "audit", "reject", id, "--yes").failed(t, exitRuntime, "no longer pending")
	if !srv.Decided()[demoserver.LeakIncreaseBusy] || srv.Decided()[demoserver.LeakIncreaseIdle] {
		t.Fatalf("decided %v", srv.Decided())
	}
}

// On a terminal it asks; only yes sends.
func TestAuditAsks(t *testing.T) {
	srv := auditServer(t)
	id := strconv.FormatInt(demoserver.LeakIdleGPU, 10)
	res := auditRun(t, srv, demoserver.DemoKey, onTerminal("n\n"), "audit", "reject", id)
	if res.code != exitRuntime || !strings.Contains(res.errOut, "Reject the price increase of instance "+id+" (jupyter scratch): $0.848/h → $0.910/h from ") ||
		!strings.HasSuffix(res.errOut, "vastdash: nothing was sent: the answer was not yes\n") || len(srv.Decided()) != 0 {
		t.Fatalf("declined: exit %d, stderr %q, decided %v", res.code, res.errOut, srv.Decided())
	}
	res = auditRun(t, srv, demoserver.DemoKey, onTerminal("yes\n"), "audit", "reject", id, "--json")
	res.ok(t)
	if !hasJSONFields(t, res.out, `{"answer":"rejected","pending_price_increase_id":502,"instance_id":`+id+`}`) || !srv.Decided()[demoserver.LeakIncreaseIdle] {
		t.Fatalf("stdout %q decided %v", res.out, srv.Decided())
	}
}

// A key without instance_write is told which permission it lacks, and
// nothing is recorded.
func TestAuditAnswerNeedsInstanceWrite(t *testing.T) {
	srv := auditServer(t)
	srv.AddKey("key-without-instance-write", "ro", []string{"instance_read", "misc"})
	res := auditRun(t, srv, "key-without-instance-write", nil, "audit", "accept", strconv.FormatInt(demoserver.LeakBusy, 10), "--yes")
	res.failed(t, exitRuntime, "this API key lacks the instance_write permission")
	if len(srv.Decided()) != 0 {
		t.Fatal("recorded")
	}
}

// The endpoints' and worker groups' own keys appear nowhere: not in the
// answer, not on stderr, not in the --debug log; the autoscaler's call
// went to --url.
func TestAuditNeverShowsEndpointKeys(t *testing.T) {
	srv := auditServer(t)
	log := filepath.Join(t.TempDir(), "debug.log")
	for _, args := range [][]string{{"audit", "--debug", log}, {"audit", "--json"}} {
		res := auditRun(t, srv, demoserver.DemoKey, nil, args...)
		b, _ := os.ReadFile(log)
		for _, secret := range []string{demoserver.EndpointSecret(demoserver.LeakIdleEndpoint), demoserver.EndpointSecret(demoserver.LeakIdleEndpoint + 100), "ep-secret", demoserver.DemoKey} {
			if strings.Contains(res.out+res.errOut+string(b), secret) {
				t.Fatalf("%v: %q reached the output or the log", args, secret)
			}
		}
		if len(b) == 0 || !strings.Contains(string(b), `"api_key":"[redacted]"`) {
			t.Fatalf("the debug log holds no redacted endpoint: %d bytes", len(b))
		}
	}
	if !slices.ContainsFunc(srv.Requests(), func(r demoserver.Request) bool { return r.Path == api.EndpointWorkersPath }) {
		t.Fatal("the workers were not asked of the --url server")
	}
}

// A leak the audit could not price whole makes total_per_hour a lower
// bound, and the JSON says so beside it: per_hour null, total_at_least
// true.
func TestAuditJSONTotalAtLeast(t *testing.T) {
	srv := auditServer(t)
	srv.AddFault(demoserver.Fault{Path: api.VolumesPath, Mutate: func(b []byte) []byte {
		return []byte(strings.ReplaceAll(string(b), `"storage_total_cost":`, `"storage_cost_total":`))
	}})
	res := auditRun(t, srv, demoserver.DemoKey, nil, "audit", "--json")
	var out struct {
		Leaks []struct {
			ID      int64
			PerHour *json.Number `json:"per_hour"`
		}
		AtLeast *bool `json:"total_at_least"`
	}
	if err := json.Unmarshal([]byte(res.out), &out); err != nil || res.code != exitRuntime {
		t.Fatalf("exit %d %v: %s", res.code, err, res.errOut)
	}
	i := slices.IndexFunc(out.Leaks, func(l struct {
		ID      int64
		PerHour *json.Number `json:"per_hour"`
	}) bool {
		return l.ID == demoserver.LeakOrphanVolume
	})
	if i < 0 || out.Leaks[i].PerHour != nil {
		t.Errorf("orphan volume without a price: %s", res.out)
	}
	if out.AtLeast == nil || !*out.AtLeast || !strings.Contains(res.errOut, "leaks found: at least $") {
		t.Errorf("total_at_least %v; stderr %q", out.AtLeast, res.errOut)
	}
}

// An answer whose response is lost is not sent again: exit 1, saying it
// may have been sent and where to see whether it is still pending — not
// "no longer pending", which reads as if nothing had been done.
func TestAuditAnswerLost(t *testing.T) {
	srv := auditServer(t)
	srv.AddFault(demoserver.Fault{Method: http.MethodPut, Path: strings.TrimSuffix(api.RejectPriceIncreasePath, "/"), ResetAfterBytes: 3, Times: 1})
	id := strconv.FormatInt(demoserver.LeakBusy, 10)
	res := auditRun(t, srv, demoserver.DemoKey, nil, "audit", "reject", id, "--yes")
	res.failed(t, exitRuntime, "the rejection of the price increase of instance "+id+" may have been sent")
	if strings.Contains(res.errOut, "no longer pending") || !strings.Contains(res.errOut, "vastdash audit shows whether it is still pending") || res.out != "" {
		t.Fatalf("stdout %q stderr %q", res.out, res.errOut)
	}
	puts := 0
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPut {
			puts++
		}
	}
	if puts != 1 || !srv.Decided()[demoserver.LeakIncreaseBusy] {
		t.Fatalf("%d PUTs, decided %v", puts, srv.Decided())
	}
}

// Without misc the endpoints cannot be read and an instance record does
// not say whether it is a serverless worker: the workers are not counted
// as the account's leaks. Their rows are marked in text ("? ") and JSON
// (maybe_worker), and the total and the count leave them out.
func TestAuditWithoutMiscCountsNoWorker(t *testing.T) {
	srv := auditServer(t)
	const key = "key-without-misc-0123"
	srv.AddKey(key, "nomisc", []string{"user_read", "billing_read", "instance_read"})
	res := auditRun(t, srv, key, nil, "audit", "--utc", "--output", "json")
	var got struct {
		Leaks []struct {
			ID          int64
			Kind        string
			PerHour     json.Number `json:"per_hour"`
			MaybeWorker bool        `json:"maybe_worker"`
		}
		Total json.Number `json:"total_per_hour"`
	}
	if err := json.Unmarshal([]byte(res.out), &got); err != nil {
		t.Fatalf("json %s: %v", res.out, err)
	}
	var counted, total api.Rate
	workers := 0
	for _, l := range got.Leaks {
		var r api.Rate
		if err := json.Unmarshal([]byte(l.PerHour), (*rateJSONValue)(&r)); err != nil {
			t.Fatalf("per_hour %s: %v", l.PerHour, err)
		}
		if !l.MaybeWorker {
			counted += r
		}
		switch l.ID {
		case demoserver.LeakWorkerReady, demoserver.LeakWorkerCold, demoserver.LeakWorkerBusy2:
			workers++
			if !l.MaybeWorker {
				t.Errorf("worker %d counted as a leak (%s)", l.ID, l.Kind)
			}
		}
	}
	if err := json.Unmarshal([]byte(got.Total), (*rateJSONValue)(&total)); err != nil || workers == 0 || total != counted {
		t.Errorf("total %s, want %s (the rows not marked); workers seen %d", got.Total, counted, workers)
	}
	if !strings.Contains(res.errOut, "may be serverless workers") {
		t.Errorf("stderr %q does not say what it left out", res.errOut)
	}
	res = auditRun(t, srv, key, nil, "audit", "--utc")
	for _, line := range strings.Split(res.out, "\n") {
		if strings.Contains(line, strconv.FormatInt(demoserver.LeakWorkerReady, 10)) && !strings.Contains(line, "? $") {
			t.Errorf("worker row unmarked: %q", line)
		}
	}
}

// audit --output csv was refused though the audit is a table: it writes
// the leaks, one row each, the JSON's values, and exits as the text does.
func TestAuditCSV(t *testing.T) {
	srv := auditServer(t)
	res := auditRun(t, srv, demoserver.DemoKey, nil, "audit", "--output", "csv", "--utc")
	if res.code != exitRuntime || !strings.Contains(res.errOut, "leaks found: $") {
		t.Fatalf("exit %d, stderr %q", res.code, res.errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(res.out)).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("stdout is not CSV (%v): %q", err, res.out)
	}
	js := auditRun(t, srv, demoserver.DemoKey, nil, "audit", "--json", "--utc")
	var j auditJSON
	if err := json.Unmarshal([]byte(js.out), &j); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "kind,id,label,per_hour,since,so_far,why" || len(rows) != len(j.Leaks)+1 {
		t.Fatalf("%d rows for %d leaks, header %q", len(rows), len(j.Leaks), rows[0])
	}
	for i, l := range j.Leaks {
		r := rows[i+1]
		if r[0] != string(l.Kind) || r[1] != strconv.FormatInt(l.ID, 10) || (l.PerHour != nil) != (r[3] != "") || (l.SoFar != nil) != (r[5] != "") {
			t.Errorf("row %q for %+v", r, l)
		}
	}
}
