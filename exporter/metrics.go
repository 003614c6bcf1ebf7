package exporter

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/sanitize"
)

// The account's metrics. Names and units follow Prometheus' naming guide:
// base units (dollars, seconds), a _total counter, no type in the name.
var (
	descUp = prometheus.NewDesc("vast_up",
		"1 when the last refresh read the Vast.ai API without an error (a permission the key lacks is none), else 0: the other vast_ metrics then hold the last values read.",
		nil, nil)
	descLastRefresh = prometheus.NewDesc("vast_last_refresh_timestamp_seconds",
		"When the last refresh that worked ended, in seconds since the epoch.",
		nil, nil)
	descCredit = prometheus.NewDesc("vast_credit_dollars",
		"The account's credit, in dollars.",
		nil, nil)
	descThreshold = prometheus.NewDesc("vast_low_balance_threshold_dollars",
		"The account's low-balance threshold: the credit under which the platform sends its low-credit alert, in dollars. Absent when the account holds none, or one vastdash does not believe.",
		nil, nil)
	descThresholdEnabled = prometheus.NewDesc("vast_low_balance_threshold_enabled",
		"1 when the low-balance alert is on (a threshold set and not switched off), else 0.",
		nil, nil)
	descRate = prometheus.NewDesc("vast_spend_rate_dollars_per_hour",
		"What the account's instances cost per hour now: the running instances' dph_total plus the storage stopped instances keep paying (an estimate), in dollars.",
		nil, nil)
	descRunway = prometheus.NewDesc("vast_runway_seconds",
		"How long the credit lasts at vast_spend_rate_dollars_per_hour: +Inf when nothing is billing, 0 when no credit is left.",
		nil, nil)
	descInstances = prometheus.NewDesc("vast_instances",
		`The account's instances by actual_status ("creating" when the server sends none, "other" for a status not listed here); every status listed is present, 0 included.`,
		[]string{"status"}, nil)
	descInstanceCost = prometheus.NewDesc("vast_instance_cost_dollars_per_hour",
		"What each billing instance costs per hour now, in dollars: dph_total while it runs, else the storage it keeps paying (an estimate). label and gpu are the server's text, sanitized and cut to 48 characters.",
		[]string{"id", "label", "gpu", "status"}, nil)
	descLeaks = prometheus.NewDesc("vast_leak_dollars_per_hour",
		`What the account pays per hour for what it does not use, by kind of leak (vastdash audit): "stopped_instance" (a stopped instance's disk), "orphan_volume" (a volume attached to nothing), "idle_endpoint" (a serverless endpoint with ready workers and no traffic), "idle_gpu" (a running instance at 0% GPU), in dollars; 0 when none. A kind the audit cannot sum whole is absent, never 0 nor a lower figure: its sections the key may not read (or the autoscaler would not list an endpoint's workers), or one of its leaks could not be priced whole.`,
		[]string{"kind"}, nil)
	descMonth = prometheus.NewDesc("vast_month_spend_dollars",
		"What the current calendar month has cost so far, in dollars: the month's part of every charge, spread over its seconds as the statement spreads it, in the settings' timezone.",
		nil, nil)
	descBudget = prometheus.NewDesc("vast_budget_dollars",
		"What the user means to spend a calendar month (the budget setting), in dollars, to compare with vast_month_spend_dollars. Absent when no budget is set.",
		nil, nil)
)

// descs are the metrics figures may send.
var descs = []*prometheus.Desc{descUp, descLastRefresh, descCredit, descThreshold, descThresholdEnabled,
	descRate, descRunway, descInstances, descInstanceCost, descMonth, descBudget, descLeaks}

// maxLabelRunes bounds a label value taken from the server's text: a 2 KB
// label must not make a 2 KB series name.
const maxLabelRunes = 48

// statuses are the values of vast_instances' status label: the
// actual_status values the API documents, then "creating" for none and
// "other" for anything else, so a new or hostile status never makes a new
// series.
var statuses = []string{"running", "loading", "created", "stopped", "frozen", "exited", "rebooting", "offline", "unknown", "creating", "other"}

// statusLabel is the bounded label of a status as the server sent it.
func statusLabel(s string) string {
	if s == "" {
		return "creating"
	}
	s = strings.ToLower(s)
	if slices.Contains(statuses[:len(statuses)-2], s) {
		return s
	}
	return "other"
}

// textLabel is server text fit for a label value: sanitized and cut.
func textLabel(s string) string { return sanitize.Short(s, maxLabelRunes) }

// gpuLabel is "2x RTX 4090".
func gpuLabel(in api.Instance) string {
	name := textLabel(in.GPUName)
	if name == "" {
		name = "GPU"
	}
	return strconv.Itoa(in.NumGPUs) + "x " + name
}

// dollars is an amount as a sample's float: money keeps thousandths.
func dollars(a money.Amount) float64 { return float64(a) / float64(money.Dollar) }

// dollarsPerHour is a rate as a sample's float: api.Rate keeps
// millionths of a dollar an hour.
func dollarsPerHour(r api.Rate) float64 { return float64(r) / 1e6 }

// sample is one value of the exposition, built at refresh.
type sample = prometheus.Metric

func gauge(d *prometheus.Desc, v float64, labels ...string) sample {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func upSample(up bool) sample {
	if up {
		return gauge(descUp, 1)
	}
	return gauge(descUp, 0)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// build turns the reading's values into the samples every scrape sends
// until the next refresh.
func (r *reading) build() []sample {
	out := []sample{upSample(r.up)}
	if !r.ok.IsZero() {
		out = append(out, gauge(descLastRefresh, float64(r.ok.UnixMilli())/1000))
	}
	if a := r.account; a != nil {
		if !a.creditMissing {
			out = append(out, gauge(descCredit, dollars(a.credit)))
		}
		out = append(out, gauge(descThresholdEnabled, boolValue(a.threshold.On())))
		if a.threshold.Known {
			out = append(out, gauge(descThreshold, dollars(a.threshold.Amount)))
		}
	}
	if c := r.rate; c != nil {
		out = append(out, gauge(descRate, dollarsPerHour(c.Total())))
		counts := map[string]int{}
		for st, n := range c.Statuses {
			counts[statusLabel(st)] += n
		}
		for _, st := range statuses {
			out = append(out, gauge(descInstances, float64(counts[st]), st))
		}
		seen := map[int64]bool{}
		for _, in := range c.Billing {
			// One series per instance, even if a server repeats one.
			if seen[in.ID] {
				continue
			}
			seen[in.ID] = true
			out = append(out, gauge(descInstanceCost, dollarsPerHour(in.Billing()),
				strconv.FormatInt(in.ID, 10), textLabel(in.Label), gpuLabel(in), statusLabel(in.Status)))
		}
	}
	if a, c := r.account, r.rate; a != nil && c != nil {
		if secs, ok := runwaySeconds(a, c); ok {
			out = append(out, gauge(descRunway, secs))
		}
	}
	if m := r.month; m != nil {
		out = append(out, gauge(descMonth, dollars(m.Spend)))
	}
	if r.budget > 0 {
		out = append(out, gauge(descBudget, dollars(r.budget)))
	}
	if a := r.leaks; a != nil {
		for _, k := range leaks.LeakKinds {
			if sum, known := a.PerKind(k); known {
				out = append(out, gauge(descLeaks, dollarsPerHour(sum), string(k)))
			}
		}
	}
	return out
}

// runwaySeconds is how long the credit lasts at the current rate, by
// billing's rule (CurrentRate.Runway); +Inf when nothing bills, 0 when
// the credit is gone.
func runwaySeconds(a *accountValues, c *billing.CurrentRate) (float64, bool) {
	switch {
	case a.creditMissing:
		return 0, false // no credit figure: no runway, never 0
	case a.credit <= 0:
		return 0, true
	case c.Total() <= 0:
		return math.Inf(1), true
	}
	rw := c.Runway(a.credit)
	if rw.Reason != "" {
		return 0, false
	}
	return float64(rw.Until.Unix() - c.AsOf.Unix()), true
}

// figures is the Exporter seen as the collector of the vast_ gauges: it
// sends the samples of the last refresh, and never reaches the API.
type figures Exporter

// Describe sends every metric figures may send.
func (f *figures) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range descs {
		ch <- d
	}
}

// Collect sends the last refresh's samples.
func (f *figures) Collect(ch chan<- prometheus.Metric) {
	for _, s := range f.last.Load().samples {
		ch <- s
	}
}
