package overview

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
)

// demo starts a demo server whose data ends at now, paced at 20 ms, and a
// model whose billing layer (its client with the same pacing) talks to it
// with key. wrap, if not nil, stands between the client and the server.
func demo(t *testing.T, key string, contracts int, wrap func(http.Handler) http.Handler) (*Model, *driver, *demoserver.Server) {
	t.Helper()
	srv, err := demoserver.Start(demoserver.Options{
		Contracts: contracts, Now: now, Span: 60 * 24 * time.Hour, Threshold: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	url := srv.URL()
	if wrap != nil {
		hs := httptest.NewServer(wrap(srv.Handler()))
		t.Cleanup(hs.Close)
		url = hs.URL
	}
	// A wide margin: the test requires zero 429s, and a loaded machine can
	// hold a request back longer than the default 10 ms.
	client, err := api.New(url, key, api.WithChargesThreshold(20*time.Millisecond), api.WithPacingMargin(30*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx := newCtx()
	base, cancel := context.WithCancel(context.Background())
	// The amount rule is known, as an account's ledger keeps it: these
	// tests count the pages of the screen's feeds, and the billing layer's
	// tests the requests that learn the rule (under both rules).
	svc := billing.New(base, client, billing.WithClock(func() time.Time { return now }), billing.WithLocation(time.UTC),
		billing.WithAmountRule(billing.RuleTotals))
	t.Cleanup(func() {
		cancel()
		svc.Close()
	})
	ctx.Base, ctx.Billing = base, svc
	m := New(ctx)
	m.SetSize(100, 30)
	d := newDriver(m)
	user, err := svc.Account(base)
	if err == nil {
		d.send(t, shared.UserMsg{User: user})
	}
	srv.ResetRequests()
	return m, d, srv
}

// truth is the server's ground truth for [from, to] as api charges.
func truth(srv *demoserver.Server, from, to time.Time) []api.Charge {
	var out []api.Charge
	for _, c := range srv.Contracts(demoserver.Filter{Gte: from.Unix(), Lte: to.Unix()}) {
		out = append(out, api.Charge{
			Type: c.Type, Source: c.Source, Start: c.Start, End: c.End, Amount: money.Amount(c.Amount),
			Meta: api.Metadata{Label: c.Label, TemplateID: c.TemplateID, EndpointID: c.EndpointID, WorkergroupID: c.WorkergroupID},
		})
	}
	return out
}

// chargesRequests are the recorded charges requests.
func chargesRequests(srv *demoserver.Server) []demoserver.Request {
	var out []demoserver.Request
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Path, "/api/v0/charges") {
			out = append(out, r)
		}
	}
	return out
}

func TestDemoLoadsEveryPage(t *testing.T) {
	m, d, srv := demo(t, demoserver.DemoKey, 4000, nil)
	r := preset(t, "30d")
	d.run(t, m.SetRange(r))

	want := truth(srv, r.From, r.To)
	n := len(want)
	if n <= 2*api.MaxLimit {
		t.Fatalf("the data set should span several pages, has %d contracts", n)
	}
	if v := view(m); !strings.Contains(v, "all "+money.Group(int64(n))+" contracts loaded") {
		t.Fatalf("not all loaded:\n%s", v)
	}
	var tot spend.Totals
	tot.Add(want)
	got := m.totals
	if got.Total != tot.Total || got.Contracts != n {
		t.Errorf("totals %v over %d, server's truth %v over %d", got.Total, got.Contracts, tot.Total, n)
	}
	for k, a := range tot.ByType {
		if got.ByType[k] != a {
			t.Errorf("%s: %v, truth %v", k, got.ByType[k], a)
		}
	}
	reqs := chargesRequests(srv)
	if pages := (n + api.MaxLimit - 1) / api.MaxLimit; len(reqs) != pages {
		t.Errorf("%d contracts: want %d requests, got %d", n, pages, len(reqs))
	}
	for _, q := range reqs {
		if q.Query.Get("limit") != "500" || q.Query.Get("format") != "table" || q.Query.Get("latest_first") != "true" {
			t.Errorf("request %v: want limit 500, table, newest first", q.Query)
		}
	}
	if c := srv.CountStatus(429); c != 0 {
		t.Errorf("%d requests were rate limited", c)
	}

	// The burn and the runway are spend's on the server's data.
	wk, day := expectedBurn(want)
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, wk.PerDay.String()+"/day (last 7 complete days: 14 Nov – 20 Nov) · "+day.PerDay.String()+"/day (last 24 h)") {
		t.Errorf("burn %q; spend says %v and %v", l, wk.PerDay, day.PerDay)
	}
	rw := spend.RunwayFor(money.Amount(srv.Credit()), wk, true, now)
	if got := m.runway(); got != rw {
		t.Errorf("runway %+v; spend says %+v", got, rw)
	}
	if l := lineWith(t, m, "Runway"); !strings.Contains(l, rw.String()+" — estimate") {
		t.Errorf("runway %q, want %q", l, rw.String())
	}

	// The top list is the server's largest contracts; enter reveals one.
	order := topOrder(want)
	for i, e := range m.top {
		if e.source != order[i] {
			t.Errorf("top %d = %s, truth %s", i, e.source, order[i])
		}
	}
	d.key(t, "j")
	d.key(t, "enter")
	if len(d.reveals) != 1 || d.reveals[0] != (shared.RevealMsg{Source: order[1]}) {
		t.Errorf("enter on the second row revealed %v, want %s", d.reveals, order[1])
	}
}

func TestDemoBurnWindowOfItsOwn(t *testing.T) {
	m, d, srv := demo(t, demoserver.DemoKey, 4000, nil)
	r := preset(t, "last-month")
	d.run(t, m.SetRange(r))

	inRange := truth(srv, r.From, r.To)
	from, to := time.Date(2026, 11, 14, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 21, 23, 59, 59, 0, time.UTC)
	window := truth(srv, from, to)
	pages := func(n int) int { return max((n+api.MaxLimit-1)/api.MaxLimit, 1) }
	if got, want := len(chargesRequests(srv)), pages(len(inRange))+pages(len(window)); got != want {
		t.Errorf("want %d requests (range and burn window), got %d", want, got)
	}
	wk, day := expectedBurn(window)
	if l := lineWith(t, m, "Burn"); !strings.Contains(l, wk.PerDay.String()+"/day (last 7 complete days: 14 Nov – 20 Nov) · "+day.PerDay.String()+"/day (last 24 h)") {
		t.Errorf("burn %q; spend says %v and %v", l, wk.PerDay, day.PerDay)
	}
	var tot spend.Totals
	tot.Add(inRange)
	if m.totals.Total != tot.Total {
		t.Errorf("range total %v, truth %v", m.totals.Total, tot.Total)
	}
	if srv.CountStatus(429) != 0 {
		t.Error("the two loads together provoked a 429")
	}
}

func TestDemoPermission(t *testing.T) {
	m, d, srv := demo(t, demoserver.KeyNoBilling, 200, nil)
	d.run(t, m.Init())
	v := view(m)
	credit := money.Amount(srv.Credit()).Credit()
	for _, want := range []string{"✗ this API key lacks the billing_read permission", credit, "Runway — this API key lacks the billing_read permission", "no charges loaded"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q:\n%s", want, v)
		}
	}
	if m.Loading() {
		t.Error("still loading after a permission error")
	}
}

func TestDemoRetryKeepsWhatLoaded(t *testing.T) {
	// The second charges request fails once: a server error between the
	// client and the demo server, which the loader cannot outrun.
	var charges atomic.Int32
	failSecond := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/api/v0/charges") && charges.Add(1) == 2 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				_, _ = w.Write([]byte(`{"success":false,"error":"boom","msg":"the server broke"}`))
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	m, d, srv := demo(t, demoserver.DemoKey, 4000, failSecond)
	r := preset(t, "30d")
	d.run(t, m.SetRange(r))
	v := view(m)
	if !strings.Contains(v, "✗ charges:") || !strings.Contains(v, "r to reload") || !strings.Contains(v, "500 of ") {
		t.Fatalf("after a failed second page:\n%s", v)
	}
	d.key(t, "r")
	want := truth(srv, r.From, r.To)
	if v := view(m); !strings.Contains(v, "all "+money.Group(int64(len(want)))+" contracts loaded") {
		t.Fatalf("after r:\n%s", v)
	}
	var tot spend.Totals
	tot.Add(want)
	if m.totals.Total != tot.Total {
		t.Errorf("total %v, truth %v", m.totals.Total, tot.Total)
	}
	// Every page once; the failed request never reached the server.
	if got, pages := len(chargesRequests(srv)), (len(want)+api.MaxLimit-1)/api.MaxLimit; got != pages || int(charges.Load()) != pages+1 {
		t.Errorf("want %d requests served and one failed, got %d served of %d", pages, got, charges.Load())
	}
}

func TestDemoRangeChangeMidLoad(t *testing.T) {
	m, d, srv := demo(t, demoserver.DemoKey, 4000, nil)
	late := feedMsg(t, m.SetRange(preset(t, "90d"))) // news of 90d
	r := preset(t, "30d")
	next := m.SetRange(r)
	if m.Update(late) != nil || m.totals.Contracts != 0 {
		t.Fatal("an answer for the old range was used")
	}
	d.run(t, next)
	want := truth(srv, r.From, r.To)
	var tot spend.Totals
	tot.Add(want)
	if m.totals.Total != tot.Total || m.totals.Contracts != len(want) {
		t.Errorf("after the change: %v over %d, truth %v over %d", m.totals.Total, m.totals.Contracts, tot.Total, len(want))
	}
}
