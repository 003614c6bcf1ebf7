package overview

import "strings"

// glyphs are 5 pixels tall; bigText draws two pixel rows per terminal row
// with half blocks, so a figure is 3 rows tall. '#' is ink.
var glyphs = map[rune][5]string{
	'0': {"###", "#.#", "#.#", "#.#", "###"},
	'1': {".#.", "##.", ".#.", ".#.", "###"},
	'2': {"###", "..#", "###", "#..", "###"},
	'3': {"###", "..#", ".##", "..#", "###"},
	'4': {"#.#", "#.#", "###", "..#", "..#"},
	'5': {"###", "#..", "###", "..#", "###"},
	'6': {"###", "#..", "###", "#.#", "###"},
	'7': {"###", "..#", "..#", ".#.", ".#."},
	'8': {"###", "#.#", "###", "#.#", "###"},
	'9': {"###", "#.#", "###", "..#", "###"},
	'$': {".##", "#..", ".#.", "..#", "##."},
	'-': {"...", "...", "###", "...", "..."},
	',': {".", ".", ".", "#", "#"},
	'.': {".", ".", ".", ".", "#"},
}

// bigRows is the number of terminal rows bigText returns.
const bigRows = 3

// bigText draws s ("$1,234.57") three rows tall. ok is false when s holds a
// character without a glyph; the caller then writes it small.
func bigText(s string) (rows [bigRows]string, ok bool) {
	var b [bigRows]strings.Builder
	first := true
	for _, r := range s {
		g, found := glyphs[r]
		if !found {
			return rows, false
		}
		if !first {
			for i := range b {
				b[i].WriteByte(' ')
			}
		}
		first = false
		for row := 0; row < bigRows; row++ {
			top := g[2*row]
			var bottom string
			if 2*row+1 < len(g) {
				bottom = g[2*row+1]
			}
			for col := 0; col < len(top); col++ {
				t := top[col] == '#'
				u := bottom != "" && bottom[col] == '#'
				switch {
				case t && u:
					b[row].WriteString("█")
				case t:
					b[row].WriteString("▀")
				case u:
					b[row].WriteString("▄")
				default:
					b[row].WriteByte(' ')
				}
			}
		}
	}
	for i := range b {
		rows[i] = b[i].String()
	}
	return rows, true
}
