package textwrap

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestWords(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want []string
	}{
		{"", 10, nil},
		{"one two three", 7, []string{"one two", "three"}},
		{"  spaces   fold  ", 20, []string{"spaces fold"}},
		// A long word stands alone, whole; hyphens never break.
		{"from 2026-11-20T08:00:00Z on", 10, []string{"from", "2026-11-20T08:00:00Z", "on"}},
		// Width is in cells: a wide character counts two.
		{"訓練 ab", 5, []string{"訓練", "ab"}},
	} {
		if got := Words(c.s, c.w); !slices.Equal(got, c.want) {
			t.Errorf("Words(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

// TestCut: cuts fall between words, a first word too long is cut
// where it must be, and a dangling "·" goes.
func TestCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"1x A100 SXM4 (serverless worker)", 24, "1x A100 SXM4…"},
		{"1x A100 SXM4", 12, "1x A100 SXM4"},
		{"1x A100 SXM4", 10, "1x A100…"},
		{"checkpoints · Volume 1028865", 18, "checkpoints…"},
		{"mistral-7b-instruct-finetune", 10, "mistral-7…"},
		{"訓練ジョブ · RTX 4090 instance", 22, "訓練ジョブ · RTX 4090…"},
	} {
		if got := Cut(c.in, c.w); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

// A string far longer than its room is cut as a shorter one is: to the
// room, ending in "…", whatever lies beyond what a row could show.
func TestCutLongStringAsAShortOne(t *testing.T) {
	for _, s := range []string{strings.Repeat("y", 1<<20), strings.Repeat("ab ", 1<<18), strings.Repeat("é", 1<<19), strings.Repeat("👩‍🔬", 1<<16)} {
		got := Cut(s, 40)
		if w := ansi.StringWidth(got); w > 40 || !strings.HasSuffix(got, "…") {
			t.Errorf("Cut of %d bytes: %d cells, %q", len(s), w, got[:min(len(got), 60)])
		}
		if want := Cut(s[:4096], 40); got != want {
			t.Errorf("Cut of %d bytes is %q, of its first 4 KB %q", len(s), got, want)
		}
	}
	if got := Cut(strings.Repeat("\u200b", 1<<16), 10); ansi.StringWidth(got) > 10 {
		t.Errorf("invisible text cut to %d cells", ansi.StringWidth(got))
	}
}

// BenchmarkCutHugeLabel is one row's cell from a hostile 1 MB label: it
// costs what a short one does (was 0.2 s a cell, a table of 100 such rows
// 25 s).
func BenchmarkCutHugeLabel(b *testing.B) {
	s := strings.Repeat("y", 1<<20)
	for b.Loop() {
		_ = Cut(s, 40)
	}
}
