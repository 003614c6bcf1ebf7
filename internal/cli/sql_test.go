package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/ledger"
)

// sql writes each row as it comes, in every format: when the walk hands
// over the second row, the first is written already, so no answer is held
// whole (400k wide rows took 4.3 GB when it was).
func TestSQLStreamsRows(t *testing.T) {
	for _, output := range []string{"text", "csv", "json"} {
		var out strings.Builder
		walks := 0
		walk := func(cols func([]string) error, row func([]any) error) error {
			walks++
			if err := cols([]string{"n", "s"}); err != nil {
				return err
			}
			if err := row([]any{int64(1), "first-row"}); err != nil {
				return err
			}
			if walks == 2 || output != "text" {
				if !strings.Contains(out.String(), "first-row") {
					return errors.New("the first row was not written before the second was read")
				}
			}
			return row([]any{int64(2), "second"})
		}
		if err := writeRows(&out, output, walk); err != nil {
			t.Errorf("%s: %v", output, err)
		}
		if !strings.Contains(out.String(), "second") {
			t.Errorf("%s: %q", output, out.String())
		}
	}
}

// A column's name is the statement's text: an escape sequence in an alias
// is no more written to the terminal than one in a value, in any format.
func TestSQLColumnNamesSanitized(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 50})
	data := t.TempDir()
	run := func(args ...string) result {
		return headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
	}
	run("charges").ok(t)
	q := "SELECT 1 AS \"\x1b]0;pwned\x07n\x1b[2J\""
	for _, out := range []string{"text", "csv", "json"} {
		res := run("sql", q, "--output", out)
		res.ok(t)
		if strings.ContainsAny(res.out, "\x1b\x07") {
			t.Errorf("%s: the column's name reached the terminal raw: %q", out, res.out)
		}
	}
}

// A ledger in a folder that cannot be written (a backup, a read-only
// mount) is read by sql all the same: nothing is made beside it.
func TestSQLInAReadOnlyFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes through a folder's mode")
	}
	srv := startServer(t, demoserver.Options{Contracts: 50})
	data := t.TempDir()
	run := func(args ...string) result {
		return headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
	}
	run("charges").ok(t)
	const q = "SELECT count(*) AS n FROM contracts"
	want := run("sql", q, "--output", "csv")
	want.ok(t)
	dir := filepath.Join(data, "vastdash")
	for _, p := range ledgerFiles(t, data) {
		for _, side := range []string{".lock", "-wal", "-shm"} {
			_ = os.Remove(p + side)
		}
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	res := run("sql", q, "--output", "csv")
	res.ok(t)
	if res.out != want.out {
		t.Errorf("sql said %q, %q before the folder was read-only", res.out, want.out)
	}
}

// A statement refused or wrong is said as it is — the docs' "vastdash:
// the ledger is opened read-only: …" — not as a failure to write the
// answer (it read "cannot write the answer: the ledger is opened
// read-only").
func TestSQLSaysWhyAStatementFailed(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 50})
	data := t.TempDir()
	run := func(args ...string) result {
		return headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
	}
	run("charges").ok(t)
	for stmt, want := range map[string]string{
		"DELETE FROM contracts": "vastdash: " + ledger.ErrWrite.Error() + "\n",
		"SELEC 1":               `vastdash: SQL logic error: near "SELEC": syntax error` + "\n",
	} {
		for _, out := range []string{"text", "csv", "json"} {
			res := run("sql", stmt, "--output", out)
			res.failed(t, exitRuntime, "")
			if res.errOut != want {
				t.Errorf("%s, %s: %q, want %q", stmt, out, res.errOut, want)
			}
		}
	}
}
