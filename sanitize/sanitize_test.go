package sanitize

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain label", "plain label"},
		{"\x1b]0;pwned\x07my-label", "my-label"},
		{"\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"\x1b[2J\x1b[Hcleared", "cleared"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"a\tb\nc\rd", "a b c d"},
		{"bell\x07 del\x7f", "bell del"},
		{"c1\u009b31m csi", "c1 csi"},
		{"\u009d0;title\u009clabel", "label"},
		{"\u00900;x\u009cok", "ok"},
		{"next\u0085line", "nextline"},
		{"admin\u202Etxt.exe", "admintxt.exe"},
		{"\u2066iso\u2069", "iso"},
		{"訓練 🚀", "訓練 🚀"},
		{"family 👩\u200d👩\u200d👧", "family 👩\u200d👩\u200d👧"},
		{"bad \xff\xfe utf8", "bad \uFFFD utf8"},
		{"\x00nul", "nul"},
	}
	for _, c := range cases {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestShort(t *testing.T) {
	if got := Short("abcdef", 4); got != "abc…" {
		t.Fatalf("got %q", got)
	}
	if got := Short("abc", 4); got != "abc" {
		t.Fatalf("got %q", got)
	}
	if got := Short("訓練訓練訓練", 3); got != "訓練…" {
		t.Fatalf("got %q", got)
	}
}

func checkSafe(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("String(%q) is not valid UTF-8: %q", in, out)
	}
	for _, r := range out {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || isBidiControl(r) {
			t.Fatalf("String(%q) = %q keeps control %U", in, out, r)
		}
	}
	if ansi.StringWidth(out) < 0 {
		t.Fatalf("negative width for %q", out)
	}
	if String(out) != out {
		t.Fatalf("String is not idempotent on %q", in)
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b]0;t\x07x", "\x1b[1;31mX", "\x1bP+q\x1b\\", "\u009b2J", "\xff", "\u202Eabc",
		"\x1b", "\x1b[", "\x1b]", "訓練 🚀", strings.Repeat("\x1b[0m", 100),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkSafe(t, s, String(s))
	})
}
