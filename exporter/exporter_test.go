package exporter

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/money"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// logBuf is a log the exporter and the test share.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// lines counts the log's lines holding every one of words.
func (l *logBuf) lines(words ...string) int {
	n := 0
	for _, line := range strings.Split(l.String(), "\n") {
		all := line != ""
		for _, w := range words {
			all = all && strings.Contains(line, w)
		}
		if all {
			n++
		}
	}
	return n
}

// rig is an exporter on the demo server with key: pacing off, retries
// quick, the month read every refresh unless o says otherwise.
type rig struct {
	srv *demoserver.Server
	svc *billing.Service
	ex  *Exporter
	log *logBuf
}

func newRig(t *testing.T, so demoserver.Options, key string, o Options) *rig {
	t.Helper()
	so.Threshold, so.InstancesThreshold = -1, -1
	so.VolumesThreshold, so.EndpointsThreshold, so.WorkerGroupsThreshold = -1, -1, -1
	if so.Now.IsZero() {
		so.Now = time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC)
	}
	if so.Contracts == 0 {
		so.Contracts = 600
	}
	srv, err := demoserver.Start(so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	if key != demoserver.DemoKey && key != demoserver.KeyReadOnly && key != demoserver.KeyNoBilling {
		srv.AddKey(key, "test", nil)
	}
	lb := &logBuf{}
	if o.MonthEvery == 0 {
		o.MonthEvery = -1
	}
	o.Log = slog.New(slog.NewTextHandler(lb, nil))
	ex := New(o)
	client, err := api.New(srv.URL(), key,
		api.WithHTTPClient(&http.Client{Transport: ex.Transport(nil)}),
		api.WithChargesThreshold(0), api.WithEndpointThreshold(api.InstancesPath, 0),
		api.WithEndpointThreshold(api.VolumesPath, 0), api.WithEndpointThreshold(api.EndpointJobsPath, 0),
		api.WithEndpointThreshold(api.WorkerGroupsPath, 0),
		api.WithBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	svc := billing.New(context.Background(), client, billing.WithClock(srv.Now), billing.WithLocation(time.UTC))
	t.Cleanup(svc.Close)
	return &rig{srv: srv, svc: svc, ex: ex, log: lb}
}

func (r *rig) refresh() { r.ex.Refresh(context.Background(), r.svc) }

// get answers one request of the exporter's handler.
func (r *rig) get(t *testing.T, path, accept string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	w := httptest.NewRecorder()
	r.ex.Handler().ServeHTTP(w, req)
	return w
}

// scrape is /metrics in the text format, parsed.
func (r *rig) scrape(t *testing.T) (string, map[string]*dto.MetricFamily) {
	t.Helper()
	w := r.get(t, "/metrics", "")
	if w.Code != http.StatusOK {
		t.Fatalf("/metrics: %d %s", w.Code, w.Body)
	}
	body := w.Body.String()
	return body, parseText(t, body)
}

func parseText(t *testing.T, body string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("the exposition does not parse: %v\n%s", err, body)
	}
	return fams
}

// value is the value of name's series with labels (name=value pairs);
// false when there is none.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.Metric {
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, lp := range m.Label {
				found = found || lp.GetName() == labels[i] && lp.GetValue() == labels[i+1]
			}
			match = match && found
		}
		if !match {
			continue
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		}
	}
	return 0, false
}

func mustValue(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	v, ok := value(fams, name, labels...)
	if !ok {
		t.Fatalf("no %s%v in the exposition", name, labels)
	}
	return v
}

// requestsTotal is the sum of vast_api_requests_total.
func requestsTotal(fams map[string]*dto.MetricFamily) float64 {
	sum := 0.0
	if f := fams["vast_api_requests_total"]; f != nil {
		for _, m := range f.Metric {
			sum += m.Counter.GetValue()
		}
	}
	return sum
}

// The account's figures as the billing layer reads them: the credit, the
// threshold, the current rate and its runway, the instances, this month so
// far; every family with its help text, passing the linter of `promtool
// check metrics`.
func TestExpositionHoldsTheAccountsFigures(t *testing.T) {
	r := newRig(t, demoserver.Options{}, demoserver.DemoKey, Options{})
	r.refresh()
	body, fams := r.scrape(t)

	if got, want := mustValue(t, fams, "vast_credit_dollars"), dollars(money.Amount(r.srv.Credit())); got != want {
		t.Errorf("credit %v, want %v", got, want)
	}
	th, _ := r.srv.BalanceThreshold()
	if got := mustValue(t, fams, "vast_low_balance_threshold_dollars"); got != dollars(money.Amount(th)) {
		t.Errorf("threshold %v, want %v", got, dollars(money.Amount(th)))
	}
	if mustValue(t, fams, "vast_low_balance_threshold_enabled") != 1 || mustValue(t, fams, "vast_up") != 1 {
		t.Errorf("threshold enabled or vast_up not 1:\n%s", body)
	}

	// The rate: dph_total of the running instances plus the storage of
	// the others, from the demo server's own truth.
	var millionths int64
	running := 0
	for _, in := range r.srv.Instances() {
		if in.Status == "running" {
			millionths += in.DPH
			running++
		} else {
			millionths += in.Storage
		}
	}
	rate := mustValue(t, fams, "vast_spend_rate_dollars_per_hour")
	if math.Abs(rate-float64(millionths)/1e6) > 1e-9 {
		t.Errorf("rate %v, want %v", rate, float64(millionths)/1e6)
	}
	if got := mustValue(t, fams, "vast_instances", "status", "running"); int(got) != running {
		t.Errorf("%v running instances, want %d", got, running)
	}
	if got := len(fams["vast_instances"].Metric); got != len(statuses) {
		t.Errorf("%d vast_instances series, want one per status (%d)", got, len(statuses))
	}
	// Runway = credit ÷ rate, to within the day-rate's rounding to the mill.
	runway := mustValue(t, fams, "vast_runway_seconds")
	if want := mustValue(t, fams, "vast_credit_dollars") / rate * 3600; math.Abs(runway-want)/want > 0.001 {
		t.Errorf("runway %v s, want about %v s", runway, want)
	}
	sum := 0.0
	for _, m := range fams["vast_instance_cost_dollars_per_hour"].Metric {
		sum += m.Gauge.GetValue()
	}
	if math.Abs(sum-rate) > 1e-6 {
		t.Errorf("instances' costs add up to %v, the rate is %v", sum, rate)
	}

	// This month so far: what the statement's current month says.
	st, err := r.svc.Statement(context.Background(), r.srv.Now(), r.srv.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustValue(t, fams, "vast_month_spend_dollars"); got != dollars(st.Months[0].Spend) || got <= 0 {
		t.Errorf("month so far %v, the statement says %v", got, dollars(st.Months[0].Spend))
	}
	if _, ok := value(fams, "vast_budget_dollars"); ok {
		t.Error("vast_budget_dollars without a budget setting")
	}
	if mustValue(t, fams, "vast_last_refresh_timestamp_seconds") <= 0 || fams["vast_refresh_duration_seconds"].Metric[0].Histogram.GetSampleCount() != 1 {
		t.Errorf("last refresh or its duration missing:\n%s", body)
	}
	if mustValue(t, fams, "vast_api_requests_total", "endpoint", "account", "code", "200") != 1 {
		t.Errorf("account requests:\n%s", body)
	}
	for _, name := range []string{"go_goroutines", "process_start_time_seconds"} {
		if fams[name] == nil {
			t.Errorf("no %s: the Go or process collector is missing", name)
		}
	}

	for name, f := range fams {
		if f.GetHelp() == "" {
			t.Errorf("%s has no help text", name)
		}
	}
	problems, err := promlint.New(strings.NewReader(body)).Lint()
	if err != nil || len(problems) > 0 {
		t.Errorf("promlint: %v %v", err, problems)
	}
}

// OpenMetrics when the scraper asks for it, the text format otherwise.
func TestOpenMetricsByNegotiation(t *testing.T) {
	r := newRig(t, demoserver.Options{}, demoserver.DemoKey, Options{})
	r.refresh()
	w := r.get(t, "/metrics", "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Fatalf("Content-Type %q, want OpenMetrics", ct)
	}
	body := w.Body.String()
	if !strings.HasSuffix(body, "# EOF\n") || !strings.Contains(body, "# TYPE vast_api_requests counter\n") ||
		!strings.Contains(body, "\nvast_credit_dollars ") {
		t.Fatalf("not an OpenMetrics exposition of the figures:\n%s", body)
	}
	w = r.get(t, "/metrics", "text/plain")
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("Content-Type %q, want the text format", ct)
	}
}

// A hundred scrapes, forty at once, send no request to the API: the
// request log of the server and vast_api_requests_total stay as the one
// refresh left them.
func TestScrapesNeverReachTheAPI(t *testing.T) {
	r := newRig(t, demoserver.Options{}, demoserver.DemoKey, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() { r.ex.Run(ctx, r.svc, Settings{Refresh: time.Hour}) })
	defer wg.Wait()
	defer cancel()
	waitFor(t, "the first refresh", func() bool { return r.ex.last.Load().refreshes == 1 })

	before := len(r.srv.Requests())
	_, fams := r.scrape(t)
	counted := requestsTotal(fams)
	if int(counted) != before {
		t.Fatalf("vast_api_requests_total says %v, the server saw %d", counted, before)
	}
	srv := httptest.NewServer(r.ex.Handler())
	defer srv.Close()
	sem := make(chan struct{}, 40)
	var swg sync.WaitGroup
	var failed sync.Map
	for i := range 100 {
		sem <- struct{}{}
		swg.Go(func() {
			defer func() { <-sem }()
			resp, err := srv.Client().Get(srv.URL + "/metrics")
			if err != nil {
				failed.Store(i, err.Error())
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != 200 || !bytes.Contains(b, []byte("\nvast_credit_dollars ")) {
				failed.Store(i, resp.Status)
			}
		})
	}
	swg.Wait()
	failed.Range(func(k, v any) bool { t.Errorf("scrape %v: %v", k, v); return true })
	if after := len(r.srv.Requests()); after != before {
		t.Fatalf("the API saw %d requests after 100 scrapes, %d before", after, before)
	}
	if _, fams := r.scrape(t); requestsTotal(fams) != counted {
		t.Fatalf("vast_api_requests_total moved with scrapes: %v then %v", counted, requestsTotal(fams))
	}
}

// The API down: /metrics keeps the last values with vast_up 0, /healthz
// says 503 and why, the log says it once however many refreshes fail; the
// API back, vast_up is 1 again and the log says so.
func TestAPIDownThenBack(t *testing.T) {
	r := newRig(t, demoserver.Options{}, demoserver.DemoKey, Options{})
	r.refresh()
	_, good := r.scrape(t)
	credit := mustValue(t, good, "vast_credit_dollars")
	okAt := mustValue(t, good, "vast_last_refresh_timestamp_seconds")

	r.srv.AddFault(demoserver.Fault{Status: http.StatusServiceUnavailable, Body: `{"error":"unavailable","msg":"down for maintenance"}`})
	r.refresh()
	r.refresh()
	_, down := r.scrape(t)
	if mustValue(t, down, "vast_up") != 0 {
		t.Fatal("vast_up is not 0 with the API down")
	}
	for _, name := range []string{"vast_credit_dollars", "vast_spend_rate_dollars_per_hour", "vast_runway_seconds", "vast_month_spend_dollars", "vast_low_balance_threshold_dollars"} {
		if mustValue(t, down, name) != mustValue(t, good, name) {
			t.Errorf("%s changed with the API down", name)
		}
	}
	if mustValue(t, down, "vast_credit_dollars") != credit || mustValue(t, down, "vast_last_refresh_timestamp_seconds") != okAt {
		t.Error("the last values or the last good refresh's time moved")
	}
	if mustValue(t, down, "vast_api_requests_total", "endpoint", "account", "code", "503") < 2 {
		t.Error("the 503s are not counted")
	}
	if w := r.get(t, "/healthz", ""); w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), "failing: account: ") {
		t.Errorf("/healthz %d %q", w.Code, w.Body)
	}
	if n := r.log.lines("refresh failed"); n != 1 || r.log.lines("level=WARN") != 1 {
		t.Errorf("%d lines say the refresh failed, want 1:\n%s", n, r.log)
	}

	r.srv.ClearFaults()
	r.refresh()
	_, back := r.scrape(t)
	if mustValue(t, back, "vast_up") != 1 || mustValue(t, back, "vast_last_refresh_timestamp_seconds") <= okAt {
		t.Fatal("vast_up or the last refresh's time did not recover")
	}
	if w := r.get(t, "/healthz", ""); w.Code != http.StatusOK || !strings.HasPrefix(w.Body.String(), "ok: ") {
		t.Errorf("/healthz %d %q", w.Code, w.Body)
	}
	if r.log.lines("refresh works again") != 1 {
		t.Errorf("no recovery line:\n%s", r.log)
	}
}

// A key without instance_read: the rate, the runway and the instances are
// left out, everything else is there, vast_up is 1 and the log says it
// once. Without billing_read, the month's spend likewise.
func TestPermissionMissingLeavesItsMetricsOut(t *testing.T) {
	for _, tc := range []struct {
		key, perm string
		out, in   []string
	}{
		{demoserver.KeyReadOnly, "instance_read",
			[]string{"vast_spend_rate_dollars_per_hour", "vast_runway_seconds", "vast_instances", "vast_instance_cost_dollars_per_hour"},
			[]string{"vast_credit_dollars", "vast_month_spend_dollars"}},
		{demoserver.KeyNoBilling, "billing_read",
			[]string{"vast_month_spend_dollars"},
			[]string{"vast_credit_dollars", "vast_spend_rate_dollars_per_hour", "vast_runway_seconds"}},
	} {
		t.Run(tc.perm, func(t *testing.T) {
			r := newRig(t, demoserver.Options{}, tc.key, Options{})
			for range 3 {
				r.refresh()
			}
			_, fams := r.scrape(t)
			for _, name := range tc.out {
				if fams[name] != nil {
					t.Errorf("%s is there without %s", name, tc.perm)
				}
			}
			for _, name := range tc.in {
				if fams[name] == nil {
					t.Errorf("%s is missing", name)
				}
			}
			if mustValue(t, fams, "vast_up") != 1 || r.get(t, "/healthz", "").Code != http.StatusOK {
				t.Error("a missing permission reads as a failure")
			}
			if n := r.log.lines("lacks the "+tc.perm+" permission", "left_out="); n != 1 {
				t.Errorf("%d lines name %s, want 1:\n%s", n, tc.perm, r.log)
			}
		})
	}
}

// A permission granted later brings its metrics back, and the log says so.
func TestPermissionGrantedAgain(t *testing.T) {
	r := newRig(t, demoserver.Options{}, demoserver.DemoKey, Options{})
	r.srv.AddFault(demoserver.Fault{Path: api.InstancesPath, Status: http.StatusForbidden, Times: 2,
		Body: `{"success":false,"error":"permission_denied","msg":"API key lacks the permission for this action"}`})
	r.refresh()
	if _, fams := r.scrape(t); fams["vast_spend_rate_dollars_per_hour"] != nil || r.log.lines("lacks the instance_read") != 1 {
		t.Fatalf("refused instances: rate shown, or not said:\n%s", r.log)
	}
	r.refresh()
	r.refresh()
	if _, fams := r.scrape(t); fams["vast_spend_rate_dollars_per_hour"] == nil || r.log.lines("instance_read permission is granted now") != 1 {
		t.Fatalf("granted: rate missing, or not said:\n%s", r.log)
	}
}

// The key, the account's api_key and e-mail appear nowhere a scraper or
// the log can read — with a hostile server (escapes, bidi, 2 KB labels)
// and an error body quoting the key. Label values from the server are
// sanitized and cut; the status takes only its listed values.
func TestSecretsNeverShownAndLabelsBounded(t *testing.T) {
	const canary = "c4n4ry5ecretKEYc4n4ry5ecretKEYc4n4ry5ecretKEY0123456789"
	r := newRig(t, demoserver.Options{Hostile: true}, canary, Options{})
	r.refresh()
	r.srv.AddFault(demoserver.Fault{Path: "/api/v0/users/current", Status: http.StatusInternalServerError,
		Body: `{"error":"boom","msg":"key ` + canary + ` broke"}`})
	r.refresh()
	if w := r.get(t, "/healthz", ""); !strings.Contains(w.Body.String(), "failing: account: ") {
		t.Fatalf("the failing refresh did not fail: %q", w.Body)
	}

	var seen strings.Builder
	for _, path := range []string{"/metrics", "/healthz", "/"} {
		for _, accept := range []string{"", "application/openmetrics-text;version=1.0.0"} {
			seen.WriteString(r.get(t, path, accept).Body.String())
		}
	}
	seen.WriteString(r.log.String())
	for _, secret := range []string{canary, canary[:8], "demo@vastdash.example", "api_key"} {
		if strings.Contains(seen.String(), secret) {
			t.Errorf("%q is shown", secret)
		}
	}

	_, fams := r.scrape(t)
	if fams["vast_instance_cost_dollars_per_hour"] == nil {
		t.Fatal("no instances")
	}
	for _, name := range []string{"vast_instance_cost_dollars_per_hour", "vast_instances"} {
		for _, m := range fams[name].Metric {
			for _, lp := range m.Label {
				v := lp.GetValue()
				if utf8.RuneCountInString(v) > maxLabelRunes || strings.ContainsAny(v, "\x1b\u202e\u0085\n\t") || !utf8.ValidString(v) {
					t.Errorf("%s label %s=%q is not bounded", name, lp.GetName(), v)
				}
				if lp.GetName() == "status" && !slices.Contains(statuses, v) {
					t.Errorf("status %q is not one of the listed values", v)
				}
			}
		}
	}
}

// Labels from the server: the status set is closed, text is cut.
func TestLabelValuesAreBounded(t *testing.T) {
	for in, want := range map[string]string{"running": "running", "EXITED": "exited", "": "creating",
		"weird\x1b[31m": "other", strings.Repeat("x", 300): "other"} {
		if got := statusLabel(in); got != want {
			t.Errorf("statusLabel(%q) = %q, want %q", in, got, want)
		}
	}
	long := gpuLabel(api.Instance{NumGPUs: 8, GPUName: strings.Repeat("H100 ", 100)})
	if !strings.HasPrefix(long, "8x H100") || utf8.RuneCountInString(long) > maxLabelRunes+3 {
		t.Errorf("gpu label %q", long)
	}
	if got := gpuLabel(api.Instance{NumGPUs: 1}); got != "1x GPU" {
		t.Errorf("gpu label without a name %q", got)
	}
}

// The runway: +Inf when nothing bills, 0 when the credit is gone, a day
// for $24 at $1/h.
func TestRunwayEdges(t *testing.T) {
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		credit  money.Amount
		perHour api.Rate
		want    float64
	}{
		{5_000, 0, math.Inf(1)},
		{-1_000, 1_000_000, 0},
		{0, 1_000_000, 0},
		{24_000, 1_000_000, 86400},
	} {
		rd := &reading{account: &accountValues{credit: tc.credit}, rate: &billing.CurrentRate{PerHour: tc.perHour, AsOf: now}}
		got, found := math.NaN(), false
		for _, s := range rd.build() {
			if s.Desc() == descRunway {
				var m dto.Metric
				if err := s.Write(&m); err != nil {
					t.Fatal(err)
				}
				got, found = m.GetGauge().GetValue(), true
			}
		}
		if !found || got != tc.want {
			t.Errorf("credit %v at %v: runway %v (found %v), want %v", tc.credit, tc.perHour, got, found, tc.want)
		}
	}
}

// The month's charges are read at most every MonthEvery: the second
// refresh reads the account and the instances again, not the charges.
func TestMonthReadAtItsOwnPace(t *testing.T) {
	r := newRig(t, demoserver.Options{}, demoserver.DemoKey, Options{MonthEvery: time.Hour})
	r.refresh()
	// The month's one page, and the one day billing may ask to learn the
	// amount rule (a contract reaches back before the month).
	first := r.srv.CountPath("/api/v0/charges")
	r.refresh()
	if n, acc := r.srv.CountPath("/api/v0/charges"), r.srv.CountPath("/api/v0/users/current"); first < 1 || first > 2 || n != first || acc != 2 {
		t.Fatalf("%d charges requests in the first refresh, %d after the second, %d account requests; want the month once and 2", first, n, acc)
	}
	if _, fams := r.scrape(t); fams["vast_month_spend_dollars"] == nil {
		t.Fatal("the month's spend is gone between its readings")
	}
}

// Run refreshes again after each interval and ends with its context.
func TestRunRefreshesUntilCancelled(t *testing.T) {
	r := newRig(t, demoserver.Options{}, demoserver.DemoKey, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.ex.Run(ctx, r.svc, Settings{Refresh: 10 * time.Millisecond})
	}()
	waitFor(t, "three refreshes", func() bool { return r.ex.last.Load().refreshes >= 3 })
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not end with its context")
	}
}

// waitFor waits for cond up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The leaks per kind, as the audit finds them: every kind present (0
// included) when its sections were read; a kind the key may not read is
// absent, never 0.
func TestLeakMetric(t *testing.T) {
	r := newRig(t, demoserver.Options{Leaks: true}, demoserver.DemoKey, Options{})
	r.refresh()
	a, err := leaks.Read(context.Background(), r.svc)
	if err != nil {
		t.Fatal(err)
	}
	_, fams := r.scrape(t)
	fam := fams["vast_leak_dollars_per_hour"]
	if fam == nil || len(fam.GetMetric()) != len(leaks.LeakKinds) {
		t.Fatalf("leak metric %v", fam)
	}
	for _, m := range fam.GetMetric() {
		kind := leaks.LeakKind(m.GetLabel()[0].GetValue())
		sum, known := a.PerKind(kind)
		if want := dollarsPerHour(sum); m.GetGauge().GetValue() != want || want == 0 || !known {
			t.Errorf("%s: %v, want %v", kind, m.GetGauge().GetValue(), want)
		}
	}

	// Without misc: the endpoints are not read, so idle_endpoint is
	// unknown and absent, and so are idle_gpu and stopped_instance (any
	// instance may be a worker); orphan_volume stays.
	const key = "key-without-misc-0123"
	nm := newRig(t, demoserver.Options{Leaks: true}, key, Options{})
	nm.srv.AddKey(key, "nomisc", []string{"user_read", "billing_read", "instance_read"})
	nm.refresh()
	_, fams = nm.scrape(t)
	var kinds []string
	for _, m := range fams["vast_leak_dollars_per_hour"].GetMetric() {
		kinds = append(kinds, m.GetLabel()[0].GetValue())
	}
	if strings.Join(kinds, ",") != "orphan_volume" || nm.log.lines("lacks the misc permission", `left_out="vast_leak_dollars_per_hour{kind=~\"idle_endpoint|idle_gpu|stopped_instance\"}"`) != 1 {
		t.Errorf("kinds %v; log:\n%s", kinds, nm.log)
	}
	if mustValue(t, fams, "vast_up") != 1 {
		t.Error("a missing permission reads as a failure")
	}
}

// With a budget in the settings, vast_budget_dollars says it beside the
// month's spend (issue 24); without one it is absent (see
// TestExpositionHoldsTheAccountsFigures), never 0.
func TestBudgetMetric(t *testing.T) {
	r := newRig(t, demoserver.Options{}, demoserver.DemoKey, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { r.ex.Run(ctx, r.svc, Settings{Refresh: time.Hour, Budget: 3500 * money.Dollar}) })
	defer wg.Wait()
	defer cancel()
	waitFor(t, "the first refresh", func() bool { return r.ex.last.Load().refreshes == 1 })
	body, fams := r.scrape(t)
	if got := mustValue(t, fams, "vast_budget_dollars"); got != 3500 {
		t.Errorf("vast_budget_dollars %v, want 3500:\n%s", got, body)
	}
	if fams["vast_budget_dollars"].GetHelp() == "" {
		t.Error("vast_budget_dollars has no help text")
	}
}

// A kind one of whose leaks could not be priced whole is left out, never
// exported as the lower figure its priced leaks add to, and the log says
// so once; the others stay. Priced again, it is back, and the log says
// that too.
func TestLeakMetricLeavesOutUnknownKinds(t *testing.T) {
	r := newRig(t, demoserver.Options{Leaks: true}, demoserver.DemoKey, Options{})
	// No storage price for any instance: the stopped instances are
	// unknown, and the idle endpoint's cold worker makes it a lower bound.
	r.srv.AddFault(demoserver.Fault{Path: api.InstancesPath, Mutate: func(b []byte) []byte {
		return bytes.ReplaceAll(b, []byte(`"storage_total_cost":`), []byte(`"storage_cost_total":`))
	}})
	r.refresh()
	r.refresh()
	_, fams := r.scrape(t)
	var kinds []string
	for _, m := range fams["vast_leak_dollars_per_hour"].GetMetric() {
		kinds = append(kinds, m.GetLabel()[0].GetValue())
	}
	if strings.Join(kinds, ",") != "idle_gpu,orphan_volume" {
		t.Errorf("kinds %v, want the stopped instances and the idle endpoint left out", kinds)
	}
	if n := r.log.lines("vast_leak_dollars_per_hour", "kinds=idle_endpoint,stopped_instance"); n != 1 {
		t.Errorf("%d log lines name the kinds left out, want 1:\n%s", n, r.log)
	}
	if mustValue(t, fams, "vast_up") != 1 {
		t.Error("an unpriced leak reads as a failure")
	}
	r.srv.ClearFaults()
	r.refresh()
	if _, fams = r.scrape(t); len(fams["vast_leak_dollars_per_hour"].GetMetric()) != len(leaks.LeakKinds) || r.log.lines("priced whole again") != 1 {
		t.Errorf("after the prices came back: %v\n%s", fams["vast_leak_dollars_per_hour"], r.log)
	}
}

// The autoscaler down while the console answers: the refresh works
// (vast_up 1, no VastAPIUnreachable), the kinds that need the workers are
// left out and the log says why once, and no line blames a misc
// permission the key has.
func TestAutoscalerDownKeepsTheExporterUp(t *testing.T) {
	r := newRig(t, demoserver.Options{Leaks: true}, demoserver.DemoKey, Options{})
	r.srv.AddFault(demoserver.Fault{Path: "/get_endpoint_workers", Status: http.StatusBadGateway, ContentType: "text/html", Body: "<html>502</html>"})
	r.refresh()
	r.refresh()
	_, fams := r.scrape(t)
	if mustValue(t, fams, "vast_up") != 1 || r.get(t, "/healthz", "").Code != http.StatusOK {
		t.Fatalf("the autoscaler down took the exporter down:\n%s", r.log)
	}
	var kinds []string
	for _, m := range fams["vast_leak_dollars_per_hour"].GetMetric() {
		kinds = append(kinds, m.GetLabel()[0].GetValue())
	}
	if strings.Join(kinds, ",") != "orphan_volume" {
		t.Errorf("kinds %v, want only the volumes' (the workers may be any instance)", kinds)
	}
	if r.log.lines("misc") != 0 || r.log.lines("kinds=idle_endpoint,idle_gpu,stopped_instance", "workers: not read") != 1 {
		t.Errorf("log:\n%s", r.log)
	}
}
