package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"modernc.org/sqlite"
)

// ErrWrite is the refusal of a statement that would change the ledger (or
// attach another file) through Query: `vastdash sql` only reads.
var ErrWrite = errors.New("the ledger is opened read-only: only a statement that reads (SELECT, WITH … SELECT) runs")

// ErrMissing says there is no ledger file to read yet.
var ErrMissing = errors.New("no ledger yet")

// OpenReadOnly opens the ledger at path for reading only: SQLite's
// read-only mode, query_only, one connection, and an authorizer that lets
// nothing but reads through. The file must be there and pass the same
// checks as Open's (a regular file of the user's, no link).
func OpenReadOnly(path string) (*Ledger, error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s does not exist (a run of vastdash with the ledger on, or `vastdash sync`, makes it)", ErrMissing, path)
	}
	if info, err := os.Stat(filepath.Dir(path)); err == nil {
		if err := othersFolder(filepath.Dir(path), info); err != nil {
			return nil, err
		}
	}
	if err := checkOwn(path, true); err != nil {
		return nil, err
	}
	if err := checkCompanions(path); err != nil {
		return nil, err
	}
	d := dsn(path, true, 0)
	lk, err := lockShared(path)
	if err != nil {
		if !errors.Is(err, ErrUnavailable) || exists(path+".lock") {
			return nil, err
		}
		// The lock cannot be made: the folder is read-only (a backup, a
		// mount). No one can delete or move the file there either, which
		// is all the lock keeps off. Nor can SQLite make the WAL's
		// shared memory beside it: with no WAL there, nothing else writes
		// the file, and it is read as it stands.
		lk = nil
		if !exists(path+"-wal") && !exists(path+"-shm") {
			d += "&immutable=1"
		}
	}
	db, err := sql.Open("sqlite", d)
	if err != nil {
		lk.release()
		return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, path, err)
	}
	db.SetMaxOpenConns(1)
	l := &Ledger{path: path, ro: true, db: db, lock: lk}
	conn, err := db.Conn(context.Background())
	if err == nil {
		err = conn.Raw(func(dc any) error {
			r, ok := dc.(sqlite.AuthorizerRegisterer)
			if !ok {
				return errors.New("the SQLite driver cannot restrict statements")
			}
			return r.RegisterAuthorizer(readsOnly)
		})
		_ = conn.Close()
	}
	if err != nil {
		_ = l.Close()
		return nil, unavailable(path, err)
	}
	var v string
	if err := db.QueryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&v); err != nil {
		_ = l.Close()
		return nil, unavailable(path, err)
	}
	return l, nil
}

// exists reports that something is at path (a link counts).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// readsOnly lets reads, functions and recursive queries through, and
// nothing that writes, changes the schema, attaches a file or sets a
// pragma.
func readsOnly(action sqlite.AuthorizerActionCode, _, _, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthRead, sqlite.AuthSelect, sqlite.AuthFunction, sqlite.AuthRecursive:
		return sqlite.AuthorizerOK
	}
	return sqlite.AuthorizerDeny
}

// Result is the answer of Query: the columns' names and the rows, each
// value an int64, float64, string, []byte or nil.
type Result struct {
	Columns []string
	Rows    [][]any
}

// Query runs one statement that reads and returns its rows, all of them
// held: for the tests and small answers (`vastdash sql` streams, Each).
func (l *Ledger) Query(ctx context.Context, stmt string) (Result, error) {
	var res Result
	err := l.Each(ctx, stmt, func(cols []string) error {
		res.Columns = cols
		return nil
	}, func(vals []any) error {
		res.Rows = append(res.Rows, slices.Clone(vals))
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

// Each runs one statement that reads, hands its columns' names to cols
// and then each row, in order, to row (the slice is reused: row copies
// what it keeps), so that no answer is held whole: a query of 400k wide
// rows takes the memory of one. More than one statement, or one that would
// write, is refused with ErrWrite or a one-line error; an error of cols or
// row ends the walk and is returned as it is.
func (l *Ledger) Each(ctx context.Context, stmt string, cols func([]string) error, row func([]any) error) error {
	if n := statements(stmt); n != 1 {
		if n == 0 {
			return errors.New("no statement given")
		}
		return errors.New("one statement at a time: the text holds " + fmt.Sprint(n))
	}
	rows, err := l.conn().QueryContext(ctx, stmt)
	if err != nil {
		return queryErr(err)
	}
	defer rows.Close()
	names, err := rows.Columns()
	if err != nil {
		return queryErr(err)
	}
	if err := cols(names); err != nil {
		return err
	}
	vals := make([]any, len(names))
	ptrs := make([]any, len(names))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		clear(vals)
		if err := rows.Scan(ptrs...); err != nil {
			return queryErr(err)
		}
		if err := row(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return queryErr(err)
	}
	return nil
}

// queryErr words a failed statement: a write refused reads ErrWrite.
func queryErr(err error) error {
	s := err.Error()
	if strings.Contains(s, "not authorized") || strings.Contains(s, "readonly") || strings.Contains(s, "read-only") {
		return ErrWrite
	}
	return errors.New(Describe(err))
}

// statements counts the statements of a text: semicolons outside quotes
// and comments, a last one without a semicolon counted if it holds
// anything but space.
func statements(s string) int {
	n, content := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			j := strings.IndexByte(s[i+1:], end)
			if j < 0 {
				return n + 1 // unterminated: SQLite will say so
			}
			i += j + 1
			content = true
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				i = len(s)
			} else {
				i += j
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				i = len(s)
			} else {
				i += j + 3
			}
		case c == ';':
			if content {
				n++
			}
			content = false
		case c != ' ' && c != '\t' && c != '\n' && c != '\r':
			content = true
		}
	}
	if content {
		n++
	}
	return n
}
