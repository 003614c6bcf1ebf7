package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/vastdash/vastdash/money"
)

// MaxBalanceThreshold bounds the low-balance threshold SetBalanceThreshold
// sends: a figure above it is a typo (cents typed as dollars), not an alert
// level, and the server's own bound is undocumented.
const MaxBalanceThreshold = 1_000_000 * money.Dollar

// SetBalanceThreshold changes the account's low-balance threshold (the
// level below which the low_credit notification fires) with
// PUT /api/v0/users/. The body holds balance_threshold (dollars, two
// decimals) and, when enabled is not nil, balance_threshold_enabled —
// never any other account field, since the endpoint changes whatever it is
// sent. A negative amount, one with fractions of a cent or one above
// MaxBalanceThreshold is ErrUsage and nothing is sent.
//
// The answer's shape is undocumented: any 2xx whose body is empty or JSON
// without success:false counts as done. Read CurrentUser afterwards to
// learn what the server holds. Needs user_write; calls are paced 5 s apart
// (WithEndpointThreshold).
func (c *Client) SetBalanceThreshold(ctx context.Context, amount money.Amount, enabled *bool) error {
	const op = http.MethodPut + " " + SettingsPath
	switch {
	case amount < 0:
		return usageErr(op, "the low-balance threshold must not be negative")
	case !amount.WholeCents():
		return usageErr(op, "the low-balance threshold has more than two decimals")
	case amount > MaxBalanceThreshold:
		return usageErr(op, "the low-balance threshold is above "+MaxBalanceThreshold.Credit())
	}
	cl := call{
		method: http.MethodPut,
		path:   SettingsPath,
		body:   thresholdBody(amount, enabled),
		perm:   "user_write",
		pacer:  c.endpointPacer(SettingsPath),
	}
	body, err := c.do(ctx, cl)
	if err != nil {
		return err
	}
	return c.checkUpdated(op, cl.perm, body)
}

// thresholdBody builds {"balance_threshold":12.50[,"balance_threshold_enabled":b]}
// by hand: money.Amount marshals with three decimals, and the field list
// must be exactly these two.
func thresholdBody(amount money.Amount, enabled *bool) []byte {
	b := []byte(`{"balance_threshold":` + amount.CentsDecimal())
	if enabled != nil {
		b = append(b, `,"balance_threshold_enabled":`...)
		b = strconv.AppendBool(b, *enabled)
	}
	return append(b, '}')
}

// checkUpdated accepts the body of a 2xx answer to an update: empty (a 204)
// or any JSON; a JSON object saying success:false is the error it
// describes. Anything else (an HTML page from a proxy) is ErrMalformed, as
// it says nothing about whether the change was made.
func (c *Client) checkUpdated(op, perm string, body []byte) error {
	t := bytes.TrimSpace(body)
	if len(t) == 0 {
		return nil
	}
	if !json.Valid(t) {
		if t[0] == '<' {
			return malformedMsg(op, "the server sent an HTML page instead of JSON")
		}
		return malformedMsg(op, "the response is not valid JSON")
	}
	if t[0] != '{' {
		return nil
	}
	var w struct {
		Success json.RawMessage `json:"success"`
	}
	_ = json.Unmarshal(t, &w) // valid JSON object; RawMessage takes any value
	if e := c.refusedOK(op, perm, w.Success, t); e != nil {
		return e
	}
	return nil
}
