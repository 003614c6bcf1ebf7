package cli

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/sanitize"
)

// Every command writes its answer through the functions here: one buffered
// write to stdout, checked at the flush; JSON, CSV and aligned text tables
// written one way for all of them.

// answerBuffer is the size of the buffer an answer is written through: few
// system calls for a long table, and memory that does not grow with it.
const answerBuffer = 64 << 10

// answer writes a command's answer to stdout with write. It returns write's
// error, else a *writeErr when stdout could not take it (a full disk,
// /dev/full, a closed pipe): a script must not read an exit 0 as "the
// answer is in the file" when the file is empty or cut. The flush is where
// a short answer meets the file at all: checking only write's error would
// miss /dev/full.
func (s *Session) answer(write func(w io.Writer) error) error {
	bw := bufio.NewWriterSize(s.stdout, answerBuffer)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return &writeErr{err}
	}
	return nil
}

// linesOf writes lines, one per line.
func linesOf(lines []string) func(w io.Writer) error {
	return func(w io.Writer) error {
		for _, l := range lines {
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
		return nil
	}
}

// writeJSON writes v as JSON, "<" and "&" kept readable (still valid JSON).
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeCSV writes rows, the header first.
func writeCSV(w io.Writer, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// writeTable writes a small table (a grouping's rows, a statement's
// months, payment records) with the columns aligned two spaces apart, those
// from right on right-aligned, the header first.
func writeTable(w io.Writer, rows [][]string, right int) error {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], ansi.StringWidth(cell))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-ansi.StringWidth(cell))
			if i > 0 {
				b.WriteString("  ")
			}
			if i >= right {
				b.WriteString(pad + cell)
			} else if i < len(row)-1 {
				b.WriteString(cell + pad)
			} else {
				b.WriteString(cell)
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// cut sanitizes a server's string and caps its display width at cells.
func cut(s string, cells int) string {
	return ansi.Truncate(sanitize.String(s), cells, "…")
}

// The walk over entries and the time formats are those of the CSV export,
// which the dashboard's e shares with --output csv: the text and JSON
// outputs use them too, so the three agree.
var (
	walk       = export.Walk
	formatTime = export.Time
	timeIn     = export.In
	rfc3339    = export.RFC3339
)
