package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
)

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
func (r *runner) currentRate(ctx context.Context, svc *billing.Service, credit money.Amount) (string, *rateJSON, error) {
	cur, err := svc.CurrentRate(ctx)
	if err != nil {
		return "", nil, err
	}
	rw := cur.Runway(credit)
	if cur.NeedsPermission != "" {
		fmt.Fprintf(r.stderr, "vastdash: no current rate: %s\n", oneLine(rw.Reason))
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
		fmt.Fprintf(r.stderr, "vastdash: %s\n", oneLine(n))
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
