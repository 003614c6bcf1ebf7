package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"

	"github.com/vastdash/vastdash/sanitize"
)

// Wire types for encoding/json (the account record). Unknown fields are
// ignored and null leaves a field at zero. The charges page has its own
// decoder (pageparse.go).

// wireID is an integer identifier that may arrive as an integral float
// (12.0). A fractional value is not an identifier: the entry is skipped.
type wireID int64

func (n *wireID) UnmarshalJSON(b []byte) error {
	if isNull(b) {
		return nil
	}
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		*n = wireID(v)
		return nil
	}
	f, err := parseNumber(b)
	if err != nil {
		return err
	}
	if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return errNotInteger
	}
	*n = wireID(int64(f))
	return nil
}

// wireBool accepts true/false and, from backends that store flags as
// integers, 0/1.
type wireBool bool

func (v *wireBool) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null":
	case "true", "1":
		*v = true
	case "false", "0":
		*v = false
	default:
		return errNotBool
	}
	return nil
}

var (
	errNotNumber  = errors.New("not a number")
	errNotInteger = errors.New("not an integer")
	errNotBool    = errors.New("not a boolean")
)

func isNull(b []byte) bool { return len(b) == 4 && string(b) == "null" }

// parseNumber accepts a JSON number literal only (no strings, no NaN).
func parseNumber(b []byte) (float64, error) {
	if len(b) == 0 || !(b[0] == '-' || b[0] >= '0' && b[0] <= '9') {
		return 0, errNotNumber
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return 0, errNotNumber
	}
	return f, nil
}

// decodeChargesPage decodes a 200 body of the charges endpoint. A body
// saying success:false becomes the *Error it describes; any top-level
// problem is ErrMalformed; entries with wrong field types are skipped and
// counted in Skipped.
func (c *Client) decodeChargesPage(op, perm string, body []byte) (ChargesPage, error) {
	if msg := checkObject(body); msg != "" {
		return ChargesPage{}, malformedMsg(op, msg)
	}
	pp := pageParser{b: body}
	r, err := pp.parsePage()
	switch err {
	case nil:
	case errTruncated:
		return ChargesPage{}, malformedMsg(op, "the response is cut short")
	case errDeep:
		return ChargesPage{}, malformedMsg(op, "the response is nested too deeply")
	case errShape:
		// An error body may carry fields of other shapes; its own fields
		// tell what went wrong.
		var env struct {
			Success json.RawMessage `json:"success"`
		}
		if json.Unmarshal(body, &env) == nil && string(env.Success) == "false" {
			return ChargesPage{}, c.statusError(op, 200, perm, body)
		}
		return ChargesPage{}, malformedMsg(op, "the response has the wrong shape: "+pp.topErr)
	default:
		return ChargesPage{}, malformedMsg(op, "the response is not valid JSON (at byte "+strconv.Itoa(pp.pos)+")")
	}
	if r.success != nil && !*r.success {
		return ChargesPage{}, c.statusError(op, 200, perm, body)
	}
	if !r.hasResults {
		return ChargesPage{}, malformedMsg(op, "the response has no results")
	}
	return finishPage(r.page, r.count, r.total, r.next), nil
}

func finishPage(p ChargesPage, count, total *int64, next *string) ChargesPage {
	if count != nil {
		p.Count = int(*count)
	} else {
		p.Count = len(p.Results) + p.Skipped
	}
	p.Total = -1
	if total != nil {
		p.Total = int(*total)
	}
	if next != nil {
		p.NextToken = *next
	}
	return p
}

// checkObject rejects bodies that are not a JSON object before any
// decoding; "" means go on.
func checkObject(body []byte) string {
	t := bytes.TrimSpace(body)
	switch {
	case len(t) == 0:
		return "the response body is empty"
	case t[0] == '<':
		return "the server sent an HTML page instead of JSON"
	case t[0] != '{':
		return "the response is not a JSON object"
	}
	return ""
}

func malformedMsg(op, msg string) *Error { return &Error{Kind: ErrMalformed, Op: op, Msg: msg} }

// malformed wraps a decoding error of a body of n bytes. The message is
// built from the error's kind only: the texts of encoding/json and money
// errors can quote bytes of the body, and the account body holds the key.
func malformed(op string, err error, n int) *Error {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	msg := "the response has the wrong shape"
	switch {
	case errors.As(err, &syn) && syn.Offset >= int64(n):
		msg = "the response is cut short"
	case errors.As(err, &syn):
		msg = "the response is not valid JSON (at byte " + strconv.FormatInt(syn.Offset, 10) + ")"
	case errors.As(err, &typ) && typ.Field != "":
		// Field is a path of our own struct tags.
		msg = "the field " + sanitize.Short(typ.Field, 60) + " has the wrong type"
	}
	return malformedMsg(op, msg)
}
