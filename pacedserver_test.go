package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

// TestPacedServer runs the demo server as a process of its own, for
// measuring the built binary against a server that paces like the real API
// (docs/performance.md, "A year of 60,000 contracts from a paced server"):
// the `--demo` server lives inside the process it serves, so a command's
// time, memory and requests could not be told from the server's there.
//
// It runs only when VASTDASH_PACED_SERVER is the number of contracts
// (`VASTDASH_PACED_SERVER=60000`), and then serves until it gets SIGINT or
// SIGTERM, so it needs `-timeout 0`. It prints two lines on stdout:
//
//	url=http://127.0.0.1:PORT        the API, for VAST_URL (key: the demo's, vastdash-demo-key)
//	control=http://127.0.0.1:PORT2   GET /requests counts what was asked;
//	                                 POST /advance?by=1h&new=60 moves the data on
//
// The data: that many contracts over a year ending an hour before the
// start (so that an advance of an hour brings it to the wall clock), under
// window amounts, 500 payment records, the real thresholds (charges 1 s,
// invoices 3 s …) and 125 ± 25 ms before every answer.
func TestPacedServer(t *testing.T) {
	v := os.Getenv("VASTDASH_PACED_SERVER")
	if v == "" {
		t.Skip("VASTDASH_PACED_SERVER=CONTRACTS serves a paced demo server until killed")
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 || n > 5_000_000 {
		t.Fatalf("VASTDASH_PACED_SERVER: %q is not a number of contracts (1 to 5,000,000)", v)
	}
	srv, err := demoserver.Start(demoserver.Options{
		Contracts:     n,
		Now:           time.Now().Add(-time.Hour).Truncate(time.Second),
		Span:          365 * 24 * time.Hour,
		WindowAmounts: true,
		Payments:      500,
		Leaks:         true,
		Latency:       125 * time.Millisecond,
		Jitter:        25 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /requests", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"all":      len(srv.Requests()),
			"charges":  srv.CountPath("/api/v0/charges"),
			"invoices": srv.CountPath("/api/v1/invoices"),
			"429":      srv.CountStatus(http.StatusTooManyRequests),
			"now":      srv.Now().UTC().Format(time.RFC3339),
		})
	})
	mux.HandleFunc("POST /reset", func(w http.ResponseWriter, _ *http.Request) {
		srv.ResetRequests()
		w.WriteHeader(http.StatusNoContent)
	})
	// An advance without by= brings the data up to the wall clock.
	mux.HandleFunc("POST /advance", func(w http.ResponseWriter, r *http.Request) {
		by := time.Since(srv.Now())
		if s := r.URL.Query().Get("by"); s != "" {
			if by, err = time.ParseDuration(s); err != nil || by < 0 {
				http.Error(w, "by: not a duration", http.StatusBadRequest)
				return
			}
		}
		added, err := strconv.Atoi(r.URL.Query().Get("new"))
		if err != nil || added < 0 {
			added = 0
		}
		srv.Advance(by.Truncate(time.Second), added)
		fmt.Fprintf(w, "now=%s\n", srv.Now().UTC().Format(time.RFC3339))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	control := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = control.Serve(ln) }()
	defer control.Close()

	fmt.Printf("url=%s\ncontrol=http://%s\n", srv.URL(), ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
}
