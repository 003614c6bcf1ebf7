package api

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// The fields the audit reads: both statuses, gpu_util nullable and
// bounded (a bad reading costs the reading, not the instance), disk_space
// exactly.
func TestInstancesDecodeAuditFields(t *testing.T) {
	p, err := decodeInst(t, `{"instances":[
		{"id":1,"actual_status":"exited","intended_status":"stopped","gpu_util":null,"disk_space":200,"storage_total_cost":0.0778},
		{"id":2,"actual_status":"running","intended_status":"running","gpu_util":0,"disk_space":16.5},
		{"id":3,"actual_status":"running","gpu_util":0.87},
		{"id":4,"actual_status":"running","gpu_util":150},
		{"id":5,"actual_status":"running","gpu_util":-1},
		{"id":6,"disk_space":-5},
		{"id":7,"disk_space":"200"},
		{"id":8,"disk_space":1e12}
	]}`)
	if err != nil {
		t.Fatal(err)
	}
	if p.Skipped != 3 || len(p.Results) != 5 {
		t.Fatalf("kept %d, skipped %d", len(p.Results), p.Skipped)
	}
	in := p.Results
	if in[0].IntendedStatus != "stopped" || in[0].GPUUtilKnown || in[0].DiskSpace != 200_000 || in[0].Billing() != 77_800 {
		t.Errorf("stopped: %+v", in[0])
	}
	if !in[1].GPUUtilKnown || in[1].GPUUtil != 0 || in[1].DiskSpace != 16_500 {
		t.Errorf("idle: %+v", in[1])
	}
	if !in[2].GPUUtilKnown || in[2].GPUUtil != 0.87 || in[3].GPUUtilKnown || in[4].GPUUtilKnown {
		t.Errorf("utils: %+v %+v %+v", in[2], in[3], in[4])
	}
	// A storage price sent (0 included) is known; null or absent is not.
	if !in[0].StorageKnown || in[1].StorageKnown {
		t.Errorf("storage known: %v %v", in[0].StorageKnown, in[1].StorageKnown)
	}
	// Offline: the billing guide charges nothing, storage included.
	if off := (Instance{Status: "offline", StorageTotalCost: 5}); off.Billing() != 0 {
		t.Errorf("offline bills %v", off.Billing())
	}
}

func TestVolumes(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 200, `{"success":true,"volumes":[
			{"id":11,"label":"old","status":"online","type":"local_volume","disk_space":500,"storage_total_cost":0.097,"start_date":1772000000.5,"instances":[]},
			{"id":12,"type":"network_volume","disk_space":1000,"storage_total_cost":0.1,"instances":[9100104,{"id":7}]},
			{"id":13,"disk_space":10,"storage_total_cost":0.01},
			{"id":14,"instances":null},
			{"id":15,"instances":["x"]},
			{"id":16,"storage_total_cost":-1},
			{"id":0}
		]}`)
	})
	c := f.client(t)
	l, err := c.Volumes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := f.requests()[0]
	if r.Path != VolumesPath || r.Query.Get("owner") != "me" || r.Query.Get("type") != "all_volume" {
		t.Fatalf("asked %s?%s: local_volume (the default) misses network volumes", r.Path, r.RawQuery)
	}
	if l.Skipped != 3 || len(l.Volumes) != 4 {
		t.Fatalf("%+v", l)
	}
	v := l.Volumes
	if !v[0].Orphan() || v[0].StorageTotalCost != 97_000 || !v[0].StorageKnown || v[3].StorageKnown || v[0].DiskSpace != 500_000 || v[0].StartDate != 1772000000 || v[0].Label != "old" {
		t.Errorf("orphan: %+v", v[0])
	}
	if v[1].Orphan() || !slices.Equal(v[1].Instances, []int64{9100104, 7}) || v[1].Type != "network_volume" {
		t.Errorf("attached: %+v", v[1])
	}
	// No list sent (or null): not known to be orphaned.
	if v[2].Orphan() || v[3].Orphan() {
		t.Errorf("unknown attachment read as orphan: %+v %+v", v[2], v[3])
	}
	if got := c.endpointPacer(VolumesPath).interval; got != 5500*time.Millisecond {
		t.Errorf("volumes paced %v, want the documented 5.5 s", got)
	}
}

// The endpoints' own keys are never kept, and once seen never appear in an
// error text the client builds.
func TestEndpointsForgetTheirKeys(t *testing.T) {
	const epKey = "ep-secret-of-endpoint-42"
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case EndpointJobsPath:
			reply(w, 200, `{"success":true,"results":[{"id":42,"endpoint_name":"chat","endpoint_state":"active","api_key":"`+epKey+`"},{"id":"x"}]}`)
		case WorkerGroupsPath:
			reply(w, 200, `{"success":true,"workergroups":[{"id":7,"endpoint_id":42,"api_key":"wg-secret-of-group-7"}]}`)
		default:
			reply(w, 400, `{"success":false,"error":"bad","msg":"endpoint key `+epKey+` and wg-secret-of-group-7 refused"}`)
		}
	})
	c := f.client(t)
	ctx := context.Background()
	el, err := c.Endpoints(ctx)
	if err != nil || len(el.Items) != 1 || el.Skipped != 1 || el.Items[0] != (Endpoint{ID: 42, Name: "chat", State: "active"}) {
		t.Fatalf("%+v %v", el, err)
	}
	gl, err := c.WorkerGroups(ctx)
	if err != nil || len(gl.Items) != 1 || gl.Items[0] != (WorkerGroup{ID: 7, EndpointID: 42}) {
		t.Fatalf("%+v %v", gl, err)
	}
	_, err = c.EndpointWorkers(ctx, 42)
	e := apiErr(t, err, ErrBadRequest)
	if strings.Contains(e.Error(), epKey) || strings.Contains(e.Error(), "wg-secret") || !strings.Contains(e.Error(), "[redacted]") {
		t.Fatalf("error text %q", e.Error())
	}
	for _, p := range []string{EndpointJobsPath, WorkerGroupsPath} {
		if c.endpointPacer(p) == nil {
			t.Errorf("%s not paced", p)
		}
	}
}

// The autoscaler's call: POST {"id": N} to run.vast.ai, or to the base URL
// when it is not the console; a bare list or {"workers": …}; its
// error_msg is an error, not an empty endpoint.
func TestEndpointWorkers(t *testing.T) {
	answers := []string{
		`[{"id":1,"status":"idle","cur_load":0,"cur_load_rolling_avg":0.0,"reqs_working":0},{"id":2,"status":"loading","cur_load":-1}]`,
		`{"workers":[{"id":3,"status":"idle","cur_load":12.5,"cur_load_rolling_avg":9.1,"reqs_working":1}]}`,
		`{"error_msg":"endpoint not ready"}`,
		`"nope"`,
	}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, 200, answers[n]) })
	c := f.client(t)
	ctx := context.Background()
	l, err := c.EndpointWorkers(ctx, 42)
	if err != nil || len(l.Items) != 1 || l.Skipped != 1 || l.Items[0] != (Worker{ID: 1, Status: "idle"}) {
		t.Fatalf("bare list: %+v %v", l, err)
	}
	r := f.requests()[0]
	if r.Method != http.MethodPost || r.Path != EndpointWorkersPath || string(r.Body) != `{"id":42}` || r.Header.Get("Authorization") != "Bearer "+canary {
		t.Fatalf("request %s %s %s", r.Method, r.Path, r.Body)
	}
	l, err = c.EndpointWorkers(ctx, 42)
	if err != nil || len(l.Items) != 1 || l.Items[0] != (Worker{ID: 3, Status: "idle", CurLoad: 12.5, CurLoadRollingAvg: 9.1, ReqsWorking: 1}) {
		t.Fatalf("wrapped: %+v %v", l, err)
	}
	_, err = c.EndpointWorkers(ctx, 42)
	if e := apiErr(t, err, ErrBadRequest); e.Msg != "endpoint not ready" {
		t.Errorf("error_msg: %q", e.Msg)
	}
	_, err = c.EndpointWorkers(ctx, 42)
	apiErr(t, err, ErrMalformed)

	for base, want := range map[string]string{ConsoleURL: AutoscalerURL, "http://127.0.0.1:8080": "http://127.0.0.1:8080", "https://proxy.example/vast": "https://proxy.example/vast"} {
		c, err := New(base, "k")
		if err != nil || c.run != want {
			t.Errorf("%s: autoscaler %q (%v), want %q", base, c.run, err, want)
		}
	}
}

func TestPendingPriceIncreases(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		reply(w, 200, `{"success":true,"count":5,"truncated":true,"pending_price_increases":[
			{"pending_price_increase_id":501,"contract_id":9,"old_gpu_costpersec":0.000583333333,"new_gpu_costpersec":0.000638888889,
			 "old_disk_ram_costpersec":5.55556e-8,"new_disk_ram_costpersec":null,"contract_end_date":1772300000.0,"ask_end_date":1774900000.5,"created_at":1772000000},
			{"pending_price_increase_id":502,"contract_id":10,"new_gpu_costpersec":0.0002},
			{"pending_price_increase_id":503,"contract_id":11,"old_gpu_costpersec":-0.1},
			{"pending_price_increase_id":504,"contract_id":12,"old_gpu_costpersec":0.1,"old_disk_ram_costpersec":0.1},
			{"pending_price_increase_id":505,"contract_id":13,"contract_end_date":99999999999},
			{"pending_price_increase_id":506,"contract_id":14,"old_gpu_costpersec":0.0001,"new_gpu_costpersec":0.0002,"old_disk_ram_costpersec":null,"new_disk_ram_costpersec":null}
		]}`)
	})
	p, err := f.client(t).PendingPriceIncreases(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !p.Truncated || p.Skipped != 3 || len(p.Items) != 3 {
		t.Fatalf("%+v", p)
	}
	want := PriceIncrease{ID: 501, InstanceID: 9, OldGPU: 583_333_333, NewGPU: 638_888_889, OldDisk: 55_556, NewDisk: 55_556, Known: true,
		ContractEnd: 1772300000, AskEnd: 1774900000, Created: 1772000000}
	if p.Items[0] != want {
		t.Errorf("got  %+v\nwant %+v", p.Items[0], want)
	}
	if p.Items[1].Known || p.Items[1].NewGPU != 200_000_000 {
		t.Errorf("without old prices: %+v", p.Items[1])
	}
	// The disk unchanged, sent as null both old and new: the change is
	// the GPU's alone, known.
	if d := p.Items[2]; !d.Known || d.NewGPU-d.OldGPU != 100_000_000 || d.NewDisk != d.OldDisk {
		t.Errorf("an unchanged disk sent as null: %+v", d)
	}
}

// The answer's body is exactly the one key the server takes; a decided
// row is ErrNotPending; a key without instance_write is told so.
func TestAnswerPriceIncrease(t *testing.T) {
	answers := []struct {
		status int
		body   string
	}{
		{200, `{"success":true}`},
		{404, `{"success":false,"error":"no_pending_price_increase","msg":"No pending price increase."}`},
		{401, `{"success":false,"error":"permission_denied","msg":"API key lacks the permission for this action"}`},
	}
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { reply(w, answers[n].status, answers[n].body) })
	c := f.client(t)
	ctx := context.Background()
	if err := c.AcceptPriceIncrease(ctx, 501); err != nil {
		t.Fatal(err)
	}
	r := f.requests()[0]
	if r.Method != http.MethodPut || r.Path != AcceptPriceIncreasePath || !bytes.Equal(r.Body, []byte(`{"pending_price_increase_id":501}`)) {
		t.Fatalf("%s %s %s", r.Method, r.Path, r.Body)
	}
	err := c.RejectPriceIncrease(ctx, 501)
	apiErr(t, err, ErrNotPending)
	if f.requests()[1].Path != RejectPriceIncreasePath {
		t.Errorf("reject went to %s", f.requests()[1].Path)
	}
	err = c.AcceptPriceIncrease(ctx, 502)
	if e := apiErr(t, err, ErrPermission); e.Permission != "instance_write" {
		t.Errorf("permission %q: %v", e.Permission, err)
	}
	if err := c.AcceptPriceIncrease(ctx, 0); !errors.Is(err, ErrUsage) || f.count() != 3 {
		t.Errorf("id 0: %v, %d requests", err, f.count())
	}
}

// An endpoint's api_key seen once in an answer is redacted from the rest
// of the log: in that body's other strings, in a later text body, in a
// later request's URL.
func TestDebugTransportRedactsLearnedSecrets(t *testing.T) {
	const epKey = "S9-endpoint-key-abcdef"
	answers := [][]byte{
		[]byte(`{"results":[{"note":"uses ` + epKey + `","api_key":"` + epKey + `"},{"api_key":"short"}]}`),
		[]byte(`<html>proxy says ` + epKey + ` is bad</html>`),
		[]byte(`plain "api_key": "S10-text-member-secret" then S10-text-member-secret`),
		[]byte(`S10-text-member-secret again`),
	}
	var log bytes.Buffer
	n := 0
	tr := DebugTransport(debugRT(func(r *http.Request) *http.Response {
		body := answers[n]
		n++
		return &http.Response{Status: "200 OK", StatusCode: 200, Header: http.Header{}, Body: readCloser{bytes.NewReader(body), nil}, Request: r}
	}), &log)
	for _, path := range []string{"/api/v0/endptjobs/", "/x", "/y?k=" + epKey, "/z"} {
		req, err := http.NewRequest(http.MethodGet, "http://vast.test"+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+debugKey)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body = nil
	}
	out := log.String()
	checkDebugLogSafe(t, out, epKey, "S10-text-member-secret")
	for _, want := range []string{`"note":"uses [redacted]"`, `proxy says [redacted] is bad`, `/y?k=[redacted]`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}
