package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/vastdash/vastdash/money"
)

const currentUserPath = "/api/v0/users/current/"

// wireUser has exactly the fields vastdash keeps. The account record also
// holds api_key; leaving it out of this struct means it is never decoded
// into anything. balance_threshold is decoded on its own: a value no Amount
// holds (1e308) must cost the threshold, not the whole record and its credit.
type wireUser struct {
	Success                 *bool           `json:"success"`
	ID                      *wireID         `json:"id"`
	Email                   *string         `json:"email"`
	Credit                  *money.Amount   `json:"credit"`
	Balance                 *money.Amount   `json:"balance"`
	BalanceThreshold        json.RawMessage `json:"balance_threshold"`
	BalanceThresholdEnabled *wireBool       `json:"balance_threshold_enabled"`
}

// CurrentUser reads the key owner's account (GET /api/v0/users/current/).
// A record without an id is ErrMalformed: the id is needed for the
// preferences endpoints.
func (c *Client) CurrentUser(ctx context.Context) (User, error) {
	cl := call{method: http.MethodGet, path: currentUserPath, perm: "user_read"}
	op := cl.op()
	body, err := c.do(ctx, cl)
	if err != nil {
		return User{}, err
	}
	// The body holds the key; wipe it once decoded so it does not linger
	// in memory any longer than needed.
	defer clear(body)
	if msg := checkObject(body); msg != "" {
		return User{}, malformedMsg(op, msg)
	}
	var w wireUser
	if err := json.Unmarshal(body, &w); err != nil {
		return User{}, malformed(op, err, len(body))
	}
	if w.Success != nil && !*w.Success {
		return User{}, c.statusError(op, 200, cl.perm, body)
	}
	if w.ID == nil {
		return User{}, malformedMsg(op, "the account record has no id")
	}
	u := User{ID: int64(*w.ID)}
	if w.Email != nil {
		u.Email = *w.Email
	}
	if w.Credit != nil {
		u.Credit = *w.Credit
	} else {
		// Absent or null: not $0, which would read as an empty account.
		u.CreditMissing = true
	}
	if w.Balance != nil {
		u.Balance = *w.Balance
	}
	if len(w.BalanceThreshold) > 0 && string(w.BalanceThreshold) != "null" {
		var v money.Amount
		if json.Unmarshal(w.BalanceThreshold, &v) == nil {
			u.BalanceThreshold = &v
		} else {
			u.BalanceThresholdBad = true
		}
	}
	if w.BalanceThresholdEnabled != nil {
		v := bool(*w.BalanceThresholdEnabled)
		u.BalanceThresholdEnabled = &v
	}
	return u, nil
}

func prefsPath(userID int64) string {
	return "/api/v0/users/" + strconv.FormatInt(userID, 10) + "/notification-prefs/"
}

// wirePrefs is the envelope of the preferences endpoints.
type wirePrefs struct {
	Success *bool           `json:"success"`
	Prefs   json.RawMessage `json:"notification_preferences"`
}

// NotificationPrefs reads the whole preferences document
// (GET /api/v0/users/{id}/notification-prefs/). A server without that GET
// answers ErrNotFound.
func (c *Client) NotificationPrefs(ctx context.Context, userID int64) (Prefs, error) {
	if userID <= 0 {
		return Prefs{}, usageErr(http.MethodGet+" "+prefsPath(userID), "no user id")
	}
	cl := call{method: http.MethodGet, path: prefsPath(userID), perm: "user_read"}
	body, err := c.do(ctx, cl)
	if err != nil {
		return Prefs{}, err
	}
	p, present, err := c.decodePrefs(cl.op(), cl.perm, body)
	if err != nil {
		return Prefs{}, err
	}
	if !present {
		return Prefs{}, malformedMsg(cl.op(), "the response has no notification_preferences")
	}
	return p, nil
}

// SetNotificationPrefs replaces the whole preferences document with p and
// returns the document the server confirmed. The request body is
// {"notification_preferences": p}; send everything NotificationPrefs read,
// changed through Prefs.With. If a successful response carries no document,
// p itself is returned: success:true confirms the replacement.
func (c *Client) SetNotificationPrefs(ctx context.Context, userID int64, p Prefs) (Prefs, error) {
	op := http.MethodPut + " " + prefsPath(userID)
	if userID <= 0 {
		return Prefs{}, usageErr(op, "no user id")
	}
	if p.IsZero() {
		// Sending {} would wipe every preference on the server.
		return Prefs{}, usageErr(op, "refusing to replace the preferences with an empty document")
	}
	// Built by hand, not with json.Marshal: Marshal compacts and
	// HTML-escapes a Marshaler's output, and the document goes back
	// byte for byte as it was read.
	payload := make([]byte, 0, len(p.raw)+len(`{"notification_preferences":}`))
	payload = append(payload, `{"notification_preferences":`...)
	payload = append(payload, p.raw...)
	payload = append(payload, '}')
	cl := call{method: http.MethodPut, path: prefsPath(userID), body: payload, perm: "user_write"}
	body, err := c.do(ctx, cl)
	if err != nil {
		return Prefs{}, err
	}
	got, present, err := c.decodePrefs(op, cl.perm, body)
	if err != nil {
		return Prefs{}, err
	}
	if !present {
		return p, nil
	}
	return got, nil
}

// decodePrefs reads {"success":..., "notification_preferences": {...}};
// present is false when the document is missing or null.
func (c *Client) decodePrefs(op, perm string, body []byte) (Prefs, bool, error) {
	if msg := checkObject(body); msg != "" {
		return Prefs{}, false, malformedMsg(op, msg)
	}
	var w wirePrefs
	if err := json.Unmarshal(body, &w); err != nil {
		return Prefs{}, false, malformed(op, err, len(body))
	}
	if w.Success != nil && !*w.Success {
		return Prefs{}, false, c.statusError(op, 200, perm, body)
	}
	if len(w.Prefs) == 0 || isNull(w.Prefs) {
		return Prefs{}, false, nil
	}
	if !json.Valid(w.Prefs) {
		return Prefs{}, false, malformedMsg(op, "notification_preferences is not valid JSON")
	}
	if w.Prefs[0] != '{' {
		return Prefs{}, false, malformedMsg(op, "notification_preferences is not an object")
	}
	// The bytes are kept exactly as sent, so a save returns everything
	// vastdash does not know (unknown alerts, number spellings, escapes,
	// even invalid UTF-8) unchanged.
	p, err := ParsePrefs(w.Prefs)
	if err != nil {
		return Prefs{}, false, malformedMsg(op, "notification_preferences is not a JSON object")
	}
	return p, true, nil
}
