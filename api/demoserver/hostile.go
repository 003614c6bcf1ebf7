package demoserver

import "strings"

// hostileWraps are put around every free-text string in Hostile mode. Each
// pair carries all the kinds of trouble a terminal client must neutralise:
// ESC-introduced CSI and OSC sequences (screen clears, title changes, OSC 8
// links, OSC 52 clipboard writes), the right-to-left override U+202E, zero
// width joiners and raw C1 controls (U+0080..U+009F, e.g. the one-byte CSI
// U+009B).
var hostileWraps = [...]struct{ pre, post string }{
	{"\x1b[31;1m\x1b]0;pwned\x07", "\u202e\u200d\u009b2J\x1b[0m"},
	{"\u202e\x1b[2J\x1b[H", "\u200d\u200d\u0085\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"},
	{"\x1b]52;c;ZWNobyBwd25lZA==\x07\u009d0;title\u009c", "\u202e\u200d\x1b[?1049h"},
	{"\u0090qevil\u009c\x1b[6n", "\u202e\u200d\x1b[5m\x1b[8m\r\n"},
}

// hostile decorates s; n picks the variant so neighbouring rows differ.
func hostile(s string, n int64) string {
	if n < 0 {
		n = -n
	}
	w := hostileWraps[n%int64(len(hostileWraps))]
	return w.pre + s + w.post
}

// hostileLabel makes a label of about 2 KB: the decorated label followed by
// wide and zero-width filler, to break any layout that trusts label length.
func hostileLabel(l string, i int) string {
	var b strings.Builder
	b.WriteString(hostile(l, int64(i)))
	filler := [...]string{"▓░", "訓練", "e\u0301", "\u200d👩\u200d🔬", "\x1b[7m!\x1b[0m"}
	for k := 0; b.Len() < 2048; k++ {
		b.WriteString(filler[(i+k)%len(filler)])
	}
	return b.String()
}
