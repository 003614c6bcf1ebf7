// Package hang is the UI tests' client side of a server that never answers:
// a transport that gives up on the requests the test's server holds after a
// short wait, as a client's timeout would, and sends every other request
// as it is. A test's client timeout can then be seconds, so a good answer
// on a loaded machine never turns into a timeout, while a hang costs
// milliseconds.
package hang

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"
)

// Wait is how long a held request is waited for: no answer will end it.
const Wait = 300 * time.Millisecond

// Transport sends requests through Base (nil: http.DefaultTransport) and
// gives up after Wait on those Held reports, with an error the client
// reads as a timeout.
type Transport struct {
	Base http.RoundTripper
	Held func(*http.Request) bool
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if t.Held == nil || !t.Held(req) {
		return base.RoundTrip(req)
	}
	ctx, cancel := context.WithTimeout(req.Context(), Wait)
	resp, err := base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		if req.Context().Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, timeout{}
		}
		return nil, err
	}
	resp.Body = cancelOnClose{resp.Body, cancel}
	return resp, nil
}

// timeout is a held request given up: a net.Error that timed out.
type timeout struct{}

func (timeout) Error() string   { return "no answer within " + Wait.String() }
func (timeout) Timeout() bool   { return true }
func (timeout) Temporary() bool { return false }

// cancelOnClose ends a request's context once its body is closed: an
// answer that did come is read whole.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
