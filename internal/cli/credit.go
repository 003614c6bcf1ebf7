package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/sanitize"
	"github.com/vastdash/vastdash/spend"
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
	json, runway, utc bool
	rate              bool
}

// creditCommand is `vastdash credit`: its help and flags; r.credit runs it.
func (r *runner) creditCommand(o *options) *cobra.Command {
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
		RunE: r.runs(func() int { return r.credit(*o, f) }),
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.runway, "runway", false, "add the burn rate of the last 7 complete days and how long\nthe credit lasts at it (also reads those days' charges)")
	fs.BoolVar(&f.json, "json", false, "answer in JSON: credit and email; with --runway also burn_per_day,\nrunway_days (null without an estimate, runway_note says why)\nand runway_until")
	fs.BoolVar(&f.rate, "rate", false, "add what the running instances cost per hour now and how long\nthe credit lasts at it (reads the instances, 25 a second;\nneeds instance_read). JSON: rate_per_hour, storage_per_hour,\nrate_runway_days, rate_runway_until, rate_note")
	fs.BoolVar(&f.utc, "utc", false, "days begin at midnight UTC (default: the settings timezone)")
	return cmd
}

// credit is the credit command, after its flags were parsed.
func (r *runner) credit(o options, f creditFlags) int {
	run, code := r.openRun(o, f.utc)
	if run == nil {
		return code
	}
	defer run.close()
	p, ctx, svc := run.p, run.ctx, run.svc

	user, err := svc.Account(ctx)
	if err != nil {
		return r.runtimeError(err)
	}
	out := creditJSON{Credit: user.Credit, Email: sanitize.String(user.Email)}
	line := user.Credit.Credit()

	if f.runway {
		est, err := svc.Runway(ctx, user.Credit, p.feed)
		p.done()
		switch {
		case errors.Is(err, api.ErrPermission):
			// A key that may read the account but not the charges: the
			// credit is still the answer a status bar wants; say on
			// stderr why there is no runway.
			reason := billing.FailReason(err)
			out.runwayJSON = &runwayJSON{RunwayNote: reason}
			fmt.Fprintf(r.stderr, "vastdash: no runway: %s\n", oneLine(reason))
		case err != nil:
			return r.runtimeError(err)
		default:
			out.runwayJSON = newRunwayJSON(est.Week, est.Runway)
			line += fmt.Sprintf(" · burn %s/day (%s) · runway %s", est.Week.PerDay, est.Week.Label, est.Runway)
		}
	}

	if f.rate {
		text, rj, err := r.currentRate(ctx, svc, user.Credit)
		if err != nil {
			return r.runtimeError(err)
		}
		out.rateJSON = rj
		line += text
	}

	if f.json {
		b, err := json.Marshal(out)
		if err != nil {
			return r.runtimeError(err)
		}
		line = string(b)
	}
	return r.answer(func(w io.Writer) error {
		_, err := fmt.Fprintln(w, line)
		return err
	})
}

// newRunwayJSON is the runway part of the --json answer.
func newRunwayJSON(burn spend.Burn, rw spend.Runway) *runwayJSON {
	perDay := burn.PerDay
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
