package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/sanitize"
)

// Wire types for encoding/json. Unknown fields are ignored and null leaves
// a field at zero.

// wireID is an integer identifier that may arrive as an integral float
// (12.0). A fractional value is not an identifier: the entry is skipped.
type wireID int64

func (n *wireID) UnmarshalJSON(b []byte) error {
	v, err := wholeNumber(b, false)
	if err == nil && !isNull(b) {
		*n = wireID(v)
	}
	return err
}

// wholeNumber reads b as an int64: an integer, or a number in float form,
// whose fraction is an error unless cut (a time's fraction of a second is
// dropped; an identifier's is not an identifier). null is 0; the callers
// leave their field as it was.
func wholeNumber(b []byte, cut bool) (int64, error) {
	if isNull(b) {
		return 0, nil
	}
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		return v, nil
	}
	f, err := parseNumber(b)
	if err != nil {
		return 0, err
	}
	if (!cut && f != math.Trunc(f)) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, errNotInteger
	}
	return int64(f), nil
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

// The charges page is decoded with encoding/json into the wire types
// below. A page that decodes cleanly takes one Unmarshal; when any entry
// has a field of the wrong type, the page is decoded again entry by entry
// so that only the entries at fault are dropped.

// maxNodeDepth bounds the nesting of charge nodes. Real trees are four
// levels deep (endpoint → workergroup → contract → item); a deeper entry
// is dropped and counted in Skipped. encoding/json itself fails any body
// nested beyond 10000, which malformed reports as nested too deeply.
const maxNodeDepth = 64

// wireCharge is one charge node as the API sends it.
type wireCharge struct {
	Start       unixSec      `json:"start"`
	End         unixSec      `json:"end"`
	Type        string       `json:"type"`
	Source      string       `json:"source"`
	Description string       `json:"description"`
	Amount      money.Amount `json:"amount"`
	Meta        struct {
		Label         string `json:"label"`
		TemplateID    wireID `json:"template_id"`
		EndpointID    wireID `json:"endpoint_id"`
		WorkergroupID wireID `json:"workergroup_id"`
	} `json:"metadata"`
	Items []wireCharge `json:"items"`
}

// charge converts w, which sits at the given nesting depth; ok is false
// when the node nests too deeply.
func (w *wireCharge) charge(depth int) (c Charge, ok bool) {
	if depth > maxNodeDepth {
		return Charge{}, false
	}
	c = Charge{
		Start: int64(w.Start), End: int64(w.End),
		Type: w.Type, Source: w.Source, Description: w.Description, Amount: w.Amount,
		Meta: Metadata{Label: w.Meta.Label, TemplateID: int64(w.Meta.TemplateID),
			EndpointID: int64(w.Meta.EndpointID), WorkergroupID: int64(w.Meta.WorkergroupID)},
	}
	if len(w.Items) > 0 {
		c.Items = make([]Charge, len(w.Items))
		for i := range w.Items {
			if c.Items[i], ok = w.Items[i].charge(depth + 1); !ok {
				return Charge{}, false
			}
		}
	}
	return c, true
}

// unixSec is a time in unix seconds. Servers send floats at times; the
// fraction is dropped.
type unixSec int64

func (t *unixSec) UnmarshalJSON(b []byte) error {
	v, err := wholeNumber(b, true)
	if err == nil && !isNull(b) {
		*t = unixSec(v)
	}
	return err
}

// pageHeader holds the page fields other than results.
type pageHeader struct {
	Success *bool `json:"success"`
	// Count is decoded only to refuse a count of the wrong type: the
	// entries themselves say how many the page holds.
	Count     *wireID `json:"count"`
	Total     *wireID `json:"total"`
	NextToken *string `json:"next_token"`
}

// decodeChargesPage decodes a 200 body of the charges endpoint. A body
// saying success:false becomes the *Error it describes; any top-level
// problem is ErrMalformed; entries with wrong field types (and entries
// that are not objects) are skipped and counted in Skipped.
func (c *Client) decodeChargesPage(op, perm string, body []byte) (ChargesPage, error) {
	if msg := checkObject(body); msg != "" {
		return ChargesPage{}, malformedMsg(op, msg)
	}
	// A null entry decodes to a nil pointer: it is skipped, not kept as zero.
	var page struct {
		pageHeader
		Results []*wireCharge `json:"results"`
	}
	if json.Unmarshal(body, &page) == nil && page.Results != nil {
		if page.Success != nil && !*page.Success {
			return ChargesPage{}, c.statusError(op, 200, perm, body)
		}
		return finishPage(page.pageHeader, page.Results), nil
	}

	// Slow path: something is wrong somewhere. Results as RawMessage
	// accepts any value, so an error here is in the syntax or the header.
	var env struct {
		pageHeader
		Results json.RawMessage `json:"results"`
	}
	err := json.Unmarshal(body, &env)
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return ChargesPage{}, malformed(op, err, len(body))
	}
	if err != nil {
		// An error body may carry fields of other shapes; its own fields
		// tell what went wrong.
		var s struct {
			Success json.RawMessage `json:"success"`
		}
		_ = json.Unmarshal(body, &s) // valid JSON, and RawMessage takes any value
		if string(s.Success) == "false" {
			return ChargesPage{}, c.statusError(op, 200, perm, body)
		}
		return ChargesPage{}, malformed(op, err, len(body))
	}
	if env.Success != nil && !*env.Success {
		return ChargesPage{}, c.statusError(op, 200, perm, body)
	}
	if env.Results == nil {
		return ChargesPage{}, malformedMsg(op, "the response has no results")
	}
	var raws []json.RawMessage
	if json.Unmarshal(env.Results, &raws) != nil {
		return ChargesPage{}, malformedMsg(op, "the response has the wrong shape: results is not a list")
	}
	entries := make([]*wireCharge, len(raws))
	for i, raw := range raws {
		var w wireCharge
		if raw[0] == '{' && json.Unmarshal(raw, &w) == nil {
			entries[i] = &w
		}
	}
	return finishPage(env.pageHeader, entries), nil
}

// finishPage converts the decoded entries (nil: skipped) and fills in the
// header.
func finishPage(h pageHeader, entries []*wireCharge) ChargesPage {
	p := ChargesPage{Results: make([]Charge, 0, len(entries)), Total: -1}
	for _, w := range entries {
		if w == nil {
			p.Skipped++
		} else if c, ok := w.charge(1); ok {
			p.Results = append(p.Results, c)
		} else {
			p.Skipped++
		}
	}
	if h.Total != nil {
		p.Total = int(*h.Total)
	}
	if h.NextToken != nil {
		p.NextToken = *h.NextToken
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
	case errors.As(err, &syn) && syn.Offset >= int64(n) && strings.HasPrefix(syn.Error(), "unexpected end"):
		// A bad last byte is reported at the end too; only running out
		// of input is a cut.
		msg = "the response is cut short"
	case errors.As(err, &syn) && strings.HasSuffix(syn.Error(), "exceeded max depth"):
		// encoding/json's own limit (10000 levels) has no error of its
		// own type; its text is fixed and quotes only a bracket. The
		// JSON is valid, so "not valid JSON" would send the user to
		// the wrong problem.
		msg = "the response is nested too deeply"
	case errors.As(err, &syn):
		msg = "the response is not valid JSON (at byte " + strconv.FormatInt(syn.Offset, 10) + ")"
	case errors.As(err, &typ) && typ.Field != "":
		// Field is a path of our own struct tags.
		msg = "the field " + sanitize.Short(typ.Field, 60) + " has the wrong type"
	}
	return malformedMsg(op, msg)
}
