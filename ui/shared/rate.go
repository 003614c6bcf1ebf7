package shared

import "github.com/vastdash/vastdash/billing"

// RateMsg carries a reading of what is billing now (billing.CurrentRate),
// or why it could not be taken. The root reads it at start, on r and on
// every refresh, and broadcasts it; the Overview's "billing now" panel
// shows it. A key without instance_read is a reading (Rate.NeedsPermission),
// not an error.
type RateMsg struct {
	Rate billing.CurrentRate
	Err  error
}
