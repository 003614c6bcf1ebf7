package overview

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

var now = time.Date(2026, 11, 21, 15, 4, 5, 0, time.UTC)

func newCtx() *shared.Context {
	return &shared.Context{
		Styles:       theme.New(true),
		Location:     time.UTC,
		Now:          func() time.Time { return now },
		DefaultRange: "30d",
	}
}

func ptr[T any](v T) *T { return &v }

func testUser() api.User {
	return api.User{
		ID:                      42,
		Email:                   "someone@example.com",
		Credit:                  1234567, // $1,234.567 → $1,234.57
		Balance:                 -12000,
		BalanceThreshold:        ptr(money.Amount(50000)),
		BalanceThresholdEnabled: ptr(true),
	}
}

func thirtyDays(t *testing.T) spend.Range {
	t.Helper()
	r, err := spend.PresetRange("30d", now, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// testCharges is a small report in tree format: two instances, a volume
// and a serverless endpoint wrapping a worker group of contracts. Amounts
// are chosen so float sums would drift (0.1 + 0.2).
func testCharges() []api.Charge {
	item := func(typ string, a money.Amount) api.Charge { return api.Charge{Type: typ, Amount: a} }
	return []api.Charge{
		{Type: "instance", Source: "instance-1", Amount: 1000100, Items: []api.Charge{
			item("gpu", 900000), item("disk", 100000), item("bwd", 100),
		}},
		{Type: "instance", Source: "instance-2", Amount: 300, Items: []api.Charge{
			item("gpu", 100), item("bwu", 200),
		}},
		{Type: "volume", Source: "volume-3", Amount: 200002, Items: []api.Charge{item("disk", 200002)}},
		{Type: "serverless", Source: "endpoint-7", Amount: 50501, Items: []api.Charge{
			{Type: "serverless", Source: "workergroup-8", Amount: 50501, Items: []api.Charge{
				{Type: "instance", Source: "instance-9", Amount: 50500, Items: []api.Charge{item("gpu", 50000), item("disk", 500)}},
				{Type: "instance", Source: "instance-10", Amount: 1}, // no breakdown: "other"
			}},
		}},
	}
}

func testTotals() spend.Totals {
	var t spend.Totals
	t.Add(testCharges())
	return t
}

func newModel(w, h int) *Model {
	m := New(newCtx())
	m.SetSize(w, h)
	return m
}

// plain is the view without styling, split in lines.
func plain(m *Model) []string { return strings.Split(ansi.Strip(m.View()), "\n") }

// rowOf finds the breakdown row of name.
func rowOf(t *testing.T, lines []string, name string) string {
	t.Helper()
	for _, l := range lines {
		if strings.HasPrefix(l, "  "+name+" ") {
			return l
		}
	}
	t.Fatalf("no row %q in\n%s", name, strings.Join(lines, "\n"))
	return ""
}

func checkExact(t *testing.T, m *Model, w, h int) {
	t.Helper()
	out := m.View()
	if w <= 0 || h <= 0 {
		if out != "" {
			t.Fatalf("%d×%d: want nothing, got %q", w, h, out)
		}
		return
	}
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Fatalf("%d×%d: %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("%d×%d: line %d is %d wide: %q", w, h, i, got, ansi.Strip(l))
		}
	}
}

func TestAccountStates(t *testing.T) {
	m := newModel(80, 24)
	if !strings.Contains(ansi.Strip(m.View()), "loading account…") {
		t.Fatalf("no loading hint:\n%s", ansi.Strip(m.View()))
	}
	m.Update(shared.UserMsg{Err: errors.New("the API key was rejected (invalid or revoked key)")})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "account: the API key was rejected") {
		t.Fatalf("user error not shown:\n%s", v)
	}
	m.Update(shared.UserMsg{User: testUser()})
	v := ansi.Strip(m.View())
	for _, want := range []string{"Credit", "$1,234.57", "Balance -$12.00", "Low-balance threshold $50.00 (enabled)"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q in\n%s", want, v)
		}
	}
	if strings.Contains(v, "someone@example.com") {
		t.Error("the overview need not show the e-mail address")
	}
}

func TestCreditStateHasWords(t *testing.T) {
	cases := []struct {
		credit  money.Amount
		enabled *bool
		want    string
	}{
		{40000, ptr(true), "below threshold"},
		{40000, nil, "below threshold"},
		{40000, ptr(false), ""},
		{0, ptr(true), "at or below zero"},
		{-5, ptr(true), "at or below zero"},
		{60000, ptr(true), ""},
	}
	for _, c := range cases {
		for _, size := range [][2]int{{100, 30}, {40, 6}} {
			u := testUser()
			u.Credit, u.BalanceThresholdEnabled = c.credit, c.enabled
			m := newModel(size[0], size[1])
			m.Update(shared.UserMsg{User: u})
			v := ansi.Strip(m.View())
			for _, word := range []string{"below threshold", "at or below zero"} {
				if has := strings.Contains(v, word); has != (word == c.want) {
					t.Errorf("credit %d enabled %v at %v: %q shown=%v\n%s", c.credit, c.enabled, size, word, has, v)
				}
			}
		}
	}
}

func TestTotalsExact(t *testing.T) {
	m := newModel(100, 30)
	m.Update(shared.UserMsg{User: testUser()})
	tot := testTotals()
	m.SetCharges(thirtyDays(t), tot, true)
	lines := plain(m)
	want := map[string]string{
		"instance":   "$1,000.400", // 1000.100 + 0.300
		"volume":     "$200.002",
		"serverless": "$50.501",
		"total":      "$1,250.903",
		"gpu":        "$950.100",
		"disk":       "$300.502",
		"bwd":        "$0.100",
		"bwu":        "$0.200",
		"other":      "$0.001",
	}
	for name, amt := range want {
		r := rowOf(t, lines, name)
		if !strings.Contains(r, amt) {
			t.Errorf("row %q = %q, want amount %s", name, r, amt)
		}
	}
	// Shares to a tenth of a percent, of the total.
	for name, sh := range map[string]string{"instance": "80.0%", "volume": "16.0%", "serverless": "4.0%", "bwd": "0.0%"} {
		if r := rowOf(t, lines, name); !strings.Contains(r, sh) {
			t.Errorf("row %q = %q, want share %s", name, r, sh)
		}
	}
	title := strings.Join(lines, "\n")
	if !strings.Contains(title, "Charges 30d (23 Oct – 21 Nov) · all 4 contracts loaded") {
		t.Errorf("title wrong:\n%s", title)
	}
	if strings.Contains(title, "partial") {
		t.Error("a complete load is not partial")
	}
	// Amounts are right-aligned: their last characters share a column.
	end := -1
	for _, name := range []string{"instance", "volume", "serverless", "total"} {
		r := rowOf(t, lines, name)
		amt := want[name]
		e := strings.Index(r, amt) + len(amt)
		if end >= 0 && e != end {
			t.Errorf("amount of %q ends at byte %d, others at %d", name, e, end)
		}
		end = e
	}
}

func TestPartialMarker(t *testing.T) {
	m := newModel(100, 30)
	m.Update(shared.UserMsg{User: testUser()})
	m.SetCharges(thirtyDays(t), testTotals(), false)
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "4 contracts loaded so far · partial") {
		t.Errorf("partial load without server count:\n%s", v)
	}
	m.SetServerTotal(12345)
	v = ansi.Strip(m.View())
	for _, want := range []string{"4 of 12,345 contracts loaded · partial", "By contract type (partial)", "By charge type (partial)"} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q:\n%s", want, v)
		}
	}
	// A new range invalidates the server's count of the old one.
	r7, _ := spend.PresetRange("7d", now, time.UTC)
	m.SetCharges(r7, spend.Totals{}, false)
	if v := ansi.Strip(m.View()); strings.Contains(v, "12,345") {
		t.Errorf("old count kept for a new range:\n%s", v)
	}
}

func TestEmptyStates(t *testing.T) {
	m := newModel(80, 24)
	m.Update(shared.UserMsg{User: testUser()})
	if v := ansi.Strip(m.View()); !strings.Contains(v, "No charges loaded yet") {
		t.Errorf("before any charges:\n%s", v)
	}
	m.SetCharges(thirtyDays(t), spend.Totals{}, false)
	if v := ansi.Strip(m.View()); !strings.Contains(v, "No charges loaded yet") {
		t.Errorf("while loading:\n%s", v)
	}
	m.SetCharges(thirtyDays(t), spend.Totals{}, true)
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "No charges in this range") || !strings.Contains(v, "all 0 contracts loaded") {
		t.Errorf("empty range:\n%s", v)
	}
}

func TestServerTypeNamesSanitized(t *testing.T) {
	m := newModel(100, 30)
	m.Update(shared.UserMsg{User: testUser()})
	var tot spend.Totals
	tot.Add([]api.Charge{{Type: "\x1b]0;pwned\x07evil\x1b[2J", Amount: 5000}})
	m.SetCharges(thirtyDays(t), tot, true)
	out := m.View()
	if strings.Contains(out, "pwned") || strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x1b]") {
		t.Fatalf("server text reached the terminal raw: %q", out)
	}
	if r := rowOf(t, plain(m), "evil"); !strings.Contains(r, "$5.000") {
		t.Errorf("row = %q", r)
	}
}

func TestDegradesWithWidth(t *testing.T) {
	tot := testTotals()
	hasBar := func(s string) bool { return strings.ContainsAny(s, "█▏▎▍▌▋▊▉") }
	m := newModel(80, 24)
	m.Update(shared.UserMsg{User: testUser()})
	m.SetCharges(thirtyDays(t), tot, true)
	if r := rowOf(t, plain(m), "instance"); !hasBar(r) || !strings.Contains(r, "80.0%") {
		t.Fatalf("80 wide should show share and bar: %q", r)
	}
	// "  serverless  $1,000.400  100.0%" is 32 cells: bars need 4 more + gap.
	m.SetSize(36, 24)
	if r := rowOf(t, plain(m), "instance"); hasBar(r) || !strings.Contains(r, "80.0%") {
		t.Fatalf("36 wide: bar should go first, share stay: %q", r)
	}
	m.SetSize(30, 24)
	if r := rowOf(t, plain(m), "instance"); strings.Contains(r, "%") || !strings.Contains(r, "$1,000.400") {
		t.Fatalf("30 wide: share should go, amount stay: %q", r)
	}
	m.SetSize(20, 24)
	if r := rowOf(t, plain(m), "instance"); !strings.HasSuffix(r, "…") {
		t.Fatalf("20 wide: the row should be cut with …: %q", r)
	}
}

func TestDegradesWithHeight(t *testing.T) {
	m := newModel(40, 5)
	m.Update(shared.UserMsg{User: testUser()})
	m.SetCharges(thirtyDays(t), testTotals(), false)
	v := ansi.Strip(m.View())
	// The credit and the title outlive the breakdown rows.
	if !strings.Contains(v, "Credit $1,234.57") || !strings.Contains(v, "Charges 30d") {
		t.Fatalf("40×5:\n%s", v)
	}
	m.SetSize(20, 1)
	if v := ansi.Strip(m.View()); !strings.HasPrefix(v, "Credit $1,234.57") {
		t.Fatalf("20×1: %q", v)
	}
}

func TestEverySizeExact(t *testing.T) {
	states := map[string]func(m *Model){
		"loading": func(m *Model) {},
		"error":   func(m *Model) { m.Update(shared.UserMsg{Err: errors.New("network error")}) },
		"full": func(m *Model) {
			m.Update(shared.UserMsg{User: testUser()})
			m.SetCharges(thirtyDays(t), testTotals(), false)
			m.SetServerTotal(12345)
		},
	}
	for name, set := range states {
		m := New(newCtx())
		set(m)
		for w := 0; w <= 110; w++ {
			for _, h := range []int{0, 1, 2, 3, 5, 8, 13, 24, 30} {
				m.SetSize(w, h)
				t.Run("", func(t *testing.T) {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s %d×%d: panic %v", name, w, h, r)
						}
					}()
					checkExact(t, m, w, h)
				})
			}
		}
	}
}

func TestNilStylesAndContext(t *testing.T) {
	m := New(nil)
	m.SetSize(30, 4)
	checkExact(t, m, 30, 4)
	if m.Loading() || m.Capturing() || m.Init() != nil || len(m.Help().ShortHelp()) != 0 {
		t.Fatal("the overview makes no requests and has no keys")
	}
}

func TestGolden(t *testing.T) {
	m := newModel(100, 30)
	m.Update(shared.UserMsg{User: testUser()})
	m.SetCharges(thirtyDays(t), testTotals(), false)
	m.SetServerTotal(12345)
	checkGolden(t, "overview_100x30.golden", ansi.Strip(m.View()))
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("view differs from %s (run with -update after checking):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func BenchmarkView(b *testing.B) {
	m := newModel(100, 30)
	m.Update(shared.UserMsg{User: testUser()})
	var tot spend.Totals
	tot.Add(testCharges())
	m.SetCharges(spend.Range{Preset: "30d", From: now.AddDate(0, 0, -29), To: now}, tot, true)
	for b.Loop() {
		_ = m.View()
	}
}
