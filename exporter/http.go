package exporter

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves GET (and HEAD) of /metrics (the Prometheus text format,
// OpenMetrics when the scraper asks for it, gzip when it accepts it),
// /healthz and / (an index). A request with a body is refused unread and
// its connection closed; another method is 405.
func (e *Exporter) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{
		EnableOpenMetrics: true,
		ErrorLog:          slogPrinter{e.log},
		// A collector's error leaves its metrics out, not the account's.
		ErrorHandling: promhttp.ContinueOnError,
		// Gathering reads memory only; this bounds a stuck one.
		Timeout: 10 * time.Second,
	}))
	mux.HandleFunc("GET /healthz", e.healthz)
	mux.HandleFunc("GET /{$}", e.index)
	return refuseBodies(mux)
}

// refuseBodies answers a request carrying a body with 400 and closes the
// connection without reading the body: nothing here takes one, and a
// client sending gigabytes must not hold a connection while the server
// drains them.
func refuseBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength != 0 {
			refuseBody(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuseBody writes the 400 on the bare connection and closes it: net/http
// would read up to 256 KB of the body after the handler to keep the
// connection alive, chunked bodies whatever their size.
func refuseBody(w http.ResponseWriter) {
	const msg = "this server takes no request body\n"
	hj, ok := w.(http.Hijacker)
	if !ok {
		w.Header().Set("Connection", "close")
		http.Error(w, msg, http.StatusBadRequest)
		return
	}
	c, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer c.Close()
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	fmt.Fprintf(buf, "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(msg), msg)
	if buf.Flush() != nil {
		return
	}
	// Closing with the body unread sends a reset, which can destroy the
	// answer before the client reads it: close our side first and give
	// the answer a moment to arrive, as net/http does.
	if cw, ok := c.(closeWriter); ok && cw.CloseWrite() == nil {
		time.Sleep(rstAvoidance)
	}
}

// rstAvoidance is how long a refused connection stays half open.
const rstAvoidance = 250 * time.Millisecond

// closeWriter is a connection that can close its writing side alone.
type closeWriter interface{ CloseWrite() error }

// healthz says whether the last refresh worked: 200 "ok", or 503 and why
// not (before the first refresh ends, or the API failing). A permission
// the key lacks is not a failure.
func (e *Exporter) healthz(w http.ResponseWriter, _ *http.Request) {
	if len(e.accounts) > 0 {
		e.healthzAccounts(w)
		return
	}
	r := e.last.Load()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	switch {
	case r.refreshes == 0:
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "starting: the first refresh has not ended yet\n")
	case !r.up:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "failing: %s\n", r.why)
	default:
		fmt.Fprintf(w, "ok: last refresh %s\n", r.ok.UTC().Format(time.RFC3339))
	}
}

// index is the one page at /.
func (e *Exporter) index(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	version := ""
	if e.opts.Version != "" {
		version = " " + html.EscapeString(e.opts.Version)
	}
	fmt.Fprintf(w, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>vastdash exporter</title></head>
<body><h1>vastdash%s exporter</h1>
<p>The Vast.ai account's figures for Prometheus, read every refresh; a scrape never reaches the API.</p>
<ul><li><a href="metrics">/metrics</a>: the metrics</li><li><a href="healthz">/healthz</a>: whether the last refresh worked</li></ul>
</body></html>
`, version)
}

// slogPrinter is promhttp's error log as one line in the log.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Println(v ...any) {
	p.log.Error("serving /metrics: " + fmt.Sprint(v...))
}

// ServerOptions bound what clients can hold of the server. Zero values
// take the defaults.
type ServerOptions struct {
	// MaxConns is how many connections are open at once (default 64);
	// more wait in the kernel's queue until one closes.
	MaxConns int
	// ReadHeaderTimeout (default 5 s) bounds how long a client may take
	// to send its request; WriteTimeout (default 30 s) how long the
	// answer may take to leave; IdleTimeout (default 30 s) how long a
	// kept-alive connection may sit between scrapes.
	ReadHeaderTimeout, WriteTimeout, IdleTimeout time.Duration
	// Drain is how long Serve waits for scrapes in flight once ctx ends
	// (default 800 ms) before it closes their connections: the process
	// exits within a second of SIGTERM.
	Drain time.Duration
	// Log gets the server's own errors; nil discards them.
	Log *slog.Logger
}

func (o *ServerOptions) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.ReadHeaderTimeout, 5*time.Second)
	def(&o.WriteTimeout, 30*time.Second)
	def(&o.IdleTimeout, 30*time.Second)
	def(&o.Drain, 800*time.Millisecond)
	if o.MaxConns <= 0 {
		o.MaxConns = 64
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
}

// Serve serves the exporter's Handler on ln until ctx ends, with the
// default bounds, then drains (see the function Serve).
func (e *Exporter) Serve(ctx context.Context, ln net.Listener) error {
	return Serve(ctx, ln, e.Handler(), ServerOptions{Log: e.log})
}

// Serve serves h on ln until ctx ends, then stops accepting, lets the
// requests in flight finish for up to o.Drain, closes what is left and
// returns nil. It returns an error only when serving itself fails.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, o ServerOptions) error {
	o.defaults()
	return serveOn(ctx, newLimitListener(ln, o.MaxConns), h, o)
}

// serveOn is Serve on a limited listener (tests watch its peak).
func serveOn(ctx context.Context, lim *limitListener, h http.Handler, o ServerOptions) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.ReadHeaderTimeout,
		// No body is ever read: the whole request is its header.
		ReadTimeout:    o.ReadHeaderTimeout,
		WriteTimeout:   o.WriteTimeout,
		IdleTimeout:    o.IdleTimeout,
		MaxHeaderBytes: 16 << 10,
		ErrorLog:       slog.NewLogLogger(o.Log.Handler(), slog.LevelWarn),
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(lim) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	dctx, cancel := context.WithTimeout(context.Background(), o.Drain)
	defer cancel()
	if err := srv.Shutdown(dctx); err != nil {
		srv.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// limitListener holds at most n connections open: Accept waits for one
// to close first. peak is the most ever open at once (tests).
type limitListener struct {
	net.Listener
	slots     chan struct{}
	closed    chan struct{}
	closeOnce sync.Once
	open      atomic.Int64
	peak      atomic.Int64
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), closed: make(chan struct{})}
}

// Accept waits for a free slot, then for a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	n := l.open.Add(1)
	for p := l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	return &limitConn{Conn: c, release: sync.OnceFunc(func() {
		l.open.Add(-1)
		<-l.slots
	})}, nil
}

// Close stops Accept, a waiting one included.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// limitConn frees its slot when closed.
type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// CloseWrite half-closes a TCP connection, which net/http does before
// closing one whose request it did not read to the end.
func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(closeWriter); ok {
		return cw.CloseWrite()
	}
	return nil
}
