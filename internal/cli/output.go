package cli

import (
	"slices"
	"strconv"

	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/charmbracelet/x/ansi"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/export"
	"github.com/vastdash/vastdash/sanitize"
	"github.com/vastdash/vastdash/textwrap"
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
// A text answer on a terminal is wrapped at words to its width
// (wordWrapper); JSON and CSV are written as they are.
func (s *Session) answer(write func(w io.Writer) error) error {
	if s.accountNamed {
		// A run for a named account: its JSON says which (account.go).
		inner := write
		write = func(w io.Writer) error { return inner(&accountWriter{w, s.Account}) }
	}
	if !s.text {
		return answerTo(s.stdout, write)
	}
	return textTo(s.stdout, s.width, write)
}

// answerTo is answer on out, for the commands that need no session.
func answerTo(out io.Writer, write func(w io.Writer) error) error {
	return textTo(out, 0, write)
}

// textTo is answerTo for a text answer on a terminal width cells wide (0:
// a pipe): its lines broken at words to fit.
func textTo(out io.Writer, width int, write func(w io.Writer) error) error {
	bw := bufio.NewWriterSize(out, answerBuffer)
	err := write(newWordWrapper(bw, width))
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return &writeErr{err}
	}
	return nil
}

// outputFlags defines the one machine switch every command that prints
// takes: --output FORMAT, one of formats (the first is the default, "text"),
// and --json, its shorthand. p receives the format. The two given together
// must agree (--json --output json is fine): else one line says so.
func outputFlags(cmd *cobra.Command, p *string, formats ...string) {
	*p = formats[0]
	usage := orList(formats)
	switch {
	case slices.Contains(formats, "csv"):
		usage = "text (an aligned table), csv or json"
	case len(formats) == 2:
		usage = "text or json"
	}
	pick := &outputPick{p: p}
	cmd.Flags().Var(&outputValue{enumValue: &enumValue{p: p, name: "output", allowed: formats}, pick: pick}, "output", usage)
	completeWith(cmd, "output", formats...)
	f := cmd.Flags().VarPF(&jsonShorthand{pick}, "json", "", "the same as --output json")
	f.NoOptDefVal = "true"
}

// outputPick is what --output and --json said, so that whichever comes
// second sees a clash with the first.
type outputPick struct {
	p      *string
	output string // --output as given, "" when not
	json   bool   // --json given
}

// clash is the error of --json beside an --output of another format.
func (o *outputPick) clash() error {
	if o.json && o.output != "" && o.output != "json" {
		return badValue("--json and --output %s ask for two formats: give one", o.output)
	}
	return nil
}

// outputValue is --output: one of the formats, agreeing with --json.
type outputValue struct {
	*enumValue
	pick *outputPick
}

func (v *outputValue) Set(s string) error {
	if err := v.enumValue.Set(s); err != nil {
		return err
	}
	v.pick.output = *v.p
	return v.pick.clash()
}

// jsonShorthand is --json: --output json in one word.
type jsonShorthand struct{ pick *outputPick }

func (v *jsonShorthand) String() string { return strconv.FormatBool(*v.pick.p == "json") }

func (v *jsonShorthand) Set(s string) error {
	on, err := strconv.ParseBool(s)
	if err != nil {
		return badValue("--json %s: want true or false", argText(s))
	}
	if on {
		v.pick.json = true
		if err := v.pick.clash(); err != nil {
			return err
		}
		*v.pick.p = "json"
	}
	return nil
}

func (v *jsonShorthand) Type() string { return "bool" }

// IsBoolFlag lets --json stand alone, as a bool flag does.
func (v *jsonShorthand) IsBoolFlag() bool { return true }

// textOutput says whether c answers in text: its --output is text, or it
// has none.
func textOutput(c *cobra.Command) bool {
	f := c.Flags().Lookup("output")
	return f == nil || f.Value.String() == "text"
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
	if aw, ok := w.(*accountWriter); ok {
		var err error
		if v, err = withAccount(v, aw.name); err != nil {
			return err
		}
	}
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

// column is one column of a text table: its header, whether it is aligned
// right (amounts), and the most cells a cell takes (0: no cap), whatever the
// width, so that one huge server string cannot widen every row.
type column struct {
	header string
	right  bool
	most   int
}

// fitStep is one step of a table's way into a narrow terminal: column col
// shrinks to cells, or with cells 0 drops.
type fitStep struct{ col, cells int }

// table is a text table. On a terminal (width > 0) it fits the width as gh
// and kubectl tables do, taking the steps of fit in their stated order
// until it fits (a shrink gives up only the cells needed), and, if the
// steps leave it wider, cutting its widest text columns to no fewer than
// minCells each: a row is one line at any width (at 40 columns a row the
// terminal wrapped over three lines read as three records). In a pipe
// (width 0) every column is kept whole.
type table struct {
	cols  []column
	fit   []fitStep
	width int
	// indent leads every line (a list under a title); headless leaves the
	// header row out.
	indent   string
	headless bool
}

// layout is the cells each column gets, 0 for a dropped column.
func (t *table) layout(widths []int) []int {
	got := slices.Clone(widths)
	total := func() int {
		n, shown := 0, 0
		for _, w := range got {
			if w > 0 {
				n += w
				shown++
			}
		}
		return n + 2*max(shown-1, 0)
	}
	if t.width <= 0 {
		return got
	}
	room := t.width - ansi.StringWidth(t.indent)
	for _, st := range t.fit {
		over := total() - room
		if over <= 0 {
			break
		}
		switch {
		case got[st.col] == 0:
		case st.cells == 0:
			got[st.col] = 0
		case got[st.col] > st.cells:
			got[st.col] = max(st.cells, got[st.col]-over)
		}
	}
	// A column shrunk before a later step dropped another gets back the
	// cells that freed, the last shrunk first (payments' note, once the
	// status and the source went at 40 columns).
	for i := len(t.fit) - 1; i >= 0; i-- {
		c := t.fit[i].col
		if free := room - total(); free > 0 && got[c] > 0 && got[c] < widths[c] {
			got[c] = min(widths[c], got[c]+free)
		}
	}
	// The last resort: the widest text column gives up a cell at a time.
	for total() > room {
		widest := -1
		for i, w := range got {
			if !t.cols[i].right && w > minCells && (widest < 0 || w > got[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		got[widest]--
	}
	return got
}

// minCells is the narrowest a text column is cut to by the last resort of
// a table's fit: "stopped…" still names a thing.
const minCells = 8

// cell is s sanitized and capped at the column's most cells.
func (c column) cell(s string) string {
	if c.most > 0 {
		return cut(s, c.most)
	}
	return sanitize.String(s)
}

// write writes the header and the rows rows yields, twice walked: once to
// measure, once to write, so that a long table is held one row at a time.
func (t *table) write(w io.Writer, rows func(yield func([]string) bool)) error {
	widths := make([]int, len(t.cols))
	for i, c := range t.cols {
		if !t.headless {
			widths[i] = ansi.StringWidth(c.header)
		}
	}
	for row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], ansi.StringWidth(t.cols[i].cell(cell)))
		}
	}
	shown := t.layout(widths)
	last := -1
	for i, n := range shown {
		if n > 0 {
			last = i
		}
	}
	var (
		line strings.Builder
		err  error
	)
	put := func(row []string, header bool) bool {
		line.Reset()
		line.WriteString(t.indent)
		first := true
		for i, cell := range row {
			n := shown[i]
			if n == 0 {
				continue
			}
			if !first {
				line.WriteString("  ")
			}
			first = false
			if !header {
				cell = t.cols[i].cell(cell)
			}
			cell = textwrap.Cut(cell, n)
			pad := strings.Repeat(" ", n-ansi.StringWidth(cell))
			switch {
			case t.cols[i].right:
				line.WriteString(pad + cell)
			case i == last:
				line.WriteString(cell) // no trailing spaces
			default:
				line.WriteString(cell + pad)
			}
		}
		// An empty amount last leaves no trailing spaces either.
		_, err = io.WriteString(w, strings.TrimRight(line.String(), " ")+"\n")
		return err == nil
	}
	if !t.headless {
		headers := make([]string, len(t.cols))
		for i, c := range t.cols {
			headers[i] = c.header
		}
		if !put(headers, true) {
			return err
		}
	}
	for row := range rows {
		if !put(row, false) {
			break
		}
	}
	return err
}

// writeTable writes a small table given whole, the header row first, the
// columns from right on aligned right, every column kept.
func writeTable(w io.Writer, rows [][]string, right int) error {
	return writeTableFit(w, rows, right, 0, nil)
}

// writeTableFit is writeTable fitted to a terminal width cells wide by the
// steps of fit (see table); in a pipe (width 0) every column is kept.
func writeTableFit(w io.Writer, rows [][]string, right, width int, fit []fitStep) error {
	t := &table{width: width, fit: fit}
	for i, h := range rows[0] {
		t.cols = append(t.cols, column{header: h, right: i >= right})
	}
	return t.write(w, func(yield func([]string) bool) {
		for _, r := range rows[1:] {
			if !yield(r) {
				return
			}
		}
	})
}

// hanging is prefix and text as lines for a terminal width cells wide:
// text broken at spaces, the lines after the first indented under its
// start; in a pipe (width 0) one line, whole, for a script to read.
func hanging(prefix, text string, width int) []string {
	if width <= 0 || ansi.StringWidth(prefix+text) <= width {
		return []string{prefix + text}
	}
	hang := strings.Repeat(" ", ansi.StringWidth(prefix))
	lines := strings.Split(wrapIndent(text, width, hang), "\n")
	lines[0] = prefix + strings.TrimPrefix(lines[0], hang)
	return lines
}

// cut sanitizes a server's string and caps its display width at cells,
// cutting at a word's end where it can ("1x A100…", never "1x A10…").
func cut(s string, cells int) string {
	// Sanitized only as far as a row could reach (textwrap.Cut measures
	// no further): a 1 MB label costs a row, not a megabyte's scan.
	if limit := 64 * (max(cells, 0) + 1); len(s) > 2*limit {
		s = s[:2*limit]
	}
	return textwrap.Cut(sanitize.String(s), cells)
}

// textTimes is how text output writes unix seconds: the one short form
// people read, the same as on the screens, in the session's zone ("26 Nov
// 14:05", "30 Dec 2025"; billing.Service.When); "—" when absent. JSON and
// CSV write RFC 3339 in the same zone.
func textTimes(svc *billing.Service) func(unix int64) string {
	return func(unix int64) string {
		if unix == 0 {
			return "—"
		}
		return svc.When(timeIn(unix, svc.Location()))
	}
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
