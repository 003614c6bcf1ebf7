package cli

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
)

// fastInstances paces the instances endpoint like the test server.
func fastInstances(r *runner) {
	r.clientOptions = append(r.clientOptions, api.WithEndpointThreshold(api.InstancesPath, threshold))
}

// credit --rate is a thin caller of billing.CurrentRate (whose sums
// TestCurrentRateFromTheDemoServer checks against the server's truth): the
// same rate, storage, counts and runway, on the line and in the JSON.
func TestCreditRateMatchesGroundTruth(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 400, InstancesThreshold: threshold})
	client, err := api.New(srv.URL(), demoserver.DemoKey, api.WithEndpointThreshold(api.InstancesPath, threshold))
	if err != nil {
		t.Fatal(err)
	}
	svc := billing.New(context.Background(), client, billing.WithClock(srv.Now))
	defer svc.Close()
	cur, err := svc.CurrentRate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rate, storage, running, stored := cur.PerHour, cur.Storage, cur.Running, cur.Stored
	if running == 0 || stored == 0 {
		t.Fatal("the demo data has nothing running or stored; the test proves nothing")
	}
	res := headlessWith(t, srv, demoserver.DemoKey, fastInstances, "credit", "--json", "--rate")
	res.ok(t)
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(res.out), &got); err != nil {
		t.Fatal(err)
	}
	want := cur.Runway(money.Amount(srv.Credit()))
	// The documented names, with the exact decimals and counts.
	for k, v := range map[string]string{
		"rate_per_hour": rate.Decimal(), "storage_per_hour": storage.Decimal(),
		"instances_running": strconv.Itoa(running), "instances_stored": strconv.Itoa(stored),
		"rate_runway_days": strconv.FormatFloat(want.Days(), 'f', -1, 64), "rate_runway_until": `"` + rfc3339(want.Until) + `"`,
	} {
		if string(got[k]) != v {
			t.Errorf("%s = %s, want %s", k, got[k], v)
		}
	}
	if _, ok := got["runway_days"]; ok {
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

// An instances endpoint that never answers ends in a timeout error, not a
// hang: exit 1, stdout empty, one line naming what timed out.
func TestCreditRateHang(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 40})
	srv.AddFault(demoserver.Fault{Path: "/api/v1/instances", Hang: true})
	res := headlessWith(t, srv, demoserver.DemoKey, fastInstances, "--timeout", "300ms", "credit", "--rate")
	res.failed(t, 1, "instances")
}
