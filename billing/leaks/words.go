package leaks

// The words both front ends use for a leak's Since: it is the instance's
// or volume's creation (its disk billed from then), not when it began to
// leak — the API has no stop time, and an endpoint's or a GPU's idle time
// is not in it either. Named "SINCE", the column read as "leaking since",
// and $/h × the time since it disagreed with so far.
const (
	// CreatedHeader is the column's title in the Audit screen's and the
	// audit command's tables.
	CreatedHeader = "CREATED"
	// CreatedNote says under the Audit screen's table what the column and
	// so far are.
	CreatedNote = "CREATED is when the instance or volume was made, its disk billed from then; when a leak began (an instance stopped, a GPU or endpoint went idle) the API does not say. SO FAR is that disk's cost from the charges (≈ where estimated)."
)
