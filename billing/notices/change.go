package notices

import (
	"context"
	"errors"
	"fmt"

	"github.com/vastdash/vastdash/billing"
)

// AlertsChange is one change of the alerts as a command asks for it: the
// low-balance threshold, switches, or both.
type AlertsChange struct {
	Threshold *ThresholdChange // nil: the threshold stays as the server holds it
	Switches  []Switch
	Force     bool // as SaveSwitches's force
}

// AlertsResult is what SaveAlerts did with each part it was asked for.
type AlertsResult struct {
	// Threshold is the threshold's save, when one was asked for, and
	// ThresholdErr its error (a lost answer's, when its Outcome is Saved).
	Threshold    ThresholdResult
	ThresholdErr error
	// Switches is the switches' save, when it was sent (SwitchesSent).
	Switches     SaveResult
	SwitchesSent bool
}

// ErrPartial is matched by the error of a change applied in part: the
// error names what was saved and why the rest was not.
var ErrPartial = errors.New("saved in part")

// partialError is a change of which the threshold was saved and the
// switches were not.
type partialError struct {
	saved string // "the low-balance threshold ($25.00, enabled)"
	cause error
}

func (e *partialError) Error() string {
	return e.saved + " was saved; the switches were not: " + e.cause.Error()
}

func (e *partialError) Is(target error) bool { return target == ErrPartial }
func (e *partialError) Unwrap() error        { return e.cause }

// SaveAlerts applies a change of the threshold and of switches together:
// both or neither wherever that can be known before anything is written,
// and otherwise an error that names exactly what was applied. The two live
// behind two endpoints, so no save is atomic; instead every check that can
// refuse the switches (a locked one, one the document does not hold, a
// document that cannot be read without force) runs before the threshold is
// sent, and the switches are sent only once the threshold's save took
// (Outcome Saved). A failure of the threshold's save leaves the switches
// unsent; a failure of the switches' save after it is an error matching
// ErrPartial, naming the threshold saved.
func SaveAlerts(ctx context.Context, core *billing.Service, userID int64, ch AlertsChange) (AlertsResult, error) {
	var res AlertsResult
	if ch.Threshold == nil {
		r, err := SaveSwitches(ctx, core, userID, ch.Switches, ch.Force)
		res.Switches, res.SwitchesSent = r, true
		return res, err
	}
	if len(ch.Switches) > 0 {
		if _, _, err := prepareSwitches(ctx, core, userID, ch.Switches, ch.Force); err != nil {
			return res, err // nothing was written
		}
	}
	th, err := SaveThreshold(ctx, core, *ch.Threshold)
	res.Threshold, res.ThresholdErr = th, err
	if len(ch.Switches) == 0 {
		return res, err
	}
	if th.Outcome != Saved {
		if err == nil {
			err = fmt.Errorf("the server holds the low-balance threshold %s, not what was sent (%s)", th.Held(), th.Sent)
		}
		return res, fmt.Errorf("%w; the switches were not sent", err)
	}
	r, err := SaveSwitches(ctx, core, userID, ch.Switches, ch.Force)
	res.Switches, res.SwitchesSent = r, true
	if r.Outcome == Failed {
		return res, &partialError{saved: "the low-balance threshold (" + th.Held().String() + ")", cause: err}
	}
	return res, err
}
