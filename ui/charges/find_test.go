package charges

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/keymap"
	"github.com/vastdash/vastdash/ui/shared"
)

// findEntries are 150 contracts over two pages of 100; three mention an
// A100, in the description, the label and (upper case) the source.
func findEntries() []api.Charge {
	es := contracts(1, 150)
	es[3].Description = "A100 SXM instance"
	es[40].Meta.Label = "a100 sweep"
	es[120].Source = "instance-A100x" // on the second page
	return es
}

// TestFindFiltersAsYouType: / opens the find field, which has the keyboard
// (q and digits are typed), each key narrows the rows over what is loaded,
// the footer counts the matches, sums them and says more is loading; enter
// keeps the filter and esc clears it.
func TestFindFiltersAsYouType(t *testing.T) {
	es := findEntries()
	// Gated: the second page comes only when the test lets it, so the
	// rows filtered are exactly the first page's.
	hs := newHarness(t, 100, 24, gated(es, 100))
	cmd := hs.m.Init()
	hs.pager(0).Allow(1)
	hs.settle(cmd)
	if hs.m.fl.Entries() != 100 {
		t.Fatalf("%d entries loaded, want the first page", hs.m.fl.Entries())
	}
	hs.press("/") // not settled: the field's cursor blinks forever
	if !hs.m.Capturing() {
		t.Fatal("the find field must capture the keyboard")
	}
	hs.typeText("a1")
	if n := hs.m.tree.Len(); n != 2 { // a100 on page 1: es[3], es[40]
		t.Fatalf("%d rows after typing a1, want 2: %v", n, hs.rowNames())
	}
	hs.typeText("q")
	if hs.m.find != "a1q" || hs.m.tree.Len() != 0 {
		t.Fatalf("q must be typed into the field: find %q, %d rows", hs.m.find, hs.m.tree.Len())
	}
	if v := hs.view(); !strings.Contains(v, "no loaded entry matches /a1q (more still loading)") {
		t.Fatalf("no match not said:\n%s", v)
	}
	hs.press("backspace")
	hs.typeText("00")
	if hs.m.tree.Len() != 2 {
		t.Fatalf("rows %v", hs.rowNames())
	}
	want := sumOf([]api.Charge{es[3], es[40]})
	foot := hs.lines()[len(hs.lines())-1]
	if !strings.Contains(foot, "/a100: 2 of 100 loaded match · "+want.String()+" · more still loading") {
		t.Fatalf("footer %q", foot)
	}
	hs.settle(hs.press("enter"))
	if hs.m.Capturing() || hs.m.find != "a100" {
		t.Fatalf("enter must keep the filter and give the keyboard back: capturing %v, find %q", hs.m.Capturing(), hs.m.find)
	}
	// Moving to the end loads the next page; its match joins the rows.
	// A filter leaving few rows keeps loading onward, so the find covers
	// the range; the next page's match joins the rows.
	// typeText dropped the commands of the keys typed, the listener
	// among them (with the field's blink, which never ends): forget it.
	hs.m.fl.Unlisten()
	hs.pager(0).Allow(1)
	hs.settle(hs.press("G"))
	if !hs.m.fl.State().Done || hs.m.tree.Len() != 3 {
		t.Fatalf("done %v, rows %v", hs.m.fl.State().Done, hs.rowNames())
	}
	foot = hs.lines()[len(hs.lines())-1]
	if !strings.Contains(foot, "/a100: 3 of 150 match") || strings.Contains(foot, "loading") {
		t.Fatalf("footer %q", foot)
	}
	// An open entry stays open through the filter's end.
	hs.settle(hs.press("enter"))
	hs.settle(hs.press("esc"))
	if hs.m.find != "" || hs.m.tree.Len() != 150+4 {
		t.Fatalf("esc must clear the filter: find %q, %d rows", hs.m.find, hs.m.tree.Len())
	}
	if r := hs.m.tree.At(hs.m.cursor); r.node.Source != "instance-A100x" || !r.expanded {
		t.Fatalf("cursor on %s (open %v), want the open instance-A100x", r.node.Source, r.expanded)
	}
}

// TestFindEscInFieldClears: esc in the field ends the filter at once.
func TestFindEscInFieldClears(t *testing.T) {
	hs := newHarness(t, 100, 24, gated(findEntries(), 100)) // one page only
	cmd := hs.m.Init()
	hs.pager(0).Allow(1)
	hs.settle(cmd)
	hs.press("/") // not settled: the field's cursor blinks forever
	hs.typeText("job-7")
	if hs.m.tree.Len() != 11 { // job-7, job-70..job-79
		t.Fatalf("rows %v", hs.rowNames())
	}
	hs.settle(hs.press("esc"))
	if hs.m.Capturing() || hs.m.find != "" || hs.m.tree.Len() != 100 {
		t.Fatalf("capturing %v, find %q, %d rows", hs.m.Capturing(), hs.m.find, hs.m.tree.Len())
	}
}

// TestFindHelpListsFieldKeys: while the field is open the help names only
// what works there, the keys that move over the matches too.
func TestFindHelpListsFieldKeys(t *testing.T) {
	hs := newHarness(t, 100, 24, servePages(findEntries(), 100))
	hs.settle(hs.m.Init())
	hs.press("/") // not settled: the field's cursor blinks forever
	var got []string
	for _, b := range hs.m.Help().ShortHelp() {
		got = append(got, b.Help().Key)
	}
	if strings.Join(got, " ") != "enter esc ↑ ↓ ctrl+u" { // keep, clear, move over the matches, empty the field
		t.Fatalf("find help %v", got)
	}
}

// TestRevealClearsFind: the Overview's enter must land on its contract even
// when a find filter hides it.
func TestRevealClearsFind(t *testing.T) {
	hs := newHarness(t, 100, 24, servePages(findEntries(), 100))
	hs.settle(hs.m.Init())
	hs.press("/") // not settled: the field's cursor blinks forever
	hs.typeText("a100")
	hs.settle(hs.press("enter"))
	hs.settle(hs.m.Reveal("instance-9"))
	if hs.m.find != "" || hs.m.tree.At(hs.m.cursor).node.Source != "instance-9" {
		t.Fatalf("find %q, cursor on %s", hs.m.find, hs.m.tree.At(hs.m.cursor).node.Source)
	}
}

// TestMatchKeysAsBound: the keys that move over the matches while the find
// field is open come from [keys] too.
func TestMatchKeysAsBound(t *testing.T) {
	b, err := keymap.Bind(map[string][]string{"match-down": {"ctrl+n"}})
	if err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, 100, 24, gated(findEntries(), 100))
	hs.m.ctx.Keys = b
	hs.m = New(hs.m.ctx)
	hs.m.SetSize(100, 24)
	cmd := hs.m.Init()
	hs.pager(0).Allow(1)
	hs.settle(cmd)
	hs.press("/") // not settled: the field's cursor blinks forever
	hs.typeText("job-7")
	if hs.m.cursor != 0 {
		t.Fatalf("cursor %d", hs.m.cursor)
	}
	hs.press("down")
	if hs.m.cursor != 0 {
		t.Fatal("↓ still moves over the matches")
	}
	hs.m.Update(tea.KeyPressMsg{Code: 'n', Mod: tea.ModCtrl})
	if hs.m.cursor != 1 || hs.m.findInput.Value() != "job-7" {
		t.Fatalf("ctrl+n: cursor %d, field %q", hs.m.cursor, hs.m.findInput.Value())
	}
	if help := shared.Hint(hs.m.Help().ShortHelp()...); !strings.Contains(help, "ctrl+n next match") {
		t.Errorf("help %q", help)
	}
}
