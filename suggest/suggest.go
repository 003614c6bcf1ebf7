// Package suggest finds the names nearest a mistyped one, for the "did you
// mean" of a usage error (an unknown flag) and of a settings error (an
// unknown key action): one measure of "near" for both.
package suggest

import "strings"

// Distance is the Levenshtein distance of a and b, counted in runes: one
// insertion, deletion or substitution is one edit, however many bytes the
// character takes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Closest returns the names nearest to typed, compared in lower case, at
// most edits away: every name at the least distance, in the order of
// names; nil when none is that close. With prefixes, a name that starts
// with what was typed, or that the typed word starts with, counts as one
// edit when at least 3 bytes were typed ("api-key" finds "api-key-file").
func Closest(typed string, names []string, most int, prefixes bool) []string {
	low := strings.ToLower(typed)
	best, out := most, []string(nil)
	for _, n := range names {
		d := Distance(low, n)
		if prefixes && len(low) >= 3 && (strings.HasPrefix(n, low) || strings.HasPrefix(low, n)) {
			d = min(d, 1)
		}
		switch {
		case d > best:
		case d < best || out == nil:
			best, out = d, []string{n}
		default:
			out = append(out, n)
		}
	}
	return out
}
