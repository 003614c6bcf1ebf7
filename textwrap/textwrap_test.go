package textwrap

import (
	"slices"
	"testing"
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
