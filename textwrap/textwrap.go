// Package textwrap breaks text into lines at spaces, by display width: the
// help and manual of the command line and the Overview's notes wrap the
// same way.
package textwrap

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Words breaks s into lines of at most width cells at spaces, runs of
// spaces folded. A word wider than width stands alone on its line, whole:
// a URL, a path or a date is never broken (a caller that must fit cuts the
// line). Empty text is no lines.
func Words(s string, width int) []string {
	var out []string
	cur := ""
	for _, word := range strings.Fields(s) {
		switch {
		case cur == "":
			cur = word
		case ansi.StringWidth(cur)+1+ansi.StringWidth(word) <= width:
			cur += " " + word
		default:
			out = append(out, cur)
			cur = word
		}
	}
	if cur != "" {
		out = append(out, cur)
	}
	return out
}

// Cut cuts plain text s (sanitized, unstyled) to at most w cells at a
// word's end, ending in "…" when cut: "1x A100 SXM4 (serverless…", never
// "1x A10…", which names another GPU. A word that would leave more than
// half the room blank (a long label, a path) is cut where it must be. The
// dashboard's rows and the commands' text tables cut this way.
func Cut(s string, w int) string {
	// A string far longer than any row (a hostile server's 1 MB label) is
	// measured only as far as a row could reach: 64 bytes a cell is more
	// than any grapheme a terminal draws needs, so what is left out was
	// never going to show, and a table of such rows costs its rows, not
	// their labels.
	capped := false
	if limit := 64 * (max(w, 0) + 1); len(s) > limit {
		for limit > 0 && !utf8.RuneStart(s[limit]) {
			limit--
		}
		s, capped = s[:limit], true
	}
	if !capped && ansi.StringWidth(s) <= w {
		return s
	}
	if w <= 1 {
		return truncate(s, w)
	}
	t := ansi.Truncate(s, w-1, "")
	if !strings.HasPrefix(s, t) {
		return truncate(s, w)
	}
	if len(t) < len(s) && s[len(t)] != ' ' {
		if i := strings.LastIndexByte(t, ' '); i > 0 && 2*ansi.StringWidth(t[:i]) >= w {
			t = t[:i]
		}
	}
	// "label ·" at the end of a cut says nothing the "…" does not.
	t = strings.TrimRight(t, " ·")
	if t == "" {
		return truncate(s, w)
	}
	return t + "…"
}

// truncate is s cut to w cells, ending in "…"; "" for no room.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}
