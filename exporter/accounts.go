package exporter

import (
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// NewAccounts returns the exporter of several accounts: it serves the
// process's metrics and, through Account, each account's, every series
// of an account labelled account="NAME". It reads nothing itself: each
// account's exporter has its own refresh loop (Run) at its own key's
// pace, its own values and its own vast_up.
func NewAccounts(o Options) *Exporter {
	e := newBare(o)
	e.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return e
}

// Account adds the account name to e (made by NewAccounts) and returns its
// exporter: install its Transport in the account's client and Run it on
// the account's billing layer. Until its first refresh ends (or for ever,
// if it is never run) its vast_up is 0. Accounts are added before Serve.
func (e *Exporter) Account(name string) *Exporter {
	o := e.opts
	o.Log = e.log.With("account", name)
	a := newBare(o)
	prometheus.WrapRegistererWith(prometheus.Labels{"account": name}, e.reg).MustRegister(a.requests, a.duration, (*figures)(a))
	e.accounts = append(e.accounts, a)
	e.names = append(e.names, name)
	return a
}

// healthzAccounts is /healthz of several accounts: 200 when every
// account's last refresh worked, else 503 naming each that did not.
func (e *Exporter) healthzAccounts(w http.ResponseWriter) {
	var bad []string
	for i, a := range e.accounts {
		r := a.last.Load()
		switch {
		case r.refreshes == 0:
			bad = append(bad, e.names[i]+": starting: the first refresh has not ended yet")
		case !r.up:
			bad = append(bad, e.names[i]+": failing: "+r.why)
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if len(bad) > 0 {
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, strings.Join(bad, "\n")+"\n")
		return
	}
	fmt.Fprintf(w, "ok: %d accounts\n", len(e.accounts))
}

// AccountNames are the accounts added, in order.
func (e *Exporter) AccountNames() []string { return append([]string(nil), e.names...) }

// AccountOf is the exporter of the account added as name, nil when none.
func (e *Exporter) AccountOf(name string) *Exporter {
	for i, n := range e.names {
		if n == name {
			return e.accounts[i]
		}
	}
	return nil
}
