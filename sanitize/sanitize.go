// Package sanitize makes text chosen by a server safe to print on a terminal.
//
// Labels, descriptions and error messages come from the API; a hostile or
// broken one could carry escape sequences that retitle the terminal, clear the
// screen or recolour what follows, or bidi overrides that make text lie about
// its order. Everything the server sends goes through String before display.
package sanitize

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// String returns s with escape sequences (CSI, OSC, DCS, …) removed, other
// control characters (C0, DEL, C1) removed, tabs and line breaks turned into
// spaces, bidi controls removed and invalid UTF-8 replaced by U+FFFD. Plain
// printable ASCII is returned as is, without allocating.
func String(s string) string {
	if isPlain(s) {
		return s
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = sevenBitC1(s)
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansi.Strip(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			// Control characters are dropped, not shown as symbols: the user
			// gains nothing from seeing them.
		case isBidiControl(r) || r == '\uFEFF':
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Short sanitizes s and cuts it to at most n runes, ending in "…" when cut.
// Error messages quote server bodies through it.
func Short(s string, n int) string {
	s = String(s)
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, count := 0, 0
	for j := range s {
		if count == n-1 {
			i = j
			break
		}
		count++
	}
	return s[:i] + "…"
}

// sevenBitC1 rewrites C1 controls (U+0080–U+009F) as their 7-bit forms, ESC
// followed by a letter, so that ansi.Strip removes a sequence such as
// U+009D 0;title U+009C whole instead of leaving its text behind: the parser
// only knows the 7-bit introducers in UTF-8 text.
func sevenBitC1(s string) string {
	has := false
	for _, r := range s {
		if r >= 0x80 && r <= 0x9f {
			has = true
			break
		}
	}
	if !has {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		if r >= 0x80 && r <= 0x9f {
			b.WriteByte(0x1b)
			b.WriteByte(byte(r - 0x40))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// isBidiControl reports the explicit directional formatting characters, which
// can reorder how the rest of a line reads (Trojan Source).
func isBidiControl(r rune) bool {
	switch {
	case r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069':
		return true
	case r == '\u200E', r == '\u200F', r == '\u061C':
		return true
	}
	return false
}
