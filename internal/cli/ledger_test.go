package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
)

// withLedger turns the ledger on for a run, kept in data (the same folder
// for every run of a test: the second run finds the first one's ledger).
func withLedger(t *testing.T, data string, more ...func(*env)) func(*env) {
	return func(e *env) {
		e.ledger = true
		t.Setenv("XDG_DATA_HOME", data)
		for _, m := range more {
			m(e)
		}
	}
}

// ledgerFiles lists the ledger files in data.
func ledgerFiles(t *testing.T, data string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(data, "vastdash", "ledger-*.db"))
	return files
}

// A year of charges twice: the second run reads the ledger and asks what
// changed since (nothing) and one count, and prints the same answer; after
// the server's data moved on, the third is exact again.
func TestChargesThroughTheLedger(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 1300, Threshold: -1})
	data := t.TempDir()
	args := append([]string{"charges", "--output", "csv"}, wholeSpan()...)
	first := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
	first.ok(t)
	if n := len(ledgerFiles(t, data)); n != 1 {
		t.Fatalf("%d ledger files after the first run", n)
	}
	srv.ResetRequests()
	second := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
	second.ok(t)
	if second.out != first.out {
		t.Fatal("the second run's answer differs from the first's")
	}
	if n := len(chargesRequests(srv)); n > 3 {
		t.Errorf("the second run of a covered year asked %d requests", n)
	}

	srv.Advance(2*time.Hour, 25)
	srv.ResetRequests()
	third := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), append([]string{"charges", "--output", "csv", "--to",
		srv.Now().Format(time.DateOnly)}, wholeSpan()[:2]...)...)
	third.ok(t)
	want := srv.Contracts(wholeSpanFilter(t))
	rows := readCSV(t, third.out)
	if len(rows) != len(want) {
		t.Fatalf("%d rows after the data moved on, the server has %d", len(rows), len(want))
	}
	var sum, truth money.Amount
	for i, r := range rows {
		sum += parseAmount(t, r[6])
		truth += money.Amount(want[i].Amount)
		if r[3] != want[i].Source {
			t.Fatalf("row %d is %s, the server's %s", i, r[3], want[i].Source)
		}
	}
	if sum != truth {
		t.Errorf("the rows sum to %v, the server's to %v", sum, truth)
	}
	if n := len(chargesRequests(srv)); n > 3 {
		t.Errorf("%d requests after two hours moved on", n)
	}
}

// --no-ledger and ledger = false neither read nor write a ledger.
func TestNoLedger(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 200})
	data := t.TempDir()
	headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), "charges", "--no-ledger").ok(t)
	if files := ledgerFiles(t, data); len(files) != 0 {
		t.Fatalf("--no-ledger wrote %v", files)
	}
	off := func(*env) {
		dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "vastdash")
		_ = os.MkdirAll(dir, 0o700)
		_ = os.WriteFile(filepath.Join(dir, "config.toml"), []byte("ledger = false\n"), 0o600)
	}
	headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data, off), "charges").ok(t)
	if files := ledgerFiles(t, data); len(files) != 0 {
		t.Fatalf("ledger = false wrote %v", files)
	}
}

// A link where the ledger would be is refused with one warning; the run
// goes on from the server, the link's target untouched.
func TestLedgerLinkRefused(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 200})
	data := t.TempDir()
	headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), "charges").ok(t)
	path := ledgerFiles(t, data)[0]
	target := filepath.Join(t.TempDir(), "elsewhere")
	_ = os.WriteFile(target, []byte("mine"), 0o600)
	_ = os.Remove(path)
	_ = os.Remove(path + "-wal")
	_ = os.Remove(path + "-shm")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	res := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), "charges", "--output", "csv")
	res.ok(t)
	if !strings.Contains(res.errOut, "the ledger is off this run") || !strings.Contains(res.errOut, "symbolic link") {
		t.Errorf("stderr %q", res.errOut)
	}
	if b, _ := os.ReadFile(target); string(b) != "mine" {
		t.Error("the link's target was written")
	}
	if len(readCSV(t, res.out)) == 0 {
		t.Error("no rows without the ledger")
	}
}

// A corrupt ledger: one warning naming the file, moved aside, rebuilt from
// the server, the answer exact.
func TestCorruptLedgerRebuilt(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 600, Threshold: -1})
	data := t.TempDir()
	args := append([]string{"charges", "--output", "csv"}, wholeSpan()...)
	first := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
	first.ok(t)
	path := ledgerFiles(t, data)[0]
	_ = os.Remove(path + "-wal")
	_ = os.Remove(path + "-shm")
	if err := os.WriteFile(path, bytes.Repeat([]byte("garbage!"), 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	res := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
	res.ok(t)
	if strings.Count(res.errOut, "unreadable") != 1 || !strings.Contains(res.errOut, path) || !strings.Contains(res.errOut, ".corrupt-") {
		t.Errorf("stderr %q", res.errOut)
	}
	if res.out != first.out {
		t.Error("the answer after the rebuild differs")
	}
}

// A second key of the same account shares its ledger (the ledger is the
// account's, not the key's; another account's is
// TestLedgerSharedByTwoKeysOfOneAccount), and no key is in a file name.
func TestLedgerPerAccount(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 200})
	srv.AddKey("second-key-0123456789", "second", nil)
	data := t.TempDir()
	headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), "charges").ok(t)
	headlessWith(t, srv, "second-key-0123456789", withLedger(t, data), "charges").ok(t)
	if files := ledgerFiles(t, data); len(files) != 1 {
		t.Fatalf("two keys of one account, ledgers %v", files)
	}
	for _, f := range ledgerFiles(t, data) {
		if strings.Contains(f, "second-key") || strings.Contains(f, demoserver.DemoKey) {
			t.Errorf("a key in a file name: %s", f)
		}
	}
}

// sync fills the ledger; ledger shows it; sql reads it in three formats
// and refuses a write; forget deletes it, asking first.
func TestLedgerCommands(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 700, Payments: 120, Threshold: -1, InvoicesThreshold: -1})
	data := t.TempDir()
	run := func(args ...string) result {
		return headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
	}
	res := run("sync", "--from", demoNow.AddDate(-1, 0, -2).Format(time.DateOnly))
	res.ok(t)
	if !strings.Contains(res.out, "700 contracts") || !strings.Contains(res.out, "payment records") {
		t.Fatalf("sync said %q", res.out)
	}
	// sync read the account once, to name its ledger; from here on the
	// ledger's commands ask the server nothing.
	srv.ResetRequests()
	res = run("ledger", "--output", "json")
	res.ok(t)
	var info ledgerJSON
	if err := json.Unmarshal([]byte(res.out), &info); err != nil {
		t.Fatal(err)
	}
	if !info.Exists || info.Contracts != 700 || info.Payments == 0 || len(info.Spans) != 2 || info.LastSync == nil {
		t.Fatalf("ledger %+v", info)
	}
	if st, err := os.Stat(info.Path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the ledger's mode: %v %v", st.Mode(), err)
	}
	if res := run("ledger"); !strings.Contains(res.out, "contracts          700") {
		t.Errorf("ledger said %q", res.out)
	}

	q := "SELECT type, count(*) AS n, sum(mills) AS mills FROM contracts GROUP BY type ORDER BY type"
	res = run("sql", q, "--output", "json")
	res.ok(t)
	var rows []map[string]any
	if err := json.Unmarshal([]byte(res.out), &rows); err != nil || len(rows) == 0 || rows[0]["type"] == nil {
		t.Fatalf("sql json %q: %v", res.out, err)
	}
	var total int64
	for _, c := range srv.Contracts(wholeSpanFilter(t)) {
		total += c.Amount
	}
	var got float64
	for _, r := range rows {
		got += r["mills"].(float64)
	}
	if int64(got) != total {
		t.Errorf("the ledger's mills sum to %v, the server's %d", got, total)
	}
	if res := run("sql", q, "--output", "csv"); !strings.HasPrefix(res.out, "type,n,mills\n") {
		t.Errorf("sql csv %q", res.out)
	}
	if res := run("sql", q); !strings.HasPrefix(res.out, "TYPE") && !strings.HasPrefix(res.out, "type") {
		t.Errorf("sql text %q", res.out)
	}
	run("sql", "DELETE FROM contracts").failed(t, exitRuntime, "read-only")
	run("sql").failed(t, exitUsage, "one statement")
	if n := srv.CountPath("/api/v0/users/current"); n != 0 {
		t.Errorf("sql and ledger asked the server %d times", n)
	}

	// --no-ledger keeps every one of them away from the file: a usage
	// error, one line saying why.
	for _, args := range [][]string{{"sql", q}, {"ledger"}, {"ledger", "forget", "--yes"}, {"sync"}} {
		run(append(args, "--no-ledger")...).failed(t, exitUsage, ", and --no-ledger keeps this run away from it (see vastdash "+args[0])
	}

	// forget: refused without a terminal and --yes; asks on one.
	run("ledger", "forget").failed(t, exitUsage, "--yes")
	no := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data, func(e *env) {
		e.stdin = &ttyReader{strings.NewReader("n\n")}
		e.isTerminal = func(w io.Writer) bool { _, ok := w.(*ttyReader); return ok }
	}), "ledger", "forget")
	if no.code != exitRuntime || len(ledgerFiles(t, data)) != 1 || !strings.HasSuffix(no.errOut, "vastdash: nothing was deleted: the answer was not yes\n") {
		t.Fatalf("answered n: exit %d, %q, files %v", no.code, no.errOut, ledgerFiles(t, data))
	}
	// A ledger another vastdash has open (a dashboard) is left as it is.
	open, err := ledger.OpenReadOnly(info.Path)
	if err != nil {
		t.Fatal(err)
	}
	run("ledger", "forget", "--yes").failed(t, exitRuntime, "in use by another vastdash")
	open.Close()
	if len(ledgerFiles(t, data)) != 1 {
		t.Fatal("the ledger in use was deleted")
	}
	res = run("ledger", "forget", "--yes")
	res.ok(t)
	if len(ledgerFiles(t, data)) != 0 || !strings.Contains(res.out, "deleted") {
		t.Fatalf("forget --yes: %q, files %v", res.out, ledgerFiles(t, data))
	}
}

// ttyReader stands for a terminal on stdin.
type ttyReader struct{ *strings.Reader }

func (ttyReader) Write(p []byte) (int, error) { return len(p), nil }

// The commands that read the ledger's file themselves say a corrupt one in
// one line naming it and what comes of it, never SQLite's words; the file
// is left for the next run that uses the ledger to move aside.
func TestLedgerCommandsOnACorruptFile(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 200, Threshold: -1})
	data := t.TempDir()
	run := func(args ...string) result {
		return headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
	}
	run("charges").ok(t)
	path := ledgerFiles(t, data)[0]
	_ = os.Remove(path + "-wal")
	_ = os.Remove(path + "-shm")
	if err := os.WriteFile(path, bytes.Repeat([]byte("garbage!"), 4096), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"ledger"}, {"sql", "SELECT count(*) FROM contracts"}} {
		res := run(args...)
		res.failed(t, exitRuntime, path+" is corrupt or cut short")
		if strings.Contains(res.errOut, "SQLITE") || strings.Contains(res.errOut, "(26)") {
			t.Errorf("%s said SQLite's words: %q", args[0], res.errOut)
		}
	}
	if b, _ := os.ReadFile(path); !bytes.HasPrefix(b, []byte("garbage!")) {
		t.Error("a command that only reads changed the file")
	}
}

// A command that reads no history never opens the ledger: `credit` from a
// status bar every few seconds pays nothing for SQLite (no file made, no
// lock taken), and a ledger that cannot be used is not its business to
// warn about. The first command that reads history opens it.
func TestCommandsWithoutHistoryLeaveTheLedgerClosed(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 200})
	data := t.TempDir()
	for _, args := range [][]string{{"credit"}, {"credit", "--output", "json"}, {"notifications"}, {"webhooks"}} {
		res := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
		res.ok(t)
		// The key's pace file beside it is not the ledger: no SQLite.
		if files, _ := filepath.Glob(filepath.Join(data, "vastdash", "ledger-*.db*")); len(files) != 0 {
			t.Fatalf("%v opened the ledger: %v", args, files)
		}
	}
	// A link where the ledger would be: credit says nothing of it.
	if err := os.MkdirAll(filepath.Join(data, "vastdash"), 0o700); err != nil {
		t.Fatal(err)
	}
	headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), "charges").ok(t)
	path := ledgerFiles(t, data)[0]
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		_ = os.Remove(f)
	}
	if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere"), path); err != nil {
		t.Fatal(err)
	}
	res := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), "credit")
	res.ok(t)
	if res.errOut != "" {
		t.Errorf("credit warned %q", res.errOut)
	}
}

// charges --group-by answered from the ledger (summed by SQLite) prints
// what a fresh --no-ledger fetch prints, group for group and the total
// line, under both amount rules, for a range of whole days that cuts the
// contracts running across its ends, with a type filter and in JSON too.
// (A range cut inside a day is prorated from the ledger's UTC days,
// which the feed's rows did before the sums went to SQLite: the billing
// equality tests hold the two together there.)
func TestGroupByFromTheLedgerEqualsTheServer(t *testing.T) {
	for _, windowed := range []bool{false, true} {
		srv := startServer(t, demoserver.Options{Contracts: 900, Threshold: -1, WindowAmounts: windowed})
		data := t.TempDir()
		rng := []string{"--from", demoNow.AddDate(0, -3, 0).Format(time.DateOnly), "--to", demoNow.AddDate(0, 0, -20).Format(time.DateOnly), "--utc"}
		// The first run fills the ledger.
		headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), append([]string{"charges", "--group-by", "day"}, rng...)...).ok(t)
		for _, by := range []string{"day", "label", "template", "endpoint", "workergroup", "type"} {
			for _, extra := range [][]string{nil, {"--output", "json"}, {"--type", "serverless,volume"}} {
				heldAnswersAsServer(t, srv, data, windowed, append(append([]string{"charges", "--group-by", by}, rng...), extra...)...)
			}
		}
	}
}

// charges --output json|csv streamed from the ledger row by row is byte
// for byte what a fresh --no-ledger fetch writes (stdout, and the totals
// line on stderr), under both amount rules, with items, oldest first, a
// label and a type filter.
func TestStreamedChargesEqualTheServer(t *testing.T) {
	for _, windowed := range []bool{false, true} {
		srv := startServer(t, demoserver.Options{Contracts: 700, Threshold: -1, WindowAmounts: windowed})
		data := t.TempDir()
		rng := []string{"--from", demoNow.AddDate(0, -2, 0).Format(time.DateOnly), "--to", demoNow.AddDate(0, 0, -9).Format(time.DateOnly), "--utc"}
		headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), append([]string{"charges", "--output", "csv"}, rng...)...).ok(t)
		labels := map[string]bool{}
		for _, c := range srv.Contracts(demoserver.Filter{}) {
			if c.Label != "" && len(labels) < 2 {
				labels[c.Label] = true
			}
		}
		var labelArgs []string
		for l := range labels {
			labelArgs = append(labelArgs, "--label", l)
		}
		for _, output := range []string{"json", "csv"} {
			for _, extra := range [][]string{nil, {"--items"}, {"--oldest-first", "--type", "instance,serverless"}, labelArgs} {
				args := append(append([]string{"charges", "--output", output}, rng...), extra...)
				got := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
				got.ok(t)
				want := headlessWith(t, srv, demoserver.DemoKey, nil, append(args, "--no-ledger")...)
				want.ok(t)
				if got.out == "" || got.out == "[]\n" {
					t.Fatalf("%v wrote nothing: the test compares nothing", args)
				}
				if got.out != want.out || got.errOut != want.errOut {
					t.Errorf("windowed %v, %v: the ledger's answer (%d bytes, %q) differs from the server's (%d bytes, %q)",
						windowed, args, len(got.out), got.errOut, len(want.out), want.errOut)
				}
			}
		}
	}
}

// statement with the ledger holding its months (the charges folded a
// contract at a time from SQL amounts) prints what a fresh --no-ledger
// fetch prints. Under totals only: under window amounts the range ends
// now, inside a day, whose part the ledger prorates from the day's amount
// and the server reads exactly — a thousandth apart at times, as the
// ledger's rows were before the fold (billing's
// TestLedgerStatementEqualsRows holds the fold to the rows under both).
func TestStatementFromTheLedgerEqualsTheServer(t *testing.T) {
	for _, windowed := range []bool{false} {
		srv := startServer(t, demoserver.Options{Contracts: 900, Payments: 40, Threshold: -1, WindowAmounts: windowed})
		data := t.TempDir()
		heldEqualsServer(t, srv, data, windowed, "statement", "--months", "4")
	}
}

// heldEqualsServer runs args once to fill the ledger in data, then again
// with --output text and json: each answered in a few requests for
// charges, and saying what a fresh --no-ledger fetch says, byte for byte.
func heldEqualsServer(t *testing.T, srv *demoserver.Server, data string, windowed bool, args ...string) {
	t.Helper()
	headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...).ok(t)
	for _, output := range []string{"text", "json"} {
		heldAnswersAsServer(t, srv, data, windowed, append(slices.Clone(args), "--output", output)...)
	}
}

// heldAnswersAsServer runs args with the ledger in data, which holds their
// range: a few requests for charges at most, and stdout and stderr byte
// for byte what a fresh --no-ledger fetch writes.
func heldAnswersAsServer(t *testing.T, srv *demoserver.Server, data string, windowed bool, args ...string) {
	t.Helper()
	srv.ResetRequests()
	got := headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), args...)
	got.ok(t)
	if n := len(chargesRequests(srv)); n > 3 {
		t.Errorf("%v: %d requests for charges with the range in the ledger", args, n)
	}
	want := headlessWith(t, srv, demoserver.DemoKey, nil, append(slices.Clone(args), "--no-ledger")...)
	want.ok(t)
	if got.out != want.out || got.errOut != want.errOut {
		t.Errorf("windowed %v, %v:\nledger:\n%s%s\nserver:\n%s%s", windowed, args, got.out, got.errOut, want.out, want.errOut)
	}
}

// A server gone after the ledger was filled: a grouping of the held range
// and its streamed CSV fail with the server's error as the feed says it
// (not as a failure to write the answer), once — not tried a second time
// through the feed — and nothing on stdout.
func TestGroupByServerGoneFailsOnce(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 300, Threshold: -1})
	data := t.TempDir()
	args := append([]string{"charges"}, wholeSpan()...)
	headlessWith(t, srv, demoserver.DemoKey, withLedger(t, data), append(args, "--group-by", "type")...).ok(t)
	url := srv.URL()
	srv.Close()
	run := func(more ...string) result {
		return runAgainst(t, srv, demoserver.DemoKey, withLedger(t, data), append([]string{"--url", url}, append(args, more...)...)...)
	}
	listing := run("--output", "csv")
	grouped := run("--group-by", "type")
	if listing.code != 1 || !strings.HasPrefix(listing.errOut, "vastdash: cannot reach ") || strings.Count(listing.errOut, "\n") != 1 ||
		listing.out != "" || grouped.code != listing.code || grouped.errOut != listing.errOut || grouped.out != "" {
		t.Errorf("grouped: exit %d, %q, stdout %q; the listing: exit %d, %q", grouped.code, grouped.errOut, grouped.out, listing.code, listing.errOut)
	}
}

// TestSpendFromTheLedgerEqualsTheServer: `vastdash spend` of a month the
// ledger holds (this one, with its forecast, and a past one) is folded
// from the ledger in a few requests, and says what a fresh --no-ledger
// fetch says, byte for byte. (Under window amounts the ledger's feed
// already differed from a fresh fetch by a thousandth in this month's
// spend before the fold, as the statement's does: billing's
// TestLedgerOutlookEqualsRows holds the fold to the ledger's rows under
// both rules.)
func TestSpendFromTheLedgerEqualsTheServer(t *testing.T) {
	for _, windowed := range []bool{false} {
		srv := startServer(t, demoserver.Options{Contracts: 900, Threshold: -1, WindowAmounts: windowed})
		data := t.TempDir()
		past := srv.Now().AddDate(0, -2, 0).Format("2006-01")
		for _, args := range [][]string{{"spend"}, {"spend", "--month", past}} {
			heldEqualsServer(t, srv, data, windowed, args...)
		}
	}
}
