package ledger

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var me = Identity{Host: "console.vast.ai", Account: KeyDigest("key-one")}

// path is a ledger file in a folder that does not exist yet.
func path(t *testing.T) string {
	return Path(filepath.Join(t.TempDir(), "data", "vastdash"), me)
}

func openT(t *testing.T, p string) *Ledger {
	t.Helper()
	l, moved, err := Open(p, me)
	if err != nil || moved != "" {
		t.Fatalf("open: %v (moved %q)", err, moved)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

func contract(id string, start, end int64, mills money.Amount) api.Charge {
	return api.Charge{Start: start, End: end, Type: "instance", Source: "instance-" + id, Description: "Instance " + id,
		Amount: mills, Meta: api.Metadata{Label: "job"},
		Items: []api.Charge{{Start: start, End: end, Type: "gpu", Description: "gpu", Amount: mills}}}
}

func page(w Window, done bool, spans []Span, cs ...api.Charge) ChargesPage {
	p := ChargesPage{Window: w, Done: done, Merge: func([]Span) []Span { return spans }}
	for _, c := range cs {
		p.Rows = append(p.Rows, ChargeRow{Charge: c, Days: []Day{{Day: dayFloor(c.Start), Mills: c.Amount}}})
	}
	return p
}

func mode(t *testing.T, p string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// The folder is made 0700 and the file, its WAL and its shared memory
// 0600, whatever the umask.
func TestOpenIsPrivate(t *testing.T) {
	p := path(t)
	l := openT(t, p)
	if _, err := l.WriteCharges(context.Background(), page(Window{Lo: 0, Hi: 100, Started: 50}, true, nil, contract("1", 10, 20, 5))); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, filepath.Dir(p)); m != 0o700 {
		t.Errorf("folder %04o", m)
	}
	for _, f := range []string{p, p + "-wal", p + "-shm"} {
		if m := mode(t, f); m != 0o600 {
			t.Errorf("%s: %04o", filepath.Base(f), m)
		}
	}
}

// A link where the file (or its WAL) would be is refused, not followed;
// the target is left untouched.
func TestOpenRefusesLinks(t *testing.T) {
	for _, which := range []string{"", "-wal"} {
		p := path(t)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		target := filepath.Join(t.TempDir(), "elsewhere")
		if err := os.WriteFile(target, []byte("not yours"), 0o600); err != nil {
			t.Fatal(err)
		}
		if which != "" {
			openT(t, p).Close()
		}
		if err := os.Symlink(target, p+which); err != nil {
			t.Fatal(err)
		}
		_, _, err := Open(p, me)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("link at %q: %v", which, err)
		}
		if b, _ := os.ReadFile(target); string(b) != "not yours" {
			t.Errorf("the link's target was written: %q", b)
		}
	}
}

// A file of a newer schema is left alone, byte for byte.
func TestOpenLeavesANewerFileAlone(t *testing.T) {
	p := path(t)
	l := openT(t, p)
	if err := l.SetMeta(context.Background(), "schema_version", "99"); err != nil {
		t.Fatal(err)
	}
	l.Close()
	before, _ := os.ReadFile(p)
	_, _, err := Open(p, me)
	if !errors.Is(err, ErrNewer) || !strings.Contains(err.Error(), "99") {
		t.Fatalf("err %v", err)
	}
	after, _ := os.ReadFile(p)
	if string(before) != string(after) {
		t.Error("a newer file was changed")
	}
}

// A file of version 1 is migrated as it opens: its spans, written when no
// rule was kept with them, are unsure; a window under way goes on.
func TestOpenMigratesVersion1(t *testing.T) {
	p := path(t)
	l := openT(t, p)
	ctx := context.Background()
	w := Window{Lo: 0, Hi: 1000, Started: 900}
	if _, err := l.WriteCharges(ctx, page(w, true, []Span{{Lo: 0, Hi: 1000, SyncedAt: 900}}, contract("1", 100, 200, 5))); err != nil {
		t.Fatal(err)
	}
	w.Lo, w.Token = 1000, "next"
	if _, err := l.WriteCharges(ctx, page(w, false, nil, contract("2", 1100, 1200, 5))); err != nil {
		t.Fatal(err)
	}
	l.Close()
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`ALTER TABLE spans DROP COLUMN unsure`, `ALTER TABLE progress DROP COLUMN unsure`,
		`UPDATE meta SET value = '1' WHERE key = 'schema_version'`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	l = openT(t, p)
	if v := l.Meta("schema_version"); v != strconv.Itoa(Version) {
		t.Errorf("schema version %s after the migration", v)
	}
	if sp, err := l.Spans(ctx, KindCharges); err != nil || len(sp) != 1 || !sp[0].Unsure {
		t.Errorf("spans %+v %v", sp, err)
	}
	if got, ok, err := l.Progress(ctx, KindCharges, 0, 5000); err != nil || !ok || got.Token != "next" || !got.Unsure {
		t.Errorf("progress %+v %v %v", got, ok, err)
	}
	if n, err := l.CountCharges(ctx, 0, 5000); err != nil || n != 2 {
		t.Errorf("%d contracts (%v)", n, err)
	}
}

// Garbage and a cut file are moved aside, named in moved, and a new ledger
// takes their place.
func TestOpenMovesACorruptFileAside(t *testing.T) {
	for name, spoil := range map[string]func(p string){
		"garbage": func(p string) { _ = os.WriteFile(p, []byte(strings.Repeat("not a database ", 500)), 0o600) },
		"cut": func(p string) {
			b, _ := os.ReadFile(p)
			_ = os.WriteFile(p, b[:len(b)/2+100], 0o600)
		},
		// A table dropped by hand: every run failed on it, in SQLite's
		// words, and nothing rebuilt it.
		"dropped table": func(p string) {
			db, err := sql.Open("sqlite", p)
			if err == nil {
				_, err = db.Exec(`DROP TABLE daily_items`)
				_ = db.Close()
			}
			if err != nil {
				panic(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := path(t)
			l := openT(t, p)
			var cs []api.Charge
			for i := range 300 {
				cs = append(cs, contract(itoa(int64(i)), 1000+int64(i), 2000+int64(i), 5))
			}
			if _, err := l.WriteCharges(context.Background(), page(Window{Lo: 0, Hi: 3000, Started: 3000}, true, []Span{{Lo: 0, Hi: 3000, SyncedAt: 3000}}, cs...)); err != nil {
				t.Fatal(err)
			}
			l.Close() // checkpoints the WAL into the file
			spoil(p)
			l2, moved, err := Open(p, me)
			if err != nil || !strings.HasPrefix(moved, p+".corrupt-") {
				t.Fatalf("err %v, moved %q", err, moved)
			}
			defer l2.Close()
			if _, err := os.Stat(moved); err != nil {
				t.Errorf("the corrupt file is not kept: %v", err)
			}
			if n, err := l2.CountCharges(context.Background(), 0, 5000); err != nil || n != 0 {
				t.Errorf("the new ledger holds %d (%v)", n, err)
			}
		})
	}
}

// A file with another account's (or host's) rows is not read.
func TestOpenRefusesAnotherAccount(t *testing.T) {
	p := path(t)
	openT(t, p).Close()
	_, _, err := Open(p, Identity{Host: me.Host, Account: KeyDigest("key-two")})
	if !errors.Is(err, ErrOther) {
		t.Fatalf("another key read the first one's ledger: %v", err)
	}
	_, _, err = Open(p, Identity{Host: "127.0.0.1:9", Account: me.Account})
	if !errors.Is(err, ErrOther) {
		t.Fatalf("another host read the first one's ledger: %v", err)
	}
	if Path("d", me) == Path("d", Identity{Host: me.Host, Account: KeyDigest("key-two")}) {
		t.Error("two keys share a file name")
	}
}

// A folder that cannot be written gives ErrUnavailable, not a crash.
func TestOpenInAReadOnlyFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	if os.Geteuid() == 0 {
		dir = "/proc/1/vastdash" // root writes through modes, not into /proc
	}
	_, _, err := Open(Path(dir, me), me)
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err %v", err)
	}
}

// A full disk fails the write (IsFull) and leaves the ledger as it was:
// the page's transaction is all or nothing.
func TestWriteWhenFull(t *testing.T) {
	p := path(t)
	l := openT(t, p)
	ctx := context.Background()
	if _, err := l.WriteCharges(ctx, page(Window{Lo: 0, Hi: 100, Started: 50}, true, []Span{{Lo: 0, Hi: 100, SyncedAt: 50}}, contract("1", 10, 20, 5))); err != nil {
		t.Fatal(err)
	}
	l.db.SetMaxOpenConns(1)
	var pages int64
	if err := l.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := l.db.Exec(`PRAGMA max_page_count = ` + itoa(pages)); err != nil {
		t.Fatal(err)
	}
	var big []api.Charge
	for i := range 2000 {
		c := contract(itoa(int64(100+i)), 30, 40, 7)
		c.Description = strings.Repeat("d", 200)
		big = append(big, c)
	}
	_, err := l.WriteCharges(ctx, page(Window{Lo: 0, Hi: 200, Started: 60}, true, []Span{{Lo: 0, Hi: 200, SyncedAt: 60}}, big...))
	if !IsFull(err) {
		t.Fatalf("a write past the disk's end: %v", err)
	}
	n, _ := l.CountCharges(ctx, 0, 1000)
	sp, _ := l.Spans(ctx, KindCharges)
	if n != 1 || len(sp) != 1 || sp[0].Hi != 100 {
		t.Fatalf("after a failed page: %d contracts, spans %v", n, sp)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Two handles on one file, as the dashboard and a cron job, write at once:
// neither fails with "database is locked".
func TestTwoWritersWait(t *testing.T) {
	p := path(t)
	a := openT(t, p)
	b := openT(t, p)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for k, l := range []*Ledger{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				id := itoa(int64(k*1000 + i))
				if _, err := l.WriteCharges(context.Background(), page(Window{Lo: 0, Hi: 100, Started: int64(i)}, false, nil, contract(id, 10, 20, 5))); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n, _ := a.CountCharges(context.Background(), 0, 100); n != 80 {
		t.Fatalf("%d contracts of 80", n)
	}
}

// A running contract (no end sent) read again unchanged runs on to the new
// sync: it still overlaps the days since, under either rule (under window
// amounts its fingerprint leaves the amount out, so it is always
// unchanged).
func TestRunningContractRunsOn(t *testing.T) {
	for _, windowed := range []bool{false, true} {
		l := openT(t, path(t))
		ctx := context.Background()
		running := contract("1", 100, 0, 5)
		for _, started := range []int64{1000, 90000} {
			p := page(Window{Lo: 0, Hi: started + 1, Started: started}, true, nil, running)
			p.Windowed = windowed
			if _, err := l.WriteCharges(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := l.CountCharges(ctx, 80000, 90001); err != nil || n != 1 {
			t.Errorf("windowed %v: %d contracts overlap the last sync's hours (%v), want the running one", windowed, n, err)
		}
		if cs, err := l.Charges(ctx, 80000, 90001); err != nil || len(cs) != 1 {
			t.Errorf("windowed %v: read %d contracts (%v)", windowed, len(cs), err)
		}
	}
}

// What a window's pages wrote reads back; its last page deletes the
// contracts it did not return and sets the spans; progress is kept until
// then.
func TestWriteReadAndForgetTheGone(t *testing.T) {
	l := openT(t, path(t))
	ctx := context.Background()
	w := Window{Lo: 0, Hi: 1000, Started: 900, Token: "t1", Pages: 1, Gen: l.Gen()}
	if _, err := l.WriteCharges(ctx, page(w, false, nil, contract("1", 100, 200, 5), contract("2", 300, 400, 7))); err != nil {
		t.Fatal(err)
	}
	got, ok, err := l.Progress(ctx, KindCharges, 0, 1000)
	if err != nil || !ok || got != w {
		t.Fatalf("progress %+v %v %v", got, ok, err)
	}
	w.Token, w.Pages = "", 2
	if n, err := l.WriteCharges(ctx, page(w, true, []Span{{Lo: 0, Hi: 1000, SyncedAt: 900}}, contract("3", 500, 600, 9))); err != nil || n != 1 {
		t.Fatalf("last page: %d changed, %v", n, err)
	}
	cs, err := l.Charges(ctx, 0, 1000)
	if err != nil || len(cs) != 3 || cs[2].Amount != 9 || len(cs[0].Items) != 1 || cs[0].Meta.Label != "job" {
		t.Fatalf("read %+v %v", cs, err)
	}
	if _, ok, _ := l.Progress(ctx, KindCharges, 0, 1000); ok {
		t.Error("a finished window left its progress")
	}
	// The same window again a day later without contract 2: it is gone.
	w = Window{Lo: 0, Hi: 1000, Started: 90000}
	n, err := l.WriteCharges(ctx, page(w, true, []Span{{Lo: 0, Hi: 1000, SyncedAt: 90000}}, contract("1", 100, 200, 5), contract("3", 500, 600, 9)))
	if err != nil || n != 1 {
		t.Fatalf("%d changed (want the one gone), %v", n, err)
	}
	if c, _ := l.CountCharges(ctx, 0, 1000); c != 2 {
		t.Fatalf("%d contracts after one vanished", c)
	}
	var days int
	_ = l.db.QueryRow(`SELECT count(*) FROM daily`).Scan(&days)
	if days != 2 {
		t.Errorf("%d days held: a deleted contract's days must go with it", days)
	}
}

// Users write SQL against the ledger: it reads, and nothing else gets
// through, whatever the statement.
func TestQueryReadsOnly(t *testing.T) {
	p := path(t)
	l := openT(t, p)
	ctx := context.Background()
	if _, err := l.WriteCharges(ctx, page(Window{Lo: 0, Hi: 1000, Started: 900}, true, []Span{{Lo: 0, Hi: 1000, SyncedAt: 900}},
		contract("1", 100, 200, 5), contract("2", 300, 400, 7))); err != nil {
		t.Fatal(err)
	}
	l.Close()
	ro, err := OpenReadOnly(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	res, err := ro.Query(ctx, `SELECT source, end - start AS secs, mills FROM contracts ORDER BY source;`)
	if err != nil || len(res.Rows) != 2 || res.Columns[1] != "secs" || res.Rows[1][2] != int64(7) {
		t.Fatalf("%+v %v", res, err)
	}
	for _, stmt := range []string{
		`DELETE FROM contracts`,
		`UPDATE contracts SET mills = 0`,
		`INSERT INTO meta VALUES ('x', 'y')`,
		`DROP TABLE spans`,
		`ATTACH DATABASE '` + filepath.Join(t.TempDir(), "x.db") + `' AS x`,
		`PRAGMA journal_mode = DELETE`,
		`CREATE TEMP TABLE t(x)`,
	} {
		if _, err := ro.Query(ctx, stmt); !errors.Is(err, ErrWrite) {
			t.Errorf("%s: %v", stmt, err)
		}
	}
	if _, err := ro.Query(ctx, `SELECT 1; DELETE FROM contracts`); err == nil || !strings.Contains(err.Error(), "one statement") {
		t.Errorf("two statements: %v", err)
	}
	if res, err := ro.Query(ctx, `SELECT ';' AS x -- a comment; with a semicolon`); err != nil || res.Rows[0][0] != ";" {
		t.Errorf("a semicolon in a string: %+v %v", res, err)
	}
	if n, _ := ro.Query(ctx, `SELECT count(*) FROM contracts`); n.Rows[0][0] != int64(2) {
		t.Error("a refused statement changed the ledger")
	}
	if _, err := OpenReadOnly(filepath.Join(t.TempDir(), "none.db")); !errors.Is(err, ErrMissing) {
		t.Errorf("no file: %v", err)
	}
}

// Forget deletes the file and its companions; a link is refused.
func TestForget(t *testing.T) {
	p := path(t)
	openT(t, p).Close()
	if err := Forget(p); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p, p + "-wal", p + "-shm"} {
		if _, err := os.Lstat(f); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s left: %v", f, err)
		}
	}
	if err := Forget(p); err != nil {
		t.Errorf("forgetting nothing: %v", err)
	}
	target := filepath.Join(t.TempDir(), "keep")
	_ = os.WriteFile(target, []byte("x"), 0o600)
	_ = os.Symlink(target, p)
	if err := Forget(p); !errors.Is(err, ErrRefused) {
		t.Errorf("link: %v", err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Error("the link's target was deleted")
	}
}

// A window begun in a file since moved aside and started anew (Reset) is
// refused: its first pages are not in the new file, and its span would
// claim what the new file does not hold. Begun again, it is written.
func TestResetRefusesAWindowOfTheOldFile(t *testing.T) {
	l := openT(t, path(t))
	ctx := context.Background()
	w := Window{Lo: 0, Hi: 3000, Started: 3000, Gen: l.Gen()}
	if _, err := l.WriteCharges(ctx, page(w, false, nil, contract("1", 1000, 2000, 5))); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Reset(); err != nil {
		t.Fatal(err)
	}
	last := page(w, true, []Span{{Lo: 0, Hi: 3000, SyncedAt: 3000}}, contract("2", 1500, 2500, 5))
	if _, err := l.WriteCharges(ctx, last); !errors.Is(err, ErrMoved) {
		t.Fatalf("the old file's window: %v", err)
	}
	if sp, _ := l.Spans(ctx, KindCharges); len(sp) != 0 {
		t.Fatalf("the new file claims %v", sp)
	}
	last.Window.Gen = l.Gen()
	if _, err := l.WriteCharges(ctx, last); err != nil {
		t.Fatal(err)
	}
}

// A write that waits past its bound for another process's lock fails in
// words, not SQLite's, and leaves the file as it was.
func TestLockHeldTooLong(t *testing.T) {
	p := path(t)
	l, _, err := Open(p, me, BusyTimeout(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	other, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	ctx := context.Background()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	_, err = l.WriteCharges(ctx, page(Window{Lo: 0, Hi: 3000, Started: 3000}, true, nil, contract("1", 1000, 2000, 5)))
	if err == nil {
		t.Fatal("a write went through another's lock")
	}
	if d := Describe(err); !strings.Contains(d, "locked") || strings.ContainsAny(d, "()") || strings.Contains(d, "SQLITE") {
		t.Errorf("described %q (%v)", d, err)
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	if n, err := l.CountCharges(ctx, 0, 5000); err != nil || n != 0 {
		t.Errorf("after the failed write: %d contracts (%v)", n, err)
	}
}

// A ledger folder of another user's that others may write into is refused,
// by Open and by OpenReadOnly, as the key's folder is: whoever can write
// there can swap the file between two runs. Nothing is made in it.
func TestOpenRefusesAnotherUsersOpenFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Skip("chown:", err)
	}
	p := Path(dir, me)
	_, _, err := Open(p, me)
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "another user's folder") {
		t.Fatalf("open: %v", err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file was made in the refused folder: %v", err)
	}
	if mode(t, dir) != 0o777 {
		t.Errorf("the folder's mode changed to %v", mode(t, dir))
	}
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenReadOnly(p); !errors.Is(err, ErrRefused) {
		t.Errorf("read-only open: %v", err)
	}
}

// Two processes sync overlapping windows, their pages interleaved: the
// older one writes a contract again after the newer one did. The newer
// one's end of window deletes what it did not meet, by its mark — which
// the older one's write must not lower, or the contract (and under window
// amounts its days) is lost. Payment records the same.
func TestOverlappingWritersLoseNoRows(t *testing.T) {
	l := openT(t, path(t))
	ctx := context.Background()
	older := Window{Lo: 0, Hi: 1000, Started: 900, Gen: l.Gen()}
	newer := Window{Lo: 0, Hi: 1000, Started: 950, Gen: l.Gen()}
	x := contract("1", 100, 200, 5)
	if _, err := l.WriteCharges(ctx, page(newer, false, nil, x)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.WriteCharges(ctx, page(older, false, nil, x)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.WriteCharges(ctx, page(newer, true, []Span{{Lo: 0, Hi: 1000, SyncedAt: 950}}, contract("2", 300, 400, 7))); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.CountCharges(ctx, 0, 1000); n != 2 {
		t.Errorf("the newer window's end left %d contracts, want 2", n)
	}

	rec := api.Invoice{ID: "r1", Created: 100, Paid: 100, Type: "credit", Source: "stripe", Description: "Card", Amount: -5}
	if _, err := l.WritePayments(ctx, PaymentsPage{Window: newer, Records: []api.Invoice{rec}}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.WritePayments(ctx, PaymentsPage{Window: older, Records: []api.Invoice{rec}}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.WritePayments(ctx, PaymentsPage{Window: newer, Done: true}); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.CountPayments(ctx, 0, 1000); n != 1 {
		t.Errorf("the newer window's end left %d records, want 1", n)
	}
}
