// Package ledger is vastdash's local history: one SQLite file per account
// and API host holding every contract, its lines and its charge per UTC
// day, the payment records, and the spans of time they cover, so that a
// range once fetched is read locally and only what changed since is asked
// of the server again.
//
// The package stores and reads; it knows nothing of the rules that decide
// what to ask, which are the billing layer's (billing/sync.go). It sits
// below billing and imports only api, money and config.
//
// The file is private: its folder 0700, the file 0600, never opened through
// a symbolic link, and another user's file is refused. It runs in WAL mode
// with a busy timeout so that two processes (the dashboard and a cron job)
// share it; each open holds a shared lock on PATH.lock, which Forget and a
// move aside take alone, refusing (ErrInUse) a file another process has
// open. A file whose schema is newer than this build is left alone
// (ErrNewer); a corrupt or truncated one is moved aside and started anew.
package ledger

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/vastdash/vastdash/config"
)

// Errors of Open. Each means the run goes on without a ledger; the caller
// says why in one warning.
var (
	// ErrRefused: the file (or its WAL) is a symbolic link, not a regular
	// file, another user's, or has other hard links.
	ErrRefused = errors.New("ledger refused")
	// ErrNewer: the file was written by a newer vastdash; it is left as it
	// is.
	ErrNewer = errors.New("ledger from a newer vastdash")
	// ErrOther: the file holds another account's or host's rows (it was
	// renamed or copied); it is left as it is.
	ErrOther = errors.New("ledger of another account or host")
	// ErrUnavailable: the folder or file cannot be created or opened
	// (read-only folder, disk full, permissions).
	ErrUnavailable = errors.New("ledger unavailable")
	// ErrInUse: the file cannot be deleted or moved aside, as another
	// vastdash has it open.
	ErrInUse = errors.New("in use by another vastdash")
)

// Identity is whose rows a ledger holds: the API host and a digest of the
// key (KeyDigest), never the key itself.
type Identity struct {
	Host    string
	Account string
}

// KeyDigest names an account by its API key without holding the key: the
// first 64 bits of a SHA-256 of it, domain-separated. Another key (another
// account, or another key of the same one) has another ledger.
func KeyDigest(key string) string {
	h := sha256.Sum256([]byte("vastdash ledger\x00" + key))
	return hex.EncodeToString(h[:8])
}

// Path is the file of id's ledger in dir: ledger-HOST-ACCOUNT.db, the host
// reduced to letters, digits, dots and dashes.
func Path(dir string, id Identity) string {
	host := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, id.Host)
	if len(host) > 80 {
		host = host[:80]
	}
	return filepath.Join(dir, "ledger-"+host+"-"+id.Account+".db")
}

// Ledger is one open ledger file. It is safe for concurrent use; writes
// are serialized in the process and, through SQLite's locks and the busy
// timeout, between processes.
type Ledger struct {
	path string
	id   Identity
	ro   bool
	opts options
	// lock is held shared while the file is open: a forget or a move
	// aside elsewhere waits for nothing and refuses (ErrInUse).
	lock *fileLock

	wmu sync.Mutex // one write transaction at a time in this process
	mu  sync.RWMutex
	db  *sql.DB
	// gen counts the files this Ledger has had: 1, and one more at each
	// Reset (under wmu and mu).
	gen int64
}

// Gen is the generation of the file: it changes when Reset moves the file
// aside and starts a new one (see Window.Gen).
func (l *Ledger) Gen() int64 {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.gen
}

// current refuses a page of a window begun in an earlier file; called in
// the page's write transaction (under wmu, which Reset takes too).
func (l *Ledger) current(w Window) error {
	if w.Gen != 0 && w.Gen != l.gen {
		return ErrMoved
	}
	return nil
}

// Path is the ledger's file.
func (l *Ledger) Path() string { return l.path }

// busyTimeout is how long a write waits for another process's: a cron
// `charges` writing a page holds the lock for milliseconds.
const busyTimeout = 10 * time.Second

// Open opens (or creates) the ledger file at path for id. A corrupt or
// truncated file is moved aside and a new one made: moved then names where
// it went, for the one warning. Any error means no ledger for this run: one
// of the Err values above, wrapped with the reason, on one line.
func Open(path string, id Identity, opts ...Option) (l *Ledger, moved string, err error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if err := privateDir(filepath.Dir(path)); err != nil {
		return nil, "", err
	}
	lk, err := lockShared(path)
	if err != nil {
		return nil, "", err
	}
	defer func() {
		if err != nil {
			lk.release()
		} else {
			l.lock = lk
		}
	}()
	l, err = open(path, id, o)
	if !errors.Is(err, errCorrupt) {
		return l, "", err
	}
	if err = lk.alone(); err != nil {
		return nil, "", fmt.Errorf("%w: the file is unreadable, but %v", ErrUnavailable, err)
	}
	moved, err = moveAside(path)
	lk.share()
	if err != nil {
		return nil, "", fmt.Errorf("%w: %s is unreadable and cannot be moved aside: %v", ErrUnavailable, path, reason(err))
	}
	l, err = open(path, id, o)
	return l, moved, err
}

// Option configures Open.
type Option func(*options)

type options struct {
	maxPages int64         // 0: SQLite's own limit
	busy     time.Duration // 0: busyTimeout
}

// MaxPages caps the file at n pages (SQLite's max_page_count, 4 KB each):
// a write beyond fails as on a full disk (IsFull). It bounds a ledger
// where space is tight, and lets the tests meet a full disk.
func MaxPages(n int64) Option { return func(o *options) { o.maxPages = n } }

// BusyTimeout bounds how long a write waits for another process's
// (default 10 s): past it the write fails as a lock held too long. The
// tests meet such a lock without waiting the default out.
func BusyTimeout(d time.Duration) Option { return func(o *options) { o.busy = d } }

// errCorrupt marks a file SQLite cannot read as a database (internal: Open
// moves it aside).
var errCorrupt = errors.New("ledger unreadable")

func open(path string, id Identity, o options) (*Ledger, error) {
	fresh, err := privateFile(path)
	if err != nil {
		return nil, err
	}
	if !fresh {
		if why := truncated(path); why != "" {
			return nil, fmt.Errorf("%w: %s", errCorrupt, why)
		}
	}
	d := dsn(path, false, o.busy)
	if o.maxPages > 0 {
		d += "&_pragma=max_page_count(" + strconv.FormatInt(o.maxPages, 10) + ")"
	}

	db, err := sql.Open("sqlite", d)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, path, err)
	}
	l := &Ledger{path: path, id: id, db: db, opts: o, gen: 1}
	if err := l.prepare(fresh); err != nil {
		_ = db.Close()
		return nil, err
	}
	return l, nil
}

// dsn is the modernc DSN of path: WAL, a busy timeout, foreign keys (items
// and days go with their contract), and write transactions that take the
// write lock at BEGIN, so two writers wait for each other instead of
// failing to upgrade. A read-only open is also query_only, so no statement
// can write whatever it is.
func dsn(path string, readOnly bool, busy time.Duration) string {
	if busy <= 0 {
		busy = busyTimeout
	}
	u := url.URL{Scheme: "file", Path: path}
	q := []string{
		"_pragma=busy_timeout(" + strconv.FormatInt(busy.Milliseconds(), 10) + ")",
		"_pragma=foreign_keys(1)",
	}
	if readOnly {
		q = append(q, "mode=ro", "_pragma=query_only(1)")
	} else {
		q = append(q, "_pragma=journal_mode(WAL)", "_pragma=synchronous(NORMAL)", "_txlock=immediate")
	}
	return u.String() + "?" + strings.Join(q, "&")
}

// prepare checks the file's schema and whose it is, creating both on a new
// file and migrating an older one.
func (l *Ledger) prepare(fresh bool) error {
	ctx := context.Background()
	var version string
	err := l.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&version)
	switch {
	case err == nil:
	case isCorrupt(err):
		return unavailable(l.path, err)
	case strings.Contains(err.Error(), "no such table") || errors.Is(err, sql.ErrNoRows):
		if !fresh && !errors.Is(err, sql.ErrNoRows) {
			// A database, but not one of ours (or one whose first write was
			// cut short): only a file vastdash created may be filled.
			if n, cerr := l.tables(ctx); cerr == nil && n > 0 {
				return fmt.Errorf("%w: %s holds tables that are not a ledger's", ErrRefused, l.path)
			}
		}
		return l.create(ctx)
	default:
		return unavailable(l.path, err)
	}
	v, err := strconv.Atoi(version)
	if err != nil {
		return fmt.Errorf("%w: %s has schema version %q", errCorrupt, l.path, version)
	}
	if v > Version {
		return fmt.Errorf("%w: %s has schema version %d, this vastdash knows %d: it is left as it is", ErrNewer, l.path, v, Version)
	}
	host, acct := l.Meta("host"), l.Meta("account")
	if host != l.id.Host || acct != l.id.Account {
		return fmt.Errorf("%w: %s belongs to another account or host; it is left as it is", ErrOther, l.path)
	}
	if v < Version {
		if err := l.migrate(ctx); err != nil {
			return unavailable(l.path, err)
		}
	}
	if t, err := l.missingTable(ctx); err != nil {
		return unavailable(l.path, err)
	} else if t != "" {
		// A table dropped by hand (`sqlite3`, a tool): every read of it
		// would fail on every run. Moved aside and rebuilt, as a corrupt
		// file is, rather than filled again under spans that claim rows
		// it no longer holds.
		return fmt.Errorf("%w: %s lacks its table %s", errCorrupt, l.path, t)
	}
	// A file made before the windowed reads' indexes gains them. One that
	// cannot (a full disk) is read as well without them, only slower.
	// Asked first, so that an open of a file that has them never waits
	// for another process's write.
	var n int
	if err := l.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name IN `+windowIndexNames).Scan(&n); err == nil && n < windowIndexCount {
		_ = l.write(ctx, func(tx *txn) error {
			_, err := tx.tx.ExecContext(ctx, windowIndexes)
			return err
		})
	}
	return nil
}

// tableNames are the tables of Version, every one of which a ledger holds.
var tableNames = []string{"meta", "contracts", "items", "daily", "daily_items", "payments", "spans", "dropped", "progress"}

// missingTable names a table of the schema the file lacks ("" when it
// has them all).
func (l *Ledger) missingTable(ctx context.Context) (string, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table'`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return "", err
		}
		have[n] = true
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	for _, t := range tableNames {
		if !have[t] {
			return t, nil
		}
	}
	return "", nil
}

// migrate brings the file to Version in one transaction. The version is
// read again inside it: another process may have migrated the file
// meanwhile.
func (l *Ledger) migrate(ctx context.Context) error {
	return l.write(ctx, func(tx *txn) error {
		var version string
		if err := tx.queryRow(`SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&version); err != nil {
			return err
		}
		v, err := strconv.Atoi(version)
		if err != nil || v >= Version {
			return err
		}
		for ; v < Version; v++ {
			for _, q := range migrations[v] {
				if _, err := tx.tx.ExecContext(ctx, q); err != nil {
					return err
				}
			}
		}
		if _, err := tx.tx.ExecContext(ctx, schema); err != nil {
			return err
		}
		_, err = tx.exec(`UPDATE meta SET value = ? WHERE key = 'schema_version'`, strconv.Itoa(Version))
		return err
	})
}

// tables counts the tables of the file.
func (l *Ledger) tables(ctx context.Context) (int, error) {
	var n int
	err := l.db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'table'`).Scan(&n)
	return n, err
}

// create writes the schema and whose the file is, in one transaction.
func (l *Ledger) create(ctx context.Context) error {
	return l.write(ctx, func(tx *txn) error {
		if _, err := tx.tx.ExecContext(ctx, schema+windowIndexes); err != nil {
			return err
		}
		for k, v := range map[string]string{
			"schema_version": strconv.Itoa(Version),
			"host":           l.id.Host,
			"account":        l.id.Account,
			"created_at":     strconv.FormatInt(time.Now().Unix(), 10),
		} {
			if _, err := tx.exec(`INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, k, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// Close closes the file.
func (l *Ledger) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	err := l.db.Close()
	l.lock.release()
	return err
}

// conn is the database, read under the lock Reset takes to swap it.
func (l *Ledger) conn() *sql.DB {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.db
}

// write runs fn in one write transaction: all of it lands, or none. A
// cancellation is honoured before the transaction begins, not inside it:
// a page is written whole in milliseconds, and a cancellable context
// costs the driver a goroutine per statement.
func (l *Ledger) write(ctx context.Context, fn func(*txn) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ctx = context.WithoutCancel(ctx)
	l.wmu.Lock()
	defer l.wmu.Unlock()
	tx, err := l.conn().BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	t := &txn{tx: tx, ctx: ctx, stmts: map[string]*sql.Stmt{}}
	err = fn(t)
	t.close()
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// txn is a write transaction whose statements are prepared once each: a
// page of 500 contracts runs the same few thousands of times.
type txn struct {
	tx    *sql.Tx
	ctx   context.Context
	stmts map[string]*sql.Stmt
}

func (t *txn) stmt(q string) (*sql.Stmt, error) {
	if st, ok := t.stmts[q]; ok {
		return st, nil
	}
	st, err := t.tx.PrepareContext(t.ctx, q)
	if err != nil {
		return nil, err
	}
	t.stmts[q] = st
	return st, nil
}

// exec runs q with args.
func (t *txn) exec(q string, args ...any) (sql.Result, error) {
	st, err := t.stmt(q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(t.ctx, args...)
}

// query runs q with args.
func (t *txn) query(q string, args ...any) (*sql.Rows, error) {
	st, err := t.stmt(q)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(t.ctx, args...)
}

// queryRow runs q with args for one row.
func (t *txn) queryRow(q string, args ...any) *sql.Row {
	st, err := t.stmt(q)
	if err != nil {
		return t.tx.QueryRowContext(t.ctx, q, args...) // carries the error
	}
	return st.QueryRowContext(t.ctx, args...)
}

func (t *txn) close() {
	for _, st := range t.stmts {
		_ = st.Close()
	}
}

// Meta reads one value of the meta table ("" when absent or unreadable).
func (l *Ledger) Meta(key string) string {
	var v string
	if err := l.conn().QueryRow(`SELECT value FROM meta WHERE key = ?`, key).Scan(&v); err != nil {
		return ""
	}
	return v
}

// SetMeta writes one value of the meta table.
func (l *Ledger) SetMeta(ctx context.Context, key, value string) error {
	return l.write(ctx, func(tx *txn) error {
		_, err := tx.exec(`INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)`, key, value)
		return err
	})
}

// Reset moves the file aside after it was found corrupt in use and starts
// a new one in its place; the ledger stays usable. It returns where the
// old file went.
func (l *Ledger) Reset() (moved string, err error) {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.lock.alone(); err != nil {
		return "", err // another process has it open: not pulled from under it
	}
	defer l.lock.share()
	_ = l.db.Close()
	if moved, err = moveAside(l.path); err != nil {
		return "", fmt.Errorf("%w: %s cannot be moved aside: %v", ErrUnavailable, l.path, reason(err))
	}
	fresh, err := open(l.path, l.id, l.opts)
	if err != nil {
		return moved, err
	}
	l.db = fresh.db
	l.gen++
	return moved, nil
}

// IsCorrupt reports an error of a ledger call that means the file cannot
// be read as a database (corrupt, truncated, not a database): the caller
// Resets it.
func IsCorrupt(err error) bool { return errors.Is(err, errCorrupt) || isCorrupt(err) }

func isCorrupt(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return true
	}
	return false
}

// IsInterrupted reports an error of a ledger call that was cut short by
// its caller (a context cancelled or past its deadline: a feed replaced, a
// command interrupted), not a fault of the file: the ledger stays in use.
func IsInterrupted(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_INTERRUPT
}

// IsFull reports an error that means the ledger cannot be written (disk
// or quota full, read-only file or folder, I/O error): the run goes on
// from the network.
func IsFull(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
		return true
	}
	return false
}

// unavailable wraps a failure to open or read the file.
func unavailable(path string, err error) error {
	if isCorrupt(err) {
		return fmt.Errorf("%w: %s is corrupt or cut short (the next run that uses the ledger moves it aside and rebuilds it from the server)",
			errCorrupt, path)
	}
	return fmt.Errorf("%w: %s: %s", ErrUnavailable, path, reason(err))
}

// Describe words a failure of a ledger call for a one-line message: what
// SQLite's code means to the user (a full disk, a lock held too long, a
// read-only file), never its raw text and numbers; an error of the system
// without the path the message names already.
func Describe(err error) string {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return "another vastdash held it locked for writing too long"
		case sqlite3.SQLITE_FULL:
			return "the disk is full"
		case sqlite3.SQLITE_READONLY:
			return "it cannot be written: the file or its folder is read-only"
		case sqlite3.SQLITE_CANTOPEN:
			return "it cannot be opened: its folder is read-only or gone"
		case sqlite3.SQLITE_PERM, sqlite3.SQLITE_AUTH:
			return "permission denied"
		case sqlite3.SQLITE_IOERR:
			return "reading or writing it failed (a disk error)"
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return "it is corrupt or cut short"
		case sqlite3.SQLITE_NOMEM:
			return "out of memory"
		case sqlite3.SQLITE_INTERRUPT:
			return "interrupted"
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "interrupted"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return sqliteText(err.Error())
}

// sqliteText is SQLite's message without what is for programmers: the
// lines after the first, and the codes it ends with ("… (1)",
// "(SQLITE_BUSY)").
func sqliteText(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	for {
		s = strings.TrimSpace(s)
		i := strings.LastIndexByte(s, '(')
		if i < 0 || !strings.HasSuffix(s, ")") {
			return s
		}
		code := s[i+1 : len(s)-1]
		if _, err := strconv.Atoi(code); err != nil && !strings.HasPrefix(code, "SQLITE_") {
			return s
		}
		s = s[:i]
	}
}

// reason is an error's text for a one-line warning (Describe).
func reason(err error) string { return Describe(err) }

// privateDir makes dir (0700) or checks it: a folder of ours open to others
// is closed to them; one that is not a folder refuses the ledger.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("%w: cannot make %s: %s", ErrUnavailable, dir, reason(err))
	}
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%w: %s: %s", ErrUnavailable, dir, reason(err))
	}
	if !info.IsDir() {
		return fmt.Errorf("%w: %s is not a folder", ErrRefused, dir)
	}
	if err := othersFolder(dir, info); err != nil {
		return err
	}
	if config.OwnedByUser(info) && info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("%w: %s: %s", ErrUnavailable, dir, reason(err))
		}
	}
	return nil
}

// othersFolder refuses a ledger folder of another user's that others may
// write into, as the key's folder is refused: whoever can write there can
// swap the file or its WAL between two runs (a file of theirs is refused,
// but a file of ours renamed or removed is not seen). A folder of another
// user's that only they may write (a shared, read-only copy) is read as
// it is.
func othersFolder(dir string, info fs.FileInfo) error {
	if config.OwnedByUser(info) || config.NotOwnOnly(info) == "" || info.Mode().Perm()&0o022 == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s is another user's folder that others may write into (mode %04o): name a folder of yours (XDG_DATA_HOME)",
		ErrRefused, dir, info.Mode().Perm())
}

// privateFile creates path 0600 if it is missing (fresh) or checks the one
// there, without following a symbolic link: it must be a regular file of
// the user's with no other hard links; one that others may read is made
// 0600. The WAL and shared-memory files beside it, when present, must be
// the same.
func privateFile(path string) (fresh bool, err error) {
	f, err := config.OpenNoFollow(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		err = f.Chmod(0o600)
		_ = f.Close()
		if err != nil {
			return false, fmt.Errorf("%w: %s: %s", ErrUnavailable, path, reason(err))
		}
		return true, checkCompanions(path)
	}
	if !errors.Is(err, fs.ErrExist) {
		if why := linkOrOdd(path); why != "" {
			return false, fmt.Errorf("%w: %s %s", ErrRefused, path, why)
		}
		return false, fmt.Errorf("%w: cannot create %s: %s", ErrUnavailable, path, reason(err))
	}
	if err := checkOwn(path, true); err != nil {
		return false, err
	}
	return false, checkCompanions(path)
}

// checkCompanions checks the -wal and -shm files SQLite keeps beside path.
func checkCompanions(path string) error {
	for _, p := range []string{path + "-wal", path + "-shm"} {
		if err := checkOwn(p, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// checkOwn opens path without following a link and judges what was
// opened; required says a missing file is an error.
func checkOwn(path string, required bool) error {
	f, err := config.OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !required {
			return err
		}
		if why := linkOrOdd(path); why != "" {
			return fmt.Errorf("%w: %s %s", ErrRefused, path, why)
		}
		return fmt.Errorf("%w: %s: %s", ErrUnavailable, path, reason(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %s: %s", ErrUnavailable, path, reason(err))
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrRefused, path)
	}
	if why := config.NotOwnOnly(info); why != "" {
		return fmt.Errorf("%w: %s: %s", ErrRefused, path, why)
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return fmt.Errorf("%w: %s: %s", ErrUnavailable, path, reason(err))
		}
	}
	return nil
}

// linkOrOdd words why path cannot be the ledger, from a look at it: a
// symbolic link or something other than a file ("" when it looks fine).
func linkOrOdd(path string) string {
	info, err := os.Lstat(path)
	switch {
	case err != nil:
		return ""
	case info.Mode()&fs.ModeSymlink != 0:
		return "is a symbolic link: the ledger is never opened through one"
	case !info.Mode().IsRegular():
		return "is not a regular file"
	}
	return ""
}

// truncated reads the SQLite header of path and says why the file is not a
// whole database ("" when it may be): not one at all, or shorter than the
// pages its header counts while no WAL holds the rest.
func truncated(path string) string {
	f, err := config.OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return "" // empty: a file whose creation was cut short; SQLite starts it
	}
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return fmt.Sprintf("%s is %d bytes, shorter than a database header", path, info.Size())
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return path + " is not an SQLite database"
	}
	pageSize := int64(binary.BigEndian.Uint16(h[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(binary.BigEndian.Uint32(h[28:32]))
	// The header's page count is valid when its version-valid-for number
	// matches the change counter; with a WAL in use the file may lag it.
	valid := binary.BigEndian.Uint32(h[92:96]) == binary.BigEndian.Uint32(h[24:28])
	if wal, err := os.Lstat(path + "-wal"); err == nil && wal.Size() > 0 {
		valid = false
	}
	if pageSize < 512 || info.Size()%pageSize != 0 || (valid && info.Size() < pages*pageSize) {
		return fmt.Sprintf("%s is cut short (%d bytes; its header counts %d pages of %d)", path, info.Size(), pages, pageSize)
	}
	return ""
}

// moveAside renames a corrupt file (and its WAL) out of the way, keeping
// it for a bug report: PATH.corrupt-20261121T150405. The caller holds
// the file's lock alone: no other process has it open.
func moveAside(path string) (string, error) {
	dst := path + ".corrupt-" + time.Now().UTC().Format("20060102T150405")
	if err := os.Rename(path, dst); err != nil {
		return "", err
	}
	_ = os.Rename(path+"-wal", dst+"-wal")
	_ = os.Remove(path + "-shm")
	return dst, nil
}
