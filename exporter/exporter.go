// Package exporter is `vastdash serve`: the account's figures as
// Prometheus metrics. One refresh loop reads the account, the instances,
// the audit's leaks and this month's charges through the billing layer, on its pacing, and
// keeps the values it read; a scrape is answered from those values alone,
// so a hundred scrapers cost the API nothing more than one. The API down,
// the last values stay with vast_up 0; a permission the key lacks leaves
// those metrics out and says so once in the log.
//
// It sits above billing/ (every figure is billing's) and below
// internal/cli, whose serve command opens the session, the listener and
// the log and runs Run and Serve. client_golang is linked here only; see
// ARCHITECTURE.md.
package exporter

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/sanitize"
)

// DefaultMonthEvery is how often this month's charges are read again: the
// figure moves slowly. With the ledger a reading asks only what changed
// since the last (a few requests); without it (ledger = false,
// --no-ledger) it pages through every contract of the month, 500 a
// request, one a second, which every refresh would repeat for nothing.
const DefaultMonthEvery = 5 * time.Minute

// Options configure an Exporter.
type Options struct {
	// Log gets one line per event: a permission missing or granted again,
	// the first failed refresh, a changed failure, the recovery. nil
	// discards them.
	Log *slog.Logger
	// MonthEvery is the least time between two readings of this month's
	// charges (DefaultMonthEvery when 0; negative: every refresh). A new
	// month, or a failed reading, is read at the next refresh.
	MonthEvery time.Duration
	// Version is what the index page names.
	Version string
}

// Settings are what the settings file tells a run of the exporter.
type Settings struct {
	// Refresh is the time from the end of one refresh to the start of the
	// next.
	Refresh time.Duration
	// Budget is what the user means to spend a month (the budget
	// setting), exported as vast_budget_dollars; 0: none, and no series.
	Budget money.Amount
	// Alerts, if not nil, gets each refresh's readings (see alerts.go).
	Alerts AlertsFunc
}

// Exporter holds the last values read and serves them. Make one with New,
// install Transport in the session's client so the API's answers are
// counted, then run Run and Serve.
type Exporter struct {
	opts Options
	log  *slog.Logger
	reg  *prometheus.Registry

	// last is what scrapes read: replaced whole by each refresh, never
	// changed in place, so a scrape needs no lock and never waits for the
	// API.
	last atomic.Pointer[reading]

	requests *prometheus.CounterVec
	duration prometheus.Histogram

	// refreshing makes refreshes run one at a time, and guards what only
	// they use: the permissions said missing and the failure said last,
	// so that each is logged once.
	refreshing sync.Mutex
	lacking    map[part]string
	failure    string
	// unknownKinds are the leak kinds last said left out for a reason other
	// than a permission ("" when none), so each change is logged once.
	unknownKinds string
	// budget is the settings' budget, set by Run (under refreshing).
	budget money.Amount
	// accounts are the accounts' exporters this one serves (accounts.go);
	// none for one account served alone.
	accounts []*Exporter
	names    []string
	// alerts and alertCount are Settings.Alerts and its counters, set by
	// Run (under refreshing).
	alerts     AlertsFunc
	alertCount *alertMetrics
}

// part is one of the readings a refresh makes.
type part int

const (
	partAccount part = iota
	partRate
	partMonth
	partLeaks
	numParts
)

// partNames are how the log and /healthz name the parts.
var partNames = [numParts]string{"account", "instances", "month's charges", "audit"}

// partMetrics are the metrics each part feeds, for the log line that says
// which are left out.
var partMetrics = [numParts]string{
	"vast_credit_dollars, vast_low_balance_threshold_dollars, vast_low_balance_threshold_enabled, vast_runway_seconds",
	"vast_spend_rate_dollars_per_hour, vast_runway_seconds, vast_instances, vast_instance_cost_dollars_per_hour",
	"vast_month_spend_dollars",
	// Without the endpoints no instance can be told from a worker: the
	// stopped instances and idle GPUs go too.
	`vast_leak_dollars_per_hour{kind=~"idle_endpoint|idle_gpu|stopped_instance"}`,
}

// partPermission is what each part's endpoint needs, for a refusal that
// names none.
var partPermission = [numParts]string{"user_read", billing.NeedsInstanceRead, "billing_read", billing.NeedsMisc}

// reading is the state of the figures after a refresh. It holds only what
// the metrics show: never the account's e-mail or api_key.
type reading struct {
	// refreshes counts the refreshes ended; 0 before the first.
	refreshes int
	// up is set when the last refresh read every part it tried without an
	// error (a permission missing is not an error).
	up bool
	// why says what failed in the last refresh, for /healthz.
	why string
	// ok is when the last refresh that worked ended.
	ok time.Time

	// account, rate and month are the last values read of each part; nil
	// when never read or when the key lacks its permission.
	account *accountValues
	rate    *billing.CurrentRate
	month   *billing.MonthSpend
	// leaks is the last audit (without so far: the metric is per hour).
	leaks *leaks.Audit
	// monthRead is when month was last read (monotonic clock).
	monthRead time.Time
	// budget is the settings' budget; 0 when none.
	budget money.Amount

	// samples are the metrics of the values above, built once per
	// refresh so that a scrape only writes them out.
	samples []sample
}

// accountValues is what the exporter keeps of the account record.
type accountValues struct {
	credit        money.Amount
	creditMissing bool // the record holds no credit figure: none is exported
	threshold     billing.Threshold
}

// New returns an exporter with its registry: the vast_ metrics, the Go
// runtime's and the process's. Nothing is read until Run.
func New(o Options) *Exporter {
	e := newBare(o)
	e.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		e.requests, e.duration, (*figures)(e),
	)
	return e
}

// newBare is an exporter with an empty registry of its own.
func newBare(o Options) *Exporter {
	if o.MonthEvery == 0 {
		o.MonthEvery = DefaultMonthEvery
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &Exporter{
		opts:    o,
		log:     log,
		reg:     prometheus.NewRegistry(),
		lacking: map[part]string{},
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vast_api_requests_total",
			Help: "Requests this exporter sent to the Vast.ai API, by endpoint and HTTP status (\"error\": no answer). Scrapes send none.",
		}, []string{"endpoint", "code"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "vast_refresh_duration_seconds",
			Help:    "How long each refresh of the figures took, pacing and retries included.",
			Buckets: []float64{0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 60, 120},
		}),
	}
	e.last.Store(&reading{samples: []sample{upSample(false)}})
	return e
}

// Run refreshes the figures now and then every st.Refresh after the last
// refresh ended (so a slow refresh is never overlapped), until ctx ends;
// the figures carry st.Budget.
func (e *Exporter) Run(ctx context.Context, svc *billing.Service, st Settings) {
	e.refreshing.Lock()
	e.budget = st.Budget
	if e.alerts = st.Alerts; e.alerts != nil {
		e.startAlerts()
	}
	e.refreshing.Unlock()
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		e.Refresh(ctx, svc)
		t.Reset(st.Refresh)
	}
}

// Refresh reads every part once, side by side (each endpoint has its own
// pacing budget), and replaces the values scrapes see. A part that fails
// keeps its last values and makes vast_up 0; a part the key may not read
// is left out. A refresh cut short by ctx changes nothing. Refreshes run
// one at a time.
func (e *Exporter) Refresh(ctx context.Context, svc *billing.Service) {
	e.refreshing.Lock()
	defer e.refreshing.Unlock()
	start := time.Now()
	prev := e.last.Load()
	next := *prev
	next.samples = nil

	var (
		wg        sync.WaitGroup
		user      api.User
		rate      billing.CurrentRate
		month     billing.MonthSpend
		audit     leaks.Audit
		errs      [numParts]error
		readMonth = e.monthDue(prev, svc)
		fails     []string
	)
	wg.Go(func() { user, errs[partAccount] = svc.Account(ctx) })
	wg.Go(func() { rate, errs[partRate] = svc.CurrentRate(ctx) })
	// The audit shares the rate's reading of the instances.
	wg.Go(func() { audit, errs[partLeaks] = leaks.Read(ctx, svc) })
	if readMonth {
		wg.Go(func() { month, errs[partMonth] = svc.MonthSoFar(ctx, nil) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return
	}
	for p, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, api.ErrPermission):
			e.refused(part(p), err)
		default:
			fails = append(fails, partNames[p]+": "+sanitize.Short(svc.Explain(err), 300))
		}
	}

	switch err := errs[partAccount]; {
	case err == nil:
		cr, cerr := billing.CreditOf(user)
		next.account = &accountValues{credit: cr, creditMissing: cerr != nil, threshold: billing.ThresholdOf(user)}
		if cerr != nil {
			// Never exported as $0: the series is left out and the
			// refresh counts as failed, saying why.
			fails = append(fails, partNames[partAccount]+": "+cerr.Error())
		}
		e.granted(partAccount)
	case errors.Is(err, api.ErrPermission):
		next.account = nil
	}
	switch {
	case errs[partRate] != nil:
	case rate.NeedsPermission != "":
		next.rate = nil
		e.refused(partRate, nil)
	default:
		next.rate = &rate
		e.granted(partRate)
	}
	if errs[partLeaks] == nil {
		next.leaks = &audit
		// Each kind the audit sums whole is exported. The audit's own
		// permission is misc, said when the endpoints themselves were
		// refused (not when the autoscaler failed: tellUnknown says
		// that); a key without instance_read is said once, for the
		// instances.
		if audit.Lacks(billing.NeedsMisc) {
			e.refused(partLeaks, nil)
		} else {
			e.granted(partLeaks)
		}
		e.tellUnknown(audit)
	}
	if readMonth {
		switch err := errs[partMonth]; {
		case err == nil:
			next.month, next.monthRead = &month, time.Now()
			e.granted(partMonth)
		case errors.Is(err, api.ErrPermission):
			next.month, next.monthRead = nil, time.Now()
		default:
			// Read again at the next refresh.
			next.monthRead = time.Time{}
		}
	}

	next.refreshes++
	next.up = len(fails) == 0
	next.why = strings.Join(fails, "; ")
	if next.up {
		next.ok = time.Now()
	}
	next.budget = e.budget
	next.samples = next.build()
	e.last.Store(&next)
	took := time.Since(start)
	e.duration.Observe(took.Seconds())
	e.tellFailure(next.why)
	if prev.refreshes == 0 && next.up {
		e.log.Info("first refresh done", "took", took.Round(time.Millisecond).String())
	}
	r := Readings{Month: next.month}
	if errs[partAccount] == nil {
		r.User = &user
	}
	if errs[partRate] == nil && rate.NeedsPermission == "" {
		r.Rate = &rate
	}
	if errs[partLeaks] == nil {
		r.Audit = &audit
	}
	e.runAlerts(ctx, r)
}

// monthDue reports whether this refresh reads the month's charges: never
// read, last reading failed, a new month begun, or MonthEvery passed.
func (e *Exporter) monthDue(prev *reading, svc *billing.Service) bool {
	switch {
	case prev.monthRead.IsZero() || e.opts.MonthEvery < 0:
		return true
	case prev.month != nil && !prev.month.Start.Equal(billing.MonthStart(svc.Now(), svc.Location())):
		return true
	}
	return time.Since(prev.monthRead) >= e.opts.MonthEvery
}

// refused notes that the key may not read part p and logs it the first
// time: the metrics it feeds are left out until it may.
func (e *Exporter) refused(p part, err error) {
	perm := partPermission[p]
	var ae *api.Error
	if errors.As(err, &ae) && ae.Permission != "" {
		perm = sanitize.Short(ae.Permission, 40)
	}
	if _, ok := e.lacking[p]; ok {
		return
	}
	e.lacking[p] = perm
	e.log.Warn("this API key lacks the "+perm+" permission: its metrics are left out",
		"reading", partNames[p], "left_out", partMetrics[p])
}

// granted notes that part p was read; if the key had lacked its
// permission, the log says the metrics are back.
func (e *Exporter) granted(p part) {
	perm, ok := e.lacking[p]
	if !ok {
		return
	}
	delete(e.lacking, p)
	e.log.Info("the "+perm+" permission is granted now: its metrics are back", "reading", partNames[p])
}

// tellUnknown logs the leak kinds left out of vast_leak_dollars_per_hour
// for a reason other than a permission (refused says those) when they
// change: a leak not priced, an endpoint's workers not listed. Once per
// change, not per refresh.
func (e *Exporter) tellUnknown(a leaks.Audit) {
	var kinds []string
	for _, k := range leaks.LeakKinds {
		if _, known := a.PerKind(k); !known && !a.Refused(k) {
			kinds = append(kinds, string(k))
		}
	}
	slices.Sort(kinds)
	now := strings.Join(kinds, ",")
	switch {
	case now == e.unknownKinds:
	case now == "":
		e.log.Info("the audit's leaks are priced whole again: vast_leak_dollars_per_hour has every kind", "after", e.unknownKinds)
	default:
		why := "a leak could not be priced, or only in part (vastdash audit shows which)"
		if len(a.Unreadable) > 0 {
			why = strings.Join(a.Unreadable, "; ")
		}
		e.log.Warn("leaks the audit cannot sum whole: their kinds are left out of vast_leak_dollars_per_hour, never 0",
			"kinds", now, "why", sanitize.Short(why, 300))
	}
	e.unknownKinds = now
}

// tellFailure logs a refresh's failure when it is new or changed, and the
// recovery after one: an API down for an hour is one event, not sixty.
func (e *Exporter) tellFailure(why string) {
	switch {
	case why == e.failure:
	case why == "":
		e.log.Info("refresh works again", "after", e.failure)
	case e.failure == "":
		e.log.Warn("refresh failed: serving the last values with vast_up 0", "error", why)
	default:
		e.log.Warn("refresh still failing, differently", "error", why)
	}
	e.failure = why
}

// Transport wraps next (nil: http.DefaultTransport) to count every
// request by endpoint and status in vast_api_requests_total.
func (e *Exporter) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &countingTransport{next: next, count: e.requests}
}
