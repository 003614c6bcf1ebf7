package export

import (
	"encoding/csv"
	"io"
	"os"
	"path/filepath"

	"github.com/vastdash/vastdash/billing"
)

// StatementHeader is the CSV header of a statement.
var StatementHeader = []string{"month", "opening", "money_in", "money_out", "spend", "closing", "pending"}

// WriteStatementCSV writes a statement's months as CSV: the header, then
// one row per month, amounts with exactly 3 decimals — the format of
// `vastdash statement --output csv` and of the Statement screen's e.
func WriteStatementCSV(w io.Writer, st billing.Statement) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(StatementHeader)
	for _, m := range st.Months {
		_ = cw.Write([]string{m.Label(), m.Opening.Decimal(), m.MoneyIn.Decimal(), m.MoneyOut.Decimal(), m.Spend.Decimal(),
			m.Closing.Decimal(), m.Pending.Decimal()})
	}
	cw.Flush()
	return cw.Error()
}

// ToFile creates a new file named name in dir (the working folder when
// dir is ""), as Create does — never over an existing file, mode 0600 —
// writes it with write and returns its absolute path. A file left half
// written is removed.
func ToFile(dir, name string, write func(io.Writer) error) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
	}
	f, path, err := Create(dir, name)
	if err != nil {
		return "", err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	if abs, aerr := filepath.Abs(path); aerr == nil {
		path = abs
	}
	return path, nil
}
