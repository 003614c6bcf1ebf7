// Package textwrap breaks text into lines at spaces, by display width: the
// help and manual of the command line and the Overview's notes wrap the
// same way.
package textwrap

import (
	"strings"

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
