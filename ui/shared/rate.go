package shared

import (
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/billing/leaks"
)

// RateMsg carries a reading of what is billing now (billing.CurrentRate),
// or why it could not be taken. The root reads it at start, on r and on
// every refresh, and broadcasts it; the Overview's "billing now" panel
// shows it. A key without instance_read is a reading (Rate.NeedsPermission),
// not an error.
type RateMsg struct {
	Rate billing.CurrentRate
	Err  error
}

// AuditMsg carries a reading of the money leaks and pending price
// increases (leaks.Audit), or why it could not be taken. The root reads
// it with the rate — at start, on r and on every refresh — and broadcasts
// it: the Audit screen shows it whole, the Overview its one line. A
// section the key may not read is part of the reading, not an error.
type AuditMsg struct {
	Audit leaks.Audit
	Err   error
}

// AuditReloadMsg asks the root to read the audit again now (the Audit
// screen sends it once an answer to a price increase went through).
type AuditReloadMsg struct{}
