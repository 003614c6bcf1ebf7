package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// refusedOK is the error of a 200 whose body says success:false (success
// is that field as sent), or nil when it does not: such a body refuses the
// request whatever else it holds.
func (c *Client) refusedOK(op, perm string, success json.RawMessage, body []byte) *Error {
	if string(success) != "false" {
		return nil
	}
	return c.statusError(op, http.StatusOK, perm, body)
}

// statusError classifies a refused request from its status and body.
// status 200 stands for a 200 whose body said success:false.
func (c *Client) statusError(op string, status int, perm string, body []byte) *Error {
	code, msg := c.parseErrorBody(body)
	e := &Error{Op: op, Status: status, Code: code, Msg: msg}
	lower := strings.ToLower(msg)
	authCode := code == "auth_error"
	switch {
	case status == http.StatusOK:
		// success:false on a 200: only the body can say what went wrong.
		switch {
		case authCode && strings.Contains(lower, "invalid"):
			e.Kind = ErrInvalidKey
		case authCode:
			e.Kind = ErrNotLoggedIn
		case code == "invalid_token":
			e.Kind = ErrInvalidToken
		default:
			e.Kind = ErrBadRequest
		}
	case status == 404 && authCode:
		e.Kind = ErrInvalidKey
	case (status == 401 || status == 403) && strings.Contains(lower, "invalid user key"):
		e.Kind = ErrInvalidKey
	case (status == 401 || status == 403) && strings.Contains(lower, "permission"):
		// A scoped key lacking the endpoint's permission, whatever code the
		// server put on it.
		e.Kind, e.Permission = ErrPermission, perm
	case status == 403 && authCode:
		e.Kind = ErrNotLoggedIn
	case status == 401 || status == 403:
		// Refused, but the answer does not say a permission is missing:
		// do not claim one (it may be a login wall, a proxy, a ban).
		e.Kind = ErrPermission
	case status == 400 && code == "invalid_token":
		e.Kind = ErrInvalidToken
	case status == 404 || status == 405:
		e.Kind = ErrNotFound
	case status == http.StatusTooManyRequests:
		e.Kind = ErrRateLimited
		e.Threshold, _ = ParseRateLimit(body)
	case status >= 500:
		e.Kind = ErrServer
	case status >= 400:
		e.Kind = ErrBadRequest
	default:
		// 1xx/3xx (e.g. a refused redirect) or an unexpected 2xx.
		e.Kind = ErrMalformed
		if e.Msg == "" {
			e.Msg = "unexpected HTTP status " + strconv.Itoa(status)
		}
	}
	return e
}

// parseErrorBody reads the error code and message from an error body:
// {"success":false,"error":...,"msg":...}, {"detail":...} or plain text.
// Both are cleaned: key redacted, sanitized, code cut to 64 and message to
// 200 characters.
func (c *Client) parseErrorBody(body []byte) (code, msg string) {
	t := bytes.TrimSpace(body)
	if len(t) > 0 && t[0] == '{' {
		var eb struct {
			Error   json.RawMessage `json:"error"`
			Msg     json.RawMessage `json:"msg"`
			Detail  json.RawMessage `json:"detail"`
			Message json.RawMessage `json:"message"`
		}
		if json.Unmarshal(t, &eb) == nil {
			code = jsonText(eb.Error)
			for _, m := range []json.RawMessage{eb.Msg, eb.Detail, eb.Message} {
				if msg = jsonText(m); msg != "" {
					break
				}
			}
			if msg == "" && len(eb.Detail) > 0 && string(eb.Detail) != "null" {
				// {"detail": [...]}: show it as written.
				msg = string(eb.Detail)
			}
			return c.clean(code, 64), c.clean(msg, 200)
		}
	}
	text := string(t)
	if looksHTML(text) {
		// A proxy's error page: its title says it all ("502 Bad Gateway").
		text = htmlTitle(text)
	}
	return "", c.clean(text, 200)
}

// jsonText returns a JSON string's value, or "" for any other JSON value.
func jsonText(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

func looksHTML(s string) bool {
	if len(s) == 0 || s[0] != '<' {
		return false
	}
	head := strings.ToLower(s[:min(len(s), 512)])
	return strings.Contains(head, "<html") || strings.Contains(head, "<!doctype") ||
		strings.Contains(head, "<head") || strings.Contains(head, "<title") || strings.Contains(head, "<body")
}

func htmlTitle(s string) string {
	lower := strings.ToLower(s)
	i := strings.Index(lower, "<title>")
	if i < 0 {
		return "(an HTML page)"
	}
	rest := s[i+len("<title>"):]
	if j := strings.Index(strings.ToLower(rest), "</title>"); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest)
}

// ParseRateLimit reads the threshold a 429 body names, such as
// {"detail": "API requests too frequent endpoint threshold=1.0"} or the same
// sentence as plain text. The value is in seconds; it is capped at one
// minute so a broken server cannot park the client. ok is false when the
// body names no threshold.
func ParseRateLimit(body []byte) (threshold time.Duration, ok bool) {
	t := bytes.TrimSpace(body)
	if len(t) > 0 && t[0] == '{' {
		var eb struct {
			Detail json.RawMessage `json:"detail"`
			Msg    json.RawMessage `json:"msg"`
		}
		if json.Unmarshal(t, &eb) == nil {
			for _, m := range []json.RawMessage{eb.Detail, eb.Msg} {
				if d, ok := findThreshold(jsonText(m)); ok {
					return d, true
				}
			}
		}
	}
	return findThreshold(string(t))
}

// findThreshold finds "threshold=<seconds>" (also "threshold: <seconds>",
// any case) in s.
func findThreshold(s string) (time.Duration, bool) {
	const word = "threshold"
	lower := asciiLower(s) // same length as s, so indexes carry over
	for from := 0; ; {
		i := strings.Index(lower[from:], word)
		if i < 0 {
			return 0, false
		}
		j := from + i + len(word)
		from = j
		j = skipSpaces(s, j)
		if j >= len(s) || (s[j] != '=' && s[j] != ':') {
			continue
		}
		j = skipSpaces(s, j+1)
		k := j
		for k < len(s) && (s[k] >= '0' && s[k] <= '9' || s[k] == '.') {
			k++
		}
		if k == j {
			continue
		}
		num := s[j:k]
		whole, _, _ := strings.Cut(num, ".")
		if len(strings.TrimLeft(whole, "0")) > 3 {
			return maxServerThreshold, true // ≥ 1000 s: cap, do not overflow
		}
		// ParseDuration reads the decimal exactly (1.234 is 1234 ms, not a
		// float's 1233.999…).
		d, err := time.ParseDuration(num + "s")
		if err != nil || d <= 0 {
			continue
		}
		if d > maxServerThreshold {
			d = maxServerThreshold
		}
		return d, true
	}
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// asciiLower lowercases ASCII letters only, keeping every byte offset.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
