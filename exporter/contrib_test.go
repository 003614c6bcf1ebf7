package exporter

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api/demoserver"
)

// contrib is the folder of the files docs/monitoring.md hands out.
const contrib = "../contrib"

var vastName = regexp.MustCompile(`\bvast_[a-z_]+`)

// exposed is every series name the exporter serves after a refresh on the
// demo server.
func exposed(t *testing.T) (map[string]bool, string) {
	t.Helper()
	r := newRig(t, demoserver.Options{}, demoserver.DemoKey, Options{})
	r.refresh()
	body, fams := r.scrape(t)
	names := map[string]bool{}
	for name := range fams {
		names[name] = true
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			names[name+suffix] = true
		}
	}
	return names, body
}

// The Grafana dashboard and the alerting rules ask only for metrics the
// exporter serves: a renamed metric cannot leave a panel or an alert
// silently empty.
func TestContribAsksForServedMetrics(t *testing.T) {
	names, _ := exposed(t)
	b, err := os.ReadFile(filepath.Join(contrib, "grafana", "vastdash.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("the dashboard is not JSON: %v", err)
	}
	var exprs []string
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	rules, err := os.ReadFile(filepath.Join(contrib, "prometheus", "vastdash.rules.yml"))
	if err != nil {
		t.Fatal(err)
	}
	exprs = append(exprs, string(rules))
	asked := map[string]bool{}
	for _, e := range exprs {
		for _, n := range vastName.FindAllString(e, -1) {
			asked[n] = true
			if !names[n] {
				t.Errorf("contrib asks for %s, which the exporter does not serve", n)
			}
		}
	}
	// The dashboard shows the four figures the issue names.
	for _, n := range []string{"vast_credit_dollars", "vast_spend_rate_dollars_per_hour", "vast_runway_seconds", "vast_month_spend_dollars"} {
		if !asked[n] {
			t.Errorf("the dashboard does not show %s", n)
		}
	}
	// The two alerts: runway under a day, vast_up 0 for 10 minutes.
	for _, want := range []string{"expr: vast_runway_seconds < 86400", "expr: vast_up == 0\n        for: 10m"} {
		if !strings.Contains(string(rules), want) {
			t.Errorf("the rules lack %q", want)
		}
	}
}

// promtool, where it is installed: the rules check and pass their unit
// tests, the configuration checks, and the exposition passes `promtool
// check metrics`. (The linter behind check metrics runs in every run:
// TestExpositionHoldsTheAccountsFigures.)
func TestContribPassesPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not installed")
	}
	_, body := exposed(t)
	for _, args := range [][]string{
		{"check", "rules", "vastdash.rules.yml"},
		{"test", "rules", "vastdash.rules.test.yml"},
		{"check", "config", "prometheus.yml"},
		{"check", "metrics"},
	} {
		cmd := exec.Command(promtool, args...)
		cmd.Dir = filepath.Join(contrib, "prometheus")
		cmd.Stdin = strings.NewReader(body)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
