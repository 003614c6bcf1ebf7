package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/sanitize"
)

// creditJSON is the --json answer of credit. The runway fields are there
// only with --runway (a nil embedded pointer is left out entirely).
type creditJSON struct {
	Credit money.Amount `json:"credit"`
	Email  string       `json:"email"`
	*runwayJSON
	*rateJSON
}

type runwayJSON struct {
	// BurnPerDay is null when the charges could not be read at all.
	BurnPerDay *money.Amount `json:"burn_per_day"`
	// RunwayDays is null when there is no estimate; RunwayNote says why.
	RunwayDays  *float64 `json:"runway_days"`
	RunwayUntil string   `json:"runway_until,omitempty"`
	RunwayNote  string   `json:"runway_note,omitempty"`
}

// creditFlags are the options of credit.
type creditFlags struct {
	output            string // text or json
	runway, utc, rate bool
}

// newCreditCommand is `vastdash credit`: its help and flags; credit runs
// it.
func newCreditCommand(x *execution) *cobra.Command {
	var f creditFlags
	cmd := &cobra.Command{
		Use:   "credit",
		Short: "print the credit on one line: $1,234.57 (one request)",
		Long: `Print the credit on one line: $1,234.57 (one request: the account).

--runway adds the burn rate of the last 7 complete days and how long the credit lasts at it; it also reads those days' charges (one request per 500 contracts, one a second). A key without billing_read still gets its credit, and stderr says why there is no runway.

--rate adds what the running instances cost per hour now (the sum of their dph_total, exact), the storage stopped instances keep paying (an estimate) and how long the credit lasts at both; it reads the instances (25 a request, one a second). A key without instance_read still gets its credit, and stderr says why there is no rate.`,
		Example: `
vastdash credit --runway
vastdash credit --json --runway | jq -r .runway_days
vastdash credit --rate
`,
		Args: noArgs,
		RunE: x.commandRun(&f.utc, nil, func(ctx context.Context, s *Session) error { return credit(ctx, s, f) }),
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.runway, "runway", false, "add the burn rate of the last 7 complete days and how long\nthe credit lasts at it (also reads those days' charges)")
	outputFlags(cmd, &f.output, "text", "json")
	fs.BoolVar(&f.rate, "rate", false, "add what the running instances cost per hour now and how long\nthe credit lasts at it (reads the instances, 25 a second;\nneeds instance_read). JSON: rate_per_hour, storage_per_hour,\nrate_runway_days, rate_runway_until, rate_note")
	fs.BoolVar(&f.utc, "utc", false, "days begin at midnight UTC (default: the settings timezone)")
	return cmd
}

// credit is the credit command, after its flags were parsed.
func credit(ctx context.Context, s *Session, f creditFlags) error {
	svc := s.Billing
	user, err := svc.Account(ctx)
	if err != nil {
		return err
	}
	cr, err := billing.CreditOf(user)
	if err != nil {
		return err // a missing figure is not $0.00
	}
	out := creditJSON{Credit: cr, Email: sanitize.String(user.Email)}
	line := cr.Credit()

	if f.runway {
		est, err := svc.Runway(ctx, cr, s.progress.feed)
		s.progress.done()
		switch {
		case errors.Is(err, api.ErrPermission):
			// A key that may read the account but not the charges: the
			// credit is still the answer a status bar wants; say on
			// stderr why there is no runway.
			reason := billing.FailReason(err)
			out.runwayJSON = &runwayJSON{RunwayNote: reason}
			warn(s.stderr, "no runway: "+reason)
		case err != nil:
			return err
		default:
			out.runwayJSON = newRunwayJSON(est)
			line += fmt.Sprintf(" · burn %s/day (%s) · runway %s", est.Week.PerDay, est.Week.Label, est.Runway)
		}
	}

	if f.rate {
		text, rj, err := currentRate(ctx, s, cr)
		if err != nil {
			return err
		}
		out.rateJSON = rj
		line += text
	}

	if f.output == "json" {
		return s.answer(func(w io.Writer) error { return writeJSON(w, out) })
	}
	return s.answer(linesOf([]string{line}))
}

// newRunwayJSON is the runway part of the --json answer.
func newRunwayJSON(est billing.Estimate) *runwayJSON {
	rw, perDay := est.Runway, est.Week.PerDay
	rj := &runwayJSON{BurnPerDay: &perDay, RunwayNote: rw.Reason}
	if rw.Reason == "" {
		days := rw.Days()
		rj.RunwayDays = &days
		// A runway of millennia ends at year 9999 in the user's zone,
		// which east of UTC can already be year 10000.
		rj.RunwayUntil = rfc3339(rw.Until)
	}
	return rj
}

// rateJSON is the --rate part of credit's --json answer: what is billing
// now (billing.CurrentRate) and how long the credit lasts at it.
type rateJSON struct {
	// RatePerHour is the sum of dph_total over running instances, in
	// dollars with six decimals (exact); null when the key may not list
	// instances.
	RatePerHour *json.Number `json:"rate_per_hour"`
	// StoragePerHour is the storage stopped instances keep paying for
	// (an estimate); null as RatePerHour.
	StoragePerHour *json.Number `json:"storage_per_hour"`
	// InstancesRunning and InstancesStored count the instances behind
	// the two.
	InstancesRunning int `json:"instances_running"`
	InstancesStored  int `json:"instances_stored"`
	// RateRunwayDays is how long the credit lasts at both together; null
	// without an estimate, RateNote says why.
	RateRunwayDays  *float64 `json:"rate_runway_days"`
	RateRunwayUntil string   `json:"rate_runway_until,omitempty"`
	RateNote        string   `json:"rate_note,omitempty"`
}

// currentRate reads the current rate for credit --rate: the text to add
// to the line and the JSON fields. A key without instance_read is not an
// error (the credit is still the answer): stderr says why there is no
// rate.
func currentRate(ctx context.Context, s *Session, credit money.Amount) (string, *rateJSON, error) {
	cur, err := s.Billing.CurrentRate(ctx)
	if err != nil {
		return "", nil, err
	}
	rw := cur.Runway(credit)
	if cur.NeedsPermission != "" {
		warn(s.stderr, "no current rate: "+rw.Reason)
		return "", &rateJSON{RateNote: rw.Reason}, nil
	}
	num := func(v api.Rate) *json.Number { n := json.Number(v.Decimal()); return &n }
	rj := &rateJSON{RatePerHour: num(cur.PerHour), StoragePerHour: num(cur.Storage),
		InstancesRunning: cur.Running, InstancesStored: cur.Stored, RateNote: rw.Reason}
	line := " · now " + cur.PerHour.String()
	if cur.Stored > 0 {
		line += " (+" + cur.Storage.String() + " storage, est.)"
	}
	if rw.Reason == "" {
		days := rw.Days()
		rj.RateRunwayDays, rj.RateRunwayUntil = &days, rfc3339(rw.Until)
		line += " · runway at it " + rw.String()
	} else {
		line += " · " + rw.Reason
	}
	if n := cur.Note(); n != "" {
		rj.RateNote = joinNote(rj.RateNote, n)
		warn(s.stderr, n)
	}
	return line, rj, nil
}

// joinNote joins two notes with "; ", either may be empty.
func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
