package api

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel kinds. Every error the Client returns for a failed call is an
// *Error whose Kind is one of these, so callers can write
// errors.Is(err, api.ErrRateLimited) or errors.As(err, &apiErr).
var (
	// ErrNotLoggedIn: the request carried no usable Authorization (403 auth_error).
	ErrNotLoggedIn = errors.New("not logged in")
	// ErrInvalidKey: the key matches no user (404 auth_error, 401 "Invalid user key").
	ErrInvalidKey = errors.New("the API key was rejected")
	// ErrPermission: a scoped key lacks the permission the endpoint needs.
	ErrPermission = errors.New("permission missing")
	// ErrBadRequest: the server refused the request (400).
	ErrBadRequest = errors.New("bad request")
	// ErrInvalidToken: the pagination token was refused (400 invalid_token).
	ErrInvalidToken = errors.New("invalid pagination token")
	// ErrRateLimited: 429, still refused after the retries.
	ErrRateLimited = errors.New("rate limited")
	// ErrNotFound: the endpoint does not exist on this server (404/405 without
	// auth_error), e.g. a server without GET for preferences.
	ErrNotFound = errors.New("not supported by the server")
	// ErrServer: a 5xx, still failing after the retries.
	ErrServer = errors.New("server error")
	// ErrTransport: no response arrived (connection refused, reset, DNS, …).
	ErrTransport = errors.New("network error")
	// ErrTimeout: no complete response within the request timeout.
	ErrTimeout = errors.New("timed out")
	// ErrMalformed: the response was not the JSON the spec describes.
	ErrMalformed = errors.New("unexpected response from the server")
	// ErrTooLarge: the response body exceeded the size cap.
	ErrTooLarge = errors.New("response too large")
	// ErrUsage: the caller built an invalid request (e.g. limit out of 1..500).
	ErrUsage = errors.New("invalid request")
	// ErrCanceled: the caller's context was canceled; context.Canceled is in
	// the chain. (A caller's deadline is ErrTimeout with
	// context.DeadlineExceeded in the chain.)
	ErrCanceled = errors.New("canceled")
)

// Error is a failed API call. Its text is safe to show: it never holds the
// key and quotes at most 200 sanitized characters of a body.
type Error struct {
	Kind   error  // one of the sentinels above
	Op     string // "GET /api/v0/charges/"
	Status int    // HTTP status, 0 when no response arrived
	Code   string // the body's "error" field, sanitized
	Msg    string // the body's "msg" (or "detail"), sanitized and cut to 200 characters
	// Permission names the permission the endpoint needs (billing_read,
	// user_read, user_write) when Kind is ErrPermission and the server's
	// answer said a permission was missing; "" when it only refused.
	Permission string
	// Threshold is the server's minimum interval for the endpoint when Kind
	// is ErrRateLimited and the body named one.
	Threshold time.Duration
	// Err is the underlying cause (a net error, context error, JSON error),
	// already stripped of anything that could hold the key.
	Err error
}

// Error returns one line fit for a status bar.
func (e *Error) Error() string {
	switch e.Kind {
	case ErrPermission:
		if e.Permission != "" {
			return "this API key lacks the " + e.Permission + " permission"
		}
		s := e.Op + ": the server refused access"
		if e.Status != 0 {
			s += fmt.Sprintf(" (HTTP %d)", e.Status)
		}
		if e.Msg != "" {
			s += ": " + e.Msg
		}
		return s
	case ErrInvalidKey:
		return "the API key was rejected (invalid or revoked key)"
	case ErrNotLoggedIn:
		return "the server says this action requires login (no API key sent)"
	case ErrRateLimited:
		if e.Threshold > 0 {
			return fmt.Sprintf("rate limited by the server (at most one request per %s)", e.Threshold)
		}
		return "rate limited by the server"
	case ErrTimeout:
		return e.Op + ": no response in time"
	case ErrTooLarge:
		return e.Op + ": response too large"
	case ErrCanceled:
		return e.Op + ": canceled"
	}
	s := e.Kind.Error()
	if e.Status != 0 {
		s = fmt.Sprintf("%s (HTTP %d)", s, e.Status)
	}
	if e.Op != "" {
		s = e.Op + ": " + s
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	} else if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is matches the sentinel kind, so errors.Is(err, ErrInvalidKey) works.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns the cause (e.g. context.Canceled).
func (e *Error) Unwrap() error { return e.Err }
