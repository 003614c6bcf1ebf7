package demoserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestFaultStatusTimesAndOrder(t *testing.T) {
	ts := start(t, Options{})
	path := chargesPath(0, ts.Now().Unix(), nil)
	ts.AddFault(Fault{Path: "/api/v0/charges/", Times: 2, Status: 503, Body: "down", ContentType: "text/plain"})
	ts.AddFault(Fault{Path: "/api/v0/charges", Status: 500, Body: `{"success":false,"msg":"boom"}`})
	ts.AddFault(Fault{Method: "PUT", Status: 418})

	// Faults answer before authentication: no key needed.
	r := ts.get(path, "")
	wantBody(t, r, 503, "down")
	if r.header.Get("Content-Type") != "text/plain" {
		t.Fatalf("Content-Type %q", r.header.Get("Content-Type"))
	}
	wantBody(t, ts.get(path, DemoKey), 503, "down")
	// The first fault is used up; the second one is next in line.
	r = ts.get(path, DemoKey)
	wantBody(t, r, 500, `{"success":false,"msg":"boom"}`)
	if r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("default Content-Type %q", r.header.Get("Content-Type"))
	}
	// Other paths and methods are untouched.
	if r := ts.get("/api/v0/users/current", DemoKey); r.status != 200 {
		t.Fatalf("users/current: %d", r.status)
	}
	if r := ts.do("PUT", ts.prefsPath(), DemoKey, []byte(`{}`)); r.status != 418 {
		t.Fatalf("PUT fault: %d", r.status)
	}
	ts.ClearFaults()
	if r := ts.get(path, DemoKey); r.status != 200 {
		t.Fatalf("after ClearFaults: %d", r.status)
	}
	if ts.CountStatus(503) != 2 || ts.CountStatus(500) != 1 {
		t.Fatalf("recorded 503=%d 500=%d", ts.CountStatus(503), ts.CountStatus(500))
	}
}

func TestFaultUntil(t *testing.T) {
	clk := &fakeClock{t: testNow}
	ts := start(t, Options{Clock: clk.Now})
	ts.AddFault(Fault{Path: "/api/v0/charges", Until: clk.Now().Add(10 * time.Second), Status: 429,
		Body: `{"detail":"API requests too frequent endpoint threshold=1.0"}`})
	path := chargesPath(0, ts.Now().Unix(), nil)
	for i := 0; i < 3; i++ {
		if r := ts.get(path, DemoKey); r.status != 429 {
			t.Fatalf("within the window: %d", r.status)
		}
		clk.Add(3 * time.Second)
	}
	clk.Add(time.Second) // now exactly at Until
	if r := ts.get(path, DemoKey); r.status != 200 {
		t.Fatalf("after the window: %d", r.status)
	}
}

// request runs a GET in the background and reports its outcome.
func (ts *tserver) background(ctx context.Context, path string) <-chan error {
	ch := make(chan error, 1)
	req, err := http.NewRequestWithContext(ctx, "GET", ts.URL()+path, nil)
	if err != nil {
		ts.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+DemoKey)
	go func() {
		resp, err := ts.client.Do(req)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		ch <- err
	}()
	return ch
}

func TestFaultDelay(t *testing.T) {
	ts := start(t, Options{})
	// A short delay still serves the real answer.
	ts.AddFault(Fault{Path: "/api/v0/users/current", Times: 1, Delay: time.Millisecond})
	if r := ts.get("/api/v0/users/current", DemoKey); r.status != 200 || !bytes.Contains(r.body, []byte(`"email"`)) {
		t.Fatalf("delayed real answer: %d %s", r.status, r.body)
	}
	// A long one holds the request until the client gives up.
	ts.ResetRequests()
	ts.AddFault(Fault{Path: "/api/v0/users/current", Delay: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := ts.background(ctx, "/api/v0/users/current")
	if err := ts.WaitRequests(ctxTimeout(t), 1); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("answered during the delay: %v", err)
	default:
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("client error %v", err)
	}
	if st := ts.Requests()[0].Status; st != 0 {
		t.Fatalf("delayed request recorded as answered: %d", st)
	}
}

func TestFaultHang(t *testing.T) {
	ts := start(t, Options{})
	ts.AddFault(Fault{Hang: true})
	done := ts.background(context.Background(), "/api/v0/users/current")
	done2 := ts.background(context.Background(), chargesPath(0, 1, nil))
	if err := ts.WaitRequests(ctxTimeout(t), 2); err != nil {
		t.Fatal(err)
	}
	// Close must release both and return; TestMain's goleak check fails the
	// package if a handler goroutine is left.
	ts.Close()
	for _, ch := range []<-chan error{done, done2} {
		if err := <-ch; err == nil {
			t.Fatal("hung request got an answer")
		}
	}
	if ts.CountStatus(0) != 2 {
		t.Fatalf("hung requests recorded with a status: %+v", ts.Requests())
	}
}

func TestFaultResetAfterBytes(t *testing.T) {
	ts := start(t, Options{})
	full := ts.get("/api/v0/users/current", DemoKey).body
	ts.AddFault(Fault{Path: "/api/v0/users/current", ResetAfterBytes: 10})
	req, _ := http.NewRequest("GET", ts.URL()+"/api/v0/users/current", nil)
	req.Header.Set("Authorization", "Bearer "+DemoKey)
	resp, err := ts.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("read error %v", err)
	}
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(full)) || !bytes.Equal(got, full[:10]) {
		t.Fatalf("status %d length %d, got %q", resp.StatusCode, resp.ContentLength, got)
	}
}

func TestFaultHugeBody(t *testing.T) {
	ts := start(t, Options{})
	const n = 3<<20 + 7
	ts.AddFault(Fault{Path: "/api/v0/charges", Times: 1, HugeBody: n})
	req, _ := http.NewRequest("GET", ts.URL()+"/api/v0/charges", nil)
	resp, err := ts.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || resp.ContentLength != -1 || len(body) != n {
		t.Fatalf("status %d ContentLength %d read %d err %v", resp.StatusCode, resp.ContentLength, len(body), err)
	}
	if !json.Valid(body) || !bytes.HasPrefix(body, []byte(`{"success":true`)) {
		t.Fatalf("huge body is not JSON-looking: %.60s", body)
	}

	// A client that stops reading early must not leave the server writing
	// (TestMain checks for the leaked goroutine).
	ts.AddFault(Fault{Path: "/api/v0/charges", HugeBody: 1 << 40})
	resp, err = ts.client.Get(ts.URL() + "/api/v0/charges")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(io.Discard, resp.Body, 1<<20); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func TestFaultMutate(t *testing.T) {
	ts := start(t, Options{})
	full := ts.get("/api/v0/users/current", DemoKey).body
	ts.AddFault(Fault{Path: "/api/v0/users/current", Times: 1, Mutate: func(b []byte) []byte {
		return bytes.Replace(b, []byte(`"credit":`), []byte(`"credit":"lots","was":`), 1)
	}})
	r := ts.get("/api/v0/users/current", DemoKey)
	want := bytes.Replace(full, []byte(`"credit":`), []byte(`"credit":"lots","was":`), 1)
	if r.status != 200 || !bytes.Equal(r.body, want) {
		t.Fatalf("mutated body %s", r.body)
	}
	ts.AddFault(Fault{Path: "/api/v0/users/current", Times: 1, ContentType: "text/html", Mutate: func([]byte) []byte {
		return []byte("<html>maintenance</html>")
	}})
	r = ts.get("/api/v0/users/current", DemoKey)
	if string(r.body) != "<html>maintenance</html>" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("html body %q %q", r.body, r.header.Get("Content-Type"))
	}
	// Mutate sees the real answer, auth included.
	ts.AddFault(Fault{Path: "/api/v0/users/current", Times: 1, Mutate: func(b []byte) []byte { return b }})
	if r := ts.get("/api/v0/users/current", ""); r.status != 403 {
		t.Fatalf("mutate over an auth failure: %d", r.status)
	}
}

func TestLatency(t *testing.T) {
	ts := start(t, Options{})
	ts.SetLatency(time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	done := ts.background(ctx, "/api/v0/users/current")
	if err := ts.WaitRequests(ctxTimeout(t), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("client error %v", err)
	}
	ts.SetLatency(0)
	if r := ts.get("/api/v0/users/current", DemoKey); r.status != 200 {
		t.Fatalf("after SetLatency(0): %d", r.status)
	}
}

func TestFaultHugeBodySmall(t *testing.T) {
	ts := start(t, Options{})
	for _, n := range []int64{1, 20, 29, 30} {
		ts.AddFault(Fault{Times: 1, HugeBody: n})
		r := ts.get("/api/v0/charges", "")
		if r.status != 200 || int64(len(r.body)) != n {
			t.Fatalf("HugeBody %d: status %d, %d bytes", n, r.status, len(r.body))
		}
	}
}
