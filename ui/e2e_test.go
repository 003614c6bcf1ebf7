package ui

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"reflect"
	"strconv"
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
)

// probe wraps the real root model and publishes the screen after every
// update, so the test can wait for what a user would see.
type probe struct {
	*Model
	mu     *sync.Mutex
	screen *string
	seen   chan struct{}
	// idle is set after an update that left nothing loading and no
	// spinner tick scheduled.
	idle *bool
}

func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := p.Model.Update(msg)
	text := ansi.Strip(p.Model.render())
	p.mu.Lock()
	*p.screen = text
	if p.idle != nil {
		*p.idle = !p.Model.spinning && !p.Model.loading()
	}
	p.mu.Unlock()
	select {
	case p.seen <- struct{}{}:
	default:
	}
	return p, cmd
}

// waitFor blocks until the screen satisfies cond, re-checking after every
// update of the program; it fails the test at the deadline.
func (p probe) waitFor(t *testing.T, what string, cond func(string) bool) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		p.mu.Lock()
		s := *p.screen
		p.mu.Unlock()
		if cond(s) {
			return s
		}
		select {
		case <-p.seen:
		case <-deadline:
			t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
	}
}

func contains(sub string) func(string) bool {
	return func(s string) bool { return strings.Contains(s, sub) }
}

func keyPress(code rune, text string) tea.KeyPressMsg { return tea.KeyPressMsg{Code: code, Text: text} }

// TestEndToEnd runs the real program loop, real commands and the real client
// against the demo server: start, see the credit and the overview's runway
// once it has loaded its range in the background, reveal the top contract
// on the charges screen, expand it, page to the end, toggle a switch, quit.
// Then it checks what the server received: the overview and the charges
// screen shared every page.
func TestEndToEnd(t *testing.T) {
	const threshold = 150 * time.Millisecond
	// Enough contracts for three pages of 500 in the 90-day range. The
	// server refuses what comes closer than half the interval the client
	// keeps (the real ones for the other endpoints): a client that did not
	// pace is still refused, while a loaded test machine holding a request
	// back for a while (seen: a 429 with a 60 ms margin at load 12, under
	// -race) cannot fail the test. The api package tests pacing exactly,
	// on a fake clock.
	srv, err := demoserver.Start(demoserver.Options{Contracts: 5000, Threshold: threshold / 2,
		SettingsThreshold: 2500 * time.Millisecond, TypesThreshold: time.Second,
		InstancesThreshold: 500 * time.Millisecond, InvoicesThreshold: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	before := srv.Prefs()

	events := &Events{}
	// As main builds it, with a margin wide enough that a loaded test
	// machine holding a request back cannot turn it into a 429.
	client, err := api.New(srv.URL(), demoserver.DemoKey,
		api.WithChargesThreshold(threshold), api.WithPacingMargin(60*time.Millisecond), api.WithObserver(events.Observe))
	if err != nil {
		t.Fatal(err)
	}
	base, cancel := context.WithCancel(context.Background())
	defer cancel()
	svc := billing.New(base, client, billing.WithLocation(time.UTC), billing.WithClock(srv.Now))
	defer svc.Close()
	ctx := screentest.Context(base, svc, screentest.Range("90d"))
	var screen string
	var idle bool
	p := probe{Model: New(ctx, Options{Demo: true, Theme: "dark", Dark: true}), mu: &sync.Mutex{}, screen: &screen, seen: make(chan struct{}, 1), idle: &idle}
	prog := newProgram(base, p, events,
		tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(100, 30), tea.WithoutSignalHandler())
	done := make(chan error, 1)
	go func() { _, err := prog.Run(); done <- err }()

	want := "credit " + money.Amount(srv.Credit()).Credit()
	p.waitFor(t, "the credit in the header", contains(want))
	inRange := srv.Contracts(demoserver.Filter{Gte: ctx.Clock().AddDate(0, 0, -89).Truncate(24 * time.Hour).Unix(), Lte: ctx.Clock().Unix()})
	if len(inRange) <= 2*api.MaxLimit {
		t.Fatalf("only %d contracts in the demo range; the test should page", len(inRange))
	}

	// The runway needs every page of the burn window: the overview has
	// loaded its range, and its top contracts are final.
	p.waitFor(t, "the runway on the overview", runwayShown)
	top := topContract(inRange)
	prog.Send(keyPress(tea.KeyEnter, ""))
	p.waitFor(t, "the top contract under the charges cursor", func(s string) bool {
		return strings.Contains(s, "[2 Charges]") && strings.Contains(cursorRow(s), "▸ "+strconv.FormatInt(top.ID, 10)+" ")
	})
	prog.Send(keyPress(tea.KeyEnter, ""))
	prog.Send(keyPress('j', "j")) // onto its first item, which may be below the fold
	p.waitFor(t, "an expanded contract", func(s string) bool {
		return strings.Contains(s, "▾ "+strconv.FormatInt(top.ID, 10)+" ") &&
			(strings.Contains(cursorRow(s), " gpu ") || strings.Contains(cursorRow(s), " disk "))
	})

	prog.Send(keyPress('G', "G"))
	final := p.waitFor(t, "every page loaded", contains("all loaded"))
	if n := money.Group(int64(len(inRange))); !strings.Contains(final, n+" of "+n+" contracts") {
		t.Fatalf("the footer does not count the %s contracts of the range:\n%s", n, final)
	}

	// Everything is loaded: the spinner must stop, so an idle dashboard
	// schedules no tick at all.
	p.waitFor(t, "no tick scheduled once every load is done", func(string) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return idle
	})

	prog.Send(keyPress('3', "3"))
	p.waitFor(t, "the switches", contains("Low credit by email"))
	// The demo's document has low-credit email on: the toggle turns it
	// off, and checkRequests expects exactly that document back.
	if on, ok := api.NewPrefs(before).Get(api.LowCreditEmail); !on || !ok {
		t.Fatalf("the demo's document has low-credit email %v (%v); wantPut below expects it on", on, ok)
	}
	const wantState = "[ ] off"
	prog.Send(keyPress(tea.KeySpace, " "))
	p.waitFor(t, "the saved switch", func(s string) bool {
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(line, "Low credit by email") {
				return strings.Contains(line, wantState)
			}
		}
		return false
	})

	prog.Send(keyPress('q', "q"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("program ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("q did not quit")
	}

	checkRequests(t, srv)
}

// runwayShown reports the overview's runway line with an estimate.
func runwayShown(s string) bool {
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, "Runway") && strings.Contains(line, "≈") && strings.Contains(line, "days") {
			return true
		}
	}
	return false
}

// topContract is the contract the overview lists first: the largest
// amount, the smaller source on a tie.
func topContract(cs []demoserver.Contract) demoserver.Contract {
	best := cs[0]
	for _, c := range cs[1:] {
		if c.Amount > best.Amount || (c.Amount == best.Amount && c.Source < best.Source) {
			best = c
		}
	}
	return best
}

// cursorRow is the charges screen's cursor row ("› …"), or "".
func cursorRow(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "› ") {
			return line
		}
	}
	return ""
}

// wantPut is the one PUT the end-to-end test may send: the demo server's
// whole preferences document, every context and type as it wrote them,
// with only client.low_credit.email switched off. Written out, not built
// with the code that builds the request.
const wantPut = `{"notification_preferences": {
	"client": {
		"low_credit":         {"email": false, "webhooks": false},
		"instance_status":    {"email": true,  "webhooks": true},
		"instance_outbid":    {"email": true,  "webhooks": false},
		"billing_receipt":    {"email": true,  "webhooks": false},
		"payment_failed":     {"email": true,  "webhooks": true},
		"credit_transfer":    {"email": true,  "webhooks": false},
		"serverless_scaling": {"email": false, "webhooks": true}
	},
	"host": {
		"machine_offline": {"email": true,  "webhooks": true},
		"payout_sent":     {"email": true,  "webhooks": false},
		"rental_started":  {"email": false, "webhooks": false}
	},
	"marketing": {
		"newsletter":      {"email": false},
		"product_updates": {"email": true}
	}
}}`

// checkRequests asserts on what the server received: no 429 and no 400,
// every token sent with the filters it came from, no charges page asked for
// twice (the overview and the charges screen share pages through the
// client's cache), and one PUT whose body is wantPut.
func checkRequests(t *testing.T, srv *demoserver.Server) {
	t.Helper()
	if n := srv.CountStatus(429); n != 0 {
		var refused []string
		for _, r := range srv.Requests() {
			if r.Status == 429 {
				refused = append(refused, r.Method+" "+r.Path)
			}
		}
		t.Errorf("%d requests were rate limited (%s); pacing should prevent every 429", n, strings.Join(refused, ", "))
	}
	if n := srv.CountStatus(400); n != 0 {
		t.Errorf("%d requests were refused as bad", n)
	}
	// The demo server binds each token to its filters and answers 400 to a
	// token sent with others, so zero 400s already proves the pager kept
	// them; on top, each follow-up page repeats the previous page's filters.
	var puts []demoserver.Request
	var pages int
	var prev url.Values
	asked := map[string]int{}
	for _, r := range srv.Requests() {
		switch {
		case r.Method == "PUT":
			puts = append(puts, r)
		case strings.HasPrefix(r.Path, "/api/v0/charges"):
			pages++
			if asked[r.Query.Encode()]++; asked[r.Query.Encode()] == 2 {
				t.Errorf("the same charges page was fetched twice: %s", r.Query.Encode())
			}
			if r.Query.Get("after_token") != "" {
				for _, k := range []string{"select_filters", "format", "latest_first"} {
					if prev == nil || prev.Get(k) != r.Query.Get(k) {
						t.Errorf("follow-up page sent %s=%q after a page with %q", k, r.Query.Get(k), prev.Get(k))
					}
				}
			}
			prev = r.Query
		}
	}
	if pages < 2 {
		t.Errorf("only %d charges requests; the test should have paged", pages)
	}
	if len(puts) != 1 {
		t.Fatalf("%d PUTs, want 1", len(puts))
	}
	var got, want any
	if err := json.Unmarshal(puts[0].Body, &got); err != nil {
		t.Fatalf("PUT body %q: %v", puts[0].Body, err)
	}
	if err := json.Unmarshal([]byte(wantPut), &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PUT body is not the whole document with low-credit email off:\n got %s\nwant %s", puts[0].Body, wantPut)
	}
}

// mustWith sets one switch; it reports with Errorf, not Fatal, because
// fault hooks call it from the server's goroutine.
func mustWith(t testing.TB, p api.Prefs, path api.PrefPath, on bool) api.Prefs {
	t.Helper()
	q, err := p.With(path, on)
	if err != nil {
		t.Errorf("With(%v, %v): %v", path, on, err)
	}
	return q
}
