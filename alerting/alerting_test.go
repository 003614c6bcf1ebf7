package alerting

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/notify"
)

// inbox is a local HTTP server standing in for ntfy and a generic webhook:
// it keeps every message it receives, and answers 503 while down.
type inbox struct {
	srv  *httptest.Server
	down atomic.Bool
	mu   sync.Mutex
	got  []string // path + " " + body
}

func newInbox(t *testing.T) *inbox {
	in := &inbox{}
	in.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if in.down.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(r.Header.Get("Content-Type"), "json") {
			// ntfy's JSON publish: the message is a field.
			var m struct{ Message, Title string }
			_ = json.Unmarshal(b, &m)
			if m.Message != "" {
				b = []byte(m.Title + "\n" + m.Message)
			}
		}
		in.mu.Lock()
		in.got = append(in.got, r.URL.Path+" "+string(b))
		in.mu.Unlock()
		_, _ = io.WriteString(w, "{}")
	}))
	t.Cleanup(in.srv.Close)
	return in
}

func (in *inbox) host() string { return strings.TrimPrefix(in.srv.URL, "http://") }

// count is how many messages to path hold want.
func (in *inbox) count(path, want string) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	n := 0
	for _, m := range in.got {
		if strings.HasPrefix(m, path+" ") && strings.Contains(m, want) {
			n++
		}
	}
	return n
}

func (in *inbox) all() string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return strings.Join(in.got, "\n---\n")
}

// clock is a fake clock the test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

const ntfyTopic = "secret-topic-ABC123"
const hookToken = "HOOKTOKEN987"

func targets(t *testing.T, in *inbox) []notify.Target {
	var ts []notify.Target
	for _, raw := range []string{
		"ntfy://" + in.host() + "/" + ntfyTopic + "?scheme=http",
		"generic://" + in.host() + "/hooks/" + hookToken + "?disabletls=yes",
	} {
		tg, err := notify.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, tg)
	}
	return ts
}

// figures is a reading with credit and a rate of $1/h, and leaks.
func figures(c *clock, credit money.Amount, found ...leaks.Leak) *Figures {
	u := &api.User{ID: 42, Credit: credit}
	rate := &billing.CurrentRate{PerHour: api.Rate(1_000_000), AsOf: c.t}
	var total api.Rate
	for _, l := range found {
		total += l.PerHour
	}
	a := &leaks.Audit{Leaks: found, Total: total, AsOf: c.t}
	return &Figures{UserID: 42, Host: "console.vast.ai", AsOf: c.t, User: u, Rate: rate, Audit: a}
}

var idleGPU = leaks.Leak{Kind: leaks.LeakIdleGPU, ID: 7, Source: "instance-7", PerHour: 400_000, PerHourKnown: true}

func newAlerter(t *testing.T, dir string, c *clock, in *inbox, more ...string) *Alerter {
	rules := config.DefaultAlerts()
	rules.To = targets(t, in)
	for _, raw := range more {
		tg, err := notify.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		rules.To = append(rules.To, tg)
	}
	return New(Options{Rules: rules, Path: filepath.Join(dir, "alerts-console.vast.ai-42.json"), Location: time.UTC, Now: c.now})
}

func check(t *testing.T, a *Alerter, f *Figures) Result {
	t.Helper()
	res, err := a.Check(context.Background(), f, true)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A runway alert and a leak alert arrive once, and only once, at an ntfy
// server and a generic webhook across repeated checks and a restart (a
// new Alerter on the same state); they come again after the credit
// recovers and falls again.
func TestRunwayAndLeakArriveOnceAndAgainAfterRecovery(t *testing.T) {
	in := newInbox(t)
	mail := newSMTPInbox(t)
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)}
	a := newAlerter(t, dir, c, in, mail.url())
	low := money.Amount(10_000) // $10 at $1/h: 10 hours, under the 24h line

	res := check(t, a, figures(c, low, idleGPU))
	if res.Sent[RuleRunway] != 3 || res.Sent[RuleLeak] != 3 || res.Pending != 0 {
		t.Fatalf("first check: %+v", res)
	}
	for range 3 {
		c.t = c.t.Add(time.Minute)
		check(t, a, figures(c, low, idleGPU))
	}
	// A restart: a new alerter, the same state file.
	a = newAlerter(t, dir, c, in, mail.url())
	c.t = c.t.Add(time.Minute)
	check(t, a, figures(c, low-1000, idleGPU))
	for _, p := range []string{"/" + ntfyTopic, "/hooks/" + hookToken} {
		if n := in.count(p, "under your 24h line"); n != 1 {
			t.Errorf("%s got the runway alert %d times, want once:\n%s", p, n, in.all())
		}
		if n := in.count(p, "idle GPU instance-7"); n != 1 {
			t.Errorf("%s got the leak alert %d times, want once", p, n)
		}
	}
	if n := mail.count("under your 24h line"); n != 1 {
		t.Errorf("the SMTP server got the runway alert %d times, want once", n)
	}
	if n := mail.count("idle GPU instance-7"); n != 1 {
		t.Errorf("the SMTP server got the leak alert %d times, want once", n)
	}
	if !strings.Contains(in.all(), "account 42 at console.vast.ai") || !strings.Contains(in.all(), "vastdash audit") {
		t.Errorf("the messages name neither the account nor where to look:\n%s", in.all())
	}

	// Hovering just above the line (within the margin) does not re-arm.
	c.t = c.t.Add(time.Minute)
	check(t, a, figures(c, 25_000)) // 25h: over 24h, under 30h
	c.t = c.t.Add(time.Minute)
	check(t, a, figures(c, low))
	if n := in.count("/"+ntfyTopic, "under your 24h line"); n != 1 {
		t.Errorf("a runway hovering at its line flapped: %d alerts", n)
	}
	// Recovered (and the leak gone), then fallen again: both again.
	c.t = c.t.Add(time.Hour)
	check(t, a, figures(c, 100_000))
	c.t = c.t.Add(time.Hour)
	check(t, a, figures(c, low, idleGPU))
	for _, p := range []string{"/" + ntfyTopic, "/hooks/" + hookToken} {
		if n := in.count(p, "under your 24h line"); n != 2 {
			t.Errorf("%s got the runway alert %d times after the fall, want twice", p, n)
		}
		if n := in.count(p, "idle GPU instance-7"); n != 2 {
			t.Errorf("%s got the leak alert %d times after it came back, want twice", p, n)
		}
	}
	if n := mail.count("under your 24h line"); n != 2 {
		t.Errorf("the SMTP server got the runway alert %d times after the fall, want twice", n)
	}
}

// A target down for a while gets the alert once when it is back; its
// failure is said once, not on every run.
func TestTargetDownGetsItOnceWhenBack(t *testing.T) {
	in := newInbox(t)
	c := &clock{t: time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)}
	a := newAlerter(t, t.TempDir(), c, in)
	in.down.Store(true)
	res := check(t, a, figures(c, 10_000))
	if res.Failed != 2 || res.Pending != 2 || len(res.Notices) != 2 {
		t.Fatalf("down: %+v", res)
	}
	for _, n := range res.Notices {
		if strings.Contains(n, ntfyTopic) || strings.Contains(n, hookToken) {
			t.Errorf("a notice shows a token: %s", n)
		}
	}
	notices := 0
	for range 5 {
		c.t = c.t.Add(10 * time.Minute)
		r := check(t, a, figures(c, 10_000))
		notices += len(r.Notices)
	}
	if notices != 0 {
		t.Errorf("a failing target was said again %d times", notices)
	}
	in.down.Store(false)
	c.t = c.t.Add(2 * time.Hour)
	res = check(t, a, figures(c, 10_000))
	if res.Sent[RuleRunway] != 2 || res.Pending != 0 {
		t.Fatalf("back: %+v", res)
	}
	c.t = c.t.Add(2 * time.Hour)
	check(t, a, figures(c, 10_000))
	for _, p := range []string{"/" + ntfyTopic, "/hooks/" + hookToken} {
		if n := in.count(p, "under your 24h line"); n != 1 {
			t.Errorf("%s got the alert %d times, want once", p, n)
		}
	}
	data, err := os.ReadFile(a.o.Path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), ntfyTopic) || strings.Contains(string(data), hookToken) {
		t.Errorf("the state file holds a token:\n%s", data)
	}
	if info, _ := os.Stat(a.o.Path); info.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v", info.Mode().Perm())
	}
}

// Two runs at once on one account (serve and a cron check) send once.
func TestConcurrentChecksSendOnce(t *testing.T) {
	in := newInbox(t)
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)}
	var wg sync.WaitGroup
	for range 4 {
		a := newAlerter(t, dir, c, in)
		wg.Go(func() {
			if _, err := a.Check(context.Background(), figures(c, 10_000), false); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := in.count("/"+ntfyTopic, "under your 24h line"); n != 1 {
		t.Errorf("got %d alerts from four runs at once, want 1", n)
	}
}

// The digest carries its figures, once a day at its time.
func TestDigestAtItsTimeWithItsFigures(t *testing.T) {
	in := newInbox(t)
	c := &clock{t: time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)}
	a := newAlerter(t, t.TempDir(), c, in)
	a.o.Rules.DigestOn, a.o.Rules.Digest = true, 9*60
	f := func() *Figures {
		f := figures(c, 100_000, idleGPU)
		day := money.Amount(23_500)
		f.Day = &day
		f.Outlook = &billing.Outlook{SoFar: 512_000, Forecast: 1_400_000, Basis: billing.BasisRate, Budget: 1_000_000_000 / 1000, Used: 512, ForecastUsed: 1400}
		f.Audit.Increases = []leaks.PriceChange{{ID: 3, InstanceID: 9}}
		return f
	}
	check(t, a, f())
	if n := in.count("/"+ntfyTopic, "for the dashboard"); n != 0 {
		t.Fatalf("a digest before its time")
	}
	c.t = c.t.Add(90 * time.Minute)
	check(t, a, f())
	c.t = c.t.Add(90 * time.Minute)
	check(t, a, f())
	if n := in.count("/"+ntfyTopic, "for the dashboard"); n != 1 {
		t.Fatalf("%d digests, want 1:\n%s", n, in.all())
	}
	for _, want := range []string{"credit: $100.00", "runway at the current rate: 4.2 days", "spent in the last 24 hours: $23.500",
		"this month: $512.000 so far, forecast $1,400.000 against a $1,000.00 budget", "money leaks: 1 leak, $0.400/h", "price increases waiting: 1"} {
		if !strings.Contains(in.all(), want) {
			t.Errorf("the digest lacks %q:\n%s", want, in.all())
		}
	}
}

// Rule evaluation costs nothing next to the API reads: at most 1 ms a
// refresh (issue 37), with fifty leaks and increases.
func BenchmarkEvaluate(b *testing.B) {
	c := &clock{t: time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)}
	var found []leaks.Leak
	for i := range 50 {
		l := idleGPU
		l.ID = int64(i)
		found = append(found, l)
	}
	f := figures(c, 10_000, found...)
	for i := range 50 {
		f.Audit.Increases = append(f.Audit.Increases, leaks.PriceChange{ID: int64(i), InstanceID: int64(i)})
	}
	f.Month = &billing.MonthSpend{Start: c.t, Spend: 900_000}
	f.Budget = 1_000_000
	rules := config.DefaultAlerts()
	var st accountState
	evaluate(rules, f, &st, time.UTC)
	b.ResetTimer()
	for b.Loop() {
		evaluate(rules, f, &st, time.UTC)
	}
}

// A check that changes nothing (the rule fired already, nothing waits)
// leaves the state file as it is: serve checks at every refresh, and the
// file is not replaced each time.
func TestStateWrittenOnlyOnChange(t *testing.T) {
	in := newInbox(t)
	dir := t.TempDir()
	c := &clock{t: time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)}
	a := newAlerter(t, dir, c, in)
	low := money.Amount(10_000)
	if res := check(t, a, figures(c, low, idleGPU)); res.Pending != 0 || res.Sent[RuleRunway] == 0 {
		t.Fatalf("first check: %+v", res)
	}
	path := a.o.Path
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		c.t = c.t.Add(time.Minute)
		if res := check(t, a, figures(c, low, idleGPU)); len(res.Fired) != 0 || res.Pending != 0 {
			t.Fatalf("a check with nothing new: %+v", res)
		}
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("the state file was replaced by checks that changed nothing")
	}
	// A change is still written: the runway recovers, its rule re-arms.
	c.t = c.t.Add(time.Hour)
	check(t, a, figures(c, 100_000))
	if changed, err := os.Stat(path); err != nil || os.SameFile(before, changed) {
		t.Errorf("a change was not written (%v)", err)
	}
}
