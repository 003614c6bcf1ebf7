package cli

import (
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/money"
)

// A year of history that moves on between runs, as a live server's does:
// time passes, new contracts start, running ones end, recent ones are
// charged anew, some vanish; a pending payment is paid, a recent record is
// corrected, another one arrives. After each move the figures read through
// the ledger — the year's charges per day and per contract, the
// statement's months — are those of a run without it: exactly under
// totals; under window amounts to the rounding of the ledger's days (a
// thousandth a day and a line), never by a correction missed.
func TestLedgerHistoryMovesOn(t *testing.T) {
	for _, windowed := range []bool{false, true} {
		t.Run(fmt.Sprintf("window amounts %v", windowed), func(t *testing.T) {
			srv := startServer(t, demoserver.Options{Contracts: 900, Payments: 90, Threshold: -1, InvoicesThreshold: -1,
				WindowAmounts: windowed})
			data := t.TempDir()
			fast := func(e *env) {
				e.clientOptions = append(e.clientOptions, api.WithEndpointThreshold(api.InvoicesPath, threshold))
			}
			figures := func(through bool) map[string]string {
				t.Helper()
				tweak, extra := withLedger(t, data, fast), []string{}
				if !through {
					tweak, extra = fast, []string{"--no-ledger"}
				}
				from, to := srv.Now().AddDate(-1, 0, 0).Format(time.DateOnly), srv.Now().Format(time.DateOnly)
				out := map[string]string{}
				for name, args := range map[string][]string{
					"by day":    {"charges", "--from", from, "--to", to, "--utc", "--group-by", "day", "--output", "csv"},
					"contracts": {"charges", "--from", from, "--to", to, "--utc", "--output", "csv"},
					"statement": {"statement", "--months", "12", "--utc", "--output", "csv"},
				} {
					res := headlessWith(t, srv, demoserver.DemoKey, tweak, append(args, extra...)...)
					res.ok(t)
					out[name] = res.out
				}
				return out
			}
			figures(true)
			for step := 1; step <= 3; step++ {
				moved := srv.Move(demoserver.Move{By: 5 * time.Hour, New: 12, End: 3, Revise: 4, Recent: 90 * time.Minute, Vanish: 2})
				now := srv.Now().Unix()
				srv.ChangeInvoices(func(recs []demoserver.Invoice) []demoserver.Invoice {
					for i := range recs {
						r := &recs[i]
						switch {
						case r.Paid == 0:
							r.Paid = now - 600 // the pending payment is confirmed
						case r.Created > now-2*86400:
							r.Amount -= 1_000 // a recent record corrected
						}
					}
					return append(recs, demoserver.Invoice{ID: fmt.Sprintf("moved-%d", step), Created: now - 1800, Type: "credit",
						Source: "bitpay", Description: "BitPay payment, awaiting confirmation", Service: "bitpay", Amount: -40_000})
				})
				got, want := figures(true), figures(false)
				for name := range want {
					if d := differences(t, got[name], want[name], windowed); d != "" {
						t.Errorf("step %d (%+v): %s through the ledger differ from the server's:\n%s", step, moved, name, d)
					}
				}
			}
		})
	}
}

// differences lists the fields of two CSV answers that differ: every one
// exactly, or with rounded, the money (the amount of a contract within a
// thousandth a line, of a day within one a contract, a statement's
// figures within the days re-read since) — a share in percent follows
// its amount and is not compared then.
func differences(t *testing.T, got, want string, rounded bool) string {
	t.Helper()
	if got == want {
		return ""
	}
	g, err := csv.NewReader(strings.NewReader(got)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	w, err := csv.NewReader(strings.NewReader(want)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if len(g) != len(w) {
		out = append(out, fmt.Sprintf("  %d rows, the server's %d", len(g), len(w)))
	}
	head := w[0]
	for i := 1; i < min(len(g), len(w)) && len(out) < 12; i++ {
		for k, col := range head {
			a, b := g[i][k], w[i][k]
			if a == b || rounded && col == "share" {
				continue
			}
			tol := money.Amount(-1) // not money: exact
			if rounded {
				switch col {
				case "amount":
					tol = 4 // a contract's lines
					if n, err := strconv.Atoi(g[i][1]); err == nil && head[1] == "count" {
						tol = money.Amount(n) // a day's contracts
					}
				case "opening", "money_in", "money_out", "spend", "closing", "pending":
					tol = 25
				}
			}
			if tol < 0 {
				out = append(out, fmt.Sprintf("  row %d %s: %q, the server's %q", i, col, a, b))
				continue
			}
			if d := parseAmount(t, a) - parseAmount(t, b); d > tol || -d > tol {
				out = append(out, fmt.Sprintf("  row %d %s: %q, the server's %q", i, col, a, b))
			}
		}
	}
	return strings.Join(out, "\n")
}
