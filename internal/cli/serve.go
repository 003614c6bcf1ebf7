package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/exporter"
)

// serve runs the exporter (package exporter, client_golang under it) in
// this process. Nothing of it runs before serve does: the exporter keeps
// its own registry (not client_golang's default one), made when serve
// starts, so the other commands pay only client_golang's package inits,
// which the CI guard keeps in the start-up budget with the rest.

// ServeBackend is the exporter as serve uses it (package exporter's
// *Exporter).
type ServeBackend interface {
	// Transport wraps the API client's transport (nil: Go's default) to
	// count the API's answers.
	Transport(next http.RoundTripper) http.RoundTripper
	// Run refreshes the figures now and every st.Refresh after, until ctx
	// ends; the settings come from the session, opened after the backend
	// was made (its Transport is in the session's client).
	Run(ctx context.Context, svc *billing.Service, st exporter.Settings)
	// Serve serves the figures on ln until ctx ends, then drains and
	// returns nil.
	Serve(ctx context.Context, ln net.Listener) error
}

// NewServeBackend makes the backend of one serve run, logging on log; the
// index page names version.
type NewServeBackend func(log *slog.Logger, version string) ServeBackend

// newExporter is the serve backend of the process: the Prometheus
// exporter.
func newExporter(log *slog.Logger, version string) ServeBackend {
	return exporter.New(exporter.Options{Log: log, Version: version})
}

// defaultListen is loopback: the account's figures are for this machine
// unless the user says otherwise.
const defaultListen = "127.0.0.1:9109"

// serveArgs are the options of serve.
type serveArgs struct {
	listen    string
	logFormat string // text or json
	// backend is made once the flags are checked (so that no other
	// command pays for it) and counts the API's answers in the session's
	// client; log is its log.
	backend ServeBackend
	log     *slog.Logger
}

// newServeCommand is `vastdash serve`: its help and flags; serve runs it.
func newServeCommand(x *execution) *cobra.Command {
	a := &serveArgs{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "serve the account's figures to Prometheus at http://127.0.0.1:9109/metrics",
		Long: `Serve the account's figures to Prometheus: GET /metrics in the Prometheus text format (OpenMetrics when the scraper asks for it), GET /healthz (200 when the last refresh worked, else 503 and why) and an index at /.

One refresh reads the account, the instances and this month's charges (these at most every 5 minutes) through the same rules as the dashboard, every refresh of the settings (default 60s; "0" there still means 60s here). A scrape is answered from the last values and never reaches the API, however many scrapers there are.

The API down, /metrics keeps the last values with vast_up 0 and recovers by itself. A permission the key lacks leaves its metrics out, and the log says so once. The log is one line per event on stderr: key=value text, or JSON for log shippers. SIGTERM or ctrl+c lets the scrapes in flight finish and exits 0 within a second.

With [accounts.NAME] tables in the settings and no --account, every account is served: one refresh loop each, every vast_ series labelled account="NAME", an account that cannot be read at vast_up 0 (docs/accounts.md).

The address is loopback unless --listen says otherwise; any other address logs a warning, since the account's figures become readable from that network. See docs/monitoring.md for systemd, a Prometheus configuration, alerting rules and a Grafana dashboard.`,
		Example: `
vastdash serve
vastdash serve --listen :9109 --log-format json
curl -s localhost:9109/metrics | grep ^vast_
`,
		Args: noArgs,
	}
	// Before the session: a bad --listen sends no request, and the
	// exporter is made only for serve.
	prepare := func() error {
		if err := checkListen(a.listen); err != nil {
			return err
		}
		a.log = newLogger(unwrapped(x.env.stderr), a.logFormat) // a log's lines stay whole
		a.backend = x.env.serve(a.log, x.env.version)
		return nil
	}
	transport := func(next http.RoundTripper) http.RoundTripper { return a.backend.Transport(next) }
	single := x.commandRunWith(nil, transport, prepare, func(ctx context.Context, s *Session) error {
		return serve(ctx, s, a)
	})
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if x.servesAccounts() {
			return x.runE(func(*cobra.Command) error { return x.serveAccounts(a) })(c, args)
		}
		return single(c, args)
	}
	cmd.Flags().StringVar(&a.listen, "listen", defaultListen, "the `address` to serve on, HOST:PORT; not loopback: a warning,\nthe figures become readable from that network")
	a.logFormat = "text"
	enumFlag(cmd, &a.logFormat, "log-format", []string{"text", "json"}, "the log on stderr: text (key=value) or json, one line per event")
	return cmd
}

// checkListen checks a --listen value: HOST:PORT with a port number.
func checkListen(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		var n int
		n, err = strconv.Atoi(port)
		if err == nil && (n < 0 || n > 65535) {
			err = errors.New("port out of range")
		}
	}
	if err != nil {
		return badValue("--listen %s: want HOST:PORT, like 127.0.0.1:9109 or :9109", argText(addr))
	}
	return nil
}

// serve is the serve command: it listens, refreshes and serves until ctx ends (a signal), then drains and
// returns nil.
func serve(ctx context.Context, s *Session, a *serveArgs) error {
	// The log is all serve writes on stderr: no progress line.
	s.progress.done()
	log := a.log
	ln, interval, err := listenAndSay(ctx, a, s.Settings, "serving the account's figures")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		a.backend.Run(ctx, s.Billing, exporter.Settings{Refresh: interval, Budget: s.Settings.Budget,
			Alerts: serveAlerts(s, log)})
	})
	err = a.backend.Serve(ctx, ln)
	cancel()
	wg.Wait()
	if err != nil {
		return fmt.Errorf("serving on %s: %w", addr, err)
	}
	log.Info("stopped")
	return nil
}

// listenAndSay listens on --listen and logs where, and the refresh
// interval of the settings (their "0" is 60 s here), saying what is
// served.
func listenAndSay(ctx context.Context, a *serveArgs, st config.Settings, what string) (net.Listener, time.Duration, error) {
	log := a.log
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", a.listen)
	if err != nil {
		var oe *net.OpError
		if errors.As(err, &oe) {
			err = oe.Err
		}
		return nil, 0, fmt.Errorf("cannot listen on %s: %w", a.listen, err)
	}
	interval := st.Refresh
	if interval == 0 {
		interval = config.DefaultRefresh
		log.Info("refresh is off in the settings (for the dashboard); serve refreshes every " + interval.String())
	}
	addr := ln.Addr().String()
	log.Info(what, "url", "http://"+addr+"/metrics", "refresh", interval.String())
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		log.Warn("listening beyond this machine: the account's figures are readable from that network", "address", addr)
	}
	return ln, interval, nil
}

// newLogger is the log of serve on w: text (key=value) or JSON lines.
func newLogger(w io.Writer, format string) *slog.Logger {
	o := &slog.HandlerOptions{Level: slog.LevelInfo}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, o))
	}
	return slog.New(slog.NewTextHandler(w, o))
}
