package cli

import (
	"io"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
)

// Everything vastdash prints on a terminal goes out through a wordWrapper:
// stderr (every note, error, prompt and total) from the start of the run,
// and stdout for a text answer (Session.answer). A line that would run
// past the terminal's width is broken between words, never inside one, and
// continues indented under itself, as the help and the sign-in screen
// break theirs: the terminal's own wrap would cut "payme" / "nts". Lines
// that fit pass unchanged; in a pipe (width 0) nothing is wrapped, so a
// script reads every line whole. JSON and CSV are never wrapped.

// wordWrapper writes to w, breaking lines at spaces to fit width cells.
// Its writes are serialised: stderr is written from the command's
// goroutine and from a feed's loader (a wait notice).
type wordWrapper struct {
	mu    sync.Mutex
	w     io.Writer
	width int
	// col is the cells on the current line, as written.
	col int
	// lead is true until the current line's first word: spaces there are
	// its indent, kept.
	lead bool
	// hang is the indent of the current line's continuations.
	hang string
	// spaces are the spaces after the last word, written only when the
	// next word goes on the same line (a break drops them).
	spaces int
	// inWord is true when the last byte written ended a word that the
	// next write may continue ("$" then "12.5"): it is never broken.
	inWord bool
	// indent is the current line's own indent, for its hang.
	indent string
	// gap is the column of the word after the last run of two spaces or
	// more on the line's first row (an aligned column's text), 0 for
	// none; broken is set once the line was broken.
	gap    int
	broken bool
}

// newWordWrapper is w wrapped at width cells; w itself when width is 0 (a
// pipe) or w already wraps.
func newWordWrapper(w io.Writer, width int) io.Writer {
	if _, ok := w.(*wordWrapper); ok || width <= 0 {
		return w
	}
	return &wordWrapper{w: w, width: width, lead: true}
}

// unwrapped is the stream under w when it is a wordWrapper (serve's log,
// a machine format, is written whole), else w.
func unwrapped(w io.Writer) io.Writer {
	if ww, ok := w.(*wordWrapper); ok {
		return ww.w
	}
	return w
}

// lineTyped tells w that the user ended a line on the terminal (the
// answer to a question, echoed): the next write starts a line.
func lineTyped(w io.Writer) {
	if ww, ok := w.(*wordWrapper); ok {
		ww.mu.Lock()
		ww.startLine()
		ww.mu.Unlock()
	}
}

func (ww *wordWrapper) startLine() {
	ww.col, ww.lead, ww.hang, ww.indent, ww.spaces, ww.inWord = 0, true, "", "", 0, false
	ww.gap, ww.broken = 0, false
}

// Write writes p, breaking lines where they would pass the width. It
// reports len(p) written when the writes under it succeed.
func (ww *wordWrapper) Write(p []byte) (int, error) {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	var out strings.Builder
	s := string(p)
	for len(s) > 0 {
		switch c := s[0]; {
		case c == '\n' || c == '\r':
			out.WriteByte(c)
			ww.startLine()
			s = s[1:]
		case c == ' ':
			n := len(s) - len(strings.TrimLeft(s, " "))
			if ww.lead {
				out.WriteString(s[:n])
				ww.indent += s[:n]
				ww.col += n
			} else {
				ww.spaces += n
			}
			ww.inWord = false
			s = s[n:]
		default:
			n := strings.IndexAny(s, " \n\r")
			if n < 0 {
				n = len(s)
			}
			ww.word(&out, s[:n])
			s = s[n:]
		}
	}
	// Spaces that end a write that fit end it (a prompt's "[y/N] "):
	// a line they end has nothing after them to break before.
	if ww.spaces > 0 && ww.col+ww.spaces <= ww.width {
		out.WriteString(strings.Repeat(" ", ww.spaces))
		ww.col += ww.spaces
		ww.spaces = 0
	}
	if _, err := io.WriteString(ww.w, out.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// word puts one word (or the rest of one begun by the last write) on the
// line, first breaking the line when it would not fit and a break helps.
func (ww *wordWrapper) word(out *strings.Builder, word string) {
	w := ansi.StringWidth(word)
	if w == 0 {
		// An escape sequence ("\x1b[2K" after a progress line's \r)
		// takes no cells and is not the line's first word.
		out.WriteString(word)
		return
	}
	if ww.lead {
		ww.lead = false
		// Continuations hang under the text of a note ("vastdash: …"),
		// else two cells in from the line's indent.
		ww.hang = ww.indent + "  "
		if word == "vastdash:" {
			ww.hang = ww.indent + strings.Repeat(" ", w+1)
		}
		if 2*ansi.StringWidth(ww.hang) > ww.width {
			ww.hang = ""
		}
	}
	if ww.spaces >= 2 && !ww.broken && !ww.inWord {
		ww.gap = ww.col + ww.spaces
	}
	hang := ansi.StringWidth(ww.hang)
	if !ww.inWord && ww.col+ww.spaces+w > ww.width && ww.col > hang {
		if !ww.broken && ww.gap > hang && 2*ww.gap <= ww.width {
			// "user_read  ✓  the credit and" goes on under "the":
			// a row of aligned columns keeps its last one.
			ww.hang = strings.Repeat(" ", ww.gap)
			hang = ww.gap
		}
		ww.broken = true
		out.WriteString("\n" + ww.hang)
		ww.col, ww.spaces = hang, 0
	}
	out.WriteString(strings.Repeat(" ", ww.spaces))
	out.WriteString(word)
	ww.col += ww.spaces + w
	ww.spaces = 0
	ww.inWord = true
}
