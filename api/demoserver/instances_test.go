package demoserver

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

type instancesPage struct {
	Instances []struct {
		ID      int64       `json:"id"`
		Status  string      `json:"actual_status"`
		DPH     json.Number `json:"dph_total"`
		Storage json.Number `json:"storage_total_cost"`
		Start   json.Number `json:"start_date"`
		GPUs    int         `json:"num_gpus"`
	} `json:"instances"`
	Next  *string `json:"next_token"`
	Total int     `json:"total_instances"`
}

func TestInstancesPaging(t *testing.T) {
	ts := start(t, Options{Contracts: 2000, InstancesThreshold: -1})
	truth := ts.Instances()
	if len(truth) <= instancesLimit {
		t.Fatalf("%d instances", len(truth))
	}
	var got []int64
	path := "/api/v1/instances/"
	for pages := 0; ; pages++ {
		r := ts.get(path, KeyNoBilling)
		if r.status != 200 {
			t.Fatalf("%d %s", r.status, r.body)
		}
		var p instancesPage
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatal(err)
		}
		if len(p.Instances) > instancesLimit || p.Total != len(truth) {
			t.Fatalf("page of %d, total %d", len(p.Instances), p.Total)
		}
		for _, in := range p.Instances {
			got = append(got, in.ID)
			if strings.Count(in.DPH.String(), ".") != 1 || in.GPUs == 0 || !strings.Contains(in.Start.String(), ".") {
				t.Fatalf("instance %+v", in)
			}
		}
		if p.Next == nil {
			break
		}
		path = "/api/v1/instances?after_token=" + url.QueryEscape(*p.Next)
	}
	if len(got) != len(truth) {
		t.Fatalf("got %d of %d", len(got), len(truth))
	}
	for i := range got {
		if got[i] != truth[i].ID || (i > 0 && got[i] >= got[i-1]) {
			t.Fatalf("instance %d: id %d, want %d, newest first", i, got[i], truth[i].ID)
		}
	}
	statuses := map[string]bool{}
	sixDecimals := false
	for _, tr := range truth {
		statuses[tr.Status] = true
		if tr.DPH%1000 != 0 {
			sixDecimals = true
		}
		if tr.Storage <= 0 || tr.DPH <= tr.Storage {
			t.Errorf("rates %+v", tr)
		}
	}
	if !statuses["running"] || !statuses["exited"] || !statuses["stopped"] || !sixDecimals {
		t.Fatalf("statuses %v, six decimals %v", statuses, sixDecimals)
	}
}

func TestInstancesRefusals(t *testing.T) {
	ts := start(t, Options{InstancesThreshold: -1})
	for _, q := range []string{"limit=0", "limit=26", "limit=x"} {
		if r := ts.get("/api/v1/instances/?"+q, DemoKey); r.status != 400 {
			t.Errorf("%s: %d", q, r.status)
		}
	}
	if r := ts.get("/api/v1/instances/?limit=1", DemoKey); r.status != 200 || strings.Count(string(r.body), `"actual_status"`) > 1 {
		t.Errorf("limit=1: %d %s", r.status, r.body)
	}
	for _, tok := range []string{"x", "bm9wZQ==", "eyJ2IjoyfQ=="} {
		wantBody(t, ts.get("/api/v1/instances/?after_token="+tok, DemoKey), 400,
			`{"success":false,"error":"invalid_token","msg":"Invalid pagination token."}`)
	}
	wantBody(t, ts.get("/api/v1/instances/", KeyReadOnly), 401,
		`{"success":false,"error":"permission_denied","msg":"API key lacks the permission for this action"}`)
	if r := ts.get("/api/v1/instances/", KeyNoBilling); r.status != 200 {
		t.Errorf("KeyNoBilling (instance_read): %d", r.status)
	}
	if r := ts.do("PUT", "/api/v1/instances/", DemoKey, []byte(`{}`)); r.status != 405 {
		t.Errorf("PUT: %d", r.status)
	}
}

func TestAppendMicros(t *testing.T) {
	for m, want := range map[int64]string{0: "0.0", 1: "0.000001", 421_333: "0.421333", 1_500_000: "1.5", 2_000_000: "2.0", 12_340_000: "12.34"} {
		if got := string(appendMicros(nil, m)); got != want {
			t.Errorf("appendMicros(%d) = %s, want %s", m, got, want)
		}
	}
}

func TestTypesCatalogueMatchesPrefs(t *testing.T) {
	ts := start(t, Options{TypesThreshold: -1})
	r := ts.get("/api/v0/notification-types", KeyNoBilling)
	var cat struct {
		Success bool `json:"success"`
		Types   []struct {
			Key       string          `json:"key"`
			Context   string          `json:"context"`
			Slug      string          `json:"slug"`
			Mandatory bool            `json:"mandatory_email"`
			Defaults  map[string]bool `json:"defaults"`
			DefPrefs  map[string]bool `json:"default_preferences"`
		} `json:"notification_types"`
	}
	if err := json.Unmarshal(r.body, &cat); err != nil || !cat.Success {
		t.Fatalf("%v %s", err, r.body)
	}
	prefs := ts.Prefs()
	n := 0
	for _, ty := range cat.Types {
		doc, ok := prefs[ty.Context].(map[string]any)[ty.Slug].(map[string]any)
		if !ok || ty.Key != ty.Context+":"+ty.Slug || (ty.Defaults == nil) == (ty.DefPrefs == nil) {
			t.Errorf("%+v: not in the prefs document or malformed", ty)
		}
		if ty.Mandatory {
			n++
		}
		defaults := ty.Defaults
		if defaults == nil {
			defaults = ty.DefPrefs
		}
		if len(defaults) != len(doc) {
			t.Errorf("%s: channels %v vs %v", ty.Key, defaults, doc)
		}
	}
	if n != 1 {
		t.Errorf("%d mandatory", n)
	}
	if r := ts.get("/api/v0/notification-types/", KeyReadOnly); r.status != 200 {
		t.Errorf("KeyReadOnly (user_read): %d", r.status)
	}
	ts.AddKey("billing-only", "billing-only", []string{"billing_read"})
	if r := ts.get("/api/v0/notification-types/", "billing-only"); r.status != 401 {
		t.Errorf("without user_read: %d", r.status)
	}
}
