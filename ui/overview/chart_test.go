package overview

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
	"github.com/vastdash/vastdash/ui/theme"
)

// chartDaysFixture is 30 days from Sunday 1 Nov 2026 with a weekly rhythm
// of instance spend, volume every day but the first of three, serverless
// every fifth day and one day of refunds (negative, not drawn).
func chartDaysFixture() []spend.DayTotal {
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var days []spend.DayTotal
	for i := range 30 {
		d := spend.DayTotal{Day: start.AddDate(0, 0, i), ByType: map[string]money.Amount{}}
		d.ByType["instance"] = money.Amount((i%7 + 1) * 10_000)
		if i%3 != 0 {
			d.ByType["volume"] = money.Amount(i%3) * 5_000
		}
		if i%5 == 0 {
			d.ByType["serverless"] = 20_000
		}
		if i == 12 {
			d.ByType["other"] = -3_000
		}
		for _, a := range d.ByType {
			d.Total += a
		}
		days = append(days, d)
	}
	return days
}

func stripAll(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = ansi.Strip(l)
	}
	return out
}

func checkChartLines(t *testing.T, ls []string, w, h int) {
	t.Helper()
	if len(ls) > h {
		t.Fatalf("%d×%d: %d lines", w, h, len(ls))
	}
	for i, l := range ls {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("%d×%d: line %d is %d wide: %q", w, h, i, got, ansi.Strip(l))
		}
	}
}

func TestChartGolden(t *testing.T) {
	st := theme.New(true)
	for _, c := range []struct {
		name string
		w, h int
	}{
		{"chart_100x10.golden", 100, 10},
		{"chart_60x10.golden", 60, 10},
		{"chart_sparkline_30.golden", 30, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			ls := chart(chartDaysFixture(), spend.Day, c.w, c.h, st)
			checkChartLines(t, ls, c.w, c.h)
			checkGolden(t, c.name, strings.Join(stripAll(ls), "\n")+"\n")
		})
	}
}

func TestChartLegendAndAxis(t *testing.T) {
	ls := stripAll(chart(chartDaysFixture(), spend.Day, 100, 10, theme.New(true)))
	if len(ls) != 10 {
		t.Fatalf("want 10 lines, got %d", len(ls))
	}
	for _, want := range []string{"█ instance", "▓ volume", "░ serverless", "per day"} {
		if !strings.Contains(ls[0], want) {
			t.Errorf("legend %q lacks %q", ls[0], want)
		}
	}
	// The largest day is 21 Nov, $100 (instance $70, volume $10,
	// serverless $20): the axis tops at $100 and ends at $0.
	if !strings.HasPrefix(ls[1], "$100 ┤") || !strings.HasPrefix(ls[8], "  $0 ┤") {
		t.Errorf("axis labels:\n%s", strings.Join(ls, "\n"))
	}
	// Labels start at the first day and keep a space between them.
	if !strings.HasPrefix(strings.TrimSpace(ls[9]), "1 Nov") || len(strings.Fields(ls[9])) < 8 {
		t.Errorf("day labels %q", ls[9])
	}
	// Refunds are not drawn, so "other" never enters the legend here.
	if strings.Contains(ls[0], "other") {
		t.Errorf("legend names a kind with nothing drawn: %q", ls[0])
	}
}

// columnHeights counts the filled cells of each column of the bar rows.
func columnHeights(ls []string) []int {
	var hs []int
	for _, l := range ls[1 : len(ls)-1] {
		for x, r := range []rune(l) {
			for len(hs) <= x {
				hs = append(hs, 0)
			}
			if strings.ContainsRune("█▓░▒", r) {
				hs[x]++
			}
		}
	}
	return hs
}

// bars groups the filled columns into bars (runs of non-empty columns)
// and returns the height of each.
func bars(hs []int) []int {
	var out []int
	in := false
	for _, h := range hs {
		switch {
		case h > 0 && !in:
			out = append(out, h)
			in = true
		case h == 0:
			in = false
		}
	}
	return out
}

func TestChartBarsProportional(t *testing.T) {
	day := func(i int, a money.Amount) spend.DayTotal {
		return spend.DayTotal{
			Day:    time.Date(2026, 11, 2+i, 0, 0, 0, 0, time.UTC),
			Total:  a,
			ByType: map[string]money.Amount{"instance": a},
		}
	}
	days := []spend.DayTotal{day(0, 10_000), day(1, 20_000), day(2, 40_000), day(3, 5_000)}
	ls := stripAll(chart(days, spend.Day, 60, 10, theme.New(true)))
	got := bars(columnHeights(ls))
	if len(got) != 4 {
		t.Fatalf("want 4 bars, got %v:\n%s", got, strings.Join(ls, "\n"))
	}
	// $40 is the axis top (8 rows): $10 → 2, $20 → 4, $40 → 8, $5 → 1.
	want := []int{2, 4, 8, 1}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("bar %d is %d rows, want %d (all %v)", i, got[i], want[i], got)
		}
	}
	if got[1] != 2*got[0] || got[2] != 2*got[1] {
		t.Errorf("doubling the spend does not double the bar: %v", got)
	}
}

func TestChartStacksByType(t *testing.T) {
	d := spend.DayTotal{
		Day:    time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC),
		Total:  80_000,
		ByType: map[string]money.Amount{"instance": 40_000, "volume": 20_000, "serverless": 20_000},
	}
	ls := stripAll(chart([]spend.DayTotal{d}, spend.Day, 50, 10, theme.New(true)))
	// One bar of 8 rows: instance 4 at the bottom, volume 2, serverless 2.
	var col []rune
	for _, l := range ls[1:9] {
		r := []rune(l)
		col = append(col, r[len("$80 ┤")])
	}
	if got := string(col); got != "░░▓▓████" {
		t.Errorf("stack from the top = %q, want %q\n%s", got, "░░▓▓████", strings.Join(ls, "\n"))
	}
}

func TestChartWeeklyWhenDaysDoNotFit(t *testing.T) {
	start := time.Date(2026, 8, 24, 0, 0, 0, 0, time.UTC) // a Monday
	var days []spend.DayTotal
	for i := range 90 {
		days = append(days, spend.DayTotal{
			Day: start.AddDate(0, 0, i), Total: 1_000,
			ByType: map[string]money.Amount{"instance": 1_000},
		})
	}
	ls := stripAll(chart(days, spend.Day, 60, 10, theme.New(true)))
	if !strings.Contains(ls[0], "per week") {
		t.Fatalf("90 days in 60 columns should be weekly:\n%s", strings.Join(ls, "\n"))
	}
	// 90 days from a Monday: 12 whole weeks of $7 and 6 days of $6.
	got := bars(columnHeights(ls))
	if len(got) != 13 {
		t.Fatalf("want 13 weekly bars, got %d: %v\n%s", len(got), got, strings.Join(ls, "\n"))
	}
	if !strings.HasPrefix(ls[1], "$8 ┤") {
		t.Errorf("weekly axis should top at $8 (weeks of $7): %q", ls[1])
	}
	// The same 90 days fit 100 columns as days.
	if ls := stripAll(chart(days, spend.Day, 100, 10, theme.New(true))); !strings.Contains(ls[0], "per day") {
		t.Errorf("90 days fit 100 columns:\n%s", strings.Join(ls, "\n"))
	}
}

func TestSparklineFallback(t *testing.T) {
	st := theme.New(true)
	days := chartDaysFixture()
	// Narrow, or short: one line.
	for _, size := range [][2]int{{30, 10}, {39, 10}, {80, 4}, {80, 1}} {
		ls := chart(days, spend.Day, size[0], size[1], st)
		if len(ls) != 1 {
			t.Fatalf("%v: want a one-line sparkline, got %d lines", size, len(ls))
		}
		if l := ansi.Strip(ls[0]); !strings.ContainsAny(l, "▁▂▃▄▅▆▇█") {
			t.Errorf("%v: no sparkline in %q", size, l)
		}
	}
	// 30 days in 80 columns: one level per day and the largest day.
	l := ansi.Strip(chart(days, spend.Day, 80, 3, st)[0])
	if !strings.Contains(l, "max $100/day") {
		t.Errorf("sparkline %q", l)
	}
	if n := len([]rune(strings.TrimRight(strings.Split(l, " max")[0], " "))); n != 30 {
		t.Errorf("want 30 levels, got %d in %q", n, l)
	}
}

func TestChartEverySize(t *testing.T) {
	st := theme.New(true)
	sets := map[string][]spend.DayTotal{
		"month": chartDaysFixture(),
		"zero":  {{Day: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), ByType: map[string]money.Amount{}}},
		"none":  nil,
	}
	for name, days := range sets {
		for w := 0; w <= 120; w++ {
			for h := 0; h <= 12; h++ {
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Fatalf("%s %d×%d: panic %v", name, w, h, r)
						}
					}()
					ls := chart(days, spend.Day, w, h, st)
					if (w == 0 || h == 0 || len(days) == 0) && len(ls) != 0 {
						t.Fatalf("%s %d×%d: want nothing, got %q", name, w, h, ls)
					}
					checkChartLines(t, ls, w, h)
				}()
			}
		}
	}
}

func TestNiceCeilAndCompactMoney(t *testing.T) {
	cases := []struct {
		in   money.Amount
		nice money.Amount
		text string
	}{
		{0, 1_000, "$1"},
		{1, 1, "$0.001"},
		{240, 250, "$0.25"},
		{4_500, 5_000, "$5"},
		{95_000, 100_000, "$100"},
		{101_000, 120_000, "$120"},
		{237_412, 250_000, "$250"},
		{1_100_000, 1_200_000, "$1.2k"},
		{35_000_000, 40_000_000, "$40k"},
		{1_400_000_000, 1_500_000_000, "$1.5M"},
	}
	for _, c := range cases {
		n := niceCeil(c.in)
		if n != c.nice {
			t.Errorf("niceCeil(%d) = %d, want %d", c.in, n, c.nice)
		}
		if s := compactMoney(n); s != c.text {
			t.Errorf("compactMoney(%d) = %q, want %q", n, s, c.text)
		}
	}
	if s := compactMoney(-2_500); s != "-$2.5" {
		t.Errorf("negative: %q", s)
	}
}

func TestChartColoursEachKind(t *testing.T) {
	st := theme.New(true)
	out := strings.Join(chart(chartDaysFixture(), spend.Day, 100, 10, st), "\n")
	seen := map[string]string{}
	for _, k := range []string{"instance", "volume", "serverless"} {
		r := kindStyle(k, st).Render("X")
		pre := r[:strings.Index(r, "X")]
		if pre == "" {
			t.Fatalf("%s has no colour in the theme", k)
		}
		if other, dup := seen[pre]; dup {
			t.Errorf("%s and %s share a colour", k, other)
		}
		seen[pre] = k
		if !strings.Contains(out, pre+fills[k]) {
			t.Errorf("no %s cells in the %s colour", fills[k], k)
		}
	}
}
