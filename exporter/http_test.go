package exporter

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

// served runs serveOn with h and o on a loopback port until the test ends
// (or stop is called); it returns the address, the listener and stop,
// which waits for serveOn and returns its error.
func served(t *testing.T, h http.Handler, o ServerOptions) (string, *limitListener, func() error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o.defaults()
	lim := newLimitListener(ln, o.MaxConns)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveOn(ctx, lim, h, o) }()
	var once sync.Once
	var serr error
	stop := func() error {
		once.Do(func() {
			cancel()
			serr = <-done
		})
		return serr
	}
	t.Cleanup(func() { _ = stop() })
	return ln.Addr().String(), lim, stop
}

// rawRequest writes req on a new connection and returns the status line
// of the answer and whether the server then closed the connection.
func rawRequest(t *testing.T, addr, req string) (status string, closed bool) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	status, err = br.ReadString('\n')
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	// Read to the end: a closed connection ends with EOF, an open one
	// would run into the deadline.
	_, err = io.Copy(io.Discard, br)
	return strings.TrimSpace(status), err == nil
}

// A request with a body is answered 400 at once and its connection
// closed, the body never read (here: a gigabyte announced, a few bytes
// sent); another method than GET is 405; an unknown path 404.
func TestNoRequestBodyIsRead(t *testing.T) {
	r := newRig(t, demoserver.Options{}, demoserver.DemoKey, Options{})
	addr, _, _ := served(t, r.ex.Handler(), ServerOptions{})
	start := time.Now()
	status, closed := rawRequest(t, addr, "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\nabc")
	if !strings.Contains(status, " 400 ") || !closed {
		t.Fatalf("POST with a body: %q, closed %v", status, closed)
	}
	status, closed = rawRequest(t, addr, "GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab")
	if !strings.Contains(status, " 400 ") || !closed {
		t.Fatalf("GET with a chunked body: %q, closed %v", status, closed)
	}
	// Both answered before the read timeout (5 s) could have ended them.
	if d := time.Since(start); d > 4*time.Second {
		t.Fatalf("answers took %v: the bodies were waited for", d)
	}
	for req, want := range map[string]string{
		"DELETE /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n": " 405 ",
		"GET /nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n":    " 404 ",
		"HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n":   " 200 ",
		"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n":           " 200 ",
	} {
		if status, _ := rawRequest(t, addr, req); !strings.Contains(status, want) {
			t.Errorf("%q: %q, want %s", strings.Fields(req)[:2], status, want)
		}
	}
}

// Slow clients: connections that never finish their request are dropped
// after the header timeout, never more than MaxConns are open at once, and
// a scraper behind them is answered once they are gone.
func TestSlowClientsAreBounded(t *testing.T) {
	r := newRig(t, demoserver.Options{}, demoserver.DemoKey, Options{})
	r.refresh()
	addr, lim, _ := served(t, r.ex.Handler(), ServerOptions{MaxConns: 2, ReadHeaderTimeout: 300 * time.Millisecond})

	var slow []net.Conn
	for range 4 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// Half a request, then nothing.
		if _, err := io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\n"); err != nil {
			t.Fatal(err)
		}
		slow = append(slow, c)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	start := time.Now()
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("a scrape behind slow clients: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "vast_credit_dollars") {
		t.Fatalf("scrape: %s", resp.Status)
	}
	// Four slow connections held two slots each for a header timeout:
	// the scrape waited for at least one of them.
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("answered after %v: the slow connections held no slot", d)
	}
	if p := lim.peak.Load(); p > 2 {
		t.Fatalf("%d connections open at once, the bound is 2", p)
	}
	// The slow ones were dropped by the server.
	for i, c := range slow {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err := io.Copy(io.Discard, c)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Errorf("slow connection %d still open after 10 s", i)
		}
	}
}

// The drain: once the context ends, a request in flight still gets its
// whole answer, new connections are refused, and serveOn returns nil; a
// request that would never end is cut at the drain's bound.
func TestServeDrainsThenStops(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		if r.URL.Path == "/slow" {
			<-release
		} else {
			<-r.Context().Done()
		}
		io.WriteString(w, "complete")
	})
	addr, _, stop := served(t, h, ServerOptions{Drain: 2 * time.Second})
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + addr + "/slow")
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		got <- string(b)
	}()
	<-entered
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	// Shutdown closes the listener first: wait until a dial fails.
	waitFor(t, "the listener to close", func() bool {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
		}
		return err != nil
	})
	close(release)
	if s := <-got; s != "complete" {
		t.Fatalf("the request in flight got %q", s)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("serveOn: %v", err)
	}

	// A request that never ends: cut at the drain's bound.
	addr, _, stop = served(t, h, ServerOptions{Drain: 200 * time.Millisecond})
	go func() {
		resp, err := http.Get("http://" + addr + "/hang")
		if err == nil {
			resp.Body.Close()
		}
	}()
	<-entered
	start := time.Now()
	if err := stop(); err != nil {
		t.Fatalf("serveOn: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("stopping took %v with a hung request, the drain is 200 ms", d)
	}
}
