package shared

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFit(t *testing.T) {
	cases := []struct {
		in   string
		w    int
		want string
	}{
		{"abc", 5, "abc  "},
		{"abcdef", 4, "abc…"},
		{"訓練訓練", 5, "訓練…"},
		{"\x1b]0;x\x07ok", 3, "ok "},
		{"abc", 0, ""},
	}
	for _, c := range cases {
		got := Fit(c.in, c.w)
		if got != c.want {
			t.Errorf("Fit(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
		if ansi.StringWidth(got) != c.w {
			t.Errorf("Fit(%q, %d) is %d wide", c.in, c.w, ansi.StringWidth(got))
		}
	}
}

func TestBlock(t *testing.T) {
	out := Block([]string{"first line that is long", "x"}, 6, 3)
	lines := strings.Split(out, "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if ansi.StringWidth(l) != 6 {
			t.Fatalf("line %q is not 6 wide", l)
		}
	}
	if Block(nil, 0, 5) != "" {
		t.Fatal("zero width must render nothing")
	}
}
