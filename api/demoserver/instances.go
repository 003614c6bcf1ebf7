package demoserver

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
)

// Instances limits, as the docs give them.
const (
	instancesLimit = 25
	// exitedWindow and stoppedWindow decide which ended instance contracts
	// are still listed: everything that ended in the last three days is
	// "exited", and one in three of those that ended in the week before is
	// "stopped"; both keep their disk, so they keep costing storage.
	exitedWindow  = 3 * 86400
	stoppedWindow = 10 * 86400
)

// demoInstance is one listed instance: a contract of the data set and the
// status it is shown with.
type demoInstance struct {
	ci     int32
	status string
}

// instances lists the account's instances, newest first (by id): running
// instance contracts and recently ended ones that still hold their disk,
// and the leak fixtures' instances and workers (Options.Leaks). The
// generated serverless workers and volumes are not instances here.
func (d *dataset) instances() []demoInstance {
	var out []demoInstance
	for i := range d.cs {
		c := &d.cs[i]
		if f := d.fixtures[c.id]; f != nil {
			if f.kind != kindVolume {
				out = append(out, demoInstance{ci: int32(i), status: f.actual})
			}
			continue
		}
		if c.kind != kindInstance {
			continue
		}
		ago := d.now - c.end
		switch {
		case c.end == d.now:
			out = append(out, demoInstance{ci: int32(i), status: "running"})
		case ago < exitedWindow:
			out = append(out, demoInstance{ci: int32(i), status: "exited"})
		case ago < stoppedWindow && c.id%3 == 0:
			out = append(out, demoInstance{ci: int32(i), status: "stopped"})
		}
	}
	// d.cs ascends by (start, id), and generated ids grow with start;
	// the fixtures' do not.
	slices.SortFunc(out, func(a, b demoInstance) int { return cmp.Compare(d.cs[b.ci].id, d.cs[a.ci].id) })
	return out
}

// InstanceTruth is an instance as the demo serves it, for tests: rates in
// millionths of a dollar per hour.
type InstanceTruth struct {
	ID       int64
	Status   string
	Intended string // intended_status
	DPH      int64  // dph_total
	Storage  int64  // storage_total_cost
}

// Instances returns every instance GET /api/v1/instances/ lists, in the
// order it lists them.
func (s *Server) Instances() []InstanceTruth {
	d := s.ds()
	var out []InstanceTruth
	for _, in := range d.instances() {
		c := &d.cs[in.ci]
		dph, storage := d.rates(c)
		out = append(out, InstanceTruth{ID: c.id, Status: in.status, Intended: d.intended(c, in.status), DPH: dph, Storage: storage})
	}
	return out
}

// instanceRates derives an instance's prices from its contract's items:
// the GPU item's rate is per hour for all its GPUs, the disk item's per
// GB-hour (both in millionths of a dollar), so the sums carry up to six
// decimals like the real dph_total.
func instanceRates(c *contract) (dph, storage int64) {
	storage = c.items[itemDisk].rate * int64(c.diskGB)
	return c.items[itemGPU].rate + storage, storage
}

// rates are c's dph_total and storage_total_cost: a fixture's own (its
// items' quantities are hours of its life, not of a running GPU), else
// instanceRates.
func (d *dataset) rates(c *contract) (dph, storage int64) {
	if f := d.fixtures[c.id]; f != nil {
		return fixtureRates(f)
	}
	return instanceRates(c)
}

// intended is c's intended_status: a fixture's own; a generated instance
// that is not running was stopped.
func (d *dataset) intended(c *contract, status string) string {
	if f := d.fixtures[c.id]; f != nil {
		return f.intended
	}
	if status == "running" {
		return "running"
	}
	return "stopped"
}

// appendUtil writes c's gpu_util: a fixture's own; a generated running
// instance is busy (35–94%), any other has none.
func (d *dataset) appendUtil(b []byte, c *contract, status string) []byte {
	if f := d.fixtures[c.id]; f != nil {
		return append(b, f.util...)
	}
	if status != "running" {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, float64(35+c.id%60)+0.5, 'f', 1, 64)
}

type instancesCursor struct {
	V     int   `json:"v"`
	After int64 `json:"after_id"`
}

// serveInstances answers GET /api/v1/instances/: limit 1..25 (default 25),
// after_token from the previous page's next_token. The answer carries
// fields a client must ignore (machine_id, label_counts, …).
func (s *Server) serveInstances(w http.ResponseWriter, r *http.Request, _ string, ki *keyInfo, _ []byte) {
	if th := s.opts.InstancesThreshold; !s.paceEndpoint(ki, pathInstances, th) {
		s.write429(w, th)
		return
	}
	q := r.URL.Query()
	limit, ok := queryLimit(w, q, instancesLimit, instancesLimit)
	if !ok {
		return
	}
	d := s.ds()
	all := d.instances()
	from := 0
	if tok := q.Get("after_token"); tok != "" {
		raw, err := base64.StdEncoding.DecodeString(tok)
		var cur instancesCursor
		if err != nil || json.Unmarshal(raw, &cur) != nil || cur.V != 1 {
			writeError(w, http.StatusBadRequest, "invalid_token", "Invalid pagination token.")
			return
		}
		// Newest first: the page starts at the first id below the cursor.
		from = len(all)
		for i, in := range all {
			if d.cs[in.ci].id < cur.After {
				from = i
				break
			}
		}
	}
	to := min(len(all), from+limit)
	page := all[from:to]

	b := make([]byte, 0, 512+len(page)*400)
	b = append(b, `{"success":true,"instances":[`...)
	counts := map[string]int{}
	for i, in := range page {
		if i > 0 {
			b = append(b, ',')
		}
		b = d.appendInstance(b, in)
	}
	for _, in := range all {
		if c := &d.cs[in.ci]; c.label >= 0 {
			counts[d.labels[c.label]]++
		}
	}
	b = append(b, `],"next_token":`...)
	if to < len(all) {
		tok, _ := json.Marshal(instancesCursor{V: 1, After: d.cs[page[len(page)-1].ci].id})
		b = appendString(b, base64.StdEncoding.EncodeToString(tok))
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"total_instances":`...)
	b = strconv.AppendInt(b, int64(len(all)), 10)
	lc, _ := json.Marshal(counts)
	b = append(b, `,"label_counts":`...)
	b = append(b, lc...)
	b = append(b, '}')
	writeJSON(w, http.StatusOK, b)
}

func (d *dataset) appendInstance(b []byte, in demoInstance) []byte {
	c := &d.cs[in.ci]
	dph, storage := d.rates(c)
	b = appendKeyInt(append(b, '{'), "id", c.id)
	b = append(b, `,"actual_status":`...)
	b = appendString(b, in.status)
	b = append(b, `,"intended_status":`...)
	b = appendString(b, d.intended(c, in.status))
	b = append(b, `,"gpu_util":`...)
	b = d.appendUtil(b, c, in.status)
	b = append(b, `,"label":`...)
	b = d.appendLabel(b, c)
	b = append(b, `,"num_gpus":`...)
	b = strconv.AppendInt(b, int64(c.gpus), 10)
	b = append(b, `,"gpu_name":`...)
	b = appendString(b, gpuModels[c.gpu].name)
	b = append(b, `,"dph_total":`...)
	b = appendMicros(b, dph)
	b = append(b, `,"storage_total_cost":`...)
	b = appendMicros(b, storage)
	b = append(b, `,"disk_space":`...)
	b = strconv.AppendInt(b, int64(c.diskGB), 10)
	// A fraction, as the real API sends start_date as a float.
	b = append(b, `,"start_date":`...)
	b = strconv.AppendInt(b, c.start, 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, 100+c.id%900, 10)
	b = append(b, `,"machine_id":`...)
	b = strconv.AppendInt(b, 4000+c.id%997, 10)
	if c.template != 0 {
		b = append(b, `,"template_id":`...)
		b = strconv.AppendInt(b, c.template, 10)
	}
	return append(b, '}')
}

// appendMicros writes millionths of a dollar as a JSON number with at most
// six decimals and at least one ("0.421333", "1.5", "2.0").
func appendMicros(b []byte, m int64) []byte {
	b = strconv.AppendInt(b, m/1_000_000, 10)
	b = append(b, '.')
	f := m % 1_000_000
	if f == 0 {
		return append(b, '0')
	}
	digits := []byte(strconv.FormatInt(1_000_000+f, 10)[1:])
	for digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return append(b, digits...)
}
