package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
)

// fastInstances paces the instances endpoint like the test server.
func fastInstances(r *runner) {
	r.clientOptions = append(r.clientOptions, api.WithEndpointThreshold(api.InstancesPath, threshold))
}

// credit --rate adds the exact sum of the running instances' dph_total,
// the stopped ones' storage and the runway at both, as the demo server
// holds them.
func TestCreditRateMatchesGroundTruth(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 400, InstancesThreshold: threshold})
	var rate, storage api.Rate
	running, stored := 0, 0
	for _, in := range srv.Instances() {
		switch {
		case in.Status == "running":
			rate += api.Rate(in.DPH)
			running++
		case in.Storage > 0:
			storage += api.Rate(in.Storage)
			stored++
		}
	}
	if running == 0 || stored == 0 {
		t.Fatal("the demo data has nothing running or stored; the test proves nothing")
	}
	res := headlessWith(t, srv, demoserver.DemoKey, fastInstances, "credit", "--json", "--rate")
	res.ok(t)
	var got struct {
		Credit         json.Number  `json:"credit"`
		Rate           *json.Number `json:"rate_per_hour"`
		Storage        *json.Number `json:"storage_per_hour"`
		Running        int          `json:"instances_running"`
		Stored         int          `json:"instances_stored"`
		RunwayDays     *float64     `json:"rate_runway_days"`
		RunwayUntil    string       `json:"rate_runway_until"`
		RunwayDaysWeek *float64     `json:"runway_days"`
	}
	if err := json.Unmarshal([]byte(res.out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Rate == nil || string(*got.Rate) != rate.Decimal() || got.Storage == nil || string(*got.Storage) != storage.Decimal() {
		t.Fatalf("rate %v storage %v, want %s and %s: %s", got.Rate, got.Storage, rate.Decimal(), storage.Decimal(), res.out)
	}
	if got.Running != running || got.Stored != stored {
		t.Errorf("counts %d/%d, want %d/%d", got.Running, got.Stored, running, stored)
	}
	want := billing.CurrentRate{PerHour: rate, Storage: storage, AsOf: srv.Now()}.Runway(money.Amount(srv.Credit()))
	if got.RunwayDays == nil || *got.RunwayDays != want.Days() {
		t.Errorf("rate_runway_days %v, want %v", got.RunwayDays, want.Days())
	}
	if _, err := time.Parse(time.RFC3339, got.RunwayUntil); err != nil {
		t.Errorf("rate_runway_until %q: %v", got.RunwayUntil, err)
	}
	if got.RunwayDaysWeek != nil {
		t.Error("--rate alone added the 7-day runway")
	}

	res = headlessWith(t, srv, demoserver.DemoKey, fastInstances, "credit", "--rate")
	res.ok(t)
	line := money.Amount(srv.Credit()).Credit() + " · now " + rate.String() + " (+" + storage.String() + " storage, est.) · runway at it " + want.String() + "\n"
	if res.out != line {
		t.Errorf("line %q, want %q", res.out, line)
	}
}

// A key without instance_read still gets its credit (exit 0): stderr says
// why there is no rate, and the JSON has rate_per_hour null with the
// reason.
func TestCreditRateWithoutInstanceRead(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 40})
	res := headlessWith(t, srv, demoserver.KeyReadOnly, fastInstances, "credit", "--json", "--rate")
	res.ok(t)
	if !strings.Contains(res.out, `"rate_per_hour":null`) || !strings.Contains(res.out, `"rate_note":"this API key lacks the instance_read permission"`) {
		t.Errorf("json %s", res.out)
	}
	if !strings.Contains(res.errOut, "vastdash: no current rate: this API key lacks the instance_read permission") {
		t.Errorf("stderr %q", res.errOut)
	}
}

// A server error reading the instances is an error (exit 1), stdout empty.
func TestCreditRateServerError(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 40})
	srv.AddFault(demoserver.Fault{Path: "/api/v1/instances", Status: 400, Body: `{"success":false,"error":"bad_request","msg":"nope"}`})
	res := headlessWith(t, srv, demoserver.DemoKey, fastInstances, "credit", "--rate")
	res.failed(t, 1, "nope")
}
