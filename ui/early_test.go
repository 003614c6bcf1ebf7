package ui

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// waitFor waits until the output, escape sequences removed, holds want.
func (s *syncBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		text := ansi.Strip(s.String())
		if strings.Contains(text, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q; it got:\n%s", want, text[max(len(text)-2000, 0):])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// accountRecorder answers the account endpoint with status[i] for its
// i-th request (200 after the list), and 404 for every other path.
type accountRecorder struct {
	status  []int
	n       atomic.Int32
	arrived chan struct{} // closed at the first account request
	once    sync.Once
}

func (a *accountRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v0/users/current/" {
		http.NotFound(w, r)
		return
	}
	i := int(a.n.Add(1)) - 1
	a.once.Do(func() { close(a.arrived) })
	w.Header().Set("Content-Type", "application/json")
	if i < len(a.status) && a.status[i] != http.StatusOK {
		w.WriteHeader(a.status[i])
		fmt.Fprint(w, `{"success": false, "error": "forbidden", "msg": "this key may not read the account"}`)
		return
	}
	fmt.Fprint(w, `{"id": 7, "email": "ada@example.com", "credit": 1234.567, "api_key": "CANARY-early"}`)
}

// runDashboard runs Run against rec until the test ends, with in as the
// keyboard; hookSaw reports whether the account request had reached the
// server by the time Run was about to start the Bubble Tea program (which
// sets the terminal up and starts the renderer).
func runDashboard(t *testing.T, rec *accountRecorder, in io.Reader) (out *syncBuffer, hookSaw *atomic.Bool) {
	t.Helper()
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	hookSaw = new(atomic.Bool)
	testHookBeforeProgram = func() {
		// Bounded, and not a timing: a request sent by Init (the old
		// way) cannot arrive while this blocks, one sent before can only
		// arrive.
		select {
		case <-rec.arrived:
			hookSaw.Store(true)
		case <-time.After(5 * time.Second):
		}
	}
	t.Cleanup(func() { testHookBeforeProgram = nil })
	base, cancel := context.WithCancel(context.Background())
	ctx := startContext(t, srv.URL, &http.Client{Transport: &http.Transport{}}, base)
	out = &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- Run(base, ctx, startOpts, &Events{},
			tea.WithInput(in), tea.WithOutput(out), tea.WithWindowSize(100, 30))
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Run did not return after its context ended")
		}
	})
	return out, hookSaw
}

// The dashboard's account request leaves before the program sets the
// terminal up, and its answer is the credit in the header: the one round
// trip every start waits for starts with the process. It is not sent a
// second time.
func TestAccountRequestLeavesBeforeTheTerminalIsSetUp(t *testing.T) {
	rec := &accountRecorder{arrived: make(chan struct{})}
	out, hookSaw := runDashboard(t, rec, nil)
	out.waitFor(t, "credit $1,234.57")
	if !hookSaw.Load() {
		t.Fatal("the account request had not reached the server when the program started: it is sent after the terminal is set up")
	}
	if n := rec.n.Load(); n != 1 {
		t.Fatalf("the account was requested %d times, want once", n)
	}
}

// A failed early request goes down the usual path: the header says the
// credit is unavailable, and r asks again and shows it.
func TestEarlyAccountFailureKeepsTheRetry(t *testing.T) {
	rec := &accountRecorder{status: []int{http.StatusForbidden}, arrived: make(chan struct{})}
	keys, typing := io.Pipe()
	t.Cleanup(func() { typing.Close() })
	out, hookSaw := runDashboard(t, rec, keys)
	out.waitFor(t, "credit unavailable")
	if !hookSaw.Load() {
		t.Fatal("the account request had not reached the server when the program started")
	}
	if _, err := io.WriteString(typing, "r"); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "credit $1,234.57")
	if n := rec.n.Load(); n != 2 {
		t.Fatalf("the account was requested %d times, want 2 (the early one, the retry)", n)
	}
}
