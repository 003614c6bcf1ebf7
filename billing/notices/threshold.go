package notices

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/money"
)

// The low-balance threshold: the account level below which the low_credit
// notification fires. Both front ends parse, check, save and ask for a
// suggestion through this file only; what the account holds
// (billing.ThresholdOf) and the suggestion's arithmetic (the meter's
// Suggest) are the core's, which its own rules read too.

// ParseThreshold reads a threshold the user typed: dollars, optionally
// with a leading "$", at most two decimals, from
// $0 to billing.MaxThreshold. The error is one line saying what to type instead.
func ParseThreshold(s string) (money.Amount, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(t, "$")
	if t == "" {
		return 0, errors.New("type an amount in dollars, e.g. 25.00")
	}
	if strings.HasPrefix(t, "-") {
		return 0, errors.New("the threshold cannot be negative")
	}
	whole, frac, _ := strings.Cut(t, ".")
	digits := func(x string) bool {
		for i := 0; i < len(x); i++ {
			if x[i] < '0' || x[i] > '9' {
				return false
			}
		}
		return true
	}
	switch {
	case strings.Contains(t, ","):
		// "1,5" may mean 1.50 or 15: refuse rather than guess.
		return 0, errors.New("type the amount without commas, cents after a dot: 1000.50")
	case (whole == "" && frac == "") || !digits(whole) || !digits(frac):
		return 0, fmt.Errorf("%q is not an amount in dollars, e.g. 25.00", clipInput(s))
	case len(frac) > 2:
		return 0, errors.New("the threshold takes at most two decimals (whole cents)")
	case len(strings.TrimLeft(whole, "0")) > 7:
		return 0, errors.New("the threshold can be at most " + billing.MaxThreshold.Credit())
	}
	a, err := money.Parse(whole + "." + frac + "0")
	if err != nil {
		return 0, fmt.Errorf("%q is not an amount in dollars, e.g. 25.00", clipInput(s))
	}
	if a > billing.MaxThreshold {
		return 0, errors.New("the threshold can be at most " + billing.MaxThreshold.Credit())
	}
	return a, nil
}

// clipInput keeps an echoed input short and printable for a one-line error.
func clipInput(s string) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) > 20 {
		return string(r[:20]) + "…"
	}
	return string(r)
}

// ThresholdChange is a change of the threshold: the amount, whether it is
// enabled, or both. A nil field is left as the server holds it.
type ThresholdChange struct {
	Amount  *money.Amount
	Enabled *bool
}

// String describes the change: "$25.00, enabled".
func (ch ThresholdChange) String() string {
	var parts []string
	if ch.Amount != nil {
		parts = append(parts, ch.Amount.Credit())
	}
	switch {
	case ch.Enabled == nil:
	case *ch.Enabled:
		parts = append(parts, "enabled")
	default:
		parts = append(parts, "disabled")
	}
	return strings.Join(parts, ", ")
}

// ThresholdResult is the outcome of SaveThreshold.
type ThresholdResult struct {
	// Account is the account as read again after the save: what the
	// server holds, never what the PUT answered. Read is false when that
	// read failed (Account is then zero).
	Account api.User
	Read    bool
	// Sent is what the PUT asked for.
	Sent ThresholdChange
	// Lost is set when the PUT's answer was lost (it may or may not have
	// reached the server); Account, if Read, shows what it holds.
	Lost bool
	// Outcome is what the save came to: Saved when the server holds what
	// was sent (with Lost: the change took), Differs when it holds
	// something else, Unknown when the answer was lost and the account
	// could not be read again, Failed when it was refused or not sent.
	Outcome Outcome
}

// Held is the threshold the server holds after the save.
func (r ThresholdResult) Held() billing.Threshold { return billing.ThresholdOf(r.Account) }

// Matches reports that the server holds what was sent.
func (r ThresholdResult) Matches() bool {
	h := r.Held()
	if !r.Read || !h.Known || (r.Sent.Amount != nil && h.Amount != *r.Sent.Amount) {
		return false
	}
	return r.Sent.Enabled == nil || (h.Enabled != nil && *h.Enabled == *r.Sent.Enabled)
}

// ErrNoThreshold is returned by SaveThreshold when only enabled is to
// change and the account holds no believable amount to keep: the PUT
// always carries the amount, so the user must choose one.
var ErrNoThreshold = errors.New("the account holds no usable low-balance threshold; set an amount first")

// SaveThreshold changes the low-balance threshold with
// PUT /api/v0/users/, sending only balance_threshold and
// balance_threshold_enabled, then reads the account again and returns what
// the server holds (the PUT's answer is undocumented and never trusted).
//
// The PUT always carries the amount; a change of enabled alone reads the
// account first and sends the amount it holds now, so it never writes back
// an amount older than the server's. An amount outside 0..MaxThreshold or
// with fractions of a cent is refused before anything is sent. When the
// PUT's outcome is unknown (a timeout), the account is read again and the
// result has Unknown set with the PUT's error.
func SaveThreshold(ctx context.Context, core *billing.Service, ch ThresholdChange) (ThresholdResult, error) {
	res, err := saveThreshold(ctx, core, ch)
	// A PUT confirmed but not read back is as unsure as a lost one: its
	// answer is undocumented, and only the read says what the server holds.
	res.Outcome = outcomeOf(err, res.Lost || errors.Is(err, errReread), res.Read, res.Matches())
	return res, err
}

// errReread marks a save the server confirmed whose read afterwards failed.
var errReread = errors.New("saved, but reading the account again failed")

func saveThreshold(ctx context.Context, core *billing.Service, ch ThresholdChange) (ThresholdResult, error) {
	res := ThresholdResult{Sent: ch}
	if core.Client() == nil {
		return res, billing.ErrNoClient
	}
	if ch.Amount == nil && ch.Enabled == nil {
		return res, errors.New("nothing to change")
	}
	amount := ch.Amount
	if amount == nil {
		u, err := core.Client().CurrentUser(ctx)
		if err != nil {
			return res, err
		}
		th := billing.ThresholdOf(u)
		if !th.Known {
			return ThresholdResult{Sent: ch, Account: u, Read: true}, ErrNoThreshold
		}
		amount = &th.Amount
		res.Sent.Amount = amount
	}
	if err := checkThreshold(*amount); err != nil {
		return res, err
	}
	err := core.Client().SetBalanceThreshold(ctx, *amount, ch.Enabled)
	if err != nil && (!billing.OutcomeUnknown(err) || ctx.Err() != nil) {
		return res, err
	}
	res.Lost = err != nil
	u, rerr := core.Client().CurrentUser(ctx)
	if rerr == nil {
		res.Account, res.Read = u, true
	}
	switch {
	case err != nil:
		return res, err
	case rerr != nil:
		return res, fmt.Errorf("%w: %w", errReread, rerr)
	}
	return res, nil
}

// checkThreshold is ParseThreshold's bounds for an amount already parsed
// (a suggestion, a command's flag).
func checkThreshold(a money.Amount) error {
	switch {
	case a < 0:
		return errors.New("the threshold cannot be negative")
	case !a.WholeCents():
		return errors.New("the threshold takes at most two decimals (whole cents)")
	case a > billing.MaxThreshold:
		return errors.New("the threshold can be at most " + billing.MaxThreshold.Credit())
	}
	return nil
}

// SuggestThreshold reads the charges the burn needs, from the feed the
// dashboard already shares for q when q covers the burn window (so no
// page is read twice) or the burn window's own feed, and returns the
// suggestion. The headless commands pass a zero q.
func SuggestThreshold(ctx context.Context, core *billing.Service, q api.ChargesQuery) (billing.Suggestion, error) {
	m := core.NewMeter()
	switch {
	case q.From.IsZero() || !core.Covers(q):
		q = core.BurnQuery()
	case core.MayHold(q):
		// Over a ledger the dashboard holds no feed of the range's rows
		// to share: its sync is waited for (the screens' own sync-only
		// feed), and the burn window is read from the ledger.
		if g, ok, err := heldSuggestion(ctx, core, q, m); ok || err != nil {
			return g, err
		}
		q = core.BurnQuery()
	}
	f := core.Feed(q)
	defer f.Release()
	entries, st, err := f.All(ctx, nil)
	if err != nil {
		return billing.Suggestion{Reason: billing.FailReason(err)}, err
	}
	m.Add(entries)
	return m.Suggest(st), nil
}

// heldSuggestion is the suggestion from the ledger once the sync of q
// (which covers the burn window) has ended: the burn window's contracts
// read from it, as the burn window's own feed would read them. ok is
// false when the ledger cannot answer: the caller reads the feed.
func heldSuggestion(ctx context.Context, core *billing.Service, q api.ChargesQuery, m *billing.Meter) (billing.Suggestion, bool, error) {
	f := core.SyncFeed(q, false)
	defer f.Release()
	_, st, err := f.All(ctx, nil)
	switch {
	case err != nil && billing.LedgerUnavailable(err):
		return billing.Suggestion{}, false, nil
	case err != nil:
		return billing.Suggestion{Reason: billing.FailReason(err)}, true, err
	}
	w, ok := core.ChargesWindow(ctx, core.BurnQuery())
	if !ok {
		return billing.Suggestion{}, false, nil
	}
	if err := w.FillMeter(ctx, m); err != nil {
		return billing.Suggestion{}, false, nil // the feed meets the ledger's failure and says it
	}
	return m.Suggest(st), true, nil
}
