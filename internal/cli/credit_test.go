package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

// credit's runway_until is RFC 3339 too: a runway of millennia is clamped
// to the end of year 9999 in the user's zone, which east of UTC is
// already year 10000.
func TestCreditRunwayUntilStaysRFC3339(t *testing.T) {
	east := time.FixedZone("+14", 14*3600)
	now := demoNow.In(east)
	burn := spend.Burn{PerDay: 1, Label: "last 7 complete days"}
	rw := spend.RunwayFor(money.MaxAmount, burn, true, now)
	b, err := json.Marshal(newRunwayJSON(billing.Estimate{Week: burn, Runway: rw}))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Until string `json:"runway_until"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse(time.RFC3339, got.Until); err != nil || got.Until != "9999-12-31T23:59:59Z" {
		t.Fatalf("runway_until %q (%v), want 9999-12-31T23:59:59Z", got.Until, err)
	}
	// An ordinary runway is written in the user's zone, unchanged.
	rw = spend.RunwayFor(10*money.Dollar, spend.Burn{PerDay: money.Dollar}, true, now)
	if got := newRunwayJSON(billing.Estimate{Week: burn, Runway: rw}).RunwayUntil; got != rw.Until.Format(time.RFC3339) || !strings.HasSuffix(got, "+14:00") {
		t.Fatalf("runway_until %q, want %q", got, rw.Until.Format(time.RFC3339))
	}
}

func TestCreditIsOneRequest(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 50})
	res := headless(t, srv, demoserver.DemoKey, "credit")
	res.ok(t)
	if want := money.Amount(srv.Credit()).Credit() + "\n"; res.out != want {
		t.Fatalf("stdout %q, want %q", res.out, want)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || strings.TrimSuffix(reqs[0].Path, "/") != "/api/v0/users/current" {
		t.Fatalf("requests %v, want one GET users/current", reqs)
	}
	if res.errOut != "" {
		t.Fatalf("stderr %q", res.errOut)
	}

	srv.ResetRequests()
	// Global flags after the command work too.
	res = headless(t, srv, demoserver.DemoKey, "credit", "--json", "--url", srv.URL())
	res.ok(t)
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(res.out), &got); err != nil {
		t.Fatal(err)
	}
	if string(got["credit"]) != money.Amount(srv.Credit()).Decimal() || string(got["email"]) == "" || len(got) != 2 {
		t.Fatalf("--json %s, want credit %s and email only", res.out, money.Amount(srv.Credit()).Decimal())
	}
	if len(srv.Requests()) != 1 {
		t.Fatalf("--json made %d requests", len(srv.Requests()))
	}
}

func TestCreditRunwayMatchesGroundTruth(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 3000})
	res := headless(t, srv, demoserver.DemoKey, "credit", "--json", "--runway", "--utc")
	res.ok(t)
	var got struct {
		Credit      json.Number `json:"credit"`
		BurnPerDay  json.Number `json:"burn_per_day"`
		RunwayDays  *float64    `json:"runway_days"`
		RunwayUntil string      `json:"runway_until"`
	}
	dec := json.NewDecoder(strings.NewReader(res.out))
	dec.UseNumber()
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("%v: %s", err, res.out)
	}

	// spend's computation on the server's ground truth.
	now := srv.Now().In(time.UTC)
	from, to := spend.BurnWindow(now, time.UTC)
	truth := srv.Contracts(demoserver.Filter{Gte: from.Unix(), Lte: to.Unix()})
	entries := make([]api.Charge, len(truth))
	for i, c := range truth {
		entries[i] = api.Charge{Start: c.Start, End: c.End, Type: c.Type, Source: c.Source, Amount: money.Amount(c.Amount),
			Meta: api.Metadata{EndpointID: c.EndpointID, WorkergroupID: c.WorkergroupID}}
	}
	daily := spend.NewDailyWindow(time.UTC, from, to)
	daily.Add(entries)
	burn := spend.BurnWeek(daily, now)
	runway := spend.RunwayFor(money.Amount(srv.Credit()), burn, true, now)
	if runway.Reason != "" || burn.PerDay <= 0 {
		t.Fatalf("the demo data should give an estimate: %v", runway)
	}
	if parseAmount(t, got.BurnPerDay.String()) != burn.PerDay {
		t.Errorf("burn_per_day %s, want %s", got.BurnPerDay, burn.PerDay.Decimal())
	}
	if got.RunwayDays == nil || *got.RunwayDays != runway.Days() {
		t.Errorf("runway_days %v, want %v", got.RunwayDays, runway.Days())
	}
	if got.RunwayUntil != runway.Until.Format(time.RFC3339) {
		t.Errorf("runway_until %q, want %q", got.RunwayUntil, runway.Until.Format(time.RFC3339))
	}
	reqs, probes := pagingRequests(srv)
	if len(reqs) != (len(truth)+499)/500 || len(probes) > 1 {
		t.Errorf("%d charges requests for %d contracts, %d for the amount rule", len(reqs), len(truth), len(probes))
	}
	want := fmt.Sprintf(`{"day":{"gte":%d,"lte":%d}}`, from.Unix(), to.Unix())
	if sf := reqs[0].Query.Get("select_filters"); sf != want {
		t.Errorf("select_filters %s, want %s", sf, want)
	}

	res = headless(t, srv, demoserver.DemoKey, "credit", "--runway", "--utc")
	res.ok(t)
	wantLine := money.Amount(srv.Credit()).Credit() + " · burn " + burn.PerDay.String() + "/day (last 7 complete days) · runway " + runway.String() + "\n"
	if res.out != wantLine {
		t.Errorf("stdout %q, want %q", res.out, wantLine)
	}
}

func TestCreditRunwayWithoutSpendSaysWhy(t *testing.T) {
	// All the data is over a month old: nothing was spent last week.
	srv := startServer(t, demoserver.Options{Contracts: 50, Now: demoNow.AddDate(0, -2, 0)})
	res := headlessWith(t, srv, demoserver.DemoKey, func(r *env) { r.now = func() time.Time { return demoNow } },
		"credit", "--json", "--runway")
	res.ok(t)
	if !hasJSONFields(t, res.out, `{"burn_per_day":0.000,"runway_days":null,"runway_note":"no spend in the last 7 complete days"}`) {
		t.Fatalf("stdout %s", res.out)
	}
}

// A key that can read the account but not the charges still gives a status
// bar its credit: the answer is the credit, stderr says why there is no
// runway, and the JSON carries the note with null figures.
func TestCreditRunwayWithoutBillingRead(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	want := money.Amount(srv.Credit()).Credit()
	res := headless(t, srv, demoserver.KeyNoBilling, "credit", "--runway")
	if res.code != exitOK || strings.TrimSpace(res.out) != want {
		t.Fatalf("exit %d, stdout %q; want 0 and %q", res.code, res.out, want)
	}
	if res.errOut != "vastdash: no runway: this API key lacks the billing_read permission\n" {
		t.Errorf("stderr %q", res.errOut)
	}
	res = headless(t, srv, demoserver.KeyNoBilling, "credit", "--runway", "--json")
	if res.code != exitOK || !hasJSONFields(t, res.out, `{"burn_per_day":null,"runway_days":null,"runway_note":"this API key lacks the billing_read permission"}`) {
		t.Fatalf("exit %d, stdout %q", res.code, res.out)
	}
}

// fastInstances paces the instances endpoint like the test server.
func fastInstances(r *env) {
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
	if !hasJSONFields(t, res.out, `{"rate_per_hour":null,"rate_note":"this API key lacks the instance_read permission"}`) {
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

// TestRejectedKeySaysWhatToDo: a refused key is one line with what to do
// — sign in again, vastdash auth status — in the dashboard's words.
func TestRejectedKeySaysWhatToDo(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	headless(t, srv, "not-a-key-of-this-server", "credit").failed(t, exitRuntime,
		"the API key was rejected (invalid or revoked key) — sign in again with vastdash auth login; vastdash auth status shows the key in use")
}
