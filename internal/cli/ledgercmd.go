package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
)

// ledgerArgs are the options of the ledger command and its forget.
type ledgerArgs struct {
	output string
	yes    bool
}

// newLedgerCommand is `vastdash ledger`: where the ledger is and what it
// holds; `vastdash ledger forget` deletes it.
func newLedgerCommand(x *execution) *cobra.Command {
	var a ledgerArgs
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "show where the ledger is and what it holds; ledger forget deletes it",
		Long: `The ledger is vastdash's local history of the account: one SQLite file per account and API host in $XDG_DATA_HOME/vastdash (default ~/.local/share/vastdash), readable only by you. The dashboard and the commands read a range from it at once and ask the server only what changed since; vastdash sync fills it, vastdash sql queries it. The ledger setting (false) or --no-ledger leave it alone.

This prints the file, its size, the contracts, lines, days and payment records it holds, the spans of time it covers and when each was synced, and the amount rule the server was found to follow. No request is made.`,
		Example: `
vastdash ledger
vastdash ledger forget --yes
`,
		Args: noArgs,
		RunE: x.sessionRun(nil, nil, sessionOptions{noLedger: true}, func(ctx context.Context, s *Session) error {
			return showLedger(ctx, s, a)
		}),
	}
	outputFlags(cmd, &a.output, "text", "json")
	var f ledgerArgs
	forget := &cobra.Command{
		Use:   "forget",
		Short: "delete the ledger (asks first; --yes does not)",
		Long:  `Delete the account's ledger file (and its WAL). The next run fetches what it shows from the server again. It asks on the terminal first; --yes deletes without asking, and is needed when stdin is not a terminal (without it nothing is deleted, exit 2).`,
		Args:  noArgs,
		RunE: x.sessionRun(nil, nil, sessionOptions{noLedger: true}, func(ctx context.Context, s *Session) error {
			return forgetLedger(ctx, s, f, x.env)
		}),
	}
	yesFlag(forget, &f.yes, "delete")
	outputFlags(forget, &f.output, "text", "json")
	cmd.AddCommand(forget)
	return cmd
}

// ledgerJSON is what --output json says of the ledger.
type ledgerJSON struct {
	Path      string     `json:"path"`
	Exists    bool       `json:"exists"`
	Bytes     int64      `json:"bytes"`
	Contracts int        `json:"contracts"`
	Items     int        `json:"items"`
	Days      int        `json:"days"`
	Payments  int        `json:"payments"`
	Spans     []spanJSON `json:"spans"`
	LastSync  *string    `json:"last_sync"`
	Rule      string     `json:"amount_rule"`
}

type spanJSON struct {
	Kind     string `json:"kind"`
	From     string `json:"from"`
	To       string `json:"to"`
	SyncedAt string `json:"synced_at"`
}

// showLedger is the ledger command.
func showLedger(ctx context.Context, s *Session, a ledgerArgs) error {
	if err := s.needLedger("ledger shows the ledger", false); err != nil {
		return err
	}
	if err := s.findLedger(); err != nil {
		return err
	}
	if s.LedgerPath == "" {
		return errNoLedgerFile
	}
	loc := s.Billing.Location()
	j := ledgerJSON{Path: s.LedgerPath, Spans: []spanJSON{}}
	var in ledger.Info
	l, err := ledger.OpenReadOnly(s.LedgerPath)
	switch {
	case errors.Is(err, ledger.ErrMissing):
	case err != nil:
		return err
	default:
		defer l.Close()
		if in, err = l.Info(ctx); err != nil {
			return err
		}
		j.Exists, j.Bytes, j.Contracts, j.Items, j.Days, j.Payments, j.Rule = true, in.Size, in.Contracts, in.Items, in.Days, in.Payments, in.Rule
		for _, kind := range []string{ledger.KindCharges, ledger.KindPayments} {
			for _, sp := range in.Spans[kind] {
				j.Spans = append(j.Spans, spanJSON{Kind: kind, From: stamp(sp.Lo, loc), To: stamp(sp.Hi, loc), SyncedAt: stamp(sp.SyncedAt, loc)})
			}
		}
		if in.LastSync > 0 {
			t := stamp(in.LastSync, loc)
			j.LastSync = &t
		}
	}
	if a.output == "json" {
		return s.answer(func(w io.Writer) error { return writeJSON(w, j) })
	}
	return s.answer(func(w io.Writer) error { return writeLedgerText(w, j, in, s.Billing) })
}

func stamp(t int64, loc *time.Location) string { return rfc3339(timeIn(t, loc)) }

// writeLedgerText writes the ledger's figures, one a line, times in the
// one short form (svc.When).
func writeLedgerText(w io.Writer, j ledgerJSON, in ledger.Info, svc *billing.Service) error {
	when := func(unix int64) string { return svc.When(timeIn(unix, svc.Location())) }
	if !j.Exists {
		_, err := fmt.Fprintf(w, "no ledger yet at %s (a run with the ledger on, or vastdash sync, makes it)\n", j.Path)
		return err
	}
	per := ""
	if j.Contracts > 0 {
		per = " (" + money.Group(j.Bytes/int64(j.Contracts)) + " B a contract)"
	}
	rows := [][]string{
		{"file", j.Path},
		{"size", sizeText(j.Bytes) + per},
		{"contracts", money.Group(int64(j.Contracts)) + " (" + billing.Plural(j.Items, "line", "lines") + ", " + billing.Plural(j.Days, "contract-day", "contract-days") + ")"},
		{"payments", billing.Plural(j.Payments, "record", "records")},
	}
	for _, kind := range []string{ledger.KindCharges, ledger.KindPayments} {
		for _, sp := range in.Spans[kind] {
			rows = append(rows, []string{"covers " + kind, when(sp.Lo) + " → " + when(sp.Hi-1) + ", synced " + when(sp.SyncedAt)})
		}
	}
	last := "never"
	if in.LastSync > 0 {
		last = when(in.LastSync) + " (" + billing.State{Synced: time.Unix(in.LastSync, 0)}.SyncedText(svc.Now()) + ")"
	}
	rows = append(rows, []string{"last sync", last})
	rule := "not learnt yet"
	switch j.Rule {
	case "totals":
		rule = "totals (an entry's amount is the contract's total)"
	case "window":
		rule = "window amounts (an entry's amount is what fell inside the days asked)"
	}
	rows = append(rows, []string{"amounts", rule})
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "%-18s %s\n", r[0], r[1]); err != nil {
			return err
		}
	}
	return nil
}

// sizeText is a file size: "812 KB", "12.3 MB".
func sizeText(n int64) string {
	switch {
	case n >= 10<<20:
		return strconv.FormatInt(n>>20, 10) + " MB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	case n >= 1<<10:
		return strconv.FormatInt(n>>10, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " B"
}

// forgetLedger is ledger forget: asks on a terminal unless --yes.
func forgetLedger(ctx context.Context, s *Session, a ledgerArgs, e *env) error {
	if err := s.needLedger("ledger forget deletes the ledger", false); err != nil {
		return err
	}
	if err := s.findLedger(); err != nil {
		return err
	}
	if s.LedgerPath == "" {
		return errNoLedgerFile
	}
	if _, err := os.Lstat(s.LedgerPath); errors.Is(err, os.ErrNotExist) {
		return s.answer(forgotten(a.output, "", "nothing to forget: no ledger at "+s.LedgerPath))
	}
	forget := action{command: "ledger forget", does: "deletes " + s.LedgerPath, done: "deleted"}
	if !a.yes {
		if err := e.canAsk(false, forget); err != nil {
			return usageError(err)
		}
		what := s.LedgerPath
		if l, err := ledger.OpenReadOnly(s.LedgerPath); err == nil {
			if in, err := l.Info(ctx); err == nil {
				what += " (" + billing.Plural(in.Contracts, "contract", "contracts") + ", " + billing.Plural(in.Payments, "payment record", "payment records") + ")"
			}
			l.Close()
		}
		if err := e.confirm(false, "Delete the ledger "+what+"?", forget); err != nil {
			return err
		}
	}
	if err := ledger.Forget(s.LedgerPath); err != nil {
		return err
	}
	return s.answer(forgotten(a.output, s.LedgerPath, "deleted "+s.LedgerPath))
}

// forgotten writes what ledger forget did: as a line, or as JSON the path
// deleted (null when there was nothing to delete), as webhooks delete
// writes its id.
func forgotten(output, deleted, line string) func(w io.Writer) error {
	if output != "json" {
		return linesOf([]string{line})
	}
	return func(w io.Writer) error {
		var v struct {
			Deleted *string `json:"deleted"`
		}
		if deleted != "" {
			v.Deleted = &deleted
		}
		return writeJSON(w, v)
	}
}
