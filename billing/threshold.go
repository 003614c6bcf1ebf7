package billing

import (
	"fmt"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

// The low-balance threshold as the account record holds it, which the
// core's alarms read (LowBalance), and the threshold the meter suggests;
// parsing, checking and saving it is billing/notices'.

// MaxThreshold is the largest threshold vastdash sends or believes:
// api.MaxBalanceThreshold ($1,000,000). A larger figure is a typo (cents
// typed as dollars) or a broken server.
const MaxThreshold = api.MaxBalanceThreshold

// SuggestDays is how many days of spend the suggested threshold covers:
// the platform's own advice is to be warned a few days before the credit
// runs out, and three days is a weekend.
const SuggestDays = 3

// Suggestion is the threshold vastdash proposes: SuggestDays of the 7-day
// burn, rounded up to the cent.
type Suggestion struct {
	Amount money.Amount
	PerDay money.Amount // the burn it comes from
	// Reason says why there is none ("no spend in the last 7 complete
	// days", "charges still loading"); Amount is valid only when it is "".
	Reason string
}

// String is "3 days of your spend: $450.00", or why there is none.
func (g Suggestion) String() string {
	if g.Reason != "" {
		return "no suggestion: " + g.Reason
	}
	return fmt.Sprintf("%d days of your spend: %s", SuggestDays, g.Amount.Credit())
}

// Suggest is the suggestion from the meter's 7-day burn (the figure
// Estimate reports); st is the state of the feed that filled the meter.
func (m *Meter) Suggest(st State) Suggestion {
	if why := m.incomplete(st); why != "" {
		// A partial week would suggest too little.
		return Suggestion{Reason: why}
	}
	per := spend.BurnWeek(m.daily, m.asOf).PerDay
	switch {
	case per <= 0:
		return Suggestion{Reason: "no spend in the last 7 complete days"}
	case per > MaxThreshold/SuggestDays:
		return Suggestion{Reason: fmt.Sprintf("%d days of your spend is beyond %s", SuggestDays, MaxThreshold.Credit())}
	}
	// Up to the cent: a warning a little early, never late.
	return Suggestion{Amount: (per * SuggestDays).CentsUp(), PerDay: per}
}

// Threshold is the account's low-balance threshold as vastdash believes
// it.
type Threshold struct {
	// Amount is valid when Known.
	Amount money.Amount
	// Known is set when the record holds a plausible amount: a number from
	// 0 to MaxThreshold.
	Known bool
	// Bad says what the record holds that is not believed ("a negative
	// amount (-$5.00)", "an amount beyond $1,000,000.00", "a value that is
	// not an amount"); "" otherwise.
	Bad string
	// Enabled is nil when the record does not say.
	Enabled *bool
}

// ThresholdOf checks the account record's threshold: a negative one, one
// beyond MaxThreshold or one no Amount holds is shown as such, never used
// (LowBalance ignores it too).
func ThresholdOf(u api.User) Threshold {
	th := Threshold{Enabled: u.BalanceThresholdEnabled}
	switch {
	case u.BalanceThresholdBad:
		th.Bad = "a value that is not an amount"
	case u.BalanceThreshold == nil:
	case *u.BalanceThreshold < 0:
		th.Bad = "a negative amount (" + u.BalanceThreshold.Credit() + ")"
	case *u.BalanceThreshold > MaxThreshold:
		th.Bad = "an amount beyond " + MaxThreshold.Credit()
	default:
		th.Amount, th.Known = *u.BalanceThreshold, true
	}
	return th
}

// On reports a threshold that is believed and not switched off: the one
// low_credit alerts fire below.
func (t Threshold) On() bool { return t.Known && (t.Enabled == nil || *t.Enabled) }

// String describes the threshold for a line of text: "$25.00, enabled",
// "$25.00, disabled", "not set", "not believable — the server sent a
// negative amount (-$5.00)".
func (t Threshold) String() string {
	var s string
	switch {
	case t.Bad != "":
		return "not believable — the server sent " + t.Bad
	case !t.Known:
		s = "not set"
	default:
		s = t.Amount.Credit()
	}
	switch {
	case t.Enabled == nil:
		return s
	case *t.Enabled:
		return s + ", enabled"
	}
	return s + ", disabled"
}
