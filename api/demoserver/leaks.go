package demoserver

import (
	"bytes"
	"cmp"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
)

// The money leaks of Options.Leaks: an account paying for what it does not
// use — a stopped instance's disk (two of them), a volume attached to
// nothing, an endpoint whose ready worker has no traffic, a running GPU at
// 0% — beside decoys a careless audit would count (an offline instance, a
// loading one, a busy endpoint whose workers say idle, an endpoint with no
// workers, an attached network volume), and two pending price increases.
// They are contracts of the data set like any other (the charges list
// them, so the dashboard's enter can find them), with ids of their own
// above the generated ones; the volumes, serverless and price-increase
// endpoints serve them.

// Leak fixture ids.
const (
	LeakStopped        int64 = 9_100_101 // exited, intended stopped: a leak
	LeakStopped2       int64 = 9_100_102 // stopped, intended stopped: a leak
	LeakIdleGPU        int64 = 9_100_103 // running at gpu_util 0: a leak
	LeakBusy           int64 = 9_100_104 // running at 87.5%: not a leak
	LeakOffline        int64 = 9_100_105 // offline: not charged, not a leak
	LeakLoading        int64 = 9_100_106 // loading, gpu_util null: not a leak
	LeakWorkerReady    int64 = 9_100_107 // idle endpoint's ready worker at 0%
	LeakWorkerCold     int64 = 9_100_108 // idle endpoint's cold worker, exited
	LeakWorkerBusy     int64 = 9_100_109 // busy endpoint's worker with load
	LeakWorkerBusy2    int64 = 9_100_110 // busy endpoint's worker at 0%, rolling load
	LeakOrphanVolume   int64 = 9_100_111 // local volume attached to nothing: a leak
	LeakNetworkVolume  int64 = 9_100_112 // network volume attached to LeakBusy
	LeakIdleEndpoint   int64 = 9_201     // ready worker, no traffic: a leak
	LeakBusyEndpoint   int64 = 9_202     // workers say idle but carry load
	LeakEmptyEndpoint  int64 = 9_203     // no workers
	LeakIncreaseBusy   int64 = 501       // pending increase of LeakBusy (GPU)
	LeakIncreaseIdle   int64 = 502       // pending increase of LeakIdleGPU (GPU and disk)
	leakWorkerGroupOff int64 = 100       // a fixture endpoint's group id is its id + this
)

// fixture is one leak contract and how the instance, volume and
// autoscaler endpoints show it.
type fixture struct {
	id       int64
	kind     uint8
	label    string
	gpu      uint8 // index into gpuModels
	gpus     uint8
	diskGB   int32
	gpuRate  int64 // µ$ an hour, all GPUs
	diskRate int64 // µ$ a GB-hour
	age      int64 // seconds since it was made
	active   int64 // seconds its GPUs ran; 0: all its life
	ep       int   // index into leakEndpoints; -1 none
	// actual, intended and util are the instance record's actual_status,
	// intended_status and gpu_util (JSON text).
	actual, intended, util string
	// status, load, avg and reqs are the autoscaler's word for a worker.
	status    string
	load, avg string
	reqs      int
	// volType and attached are a volume's type and instances.
	volType  string
	attached []int64
}

const leakDay = 86400

var leakFixtures = []fixture{
	{id: LeakStopped, kind: kindInstance, label: "sd-xl archive", gpu: 1, gpus: 1, diskGB: 200, gpuRate: 350_000, diskRate: 389, age: 12 * leakDay, active: 2 * leakDay, ep: -1, actual: "exited", intended: "stopped", util: "null"},
	{id: LeakStopped2, kind: kindInstance, gpu: 0, gpus: 1, diskGB: 100, gpuRate: 160_000, diskRate: 150, age: 30 * leakDay, active: 5 * leakDay, ep: -1, actual: "stopped", intended: "stopped", util: "null"},
	{id: LeakIdleGPU, kind: kindInstance, label: "jupyter scratch", gpu: 3, gpus: 2, diskGB: 64, gpuRate: 840_000, diskRate: 120, age: 3 * leakDay, ep: -1, actual: "running", intended: "running", util: "0.0"},
	{id: LeakBusy, kind: kindInstance, label: "pretrain", gpu: 6, gpus: 1, diskGB: 256, gpuRate: 2_100_000, diskRate: 200, age: leakDay, ep: -1, actual: "running", intended: "running", util: "87.5"},
	{id: LeakOffline, kind: kindInstance, label: "host went dark", gpu: 1, gpus: 1, diskGB: 100, gpuRate: 330_000, diskRate: 300, age: 6 * leakDay, active: leakDay, ep: -1, actual: "offline", intended: "stopped", util: "null"},
	{id: LeakLoading, kind: kindInstance, label: "just rented", gpu: 4, gpus: 1, diskGB: 50, gpuRate: 760_000, diskRate: 150, age: 600, ep: -1, actual: "loading", intended: "running", util: "null"},
	{id: LeakWorkerReady, kind: kindServerless, gpu: 1, gpus: 1, diskGB: 32, gpuRate: 380_000, diskRate: 150, age: 2 * leakDay, ep: 0, actual: "running", intended: "running", util: "0", status: "idle", load: "0.0", avg: "0.0"},
	{id: LeakWorkerCold, kind: kindServerless, gpu: 1, gpus: 1, diskGB: 32, gpuRate: 380_000, diskRate: 150, age: 4 * leakDay, active: leakDay, ep: 0, actual: "exited", intended: "stopped", util: "null", status: "stopped", load: "0.0", avg: "0.0"},
	{id: LeakWorkerBusy, kind: kindServerless, gpu: 0, gpus: 1, diskGB: 32, gpuRate: 170_000, diskRate: 150, age: leakDay, ep: 1, actual: "running", intended: "running", util: "64.0", status: "idle", load: "12.5", avg: "9.1", reqs: 1},
	{id: LeakWorkerBusy2, kind: kindServerless, gpu: 0, gpus: 1, diskGB: 32, gpuRate: 170_000, diskRate: 150, age: leakDay, ep: 1, actual: "running", intended: "running", util: "0", status: "idle", load: "0.0", avg: "3.2"},
	{id: LeakOrphanVolume, kind: kindVolume, label: "old-datasets", diskGB: 500, diskRate: 194, age: 20 * leakDay, ep: -1, volType: "local_volume", attached: []int64{}},
	{id: LeakNetworkVolume, kind: kindVolume, label: "shared-weights", diskGB: 1000, diskRate: 100, age: 8 * leakDay, ep: -1, volType: "network_volume", attached: []int64{LeakBusy}},
}

var leakEndpoints = []string{"idle-chat", "busy-sdxl", "empty-embeddings"}

// addLeaks puts the fixtures into d: their endpoints and groups, their
// labels and their contracts, still sorted by (start, id).
func (d *dataset) addLeaks() {
	epOff := len(d.endpoints)
	for i, name := range leakEndpoints {
		id := LeakIdleEndpoint + int64(i)
		d.endpoints = append(d.endpoints, endpoint{id: id, name: name})
		d.groups = append(d.groups, group{id: id + leakWorkerGroupOff, ep: int16(epOff + i), name: gpuModels[1].name + " pool"})
	}
	d.fixtures = map[int64]*fixture{}
	for i := range leakFixtures {
		f := &leakFixtures[i]
		d.fixtures[f.id] = f
		c := contract{id: f.id, kind: f.kind, start: d.now - f.age, end: d.now, label: -1, ep: -1, wg: -1,
			gpu: f.gpu, gpus: f.gpus, diskGB: f.diskGB}
		if f.label != "" {
			l := f.label
			if d.hostile {
				l = hostileLabel(l, len(d.labels))
			}
			c.label = int16(len(d.labels))
			d.labels = append(d.labels, l)
		}
		if f.ep >= 0 {
			c.ep, c.wg = int16(epOff+f.ep), int16(epOff+f.ep)
		}
		dur := c.end - c.start
		diskQty := int64(c.diskGB) * dur * 1000 / 3600
		if f.kind == kindVolume {
			c.items[0] = mkItem(itemDisk, diskQty, f.diskRate)
			c.nitems = 1
		} else {
			active := cmp.Or(f.active, dur)
			c.items[0] = mkItem(itemGPU, active*1000/3600, f.gpuRate)
			c.items[1] = mkItem(itemDisk, diskQty, f.diskRate)
			c.items[2] = mkItem(itemBWD, 0, 0)
			c.items[3] = mkItem(itemBWU, 0, 0)
			c.nitems = 4
		}
		for _, it := range c.items[:c.nitems] {
			c.amount += it.amount
		}
		d.cs = append(d.cs, c)
		d.maxDur = max(d.maxDur, dur)
	}
	slices.SortFunc(d.cs, func(a, b contract) int {
		return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.id, b.id))
	})
}

// fixtureRates are a fixture's dph_total and storage_total_cost in µ$ an
// hour, as instanceRates gives a generated contract's.
func fixtureRates(f *fixture) (dph, storage int64) {
	storage = f.diskRate * int64(f.diskGB)
	return f.gpuRate + storage, storage
}

// Price increases: per second with many decimals, as the hosts set them.
type increase struct {
	id, instance         int64
	oldGPU, newGPU       string // $ a GPU-second; newGPU "null": unchanged
	oldDisk, newDisk     string // $ a GB-second; both "null": unchanged, as the API sends it
	endIn, askIn, before int64  // seconds from now: contract end, ask end; created before now
}

var leakIncreases = []increase{
	{id: LeakIncreaseBusy, instance: LeakBusy, oldGPU: "0.000583333333", newGPU: "0.000638888889", oldDisk: "null", newDisk: "null", endIn: 3 * leakDay, askIn: 33 * leakDay, before: leakDay},
	{id: LeakIncreaseIdle, instance: LeakIdleGPU, oldGPU: "0.000116666667", newGPU: "0.000125", oldDisk: "0.0000000333333", newDisk: "0.0000000416667", endIn: 6 * leakDay, askIn: 36 * leakDay, before: 2 * leakDay},
}

// Paths of the audit's endpoints, without the trailing slash.
const (
	pathVolumes         = "/api/v0/volumes"
	pathEndpointJobs    = "/api/v0/endptjobs"
	pathWorkerGroups    = "/api/v0/workergroups"
	pathEndpointWorkers = "/get_endpoint_workers"
	pathIncreases       = "/api/v0/instances/pending-price-increases"
	pathAccept          = "/api/v0/instances/accept-price-increase"
	pathReject          = "/api/v0/instances/reject-price-increase"
)

// EndpointSecret is the api_key the demo serves for endpoint (or worker
// group) id: a client must never show or log it.
func EndpointSecret(id int64) string {
	return "ep-secret-" + strconv.FormatInt(id, 10) + "-7d1f0c9a5e"
}

// serveVolumes answers GET /api/v0/volumes/?owner=me&type=…: the fixture
// volumes (none without Options.Leaks); type local_volume (the default)
// leaves the network volumes out, network_volume the local ones.
func (s *Server) serveVolumes(w http.ResponseWriter, r *http.Request, _ string, ki *keyInfo, _ []byte) {
	if th := s.opts.VolumesThreshold; !s.paceEndpoint(ki, pathVolumes, th) {
		s.write429(w, th)
		return
	}
	typ := r.URL.Query().Get("type")
	switch typ {
	case "":
		typ = "local_volume" // the server's default
	case "all_volume", "local_volume", "network_volume":
	default:
		writeError(w, http.StatusBadRequest, "invalid_args", "type must be local_volume, network_volume or all_volume.")
		return
	}
	d := s.ds()
	b := []byte(`{"success":true,"volumes":[`)
	n := 0
	for i := range d.cs {
		c := &d.cs[i]
		f := d.fixtures[c.id]
		if f == nil || f.kind != kindVolume || (typ != "all_volume" && typ != f.volType) {
			continue
		}
		if n++; n > 1 {
			b = append(b, ',')
		}
		b = appendKeyInt(append(b, '{'), "id", c.id)
		b = append(b, `,"label":`...)
		b = d.appendLabel(b, c)
		b = append(b, `,"status":"online","type":`...)
		b = appendString(b, f.volType)
		b = append(b, `,"disk_space":`...)
		b = strconv.AppendInt(b, int64(f.diskGB), 10)
		_, storage := fixtureRates(f)
		b = append(b, `,"storage_cost":0.14,"storage_total_cost":`...)
		b = appendMicros(b, storage)
		b = append(b, `,"start_date":`...)
		b = strconv.AppendInt(b, c.start, 10)
		b = append(b, `.25,"instances":[`...)
		for j, id := range f.attached {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, id, 10)
		}
		b = append(b, "]}"...)
	}
	writeJSON(w, http.StatusOK, append(b, "]}"...))
}

// serveEndpointJobs answers GET /api/v0/endptjobs/: every endpoint of the
// data set, with its api_key as the real API sends it.
func (s *Server) serveEndpointJobs(w http.ResponseWriter, _ *http.Request, _ string, ki *keyInfo, _ []byte) {
	if th := s.opts.EndpointsThreshold; !s.paceEndpoint(ki, pathEndpointJobs, th) {
		s.write429(w, th)
		return
	}
	d := s.ds()
	b := []byte(`{"success":true,"results":[`)
	for i, ep := range d.endpoints {
		if i > 0 {
			b = append(b, ',')
		}
		name := ep.name
		if d.hostile {
			name = hostile(name, ep.id)
		}
		b = appendKeyInt(append(b, '{'), "id", ep.id)
		b = append(b, `,"endpoint_name":`...)
		b = appendString(b, name)
		b = append(b, `,"endpoint_state":"active","min_load":0,"cold_workers":1,"max_workers":4,"inactivity_timeout":600,"api_key":`...)
		b = appendString(b, EndpointSecret(ep.id))
		b = append(b, '}')
	}
	writeJSON(w, http.StatusOK, append(b, "]}"...))
}

// serveWorkerGroups answers GET /api/v0/workergroups/.
func (s *Server) serveWorkerGroups(w http.ResponseWriter, _ *http.Request, _ string, ki *keyInfo, _ []byte) {
	if th := s.opts.WorkerGroupsThreshold; !s.paceEndpoint(ki, pathWorkerGroups, th) {
		s.write429(w, th)
		return
	}
	d := s.ds()
	b := []byte(`{"success":true,"results":[`)
	for i, g := range d.groups {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendKeyInt(append(b, '{'), "id", g.id)
		b = append(b, `,"endpoint_id":`...)
		b = strconv.AppendInt(b, d.endpoints[g.ep].id, 10)
		b = append(b, `,"template_hash":"4f1c0de","cold_workers":1,"test_workers":3,"api_key":`...)
		b = appendString(b, EndpointSecret(g.id))
		b = append(b, '}')
	}
	writeJSON(w, http.StatusOK, append(b, "]}"...))
}

// serveEndpointWorkers answers POST /get_endpoint_workers/ with {"id": N}:
// a bare list of the endpoint's workers (the fixtures'; the generated
// endpoints have none listed); an unknown endpoint gets the autoscaler's
// {"error_msg": …}.
func (s *Server) serveEndpointWorkers(w http.ResponseWriter, _ *http.Request, _ string, _ *keyInfo, body []byte) {
	var req struct {
		ID *int64 `json:"id"`
	}
	if json.Unmarshal(body, &req) != nil || req.ID == nil {
		writeError(w, http.StatusBadRequest, "invalid_args", `The body must be {"id": <endpoint id>}.`)
		return
	}
	d := s.ds()
	ep := slices.IndexFunc(d.endpoints, func(e endpoint) bool { return e.id == *req.ID })
	if ep < 0 {
		writeJSON(w, http.StatusOK, []byte(`{"error_msg":"endpoint not found"}`))
		return
	}
	b := []byte{'['}
	n := 0
	for i := range d.cs {
		c := &d.cs[i]
		f := d.fixtures[c.id]
		if f == nil || f.kind != kindServerless || int(c.ep) != ep {
			continue
		}
		if n++; n > 1 {
			b = append(b, ',')
		}
		b = appendKeyInt(append(b, '{'), "id", c.id)
		b = append(b, `,"status":`...)
		b = appendString(b, f.status)
		b = append(b, `,"cur_load":`...)
		b = append(b, f.load...)
		b = append(b, `,"cur_load_rolling_avg":`...)
		b = append(b, f.avg...)
		b = append(b, `,"reqs_working":`...)
		b = strconv.AppendInt(b, int64(f.reqs), 10)
		b = append(b, `,"perf":1.0,"measured_perf":312.4,"dlperf":88.1,"reliability":0.997,"disk_usage":11.2}`...)
	}
	writeJSON(w, http.StatusOK, append(b, ']'))
}

// serveIncreases answers GET /api/v0/instances/pending-price-increases/:
// the fixtures' increases not answered yet (none without Options.Leaks).
func (s *Server) serveIncreases(w http.ResponseWriter, _ *http.Request, _ string, _ *keyInfo, _ []byte) {
	d := s.ds()
	s.mu.Lock()
	decided := copySet(s.decided)
	s.mu.Unlock()
	b := []byte(`{"success":true,"pending_price_increases":[`)
	n := 0
	for _, in := range leakIncreases {
		if d.fixtures == nil || decided[in.id] {
			continue
		}
		if n++; n > 1 {
			b = append(b, ',')
		}
		b = appendKeyInt(append(b, '{'), "pending_price_increase_id", in.id)
		b = append(b, `,"contract_id":`...)
		b = strconv.AppendInt(b, in.instance, 10)
		for _, kv := range [][2]string{
			{"old_gpu_costpersec", in.oldGPU}, {"new_gpu_costpersec", in.newGPU},
			{"old_disk_ram_costpersec", in.oldDisk}, {"new_disk_ram_costpersec", in.newDisk},
			{"old_bwu_cost", "0.01"}, {"new_bwu_cost", "null"},
			{"old_bwd_cost", "0.01"}, {"new_bwd_cost", "null"},
			{"old_platform_fee", "0.0"}, {"new_platform_fee", "null"},
		} {
			b = append(b, `,"`+kv[0]+`":`+kv[1]...)
		}
		for _, kv := range []struct {
			k string
			t int64
		}{{"contract_end_date", d.now + in.endIn}, {"ask_end_date", d.now + in.askIn}, {"created_at", d.now - in.before}} {
			b = append(b, `,"`+kv.k+`":`...)
			b = strconv.AppendInt(b, kv.t, 10)
			b = append(b, ".0"...)
		}
		b = append(b, '}')
	}
	b = append(b, `],"count":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	writeJSON(w, http.StatusOK, append(b, `,"truncated":false}`...))
}

// serveAnswer answers the accept and reject PUTs: the body must be exactly
// {"pending_price_increase_id": N} (any other key is a 400, as on the real
// server); one already answered, or unknown, is 404
// no_pending_price_increase.
func (s *Server) serveAnswer(w http.ResponseWriter, _ *http.Request, _ string, _ *keyInfo, body []byte) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var req struct {
		ID *int64 `json:"pending_price_increase_id"`
	}
	if dec.Decode(&req) != nil || req.ID == nil {
		writeError(w, http.StatusBadRequest, "invalid_args", `The body must be exactly {"pending_price_increase_id": <int>}.`)
		return
	}
	if _, err := dec.Token(); err != io.EOF {
		writeError(w, http.StatusBadRequest, "invalid_args", "Request body has trailing data.")
		return
	}
	known := s.ds().fixtures != nil && slices.ContainsFunc(leakIncreases, func(in increase) bool { return in.id == *req.ID })
	s.mu.Lock()
	ok := known && !s.decided[*req.ID]
	if ok {
		s.decided[*req.ID] = true
	}
	s.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "no_pending_price_increase", "No pending price increase with this id.")
		return
	}
	writeJSON(w, http.StatusOK, []byte(`{"success":true}`))
}

// copySet copies a set.
func copySet(m map[int64]bool) map[int64]bool {
	out := make(map[int64]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Decided reports the price increases answered so far (accepted or
// rejected), by id.
func (s *Server) Decided() map[int64]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return copySet(s.decided)
}

// LeakTruth is a leak fixture as served, for tests: rates in millionths of
// a dollar an hour.
type LeakTruth struct {
	ID       int64
	DPH      int64 // dph_total (0 for a volume)
	Storage  int64 // storage_total_cost
	Start    int64 // start_date, unix seconds
	DiskGB   int64
	GPUs     int64
	Endpoint int64 // the worker's endpoint id; 0 when not a worker
}

// Leak returns fixture id as served; ok is false when the server has no
// such fixture (Options.Leaks off).
func (s *Server) Leak(id int64) (LeakTruth, bool) {
	f := s.ds().fixtures[id]
	if f == nil {
		return LeakTruth{}, false
	}
	dph, storage := fixtureRates(f)
	if f.kind == kindVolume {
		dph = 0
	}
	t := LeakTruth{ID: id, DPH: dph, Storage: storage, Start: s.ds().now - f.age, DiskGB: int64(f.diskGB), GPUs: int64(f.gpus)}
	if f.ep >= 0 {
		t.Endpoint = LeakIdleEndpoint + int64(f.ep)
	}
	return t, true
}

// appendLabel writes c's label, or null.
func (d *dataset) appendLabel(b []byte, c *contract) []byte {
	if c.label < 0 {
		return append(b, "null"...)
	}
	return appendString(b, d.labels[c.label])
}
