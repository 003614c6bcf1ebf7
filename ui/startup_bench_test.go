package ui

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/ui/internal/screentest"
	"github.com/vastdash/vastdash/ui/shared"
)

// Budgets: start to first frame ≤ 50 ms; start to the credit on screen ≤
// one round trip + 50 ms (the credit needs exactly one request).

// startOpts are the options of `vastdash --demo` with a known theme, so no
// background-colour query is part of the start.
var startOpts = Options{Demo: true, Theme: "dark", Dark: true}

// startContext is what main builds: a client of url and the shared context.
func startContext(tb testing.TB, url string, hc *http.Client, base context.Context) *shared.Context {
	tb.Helper()
	client, err := api.New(url, demoserver.DemoKey, api.WithHTTPClient(hc))
	if err != nil {
		tb.Fatal(err)
	}
	svc := billing.New(base, client, billing.WithLocation(time.UTC))
	tb.Cleanup(svc.Close)
	return screentest.Context(base, svc)
}

// BenchmarkModelFirstView is the model's share of a start to first frame:
// the client and the root model built, Init (its commands are returned, not
// run: nothing waits for the network), the terminal's size, and the first
// View at 120×40 — no process, no terminal, no renderer. The whole start,
// exec to the frame on a terminal, is the main package's
// BenchmarkStartFirstFrame.
func BenchmarkModelFirstView(b *testing.B) {
	hc := &http.Client{Transport: &http.Transport{}}
	b.ReportAllocs()
	for b.Loop() {
		m := New(startContext(b, "http://127.0.0.1:9", hc, context.Background()), startOpts)
		if m.Init() == nil {
			b.Fatal("Init started nothing")
		}
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		v := m.View()
		if strings.Count(v.Content, "\n") != 39 || !strings.Contains(v.Content, "vastdash") {
			b.Fatalf("the first frame is not a full 120×40 screen:\n%s", ansi.Strip(v.Content))
		}
	}
}

// cmdLoop stands in for the Bubble Tea runtime without a terminal: every
// command runs in its own goroutine, as the runtime runs them, and their
// messages are handed to the model one at a time. tea.Batch results are
// expanded like the runtime expands them.
type cmdLoop struct {
	msgs chan tea.Msg
	stop chan struct{}
	wg   sync.WaitGroup
}

func newCmdLoop() *cmdLoop { return &cmdLoop{msgs: make(chan tea.Msg), stop: make(chan struct{})} }

func (l *cmdLoop) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		msg := cmd()
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				l.run(c)
			}
			return
		}
		if msg == nil {
			return
		}
		select {
		case l.msgs <- msg:
		case <-l.stop:
		}
	}()
}

// close drops the messages still coming and waits for every command: the
// caller has cancelled their context, and the rest are spinner ticks.
func (l *cmdLoop) close() {
	close(l.stop)
	l.wg.Wait()
}

// BenchmarkModelCreditInView is the model's share of start to the credit
// on screen, against the demo server answering every request after 100 ms:
// from building the model to the first View whose header shows the
// account's credit, with the real commands run concurrently as the runtime
// runs them (the charges screen's first page is requested at the same
// time) — no process, no terminal, no renderer tick. A fresh client, hence
// a fresh connection, per start. ms-over-rtt is the time beyond the one
// round trip the credit needs; the budget is 50 ms. The whole start, exec
// to the credit on a terminal, is the main package's
// BenchmarkStartCreditOnScreen.
func BenchmarkModelCreditInView(b *testing.B) {
	const rtt = 100 * time.Millisecond
	srv, err := demoserver.Start(demoserver.Options{Contracts: 2000, Latency: rtt, Threshold: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	want := "credit " + money.Amount(srv.Credit()).Credit()

	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		tr := &http.Transport{}
		base, cancel := context.WithCancel(context.Background())
		loop := newCmdLoop()
		b.StartTimer()

		start := time.Now()
		m := New(startContext(b, srv.URL(), &http.Client{Transport: tr}, base), startOpts)
		loop.run(m.Init())
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		for !strings.Contains(ansi.Strip(m.View().Content), want) {
			select {
			case msg := <-loop.msgs:
				_, cmd := m.Update(msg)
				loop.run(cmd)
			case <-time.After(10 * time.Second):
				b.Fatalf("no credit after 10 s:\n%s", ansi.Strip(m.View().Content))
			}
		}
		total += time.Since(start)

		b.StopTimer()
		cancel()
		loop.close()
		tr.CloseIdleConnections()
		b.StartTimer()
	}
	perStart := total / time.Duration(b.N)
	b.ReportMetric(float64(perStart)/1e6, "ms-to-credit")
	b.ReportMetric(float64(perStart-rtt)/1e6, "ms-over-rtt")
}
