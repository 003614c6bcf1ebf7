package demoserver

import (
	"net/url"
	"strconv"
	"testing"
)

// Every paged endpoint refuses a limit outside its own bound, and a
// latest_first that is not a boolean, with the server's words; a limit at
// the bound is served.
func TestPagedParamsRefused(t *testing.T) {
	ts := start(t, Options{Contracts: 50, InstancesThreshold: -1, InvoicesThreshold: -1})
	now := ts.Now().Unix()
	invoices := func(k, v string) string {
		q := url.Values{"select_filters": {`{"when":{"gte":0,"lte":` + strconv.FormatInt(now, 10) + `}}`}}
		if k != "" {
			q.Set(k, v)
		}
		return "/api/v1/invoices/?" + q.Encode()
	}
	refusal := func(msg string) string { return `{"success":false,"msg":"` + msg + `"}` }
	for _, c := range []struct{ path, msg string }{
		{chargesPath(0, now, nil, "limit", "501"), "limit must be an integer from 1 to 500."},
		{invoices("limit", "101"), "limit must be an integer from 1 to 100."},
		{invoices("limit", "0"), "limit must be an integer from 1 to 100."},
		{"/api/v1/instances/?limit=26", "limit must be an integer from 1 to 25."},
		{chargesPath(0, now, nil, "latest_first", "maybe"), "latest_first must be true or false."},
		{invoices("latest_first", "maybe"), "latest_first must be true or false."},
	} {
		wantBody(t, ts.get(c.path, DemoKey), 400, refusal(c.msg))
	}
	for _, p := range []string{invoices("limit", "100"), invoices("", ""), "/api/v1/instances/?limit=25"} {
		if r := ts.get(p, DemoKey); r.status != 200 {
			t.Errorf("%s: %d %s", p, r.status, r.body)
		}
	}
}
