package shared

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// FirstFit returns the first of texts (longest wording first) that fits in
// w cells, else the last cut to w: a narrow terminal then loses words
// before it cuts an amount in half ("threshold: $…").
func FirstFit(w int, texts ...string) string {
	for _, t := range texts {
		if Width(t) <= w {
			return t
		}
	}
	if len(texts) == 0 {
		return ""
	}
	return Truncate(texts[len(texts)-1], w)
}

// CutWords cuts plain text s (sanitized, unstyled) to at most w cells at a
// word's end, ending in "…" when cut: "1x A100 SXM4 (serverless…", never
// "1x A10…", which names another GPU. A word that would leave more than
// half the room blank (a long label, a path) is cut where it must be.
func CutWords(s string, w int) string {
	if Width(s) <= w {
		return s
	}
	if w <= 1 {
		return Truncate(s, w)
	}
	t := ansi.Truncate(s, w-1, "")
	if !strings.HasPrefix(s, t) {
		return Truncate(s, w)
	}
	if len(t) < len(s) && s[len(t)] != ' ' {
		if i := strings.LastIndexByte(t, ' '); i > 0 && 2*Width(t[:i]) >= w {
			t = t[:i]
		}
	}
	// "label ·" at the end of a cut says nothing the "…" does not.
	t = strings.TrimRight(t, " ·")
	if t == "" {
		return Truncate(s, w)
	}
	return t + "…"
}
