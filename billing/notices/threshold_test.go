package notices

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/demotest"
	"github.com/vastdash/vastdash/money"
)

// unpaced starts the demo server with no pacing anywhere and a service on
// it with key.
func unpaced(t *testing.T, key string, timeout time.Duration) (*demoserver.Server, *billing.Service) {
	t.Helper()
	srv, s, _ := demotest.Start(t, demoserver.Options{Contracts: 40, Threshold: -1,
		SettingsThreshold: -1, TypesThreshold: -1, InstancesThreshold: -1}, key,
		api.WithChargesThreshold(0), api.WithTimeout(timeout),
		api.WithBackoff(time.Millisecond, time.Millisecond),
		api.WithEndpointThreshold(api.SettingsPath, 0), api.WithEndpointThreshold(api.NotificationTypesPath, 0))
	return srv, s
}

func TestParseThreshold(t *testing.T) {
	good := map[string]money.Amount{
		"25": 25000, "25.5": 25500, "$25.00": 25000, " 0 ": 0, ".5": 500, "1000000": 1_000_000_000, "007.10": 7100,
	}
	for in, want := range good {
		if got, err := ParseThreshold(in); err != nil || got != want {
			t.Errorf("ParseThreshold(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":            "type an amount",
		"-5":          "cannot be negative",
		"1.234":       "two decimals",
		"1e3":         "not an amount",
		"1000000.01":  "at most $1,000,000.00",
		"99999999999": "at most $1,000,000.00",
		"1,5":         "without commas",
		"abc":         "not an amount",
		".":           "not an amount",
		"12.":         "", // accepted: 12.00
		"\x1b[31m":    "not an amount",
	}
	for in, want := range bad {
		_, err := ParseThreshold(in)
		switch {
		case want == "" && err != nil:
			t.Errorf("ParseThreshold(%q): %v", in, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("ParseThreshold(%q) = %v; want an error saying %q", in, err, want)
		case err != nil && strings.ContainsAny(err.Error(), "\n\x1b"):
			t.Errorf("ParseThreshold(%q): the error is not one printable line: %q", in, err)
		}
	}
}

func TestThresholdOfRefusesImplausible(t *testing.T) {
	amt := func(a money.Amount) *money.Amount { return &a }
	on := true
	cases := []struct {
		u     api.User
		known bool
		bad   string
	}{
		{api.User{BalanceThreshold: amt(25000), BalanceThresholdEnabled: &on}, true, ""},
		{api.User{BalanceThreshold: amt(-5000), BalanceThresholdEnabled: &on}, false, "negative"},
		{api.User{BalanceThreshold: amt(billing.MaxThreshold + 10), BalanceThresholdEnabled: &on}, false, "beyond"},
		{api.User{BalanceThresholdBad: true, BalanceThresholdEnabled: &on}, false, "not an amount"},
		{api.User{}, false, ""},
	}
	for _, c := range cases {
		th := billing.ThresholdOf(c.u)
		if th.Known != c.known || (c.bad == "") != (th.Bad == "") || !strings.Contains(th.Bad, c.bad) {
			t.Errorf("billing.ThresholdOf(%+v) = %+v", c.u, th)
		}
		// A threshold not believed never makes the credit "low".
		c.u.Credit = 1
		if !c.known && billing.LowBalance(c.u) {
			t.Errorf("LowBalance believed %+v", th)
		}
	}
}

// The PUT carries the two fields only, and the result is what the account
// read afterwards holds.
func TestSaveThresholdSendsTwoFieldsAndRereads(t *testing.T) {
	srv, s := unpaced(t, demoserver.DemoKey, 5*time.Second)
	ctx := context.Background()
	a, off := money.Amount(12500), false
	res, err := SaveThreshold(ctx, s, ThresholdChange{Amount: &a, Enabled: &off})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Read || !res.Matches() || res.Held().Amount != 12500 || *res.Held().Enabled {
		t.Fatalf("result %+v, held %+v", res, res.Held())
	}
	var put, reread bool
	for _, q := range srv.Requests() {
		switch {
		case q.Method == http.MethodPut:
			put = true
			var body map[string]any
			if err := json.Unmarshal(q.Body, &body); err != nil || len(body) != 2 || body["balance_threshold"] != 12.5 || body["balance_threshold_enabled"] != false {
				t.Errorf("PUT body %s", q.Body)
			}
		case put && strings.HasPrefix(q.Path, "/api/v0/users/current"):
			reread = true
		}
	}
	if !put || !reread {
		t.Fatalf("put %v, read after %v", put, reread)
	}
	if th, en := srv.BalanceThreshold(); th != 12500 || en {
		t.Fatalf("server holds %d %v", th, en)
	}
}

// Switching enabled alone sends the amount the server holds now, read just
// before, never an older copy.
func TestSaveThresholdEnabledKeepsFreshAmount(t *testing.T) {
	srv, s := unpaced(t, demoserver.DemoKey, 5*time.Second)
	ctx := context.Background()
	// Meanwhile the web console set 77.70.
	other, _ := api.New(srv.URL(), demoserver.DemoKey)
	on := true
	if err := other.SetBalanceThreshold(ctx, 77700, &on); err != nil {
		t.Fatal(err)
	}
	off := false
	res, err := SaveThreshold(ctx, s, ThresholdChange{Enabled: &off})
	if err != nil {
		t.Fatal(err)
	}
	if th, en := srv.BalanceThreshold(); th != 77700 || en {
		t.Fatalf("server holds %d %v; want 77700, disabled", th, en)
	}
	if !res.Matches() {
		t.Fatalf("result %+v", res)
	}
}

func TestSaveThresholdRefusals(t *testing.T) {
	srv, s := unpaced(t, demoserver.KeyReadOnly, 5*time.Second)
	ctx := context.Background()
	before, _ := srv.BalanceThreshold()
	a := money.Amount(5000)
	_, err := SaveThreshold(ctx, s, ThresholdChange{Amount: &a})
	if !errors.Is(err, api.ErrPermission) {
		t.Fatalf("read-only key: %v", err)
	}
	for _, bad := range []money.Amount{-10, 1, billing.MaxThreshold + 10} {
		if _, err := SaveThreshold(ctx, s, ThresholdChange{Amount: &bad}); err == nil {
			t.Errorf("%v was sent", bad)
		}
	}
	if after, _ := srv.BalanceThreshold(); after != before {
		t.Fatalf("threshold changed %d → %d", before, after)
	}
	for _, q := range srv.Requests() {
		if q.Method == http.MethodPut && q.Status == http.StatusOK {
			t.Fatalf("a PUT went through: %s", q.Body)
		}
	}
}

// A PUT that times out may have landed: the account is read again and the
// result says what the server holds.
func TestSaveThresholdUnknownOutcome(t *testing.T) {
	srv, s := unpaced(t, demoserver.DemoKey, 300*time.Millisecond)
	srv.AddFault(demoserver.Fault{Method: http.MethodPut, Path: "/api/v0/users", Hang: true})
	a := money.Amount(33000)
	res, err := SaveThreshold(context.Background(), s, ThresholdChange{Amount: &a})
	if !errors.Is(err, api.ErrTimeout) || !res.Lost || !res.Read {
		t.Fatalf("res %+v err %v", res, err)
	}
	th, _ := srv.BalanceThreshold()
	if res.Held().Amount != money.Amount(th) {
		t.Fatalf("result holds %v, server %d", res.Held().Amount, th)
	}
}

// The account read after the save disagrees with what was sent: the result
// reports the server's value and Matches is false.
func TestSaveThresholdServerDisagrees(t *testing.T) {
	srv, s := unpaced(t, demoserver.DemoKey, 5*time.Second)
	srv.AddFault(demoserver.Fault{Method: http.MethodGet, Path: "/api/v0/users/current", Mutate: func(b []byte) []byte {
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			return b
		}
		m["balance_threshold"] = 10
		out, _ := json.Marshal(m)
		return out
	}})
	a := money.Amount(40000)
	res, err := SaveThreshold(context.Background(), s, ThresholdChange{Amount: &a})
	if err != nil {
		t.Fatal(err)
	}
	if res.Matches() || res.Held().Amount != 10000 {
		t.Fatalf("result %+v held %+v", res, res.Held())
	}
}

func TestSuggest(t *testing.T) {
	s := billing.New(context.Background(), nil, billing.WithLocation(time.UTC),
		billing.WithClock(func() time.Time { return time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC) }))
	defer s.Close()
	day := func(d int) int64 { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC).Unix() }
	// $10.001 a day over the 7 complete days: 3 days is $30.003, up to $30.01.
	var entries []api.Charge
	for d := 14; d <= 20; d++ {
		entries = append(entries, api.Charge{Type: "instance", Source: "instance-1", Start: day(d), End: day(d) + 86399, Amount: 10001})
	}
	m := s.NewMeter()
	m.Add(entries)
	g := m.Suggest(billing.State{Done: true})
	if g.Reason != "" || g.Amount != 30010 || g.String() != "3 days of your spend: $30.01" {
		t.Fatalf("suggestion %+v %q", g, g)
	}
	if g := m.Suggest(billing.State{}); g.Reason != "charges still loading" {
		t.Errorf("loading: %+v", g)
	}
	if g := m.Suggest(billing.State{Done: true, Skipped: 2}); !strings.Contains(g.Reason, "could not be read") {
		t.Errorf("skipped: %+v", g)
	}
	if g := s.NewMeter().Suggest(billing.State{Done: true}); g.Reason != "no spend in the last 7 complete days" {
		t.Errorf("no spend: %+v", g)
	}
	huge := s.NewMeter()
	huge.Add([]api.Charge{{Type: "instance", Source: "instance-2", Start: day(15), End: day(15) + 86399, Amount: 7 * billing.MaxThreshold}})
	if g := huge.Suggest(billing.State{Done: true}); !strings.Contains(g.Reason, "beyond") {
		t.Errorf("huge: %+v", g)
	}
}

// SuggestThreshold reads through the feeds: against the demo it suggests
// three days of the same weekly burn the runway uses.
func TestSuggestThresholdDemo(t *testing.T) {
	_, s := unpaced(t, demoserver.DemoKey, 5*time.Second)
	ctx := context.Background()
	g, err := SuggestThreshold(ctx, s, api.ChargesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.Runway(ctx, money.Dollar, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := e.Week.PerDay * billing.SuggestDays
	if g.Reason != "" || g.Amount < want || g.Amount-want >= 10 || g.Amount%10 != 0 {
		t.Fatalf("suggestion %+v; week burn %v", g, e.Week.PerDay)
	}
}

// Over a ledger the suggestion for the dashboard's range waits on the
// range's sync and reads the burn window from the ledger (no feed of the
// range's rows is loaded for it): it is the suggestion a fresh fetch
// without the ledger gives.
func TestSuggestThresholdOverTheLedger(t *testing.T) {
	srv, fresh, _ := demotest.Start(t, demoserver.Options{Contracts: 900, Threshold: -1}, demoserver.DemoKey, api.WithChargesThreshold(0))
	held, _ := demotest.Ledger(t, srv, t.TempDir(), nil)
	now := srv.Now()
	q := billing.RangeQuery(now.AddDate(0, 0, -30), now)
	if !held.MayHold(q) || !held.Covers(q) {
		t.Fatal("the test's range is not one the ledger's path takes")
	}
	want, err := SuggestThreshold(context.Background(), fresh, q)
	if err != nil {
		t.Fatal(err)
	}
	got, err := SuggestThreshold(context.Background(), held, q)
	if err != nil {
		t.Fatal(err)
	}
	if got != want || want.Reason != "" || want.Amount == 0 {
		t.Fatalf("over the ledger %+v; without it %+v", got, want)
	}
	// The range was synced (the screens' sync), not only the burn week.
	if _, ok := held.ChargesWindow(context.Background(), q); !ok {
		t.Fatal("the suggestion did not go through the range's sync")
	}
}
