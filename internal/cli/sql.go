package cli

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/sanitize"
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
	res, err := l.Query(ctx, stmt)
	if err != nil {
		return err
	}
	return s.answer(func(w io.Writer) error { return writeRows(w, a.output, res) })
}

// writeRows writes a query's rows: an aligned table, CSV with a header, or
// a JSON array of objects keyed by column, in the columns' order. Text from
// the ledger came from the server: it is sanitized.
func writeRows(w io.Writer, output string, res ledger.Result) error {
	switch output {
	case "json":
		return writeRowsJSON(w, res)
	case "csv":
		rows := [][]string{res.Columns}
		for _, r := range res.Rows {
			rows = append(rows, cellsOf(r))
		}
		return writeCSV(w, rows)
	}
	rows := [][]string{res.Columns}
	for _, r := range res.Rows {
		rows = append(rows, cellsOf(r))
	}
	return writeTable(w, rows, len(res.Columns))
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
// a row at a time: a million rows are not held twice.
func writeRowsJSON(w io.Writer, res ledger.Result) error {
	if len(res.Rows) == 0 {
		return writeJSON(w, []sqlRow{})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	if _, err := io.WriteString(w, "[\n  "); err != nil {
		return err
	}
	for i, r := range res.Rows {
		b.Reset()
		if i > 0 {
			b.WriteString(",\n  ")
		}
		if err := enc.Encode(sqlRow{res.Columns, r}); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1) // the encoder's newline
		if _, err := w.Write(b.Bytes()); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "\n]\n")
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
