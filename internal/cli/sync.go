package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
)

// syncArgs are the options of the sync command.
type syncArgs struct {
	from   bound
	utc    bool
	output string
}

// newSyncCommand is `vastdash sync`: fill the ledger back to a day.
func newSyncCommand(x *execution) *cobra.Command {
	a := syncArgs{output: "text"}
	cmd := &cobra.Command{
		Use:   "sync",
		Short: "fill the ledger back to a day: charges and payment records, only what it lacks",
		Long: `Bring the ledger (the local history, see vastdash ledger) up to date from a day to now: the charges and the payment records it does not hold yet, and what changed since its last sync. Nothing is printed to stdout but one line saying what the ledger now holds.

An interrupted sync (ctrl+c, a network gone) keeps every page it wrote and goes on from there the next time. The first sync of a year of 20,000 contracts takes the 40 pages the API's pacing allows (about 40 s) and 5 pages of payment records beside them; a sync of a year already held asks only what changed since and one count.`,
		Example: `
vastdash sync                       # the last year
vastdash sync --from 2024-01-01     # back to the start of 2024
`,
		Args: noArgs,
		RunE: x.commandRun(&a.utc, nil, func(ctx context.Context, s *Session) error { return syncLedger(ctx, s, a) }),
	}
	fs := cmd.Flags()
	fs.Var(&checkedValue{typ: "day|word", parse: a.from.parser("--from")}, "from", "the first day to hold, YYYY-MM-DD or a range word (default: a year ago)")
	completeWith(cmd, "from", billing.Presets...)
	outputFlags(cmd, &a.output, "text", "json")
	fs.BoolVar(&a.utc, "utc", false, "the day begins at midnight UTC (default: the settings timezone)")
	return cmd
}

// errNoLedger is a sync run with a ledger that could not be opened (the
// warning before it says why; --no-ledger and the setting are refused
// first, by needLedger).
var errNoLedger = errors.New("no ledger this run: it could not be opened")

// errNoLedgerFile is a command on the ledger's file run with no home to
// keep one in (--no-ledger is refused first, by needLedger).
var errNoLedgerFile = errors.New("no ledger this run: there is no home folder to keep one in")

// syncLedger is the sync command: both kinds side by side, each on its
// endpoint's pacing, then one line of what the ledger holds.
func syncLedger(ctx context.Context, s *Session, a syncArgs) error {
	if err := s.needLedger("sync fills the ledger", true); err != nil {
		return err
	}
	svc := s.Billing
	now := svc.Now()
	from := now.AddDate(-1, 0, 0)
	if a.from.set() {
		var err error
		if from, err = a.from.start("--from", svc.Location(), now); err != nil {
			return usageError(err)
		}
	}
	// After the range's check: opening the ledger reads whose it is
	// (ledger_account.go), and a usage error sends no request.
	led := s.Billing.Ledger()
	if led == nil {
		return errNoLedger
	}
	// The two syncs report from their own goroutines; states is shared
	// under mu, each sync's last state stored there too (a report of the
	// other must not read it unguarded), and the line is cleared only once
	// both are done, before the answer.
	var (
		mu     sync.Mutex
		states [2]billing.SyncState
		errs   [2]error
		wg     sync.WaitGroup
	)
	set := func(i int, st billing.SyncState) {
		mu.Lock()
		defer mu.Unlock()
		states[i] = st
		s.progress.show(syncText(states))
	}
	syncs := [2]func(context.Context, time.Time, time.Time, func(billing.SyncState)) (billing.SyncState, error){
		svc.SyncCharges, svc.SyncPayments,
	}
	for i, run := range syncs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := run(ctx, from, now, func(st billing.SyncState) { set(i, st) })
			mu.Lock()
			states[i], errs[i] = st, err
			mu.Unlock()
		}()
	}
	wg.Wait()
	s.progress.done()
	// A corrupt file moved aside and started anew is said, whatever
	// became of the sync: what it held is no longer in the ledger.
	for i, st := range states {
		if st.Note != "" && (i == 0 || st.Note != states[0].Note) {
			warn(s.stderr, st.Note)
		}
	}
	if err := syncErr(errs); err != nil {
		return err
	}
	in, err := led.Info(ctx)
	if err != nil {
		return err
	}
	requests := states[0].Requests + states[1].Requests
	if a.output == "json" {
		loc := svc.Location()
		return s.answer(func(w io.Writer) error {
			return writeJSON(w, syncJSON{From: rfc3339(from.In(loc)), To: rfc3339(now.In(loc)), Contracts: in.Contracts, Payments: in.Payments, Requests: requests})
		})
	}
	return s.answer(func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "the ledger holds %s to %s: %s and %s (%s)\n", svc.When(from), svc.When(now),
			billing.Plural(in.Contracts, "contract", "contracts"), billing.Plural(in.Payments, "payment record", "payment records"),
			billing.Plural(requests, "request", "requests"))
		return err
	})
}

// syncErr is the failure of the two syncs in one line: one of them, or
// both when they differ (a ledger given up fails both in the same words).
func syncErr(errs [2]error) error {
	switch {
	case errs[0] == nil:
		return errs[1]
	case errs[1] == nil || errs[1].Error() == errs[0].Error():
		return errs[0]
	}
	return fmt.Errorf("charges: %w; payment records: %w", errs[0], errs[1])
}

// syncJSON is sync's --json answer: the span brought up to date (RFC
// 3339), what the ledger holds, and the requests it took.
type syncJSON struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Contracts int    `json:"contracts"`
	Payments  int    `json:"payments"`
	Requests  int    `json:"requests"`
}

// syncText is the progress line of a sync: "syncing charges: 1,500
// contracts (page 3 of 40) · payment records: page 1".
func syncText(states [2]billing.SyncState) string {
	c, p := states[0], states[1]
	t := "syncing charges: " + money.Group(int64(c.Entries)) + " contracts (page " + money.Group(int64(c.Pages))
	if c.PagesTotal > 0 {
		t += " of " + money.Group(int64(c.PagesTotal))
	}
	t += ") · payment records: " + money.Group(int64(p.Entries))
	return t
}
