package charges

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ui/shared"
)

// TestWideScreensShowDescriptions: at 120 and 200 columns a labelled
// contract shows its label and its description, not a wide id column and a
// cut label.
func TestWideScreensShowDescriptions(t *testing.T) {
	es := contracts(1, 5)
	es[0].Description = "2x RTX 4090 on machine 31337"
	for _, w := range []int{120, 200} {
		hs := newHarness(t, w, 20, servePages(es, 100))
		hs.settle(hs.m.Init())
		if l := hs.lines()[2]; !strings.Contains(l, "▸ 1        job-1 · 2x RTX 4090 on machine 31337") {
			t.Errorf("width %d: row %q", w, l)
		}
	}
}

// TestTreeIDsWholeAt80: in tree format at 80 columns the wrappers' names
// and the contract ids are whole.
func TestTreeIDsWholeAt80(t *testing.T) {
	es := append([]api.Charge{serverlessEndpoint(7, 2, 2)}, contracts(1, 5)...)
	hs := newHarness(t, 80, 24, servePages(es, 100))
	hs.settle(hs.m.Init())
	hs.settle(hs.press("f"))
	hs.settle(hs.press("enter", "j", "enter"))
	v := hs.view()
	for _, want := range []string{"▾ endpoint-7 ", "  ▾ workergroup-70 ", "    ▸ 700 ", "  ▸ workergroup-71 "} {
		if !strings.Contains(v, want) {
			t.Errorf("tree at 80 lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "endpoi…") || strings.Contains(v, "work…") {
		t.Errorf("ids cut:\n%s", v)
	}
}

// TestZWJLabelNeverCutsTheAmount: 👩‍🔬 is drawn 4 cells wide by tmux though
// measured 2: rows holding it must be as wide as the screen however a
// terminal draws it, with the amount whole.
func TestZWJLabelNeverCutsTheAmount(t *testing.T) {
	es := contracts(1, 3)
	es[0].Meta.Label = "👩‍🔬 lab notebook"
	es[0].Amount = 103194
	for _, w := range []int{80, 120, 200} {
		hs := newHarness(t, w, 10, servePages(es, 100))
		hs.settle(hs.m.Init())
		l := hs.lines()[2]
		if !strings.HasSuffix(l, "$103.194") || !strings.Contains(l, "👩🔬 lab") {
			t.Errorf("width %d: row %q", w, l)
		}
		// The widest a terminal can draw it: every rune on its own.
		if got := runeWidths(ansi.Strip(l)); got != w {
			t.Errorf("width %d: row drawn rune by rune is %d cells: %q", w, got, l)
		}
	}
}

// runeWidths is s drawn one rune at a time, as a terminal that joins no
// sequence draws it.
func runeWidths(s string) int {
	n := 0
	for _, r := range s {
		n += ansi.StringWidth(string(r))
	}
	return n
}

// TestDescriptionRoomAt80: at 80 columns the text column gets over twenty
// cells (the dates keep their start, the duration says "running" for a
// running contract), the amount stays whole, and at 120 the full start →
// end comes back.
func TestDescriptionRoomAt80(t *testing.T) {
	es := contracts(1, 3)
	es[0].Description = "2x RTX 4090 on machine 31337"
	es[0].End = testNow.Unix() // still running
	es[0].Amount = 123456789
	hs := newHarness(t, 80, 10, servePages(es, 100))
	hs.settle(hs.m.Init())
	l := hs.lines()[2]
	if !strings.Contains(l, "job-1 · 2x RTX 4090") || !strings.Contains(l, "running") || !strings.HasSuffix(l, "$123,456.789") {
		t.Fatalf("row at 80: %q", l)
	}
	if c := layoutCols(80, 7, 0, false); c.text < 20 {
		t.Errorf("text column at 80: %d cells", c.text)
	}
	if c := layoutCols(80, 7, idTree, true); c.text < 12 || c.id != idTree {
		t.Errorf("tree at 80: %+v", c)
	}
	wide := newHarness(t, 120, 10, servePages(es, 100))
	wide.settle(wide.m.Init())
	if l := wide.lines()[2]; !strings.Contains(l, "→ running") {
		t.Fatalf("row at 120: %q", l)
	}
}

// TestIDColumnGrowsToTheLongestID: a wide screen shows a long id whole
// rather than "serverl…" beside a hundred blank cells; a narrow one keeps
// the id's end, the number that tells contracts apart.
func TestIDColumnGrowsToTheLongestID(t *testing.T) {
	es := contracts(1, 3)
	es[0].Source = "serverless-9011261" // not its type's prefix: shown whole
	hs := newHarness(t, 200, 10, servePages(es, 100))
	hs.settle(hs.m.Init())
	if l := hs.lines()[2]; !strings.Contains(l, "▸ serverless-9011261 job-1") {
		t.Errorf("at 200 the id is not whole: %q", l)
	}
	row, head := hs.lines()[2], hs.lines()[1]
	if at := strings.Index(head, "LABEL"); at < 0 || shared.Width(head[:at]) != shared.Width(row[:strings.Index(row, "job-1")]) {
		t.Errorf("at 200 the heading is not over the grown column:\n%s\n%s", head, row)
	}
	narrow := newHarness(t, 80, 10, servePages(es, 100))
	narrow.settle(narrow.m.Init())
	l := narrow.lines()[2]
	if strings.Contains(l, "serverl…") || !strings.Contains(l, "9011261 job-1") {
		t.Errorf("at 80 the id lost its number: %q", l)
	}
	if c := layoutCols(80, 7, 20, false); c.text < textWant {
		t.Errorf("the id grew into the text's room at 80: %+v", c)
	}
}

// TestDescriptionNeverRepeatsTheID: "Instance 9007485: 1x A100 SXM4" beside
// the id 9007485 shows from the GPU on, and a cut never halves a word: "1x
// A10…" would name another GPU. The detail pane keeps the description whole.
func TestDescriptionNeverRepeatsTheID(t *testing.T) {
	es := contracts(9007485, 3)
	es[0].Meta.Label = ""
	es[0].Description = "Instance 9007485: 1x A100 SXM4 (serverless worker)"
	es[1].Meta.Label = ""
	es[1].Description = "Runs after instance 9007486 restarted" // mentioned, not a lead
	es[2].Meta.Label = ""
	es[2].Description = "Serverless endpoint 9007487 (whisper-asr)"
	for _, w := range []int{80, 120} {
		hs := newHarness(t, w, 10, servePages(es, 100))
		hs.settle(hs.m.Init())
		l := hs.lines()[2]
		if !strings.Contains(l, "▸ 9007485  1x A100 SXM4") || strings.Contains(l, "Instance 9007485") {
			t.Errorf("width %d: row %q", w, l)
		}
		if strings.Contains(l, "A10…") || strings.Contains(l, "SXM…") {
			t.Errorf("width %d: a word cut in half: %q", w, l)
		}
		if l := hs.lines()[3]; !strings.Contains(l, "Runs after instance") {
			t.Errorf("width %d: a mention of the id was cut: %q", w, l)
		}
		if l := hs.lines()[4]; !strings.Contains(l, "▸ 9007487  whisper-asr ") {
			t.Errorf("width %d: a two-word lead stays: %q", w, l)
		}
		hs.settle(hs.press("i"))
		if v := hs.view(); !strings.Contains(v, "Instance 9007485: 1x A100 SXM4") {
			t.Errorf("width %d: the detail pane lost the description:\n%s", w, v)
		}
	}
}
