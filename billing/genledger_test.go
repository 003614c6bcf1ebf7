package billing

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/vastdash/vastdash/ledger"
)

// genNow is the time a generated ledger was synced: the end of its year.
var genNow = time.Date(2026, 12, 31, 12, 0, 0, 0, time.UTC)

// genIdentity is whose a generated ledger is.
var genIdentity = ledger.Identity{Host: "bench", Account: ledger.KeyDigest("bench-key")}

// genLedger writes a year of n contracts (to genNow) straight into a new
// ledger file in dir, as a sync under rule would have left it: contracts
// with their four lines, their UTC days (and the lines' parts of them),
// one span holding the year and the rule in meta. One transaction of
// prepared statements, so a million contracts take a minute, not the
// hours of a sync. The mix is an account's: instances, volumes and many
// short serverless workers, a fifth without a label, a few still running;
// seeded, so every run writes the same file. It returns the file's path.
func genLedger(tb testing.TB, dir string, n int, rule AmountRule) string {
	tb.Helper()
	path := ledger.Path(dir, genIdentity)
	l, _, err := ledger.Open(path, genIdentity)
	if err != nil {
		tb.Fatal(err)
	}
	if err := l.SetMeta(context.Background(), "amount_rule", rule.String()); err != nil {
		tb.Fatal(err)
	}
	if err := l.Close(); err != nil {
		tb.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(OFF)")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if err := genRows(db, n); err != nil {
		tb.Fatal(err)
	}
	return path
}

// benchLedger is the generated ledger of n contracts a benchmark reads:
// written in a folder of its own, or, when VASTDASH_BENCH_LEDGERS names a
// folder, kept there (contracts-N/) and read again by the next run, so a
// million contracts are written once however often they are measured.
// The file is kept only once written whole (a "done" mark beside it).
func benchLedger(b *testing.B, n int) string {
	b.Helper()
	keep := os.Getenv("VASTDASH_BENCH_LEDGERS")
	if keep == "" {
		return genLedger(b, b.TempDir(), n, RuleWindow)
	}
	dir := filepath.Join(keep, "contracts-"+strconv.Itoa(n))
	done := filepath.Join(dir, "done")
	if _, err := os.Stat(done); err == nil {
		return ledger.Path(dir, genIdentity)
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	path := genLedger(b, dir, n, RuleWindow)
	if err := os.WriteFile(done, nil, 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// genRows inserts the contracts of genLedger in one transaction.
func genRows(db *sql.DB, n int) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	prep := func(q string) *sql.Stmt {
		st, e := tx.Prepare(q)
		if e != nil && err == nil {
			err = e
		}
		return st
	}
	insC := prep(`INSERT INTO contracts(id, source, type, start, "end", amount, mills, label, description,
		template_id, endpoint_id, workergroup_id, synced_at, span_lo, span_hi, fp) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,0)`)
	insI := prep(`INSERT INTO items(contract_id, idx, type, source, description, start, "end", amount, mills) VALUES (?,?,?,?,?,?,?,?,?)`)
	insD := prep(`INSERT INTO daily(contract_id, day, amount, mills) VALUES (?,?,?,?)`)
	insDI := prep(`INSERT INTO daily_items(contract_id, idx, day, mills) VALUES (?,?,?,?)`)
	if err != nil {
		return err
	}
	now := genNow.Unix()
	year := genNow.AddDate(-1, 0, 0).Unix()
	rng := rand.New(rand.NewPCG(uint64(n), 38))
	labels := []string{"train-llama", "train-sdxl", "eval", "notebook", "render", "batch-a", "batch-b", "infer", "dev", "ci"}
	var shares [4]int64
	var start int64
	for id := int64(1); id <= int64(n); id++ {
		// The sources' numbers run against the rows' ids, and a fifth
		// starts with the one before: the server's order among contracts
		// of one start (by that number) is then not the ledger's.
		num := strconv.FormatInt(10_000_000-id, 10)
		var typ, src, label string
		var tmpl, ep, wg any
		var dur int64
		switch k := rng.IntN(10); {
		case k < 5: // serverless workers: minutes to hours
			typ, src = "serverless", "serverless-"+num
			ep, wg, tmpl = 100+rng.Int64N(8), 1000+rng.Int64N(24), 10+rng.Int64N(4)
			dur = 300 + rng.Int64N(6*3600)
		case k < 8: // instances: hours to days
			typ, src = "instance", "instance-"+num
			tmpl = 10 + rng.Int64N(4)
			dur = 3600 + rng.Int64N(5*86400)
		default: // volumes: days to weeks
			typ, src = "volume", "volume-"+num
			dur = 86400 + rng.Int64N(20*86400)
		}
		if rng.IntN(5) > 0 {
			label = labels[rng.IntN(len(labels))]
		}
		if id == 1 || rng.IntN(5) > 0 {
			start = year + rng.Int64N(now-year-300)
		}
		end := start + dur
		running := end >= now
		if running {
			end = now
		}
		total := dur/36 + rng.Int64N(dur/36+1) // about $0.03–0.06 an hour, in thousandths
		shares = [4]int64{total * 80 / 100, total * 12 / 100, total * 5 / 100, 0}
		shares[3] = total - shares[0] - shares[1] - shares[2]
		sentEnd := end
		if running {
			sentEnd = 0
		}
		if _, err := insC.Exec(id, src, typ, start, sentEnd, float64(total)/1000, total, nullable(label), typ+" contract "+num,
			tmpl, ep, wg, now, start, end); err != nil {
			return err
		}
		for k, t := range []string{"gpu", "disk", "bwd", "bwu"} {
			if _, err := insI.Exec(id, k, t, src+"-"+t, t+" charges", start, sentEnd, float64(shares[k])/1000, shares[k]); err != nil {
				return err
			}
		}
		// The days: each amount spread over the contract's seconds, the
		// parts of each day the difference of two roundings (as a sync
		// spreads a total), so they add up to it exactly.
		upTo := func(a, x int64) int64 { return (a*(x-start)*2 + (end - start)) / (2 * (end - start)) }
		for d := start - start%86400; d < end; d += 86400 {
			a, b := max(d, start), min(d+86400, end)
			m := upTo(total, b) - upTo(total, a)
			if _, err := insD.Exec(id, d, float64(m)/1000, m); err != nil {
				return err
			}
			for k := range shares {
				if _, err := insDI.Exec(id, k, d, upTo(shares[k], b)-upTo(shares[k], a)); err != nil {
					return err
				}
			}
		}
	}
	if _, err := tx.Exec(`INSERT INTO spans(kind, lo, hi, synced_at, unsure) VALUES ('charges', ?, ?, ?, 0)`, year, now, now); err != nil {
		return err
	}
	return tx.Commit()
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TestGenerateLedger writes a generated ledger where VASTDASH_GEN_LEDGER
// names (a folder; VASTDASH_GEN_CONTRACTS contracts, 100,000 unless set),
// for measuring the built binary on it (docs/performance.md). Without the
// variable it checks a small one reads back whole.
func TestGenerateLedger(t *testing.T) {
	dir, n := os.Getenv("VASTDASH_GEN_LEDGER"), 100_000
	if v := os.Getenv("VASTDASH_GEN_CONTRACTS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			t.Fatal(err)
		}
	}
	if dir == "" {
		dir, n = t.TempDir(), 500
	}
	path := genLedger(t, dir, n, RuleWindow)
	l, _, err := ledger.Open(path, genIdentity)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rows, err := l.Charges(context.Background(), genNow.AddDate(-1, 0, 0).Unix(), genNow.Unix()+1)
	if err != nil || len(rows) != n {
		t.Fatalf("%v: %d rows of %d", err, len(rows), n)
	}
	fmt.Fprintln(os.Stderr, "ledger:", filepath.Clean(path))
}
