package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/api/demoserver"
)

// The wrapper breaks a line between words, never in one, hangs the rest
// under the line (under the text of a "vastdash:" note), keeps a prompt's
// trailing space and leaves lines that fit alone.
func TestWordWrapperBreaksBetweenWords(t *testing.T) {
	for _, c := range []struct {
		name   string
		writes []string
		width  int
		want   string
	}{
		{"fits", []string{"a short line\n"}, 20, "a short line\n"},
		{"note", []string{"vastdash: each month closes where the next one opens\n"}, 30,
			"vastdash: each month closes\n          where the next one\n          opens\n"},
		{"indented", []string{"  user_read  ✓  the credit and the e-mail\n"}, 24,
			"  user_read  ✓  the\n    credit and the\n    e-mail\n"},
		{"a word longer than the line stays whole", []string{"see https://cloud.vast.ai/manage-keys/ now\n"}, 20,
			"see\n  https://cloud.vast.ai/manage-keys/\n  now\n"},
		{"an aligned row hangs under its last column", []string{"billing_read   ✓  charges, spend, burn and runway\n"}, 40,
			"billing_read   ✓  charges, spend, burn\n                  and runway\n"},
		{"a note after a progress line's erase", []string{"\r\x1b[2K", "vastdash: each month closes where the next one opens\n"}, 30,
			"\r\x1b[2Kvastdash: each month closes\n          where the next one\n          opens\n"},
		{"prompt", []string{"Replace it? [y/N] "}, 40, "Replace it? [y/N] "},
		{"a word across two writes is not broken", []string{"total $", "12,345.678\n"}, 10, "total $12,345.678\n"},
		{"carriage return starts over", []string{"\r\x1b[2Kfetching charges…\r\x1b[2Kdone\n"}, 20, "\r\x1b[2Kfetching charges…\r\x1b[2Kdone\n"},
		{"pipe", []string{"a line far wider than the width\n"}, 0, "a line far wider than the width\n"},
	} {
		var b bytes.Buffer
		w := newWordWrapper(&b, c.width)
		for _, s := range c.writes {
			if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
				t.Fatalf("%s: wrote %d, %v", c.name, n, err)
			}
		}
		if b.String() != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, b.String(), c.want)
		}
	}
}

// splitWords is the words of narrow (a run at a terminal's width) that
// are not words of whole (the same run in a pipe): a word broken by a
// wrap, or cut by a table other than at its end ("crypto.…"). A table's
// cut at a word's end ("Instance…") is a whole word and "…".
func splitWords(narrow, whole string) []string {
	// A cut may fall after punctuation: "(bitcoin),…" of "(bitcoin),".
	bare := func(w string) string { return strings.TrimRight(w, ",;:)·") }
	words := map[string]bool{}
	for _, w := range strings.Fields(whole) {
		words[bare(w)] = true
	}
	var split []string
	for _, w := range strings.Fields(narrow) {
		cut, _ := strings.CutSuffix(w, "…")
		if w != "…" && !words[bare(w)] && !words[bare(cut)] {
			split = append(split, w)
		}
	}
	return split
}

// wrappedRows is the rows of a table in narrow (a run at a terminal's
// width) that went on over a second line: a line with a column gap (or
// the start of one of whole's lines that has one: "(no label)" of its
// row) followed by an indented line that no line of whole (the same run
// in a pipe) begins with — the rest of the row, hung under a column.
func wrappedRows(narrow, whole string) []string {
	var starts []string
	for _, l := range strings.Split(whole, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			starts = append(starts, t)
		}
	}
	lines := strings.Split(narrow, "\n")
	var rows []string
	for i := 1; i < len(lines); i++ {
		l, prev := lines[i], strings.TrimSpace(lines[i-1])
		row := strings.Contains(prev, "  ") || slices.ContainsFunc(starts, func(s string) bool {
			return strings.HasPrefix(s, prev) && strings.Contains(s[len(prev):], "  ")
		})
		if !strings.HasPrefix(l, " ") || !row {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimSpace(l), "  ")
		if !slices.ContainsFunc(starts, func(s string) bool { return strings.HasPrefix(s, first) }) {
			rows = append(rows, lines[i-1]+" / "+l)
		}
	}
	return rows
}

// Every command's text, answer and stderr alike, fits an 80- and a
// 40-column terminal and breaks only between words: statement's closing
// note broke "ne" / "xt one opens", auth status "payme" / "nts", credit
// --rate --runway "(unti" / "l 29 Nov)", payments --from left a lone ")"
// and cut SOURCE to "crypto.…". A pipe's run of the same command gives
// the words each must be one of.
func TestEveryCommandFitsTheTerminal(t *testing.T) {
	srv := auditServer(t)
	from := demoNow.AddDate(0, -2, 0).Format(time.DateOnly)
	runs := [][]string{
		{"credit"},
		{"credit", "--rate", "--runway"},
		{"charges", "--utc"},
		{"charges", "--group-by", "label", "--utc"},
		{"payments", "--utc"},
		{"payments", "--from", from, "--utc"},
		{"statement", "--months", "3", "--utc"},
		{"spend", "--utc"},
		{"audit"},
		{"notifications"},
		{"notifications", "--all"},
		{"webhooks"},
		{"auth", "status"},
	}
	for _, args := range runs {
		whole := auditRun(t, srv, demoserver.DemoKey, fastInstances, args...)
		for _, width := range []int{80, 76, 40} {
			res := auditRun(t, srv, demoserver.DemoKey, func(e *env) { fastInstances(e); atWidth(width)(e) }, args...)
			if res.code != whole.code {
				t.Errorf("%v at %d: exit %d, in a pipe %d", args, width, res.code, whole.code)
			}
			for _, out := range []struct{ name, narrow, whole string }{{"stdout", res.out, whole.out}, {"stderr", res.errOut, whole.errOut}} {
				for _, l := range tooWide(out.narrow, width) {
					// Only a word longer than the line may pass it, alone.
					if len(strings.Fields(l)) > 1 || ansi.StringWidth(strings.TrimSpace(l)) <= width {
						t.Errorf("%v at %d: %s line of %d cells: %q", args, width, out.name, ansi.StringWidth(l), l)
					}
				}
				// A table's row is one line at any width: at 40 columns
				// audit's and payments' rows ran over two and three, and
				// read as that many records. Its lower columns go
				// instead. (auth status and spend are lists whose last
				// column is prose: it goes on under itself.)
				if rows := wrappedRows(out.narrow, out.whole); len(rows) > 0 && !slices.Contains([]string{"auth", "spend"}, args[0]) {
					t.Errorf("%v at %d: %s rows wrapped:\n%s", args, width, out.name, strings.Join(rows, "\n"))
				}
				// At 40 columns a table keeps its key columns and cuts a
				// label where it must ("sd-xl archi…"); a wrap still
				// breaks no word.
				if width < 60 {
					continue
				}
				if split := splitWords(out.narrow, out.whole); len(split) > 0 {
					t.Errorf("%v at %d: %s words broken or cut: %q\n%s", args, width, out.name, split, out.narrow)
				}
			}
		}
	}
}
