package exporter

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vastdash/vastdash/api"
)

// endpoints name the API's paths in vast_api_requests_total, matched at
// the end of the path so that a base URL with a path of its own still
// counts. Any other path is "other": the label's values stay a few.
var endpoints = []struct{ path, name string }{
	{"/api/v0/users/current", "account"},
	{strings.TrimSuffix(api.InstancesPath, "/"), "instances"},
	{"/api/v0/charges", "charges"},
	{strings.TrimSuffix(api.InvoicesPath, "/"), "invoices"},
	{strings.TrimSuffix(api.VolumesPath, "/"), "volumes"},
	{strings.TrimSuffix(api.EndpointJobsPath, "/"), "endpoints"},
	{strings.TrimSuffix(api.WorkerGroupsPath, "/"), "worker_groups"},
	{strings.TrimSuffix(api.EndpointWorkersPath, "/"), "endpoint_workers"},
	{strings.TrimSuffix(api.PriceIncreasesPath, "/"), "price_increases"},
}

// endpointLabel names the endpoint of a request path.
func endpointLabel(path string) string {
	p := strings.TrimSuffix(path, "/")
	for _, e := range endpoints {
		if strings.HasSuffix(p, e.path) {
			return e.name
		}
	}
	return "other"
}

// codeLabel is the status as a label: "200", "429"; "error" when no
// answer came (a refused connection, a timeout), "other" for a status no
// server sends.
func codeLabel(resp *http.Response, err error) string {
	switch {
	case err != nil || resp == nil:
		return "error"
	case resp.StatusCode < 100 || resp.StatusCode > 599:
		return "other"
	}
	return strconv.Itoa(resp.StatusCode)
}

// countingTransport counts every exchange of the client under it: each
// attempt, retries and redirects included, as the API sees them.
type countingTransport struct {
	next  http.RoundTripper
	count *prometheus.CounterVec
}

// RoundTrip implements http.RoundTripper.
func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil && errors.Is(req.Context().Err(), context.Canceled) {
		// Our own giving up (the exporter stopping) says nothing of the
		// API; a request timing out does, and counts as "error".
		return resp, err
	}
	t.count.WithLabelValues(endpointLabel(req.URL.Path), codeLabel(resp, err)).Inc()
	return resp, err
}
