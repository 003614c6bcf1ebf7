package demoserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The leaks are added after everything drawn: the generated data (and so
// every other test's expectations) is the same with or without them.
func TestLeaksLeaveTheGeneratedDataAlone(t *testing.T) {
	plain, leaky := start(t, Options{}), start(t, Options{Leaks: true})
	var gen []InstanceTruth
	for _, in := range leaky.Instances() {
		if _, fixture := leaky.Leak(in.ID); !fixture {
			gen = append(gen, in)
		}
	}
	if !slices.Equal(gen, plain.Instances()) || len(gen) == len(leaky.Instances()) {
		t.Fatalf("generated instances differ, or no fixture listed")
	}
	if plain.Credit() != leaky.Credit() {
		t.Fatal("the credit moved")
	}
	if _, ok := plain.Leak(LeakStopped); ok {
		t.Fatal("fixtures without Options.Leaks")
	}
	for _, path := range []string{"/api/v0/volumes/?owner=me&type=all_volume", "/api/v0/instances/pending-price-increases/"} {
		if r := plain.get(path, DemoKey); r.status != 200 || strings.Contains(string(r.body), `"id"`) {
			t.Errorf("%s without leaks: %d %s", path, r.status, r.body)
		}
	}
}

func TestLeakVolumesByType(t *testing.T) {
	ts := start(t, Options{Leaks: true, VolumesThreshold: -1})
	ids := func(q string) []int64 {
		r := ts.get("/api/v0/volumes/?owner=me"+q, DemoKey)
		var v struct {
			Volumes []struct {
				ID        int64   `json:"id"`
				Instances []int64 `json:"instances"`
			} `json:"volumes"`
		}
		if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
			t.Fatalf("%s: %d %s", q, r.status, r.body)
		}
		var out []int64
		for _, x := range v.Volumes {
			out = append(out, x.ID)
		}
		return out
	}
	if got := ids("&type=all_volume"); !slices.Equal(got, []int64{LeakOrphanVolume, LeakNetworkVolume}) {
		t.Errorf("all_volume: %v", got)
	}
	// local_volume (and no type) miss the network volume: why a client
	// asks for all_volume.
	for _, q := range []string{"&type=local_volume", ""} {
		if got := ids(q); !slices.Equal(got, []int64{LeakOrphanVolume}) {
			t.Errorf("%q: %v", q, got)
		}
	}
	if r := ts.get("/api/v0/volumes/?type=bogus", DemoKey); r.status != 400 {
		t.Errorf("bogus type: %d", r.status)
	}
}

func TestLeakEndpointsPacedAndKeyed(t *testing.T) {
	clk := &fakeClock{t: testNow}
	ts := start(t, Options{Leaks: true, Clock: clk.Now})
	for _, c := range []struct {
		path string
		th   time.Duration
	}{{"/api/v0/volumes/?type=all_volume", 5500 * time.Millisecond}, {"/api/v0/endptjobs/", 3 * time.Second}, {"/api/v0/workergroups/", 2 * time.Second}} {
		if r := ts.get(c.path, DemoKey); r.status != 200 {
			t.Fatalf("%s: %d", c.path, r.status)
		}
		clk.Add(c.th - time.Millisecond)
		if r := ts.get(c.path, DemoKey); r.status != 429 {
			t.Errorf("%s again %v later: %d, want 429", c.path, c.th-time.Millisecond, r.status)
		}
		clk.Add(c.th)
	}
	r := ts.get("/api/v0/endptjobs/", DemoKey)
	if !strings.Contains(string(r.body), EndpointSecret(LeakIdleEndpoint)) {
		t.Errorf("the endpoints carry no api_key for a client to hide: %s", r.body)
	}
	if r := ts.get("/api/v0/endptjobs/", KeyReadOnly); r.status != 401 {
		t.Errorf("without misc: %d", r.status)
	}
}

func TestLeakWorkers(t *testing.T) {
	ts := start(t, Options{Leaks: true})
	for id, want := range map[int64]string{
		LeakIdleEndpoint:  `"id":9100107,"status":"idle","cur_load":0.0`,
		LeakBusyEndpoint:  `"cur_load":12.5`,
		LeakEmptyEndpoint: `[]`,
		1:                 `"error_msg"`,
	} {
		r := ts.do("POST", "/get_endpoint_workers/", DemoKey, []byte(`{"id":`+strconv.FormatInt(id, 10)+`}`))
		if r.status != 200 || !strings.Contains(string(r.body), want) {
			t.Errorf("endpoint %d: %d %s", id, r.status, r.body)
		}
	}
}

// The answer takes exactly {"pending_price_increase_id": N}, once.
func TestLeakAnswers(t *testing.T) {
	ts := start(t, Options{Leaks: true})
	put := func(path, body string) int {
		return ts.do("PUT", path, DemoKey, []byte(body), "Content-Type", "application/json").status
	}
	for _, body := range []string{`{"pending_price_increase_id":501,"instance_id":9100104}`, `{"id":501}`, `{}`, `[501]`, `{"pending_price_increase_id":501} {}`} {
		if got := put("/api/v0/instances/accept-price-increase/", body); got != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", body, got)
		}
	}
	if got := put("/api/v0/instances/reject-price-increase/", `{"pending_price_increase_id":501}`); got != 200 {
		t.Fatalf("reject: %d", got)
	}
	if got := put("/api/v0/instances/accept-price-increase/", `{"pending_price_increase_id":501}`); got != 404 {
		t.Errorf("answered twice: %d", got)
	}
	r := ts.get("/api/v0/instances/pending-price-increases/", DemoKey)
	if strings.Contains(string(r.body), `"pending_price_increase_id":501`) || !strings.Contains(string(r.body), `"pending_price_increase_id":502`) {
		t.Errorf("after the answer: %s", r.body)
	}
	if !ts.Decided()[501] || ts.Decided()[502] {
		t.Errorf("decided %v", ts.Decided())
	}
	if got := ts.do("PUT", "/api/v0/instances/accept-price-increase/", KeyReadOnly, []byte(`{"pending_price_increase_id":502}`)).status; got != 401 {
		t.Errorf("without instance_write: %d", got)
	}
}
