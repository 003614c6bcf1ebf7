package export

import (
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vastdash/vastdash/billing"
)

// The statement's column names in words: the command's table, the
// Statement screen and (with "_" for " ") the CSV header all take them from
// here, so the three name a figure the same way.
const (
	ColMonth    = "month"
	ColOpening  = "opening"
	ColMoneyIn  = "money in"
	ColMoneyOut = "money out"
	ColSpend    = "spend"
	ColClosing  = "closing"
	ColPending  = "pending"
	// ColChange is the screen's spend against the month before's.
	ColChange = "change"
)

// StatementColumns are the columns of a statement's table and CSV, in order.
var StatementColumns = []string{ColMonth, ColOpening, ColMoneyIn, ColMoneyOut, ColSpend, ColClosing, ColPending}

// StatementHeader is the CSV header of a statement: StatementColumns with
// "_" for " " ("money_in").
var StatementHeader = func() []string {
	h := make([]string, len(StatementColumns))
	for i, c := range StatementColumns {
		h[i] = strings.ReplaceAll(c, " ", "_")
	}
	return h
}()

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
