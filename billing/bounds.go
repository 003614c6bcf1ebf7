package billing

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
)

// The bounds a value from the server must meet. Well-typed is not sane: a
// year-9999 end time decodes fine and then makes the daily spreading walk
// three million days. An entry outside them is malformed: skipped and
// counted, like an entry with fields of the wrong type.
var (
	// MinTime is the earliest plausible charge time: before the platform
	// existed.
	MinTime = time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)
	// MaxTime is the latest plausible charge time. Running contracts end
	// "now" and reserved ones may end some years ahead; a century ahead is
	// a broken server.
	MaxTime = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

// MaxAmount is the largest plausible amount of one charge, either sign:
// $100 million. A thousand top GPUs for a year cost a fraction of it; twelve
// entries of $1e15 would overflow a sum of int64 thousandths.
const MaxAmount = money.Amount(100_000_000_000) // thousandths

// errBounds reports an entry outside the bounds.
var errBounds = errors.New("value out of bounds")

// CheckCharge reports an entry (or any item below it) whose times lie
// outside [MinTime, MaxTime) (0, "not sent", is allowed) or whose amount is
// beyond ±MaxAmount.
func CheckCharge(c *api.Charge) error {
	lo, hi := MinTime.Unix(), MaxTime.Unix()
	okTime := func(t int64) bool { return t == 0 || (t >= lo && t < hi) }
	if !okTime(c.Start) || !okTime(c.End) || c.Amount > MaxAmount || c.Amount < -MaxAmount {
		return errBounds
	}
	for i := range c.Items {
		if err := CheckCharge(&c.Items[i]); err != nil {
			return err
		}
	}
	return nil
}

// IsWrapper reports a tree-format serverless wrapper (endpoint-…,
// workergroup-…), whose items are entries rather than charge items.
func IsWrapper(c *api.Charge) bool {
	return strings.HasPrefix(c.Source, "endpoint-") || strings.HasPrefix(c.Source, "workergroup-")
}

// CountContracts counts the contracts in an entry: 1 for a contract, the
// contracts inside for a wrapper.
func CountContracts(c *api.Charge) int {
	if !IsWrapper(c) {
		return 1
	}
	n := 0
	for i := range c.Items {
		n += CountContracts(&c.Items[i])
	}
	return n
}

// CheckRange refuses a date range reaching outside [MinTime, MaxTime): no
// charge vastdash believes can lie there, and the first day of year 1 is
// Go's zero time, which a query would read as "no date". Both front ends
// check a range the user typed with it.
func CheckRange(from, to time.Time) error {
	for _, t := range []time.Time{from, to} {
		if t.Before(MinTime) || !t.Before(MaxTime) {
			return fmt.Errorf("%s is outside the days vastdash accepts, %s to %s", t.Format(time.DateOnly),
				MinTime.Format(time.DateOnly), MaxTime.AddDate(0, 0, -1).Format(time.DateOnly))
		}
	}
	return nil
}
