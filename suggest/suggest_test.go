package suggest

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "json", 4},
		{"jsn", "json", 1},
		{"timout", "timeout", 1},
		{"oldest-frist", "oldest-first", 2},
		{"kitten", "sitting", 3},
		// A character of several bytes is one edit, not one per byte.
		{"sëarch", "search", 1},
		{"tïmeout", "timeout", 1},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Distance(c.b, c.a); got != c.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"json", "jq", "timeout", "api-key-file", "group-by", "help-up", "help-down"}
	for _, c := range []struct {
		typed    string
		most     int
		prefixes bool
		want     []string
	}{
		{"jsn", 1, false, []string{"json"}},
		{"JSN", 1, false, []string{"json"}}, // any case
		{"xyzzy", 2, false, nil},            // far from every name
		{"timot", 1, false, nil},            // two edits, only one allowed
		{"timot", 2, false, []string{"timeout"}},
		{"help-u", 2, false, []string{"help-up"}},
		{"help-dwn", 2, false, []string{"help-down"}},           // the nearer wins
		{"help-dn", 2, false, []string{"help-up", "help-down"}}, // ties, in the order given
		{"js", 2, false, []string{"jq"}},
		{"api-key", 2, false, nil},
		{"api-key", 2, true, []string{"api-key-file"}},
		{"group", 2, true, []string{"group-by"}},
		{"gr", 0, true, nil}, // too short for a prefix to count
	} {
		if got := Closest(c.typed, names, c.most, c.prefixes); !slices.Equal(got, c.want) {
			t.Errorf("Closest(%q, %d, %v) = %q, want %q", c.typed, c.most, c.prefixes, got, c.want)
		}
	}
}
