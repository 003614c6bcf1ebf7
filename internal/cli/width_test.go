package cli

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api/demoserver"
)

// atWidth is a run's env on a terminal width columns wide.
func atWidth(width int) func(*env) {
	return func(e *env) { e.width = func(io.Writer) int { return width } }
}

// tooWide is the lines of out wider than width.
func tooWide(out string, width int) []string {
	var wide []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if ansi.StringWidth(l) > width {
			wide = append(wide, l)
		}
	}
	return wide
}

// notCountedServer serves three payment records that count nowhere, one
// of each kind — pending, dated in the future, of a type vastdash does not
// know — beside one paid top-up.
func notCountedServer(t *testing.T) *demoserver.Server {
	t.Helper()
	yesterday, ahead := demoNow.Add(-24*time.Hour), demoNow.Add(40*24*time.Hour)
	pending := inv("pending-1", yesterday, time.Time{}, -100_000)
	pending.Service, pending.Source, pending.Description = "bitpay", "bitpay", "BitPay payment (bitcoin), awaiting confirmation"
	odd := inv("odd-1", yesterday, yesterday, -5_000)
	odd.Type = "gift_card"
	paid := inv("paid-1", yesterday, yesterday, -1_447_000)
	paid.Description = "Card payment (Visa •••• 7976)"
	body := demoserver.InvoicesPage([]demoserver.Invoice{paid, pending, inv("ahead-1", yesterday, ahead, -410_000), odd})
	return invoicesServer(t, demoserver.Options{Contracts: 20}, body)
}

// payments at 80 columns with records that carry a note (pending, dated in
// the future, of an unknown type) printed 91–99 cells a row, so every row
// wrapped: the note never shrank nor went. Now every row fits, each still
// says why it is not counted, and a pipe keeps every column whole.
func TestPaymentsWithNotesFitTheTerminal(t *testing.T) {
	srv := notCountedServer(t)
	for _, width := range []int{80, 100} {
		res := headlessWith(t, srv, demoserver.DemoKey, atWidth(width), "payments", "--utc")
		res.ok(t)
		if wide := tooWide(res.out, width); len(wide) > 0 {
			t.Errorf("width %d: %d lines wider:\n%s", width, len(wide), strings.Join(wide, "\n"))
		}
		for _, flag := range []string{"pending", "dated in the future", "unknown type"} {
			if !strings.Contains(res.out, flag) {
				t.Errorf("width %d: no row says %q:\n%s", width, flag, res.out)
			}
		}
	}
	pipe := headless(t, srv, demoserver.DemoKey, "payments", "--utc")
	pipe.ok(t)
	if !strings.Contains(pipe.out, "DESCRIPTION") || !strings.Contains(pipe.out, "dated in the future: not counted") {
		t.Errorf("a pipe lost a column:\n%s", pipe.out)
	}
}

// The statement's lists of records counted nowhere ignored the width (89
// cells at 80) and its "Reconstructed back…" line ran to 117: on a
// terminal every line now fits; in a pipe each is whole, on one line.
func TestStatementFitsTheTerminal(t *testing.T) {
	srv := notCountedServer(t)
	res := headlessWith(t, srv, demoserver.DemoKey, atWidth(80), "statement", "--months", "1", "--utc")
	res.ok(t)
	if wide := tooWide(res.out, 80); len(wide) > 0 {
		t.Errorf("%d lines wider than 80:\n%s", len(wide), strings.Join(wide, "\n"))
	}
	for _, want := range []string{"Pending, not counted:", "Dated in the future, not counted:", "$100.000", "$410.000"} {
		if !strings.Contains(res.out, want) {
			t.Errorf("lacks %q:\n%s", want, res.out)
		}
	}
	pipe := headless(t, srv, demoserver.DemoKey, "statement", "--months", "1", "--utc")
	pipe.ok(t)
	if !strings.Contains(pipe.out, "each month closes where the next one opens.") ||
		!strings.Contains(pipe.out, "BitPay payment (bitcoin), awaiting confirmation") {
		t.Errorf("a pipe cut a line:\n%s", pipe.out)
	}
	for _, l := range strings.Split(pipe.out, "\n") {
		if strings.HasPrefix(l, "Reconstructed") && !strings.HasSuffix(l, "opens.") {
			t.Errorf("a pipe broke the note: %q", l)
		}
	}
}

// spend's forecast row ran to 95 cells and its budget row past 110, and
// audit's heading over the price increases to 81: on a terminal each now
// wraps under itself; in a pipe each stays one line, whole.
func TestSpendAndAuditFitTheTerminal(t *testing.T) {
	srv := spendServer(t, 300)
	cfg := settingsFile(t, "budget = \"3500\"\n")
	both := func(e *env) { fastInstances(e); atWidth(80)(e) }
	res := headlessWith(t, srv, demoserver.DemoKey, both, "--config", cfg, "spend", "--utc")
	res.ok(t)
	if wide := tooWide(res.out, 80); len(wide) > 0 {
		t.Errorf("spend: %d lines wider than 80:\n%s", len(wide), res.out)
	}
	for _, want := range []string{"forecast", "at current rate", "budget", "used"} {
		if !strings.Contains(res.out, want) {
			t.Errorf("spend lacks %q:\n%s", want, res.out)
		}
	}
	pipe := headlessWith(t, srv, demoserver.DemoKey, fastInstances, "--config", cfg, "spend", "--utc")
	pipe.ok(t)
	if n := strings.Count(pipe.out, "\n"); n != 5 {
		t.Errorf("a pipe got %d lines, want the title and four figures:\n%s", n, pipe.out)
	}

	asrv := auditServer(t)
	au := auditRun(t, asrv, demoserver.DemoKey, atWidth(80), "audit")
	if au.code != exitRuntime || !strings.Contains(au.out, "Price increases waiting") {
		t.Fatalf("audit: exit %d %q\n%s", au.code, au.errOut, au.out)
	}
	if wide := tooWide(au.out, 80); len(wide) > 0 {
		t.Errorf("audit: %d lines wider than 80:\n%s", len(wide), strings.Join(wide, "\n"))
	}
}

// charges' text table repeated the id in the description beside the
// SOURCE column ("instance-1041585  Instance 1041585: 1x A…") and cut
// "1x A100 SXM4" to "1x A10…", another GPU. The lead goes, as on the
// dashboard, and a cut falls between words; CSV keeps the server's text.
func TestChargesTextDescriptionBesideItsID(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 40})
	args := append([]string{"charges"}, wholeSpan()...)
	csv := readCSV(t, headless(t, srv, demoserver.DemoKey, append(args, "--output", "csv")...).out)
	words := map[string]bool{}
	repeats := 0
	for _, r := range csv {
		for _, w := range strings.Fields(r[5]) {
			words[w] = true
		}
		if strings.Contains(r[5], strings.TrimPrefix(r[3], "instance-")+":") {
			repeats++
		}
	}
	if repeats == 0 {
		t.Fatal("the CSV lost the server's description, or the test data has no lead to drop")
	}
	for _, width := range []int{80, 120} {
		res := headlessWith(t, srv, demoserver.DemoKey, atWidth(width), args...)
		res.ok(t)
		for _, l := range strings.Split(strings.TrimSuffix(res.out, "\n"), "\n")[1:] {
			f := strings.Fields(l)
			for i, cell := range f {
				if id, ok := strings.CutPrefix(cell, "instance-"); ok && strings.Contains(l, "Instance "+id) {
					t.Errorf("width %d: the description repeats the id: %q", width, l)
				}
				if before, ok := strings.CutSuffix(cell, "…"); ok && i > 3 && !words[before] {
					t.Errorf("width %d: cut inside a word (%q): %q", width, cell, l)
				}
			}
		}
	}
}

// charges --group-by label lines its figures up under their headers
// whatever a label holds — a ZWJ emoji ("👩‍🔬 lab notebook", one glyph of
// two cells), accents, CJK — measured as every table measures a cell
// (ansi.StringWidth), in a pipe and at 80 and 40 columns.
func TestGroupByLabelAlignsEmoji(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 400})
	args := append([]string{"charges", "--group-by", "label"}, wholeSpan()...)
	for _, width := range []int{0, 80, 40} {
		res := headlessWith(t, srv, demoserver.DemoKey, atWidth(width), args...)
		res.ok(t)
		lines := strings.Split(strings.TrimSuffix(res.out, "\n"), "\n")
		// The right edge of COUNT, AMOUNT and SHARE: where each header
		// ends, every row's figure ends.
		head := lines[0]
		var edges []int
		for _, h := range []string{"COUNT", "AMOUNT", "SHARE"} {
			i := strings.Index(head, h)
			if i < 0 {
				t.Fatalf("width %d: no %s in %q", width, h, head)
			}
			edges = append(edges, ansi.StringWidth(head[:i+len(h)]))
		}
		emoji := false
		for _, l := range lines[1:] {
			emoji = emoji || strings.Contains(l, "\u200d")
			f := strings.Fields(l)
			if len(f) < 4 {
				t.Fatalf("width %d: row %q", width, l)
			}
			// The last three fields are the figures; each ends where its
			// header does.
			figs, rest := f[len(f)-3:], l
			got := make([]int, 3)
			for k := 2; k >= 0; k-- {
				i := strings.LastIndex(rest, figs[k])
				got[k] = ansi.StringWidth(rest[:i+len(figs[k])])
				rest = rest[:i]
			}
			if !slices.Equal(got, edges) {
				t.Errorf("width %d: row %q ends its figures at %v, the headers at %v", width, l, got, edges)
			}
		}
		if !emoji {
			t.Fatalf("width %d: the demo lost its ZWJ label:\n%s", width, res.out)
		}
	}
}
