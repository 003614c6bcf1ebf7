package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/sanitize"
	"github.com/vastdash/vastdash/textwrap"
)

// sqlArgs are the options of the sql command.
type sqlArgs struct {
	output string
}

// newSQLCommand is `vastdash sql "SELECT …"`: one statement that reads the
// ledger.
func newSQLCommand(x *execution) *cobra.Command {
	var a sqlArgs
	cmd := &cobra.Command{
		Use:   `sql "SELECT …"`,
		Short: "run one read-only SQL statement against the ledger",
		Long: `Run one SQL statement against the ledger (the local history, see vastdash ledger) and print its rows. The ledger is opened read-only and query_only, and only statements that read get through: a write, a schema change, ATTACH or PRAGMA is refused with an error, and nothing changes. No request is made.

The tables (docs/ledger.md, "Schema"): contracts, items, daily (each contract's charge per UTC day), payments, spans. Times are unix seconds (date(start, 'unixepoch') reads them), amounts dollars beside exact integer thousandths (mills).`,
		Example: `
vastdash sql "SELECT label, sum(amount) FROM contracts GROUP BY label ORDER BY 2 DESC"
vastdash sql "SELECT strftime('%Y-%m', day, 'unixepoch') AS month, sum(mills) / 1000.0 FROM daily GROUP BY month" --output csv
`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(errors.New(`sql takes one statement, quoted: vastdash sql "SELECT …"`))
			}
			return nil
		},
	}
	cmd.RunE = func(c *cobra.Command, args []string) error {
		return x.sessionRun(nil, nil, sessionOptions{noLedger: true}, func(ctx context.Context, s *Session) error {
			return querySQL(ctx, s, args[0], a)
		})(c, args)
	}
	outputFlags(cmd, &a.output, "text", "csv", "json")
	return cmd
}

// querySQL is the sql command.
func querySQL(ctx context.Context, s *Session, stmt string, a sqlArgs) error {
	if err := s.needLedger("sql reads the ledger", true); err != nil {
		return err
	}
	if err := s.findLedger(); err != nil {
		return err
	}
	if s.LedgerPath == "" {
		return errNoLedgerFile
	}
	l, err := ledger.OpenReadOnly(s.LedgerPath)
	if err != nil {
		return err
	}
	defer l.Close()
	// The statement's own failure (refused, a syntax error) is said as
	// it is: answer words every error of the walk as one writing the
	// answer, which only those of cols and row are.
	var stmtErr error
	err = s.answer(func(w io.Writer) error {
		return writeRows(w, a.output, func(cols func([]string) error, row func([]any) error) error {
			var outErr error
			err := l.Each(ctx, stmt, func(c []string) error {
				outErr = cols(c)
				return outErr
			}, func(v []any) error {
				outErr = row(v)
				return outErr
			})
			if err != nil && outErr == nil {
				stmtErr = err
			}
			return err
		})
	})
	if stmtErr != nil {
		return stmtErr
	}
	return err
}

// rowWalk walks a query's answer: its columns, then each row (the slice
// is reused). It may be walked more than once (a text table measures its
// columns, then writes): each walk runs the statement again, so that no
// answer is ever held whole.
type rowWalk func(cols func([]string) error, row func([]any) error) error

// columnNames are a query's columns as they are printed: a name is the
// statement's own text (an alias, an expression), or the ledger's, so it
// is sanitized as any text from the server is.
func columnNames(cols []string) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = sanitize.String(c)
	}
	return out
}

// writeRows writes a query's rows as they come: an aligned table, CSV with
// a header, or a JSON array of objects keyed by column, in the columns'
// order. Text from the ledger came from the server: it is sanitized.
func writeRows(w io.Writer, output string, walk rowWalk) error {
	switch output {
	case "json":
		return writeRowsJSON(w, walk)
	case "csv":
		cw := csv.NewWriter(w)
		err := walk(func(cols []string) error { return cw.Write(columnNames(cols)) },
			func(r []any) error {
				if err := cw.Write(cellsOf(r)); err != nil {
					return err
				}
				cw.Flush() // into the answer's buffer: a row is held, not the answer
				return cw.Error()
			})
		cw.Flush()
		if err != nil {
			return err
		}
		return cw.Error()
	}
	// A text table walks the rows twice: once to measure the columns,
	// once to write them, as table.write does for every command's table.
	var widths []int
	err := walk(func(cols []string) error {
		widths = make([]int, len(cols))
		for i, h := range columnNames(cols) {
			widths[i] = ansi.StringWidth(h)
		}
		return nil
	}, func(r []any) error {
		for i, c := range cellsOf(r) {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
		return nil
	})
	if err != nil {
		return err
	}
	put := func(cells []string) error {
		var line strings.Builder
		for i, c := range cells {
			if i > 0 {
				line.WriteString("  ")
			}
			line.WriteString(c)
			if i < len(cells)-1 && i < len(widths) {
				line.WriteString(strings.Repeat(" ", max(0, widths[i]-ansi.StringWidth(c))))
			}
		}
		_, err := io.WriteString(w, strings.TrimRight(line.String(), " ")+"\n")
		return err
	}
	return walk(func(cols []string) error { return put(columnNames(cols)) },
		func(r []any) error {
			cells := cellsOf(r)
			for i := range cells {
				if i < len(widths) {
					cells[i] = textwrap.Cut(cells[i], widths[i]) // the ledger changed between the walks
				}
			}
			return put(cells)
		})
}

// cellsOf is one row as text.
func cellsOf(r []any) []string {
	out := make([]string, len(r))
	for i, v := range r {
		switch v := v.(type) {
		case nil:
		case int64:
			out[i] = strconv.FormatInt(v, 10)
		case float64:
			out[i] = strconv.FormatFloat(v, 'f', -1, 64)
		case string:
			out[i] = sanitize.String(v)
		case []byte:
			out[i] = hex.EncodeToString(v)
		}
	}
	return out
}

// writeRowsJSON writes [{"col": value, …}, …], keys in the columns' order,
// indented and escaped exactly as writeJSON writes every command's JSON,
// a row at a time as they come: no answer is held whole.
func writeRowsJSON(w io.Writer, walk rowWalk) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	var names []string
	n := 0
	err := walk(func(cols []string) error {
		names = columnNames(cols)
		return nil
	}, func(r []any) error {
		b.Reset()
		if n == 0 {
			b.WriteString("[\n  ")
		} else {
			b.WriteString(",\n  ")
		}
		n++
		if err := enc.Encode(sqlRow{names, r}); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // the encoder's newline
		_, err := w.Write(b.Bytes())
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return writeJSON(w, []sqlRow{})
	}
	_, err = io.WriteString(w, "\n]\n")
	return err
}

// sqlRow is one row of a query as a JSON object: its columns in order
// (a map would sort them), blobs in hex, text sanitized.
type sqlRow struct {
	cols []string
	vals []any
}

// MarshalJSON writes the object compact; writeJSON indents it and, as it
// asked, leaves "<" and "&" as they are.
func (r sqlRow) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, v := range r.vals {
		if i > 0 {
			b.WriteByte(',')
		}
		switch x := v.(type) {
		case []byte:
			v = hex.EncodeToString(x)
		case string:
			v = sanitize.String(x)
		}
		if err := enc.Encode(r.cols[i]); err != nil {
			return nil, err
		}
		b.WriteByte(':')
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
