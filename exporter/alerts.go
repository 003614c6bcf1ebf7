package exporter

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
)

// Readings are what one refresh read, for the alerts: a nil part was not
// read by it (a permission missing, a failure; the month is the last
// reading, read every MonthEvery).
type Readings struct {
	User  *api.User
	Rate  *billing.CurrentRate
	Audit *leaks.Audit
	Month *billing.MonthSpend
}

// AlertsFunc evaluates the alert rules on a refresh's readings and
// delivers what is due; it returns what it sent, by rule, and how many
// deliveries failed. serve makes it (package alerting); the exporter only
// counts.
type AlertsFunc func(ctx context.Context, r Readings) (sent map[string]int, failed int)

// alertMetrics are the alerts' counters, registered only when serve sends
// alerts.
type alertMetrics struct {
	sent   *prometheus.CounterVec
	failed prometheus.Counter
}

// startAlerts registers the alerts' counters (once).
func (e *Exporter) startAlerts() {
	if e.alertCount != nil {
		return
	}
	m := &alertMetrics{
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vast_alerts_sent_total",
			Help: "Alert messages delivered to their targets, by rule (runway, credit, leak, budget, price_increase, digest).",
		}, []string{"rule"}),
		failed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "vast_alert_failures_total",
			Help: "Alert deliveries that failed (each is kept and tried again with backoff until delivered).",
		}),
	}
	e.reg.MustRegister(m.sent, m.failed)
	e.alertCount = m
}

// runAlerts hands a refresh's readings to the alerts and counts what they
// did. Called by Refresh, under refreshing.
func (e *Exporter) runAlerts(ctx context.Context, r Readings) {
	if e.alerts == nil || r.User == nil || ctx.Err() != nil {
		return
	}
	sent, failed := e.alerts(ctx, r)
	for rule, n := range sent {
		e.alertCount.sent.WithLabelValues(rule).Add(float64(n))
	}
	e.alertCount.failed.Add(float64(failed))
}
