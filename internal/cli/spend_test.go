package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

// spendKeys are the JSON answer's keys, exactly as issue 23 lists them.
var spendKeys = []string{"month", "so_far", "last_month_same_point", "change_pct", "forecast", "forecast_basis", "budget",
	"budget_used", "budget_crossed_at"}

func spendAnswer(t *testing.T, out string) map[string]json.RawMessage {
	t.Helper()
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("not JSON: %v: %q", err, out)
	}
	if len(got) != len(spendKeys) {
		t.Errorf("keys %v, want exactly %v", got, spendKeys)
	}
	for _, k := range spendKeys {
		if _, ok := got[k]; !ok {
			t.Errorf("no %q in %s", k, out)
		}
	}
	return got
}

// spendServer is a test server of n contracts whose instances are paced
// like its charges.
func spendServer(t *testing.T, n int) *demoserver.Server {
	t.Helper()
	return startServer(t, demoserver.Options{Contracts: n, InstancesThreshold: threshold})
}

// settingsFile writes a settings file and returns its path.
func settingsFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// vastdash spend is a thin caller of billing.Outlook (whose figures
// TestOutlookByHand and its neighbours work out by hand): the month so far
// is the statement's current month to the mill, the forecast runs on the
// rate, dollars have exactly three decimals, and without a budget the
// budget's keys are null.
func TestSpendJSON(t *testing.T) {
	srv := spendServer(t, 600)
	res := headlessWith(t, srv, demoserver.DemoKey, fastInstances, "spend", "--json", "--utc")
	res.ok(t)
	got := spendAnswer(t, res.out)
	st := headless(t, srv, demoserver.DemoKey, "statement", "--months", "1", "--json", "--utc")
	st.ok(t)
	var stmt struct {
		Months []struct {
			Spend json.RawMessage `json:"spend"`
		} `json:"months"`
	}
	if err := json.Unmarshal([]byte(st.out), &stmt); err != nil || len(stmt.Months) != 1 {
		t.Fatalf("statement: %v %q", err, st.out)
	}
	if string(got["month"]) != `"2026-11"` || string(got["so_far"]) != string(stmt.Months[0].Spend) {
		t.Errorf("month %s so far %s; the statement's November %s", got["month"], got["so_far"], stmt.Months[0].Spend)
	}
	dollars := regexp.MustCompile(`^-?\d+\.\d{3}$`)
	for _, k := range []string{"so_far", "last_month_same_point", "forecast"} {
		if !dollars.Match(got[k]) {
			t.Errorf("%s = %s, want dollars with three decimals", k, got[k])
		}
	}
	if string(got["forecast_basis"]) != `"rate"` || !regexp.MustCompile(`^-?\d+\.\d$`).Match(got["change_pct"]) {
		t.Errorf("basis %s, change %s", got["forecast_basis"], got["change_pct"])
	}
	for _, k := range []string{"budget", "budget_used", "budget_crossed_at"} {
		if string(got[k]) != "null" {
			t.Errorf("no budget, yet %s = %s", k, got[k])
		}
	}
	if res.errOut != "" {
		t.Errorf("stderr %q", res.errOut)
	}
}

// With budget = "…" in the settings: the budget, the share used as a
// fraction, and when it is crossed; the text says the same in words; the
// CSV has the JSON's keys as its header.
func TestSpendBudget(t *testing.T) {
	srv := spendServer(t, 600)
	cfg := settingsFile(t, "budget = \"1\"\n")
	res := headlessWith(t, srv, demoserver.DemoKey, fastInstances, "--config", cfg, "spend", "--json", "--utc")
	res.ok(t)
	got := spendAnswer(t, res.out)
	if string(got["budget"]) != "1.000" || !regexp.MustCompile(`^\d+\.\d{3}$`).Match(got["budget_used"]) ||
		!regexp.MustCompile(`^"2026-11-\d\dT\d\d:\d\d:\d\dZ"$`).Match(got["budget_crossed_at"]) {
		t.Errorf("budget %s used %s crossed %s", got["budget"], got["budget_used"], got["budget_crossed_at"])
	}

	res = headlessWith(t, srv, demoserver.DemoKey, fastInstances, "--config", cfg, "spend", "--utc")
	res.ok(t)
	lines := strings.Split(strings.TrimSuffix(res.out, "\n"), "\n")
	if len(lines) != 5 || lines[0] != "November 2026 so far, as of 21 Nov 2026 15:30 UTC" || !strings.HasPrefix(lines[2], "  October to 21 Oct 15:30  ") ||
		!strings.Contains(lines[3], " at current rate $") || !strings.Contains(lines[4], "$1.00") || !strings.HasSuffix(lines[4], " · over") ||
		!strings.Contains(lines[4], "crossed on ") {
		t.Errorf("text:\n%s", res.out)
	}

	res = headlessWith(t, srv, demoserver.DemoKey, fastInstances, "--config", cfg, "spend", "--output", "csv", "--utc")
	res.ok(t)
	rows := strings.Split(strings.TrimSpace(res.out), "\n")
	if len(rows) != 2 || rows[0] != strings.Join(spendKeys, ",") || !strings.HasPrefix(rows[1], "2026-11,") || !strings.Contains(rows[1], ",rate,1.000,") {
		t.Errorf("csv:\n%s", res.out)
	}
}

// Early in January the text's dates of December carry their year: the
// point of last month the spend is compared with read "December to 3 Dec
// 10:00", this December's, and a past month "crossed on 1 Nov".
func TestSpendAcrossNewYear(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 600, InstancesThreshold: threshold, Now: time.Date(2026, 1, 3, 10, 0, 0, 0, time.UTC)})
	cfg := settingsFile(t, "budget = \"1\"\n")
	res := headlessWith(t, srv, demoserver.DemoKey, fastInstances, "--config", cfg, "spend", "--utc")
	res.ok(t)
	lines := strings.Split(strings.TrimSuffix(res.out, "\n"), "\n")
	if len(lines) != 5 || lines[0] != "January 2026 so far, as of 3 Jan 2026 10:00 UTC" || !strings.HasPrefix(lines[2], "  December to 3 Dec 2025  ") ||
		!strings.Contains(lines[3], " to 31 Jan at ") {
		t.Errorf("text:\n%s", res.out)
	}
	res = headlessWith(t, srv, demoserver.DemoKey, nil, "--config", cfg, "spend", "--month", "2025-11", "--utc")
	res.ok(t)
	if !regexp.MustCompile(` · crossed on \d\d? Nov 2025 · over\n$`).MatchString(res.out) {
		t.Errorf("past month:\n%s", res.out)
	}
}

// --month shows a past month in full against the month before, with no
// forecast; a month to come or one that is not a month is a usage error,
// before any request.
func TestSpendPastMonth(t *testing.T) {
	srv := spendServer(t, 600)
	res := headless(t, srv, demoserver.DemoKey, "spend", "--month", "2026-10", "--json", "--utc")
	res.ok(t)
	got := spendAnswer(t, res.out)
	if string(got["month"]) != `"2026-10"` || string(got["forecast"]) != "null" || string(got["forecast_basis"]) != "null" {
		t.Errorf("past month: %s", res.out)
	}
	if n := srv.CountPath("/api/v1/instances"); n != 0 {
		t.Errorf("a past month read the instances %d times", n)
	}
	res = headless(t, srv, demoserver.DemoKey, "spend", "--month", "2026-10", "--utc")
	res.ok(t)
	if !strings.HasPrefix(res.out, "October 2026 in full\n  spend ") || !strings.Contains(res.out, "\n  all of September  ") || strings.Contains(res.out, "forecast") {
		t.Errorf("text:\n%s", res.out)
	}

	before := len(srv.Requests())
	for _, m := range []string{"2026-12", "2026-13", "november", "2014-12"} {
		res := headless(t, srv, demoserver.DemoKey, "spend", "--month", m)
		if res.code != exitUsage || res.out != "" || !strings.Contains(res.errOut, "(see vastdash spend --help)") {
			t.Errorf("--month %s: exit %d, stdout %q, stderr %q", m, res.code, res.out, res.errOut)
		}
	}
	if n := len(srv.Requests()); n != before {
		t.Errorf("usage errors sent %d requests", n-before)
	}
}

// A key without billing_read names it (exit 1); one without instance_read
// gets the forecast on the burn, and stderr says why. A budget that is not
// a positive amount is a settings error naming the file and line.
func TestSpendPermissionsAndSettings(t *testing.T) {
	srv := spendServer(t, 200)
	headless(t, srv, demoserver.KeyNoBilling, "spend").failed(t, exitRuntime, "billing_read")

	res := headlessWith(t, srv, demoserver.KeyReadOnly, fastInstances, "spend", "--json", "--utc")
	res.ok(t)
	if got := spendAnswer(t, res.out); string(got["forecast_basis"]) != `"burn"` {
		t.Errorf("basis %s", got["forecast_basis"])
	}
	if !strings.Contains(res.errOut, "instance_read") || strings.Count(res.errOut, "\n") != 1 {
		t.Errorf("stderr %q", res.errOut)
	}

	cfg := settingsFile(t, "range = \"7d\"\nbudget = \"-5\"\n")
	headless(t, srv, demoserver.DemoKey, "--config", cfg, "spend").failed(t, exitUsage, cfg+":2: budget must be a positive amount")
}

// Charges that fail part-way are an error naming the months left
// incomplete, and stdout stays empty: never a short figure.
func TestSpendChargesFailPartWay(t *testing.T) {
	srv := spendServer(t, 3000)
	var calls atomic.Int32
	srv.AddFault(demoserver.Fault{Path: "/api/v0/charges", Mutate: func(b []byte) []byte {
		if calls.Add(1) == 1 {
			return b
		}
		return []byte(`{"success":false,"error":"boom","msg":"boom"}`)
	}})
	res := headlessWith(t, srv, demoserver.DemoKey, fastInstances, "spend", "--utc")
	res.failed(t, exitRuntime, "(November and October are incomplete)")
	if calls.Load() < 2 {
		t.Fatalf("%d charges pages: the test needs the second to fail", calls.Load())
	}
}
