package api

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vastdash/vastdash/sanitize"
)

// Retry budgets. The server refuses requests closer than its threshold with
// a 429 and no Retry-After; after five refusals in a row something else is
// wrong (another client sharing the key) and the user should hear about it.
const (
	maxRateLimitRetries = 5
	maxRetries          = 3 // 502/503/504 and network errors
	// pacingReportMin keeps the UI from flashing "waiting" for waits nobody
	// would notice.
	pacingReportMin = 100 * time.Millisecond
	// maxServerThreshold bounds a threshold parsed from a 429 body, so a
	// broken or hostile server cannot park the client: the real API's
	// thresholds are 1 to 5 s.
	maxServerThreshold = 10 * time.Second
	// errBodyCap bounds how much of an error body is read: only 200
	// characters of it are ever shown.
	errBodyCap = 64 << 10
	// drainCap bounds how much of an unread body is drained so the
	// connection can be reused; beyond it closing is cheaper.
	drainCap = 256 << 10
)

// call describes one API operation.
type call struct {
	method string
	path   string // "/api/v0/charges/", with the trailing slash the docs use
	query  string // encoded query, without "?"
	body   []byte // nil: no body
	perm   string // permission a scoped key needs (for ErrPermission)
	// base, when set, replaces the client's base URL (the autoscaler's
	// calls).
	base  string
	paced bool // goes through the charges pacer
	// once marks a request the server may act on twice (a create, a
	// delete, a test delivery): a lost connection is not retried once the
	// request was written, since it may have arrived. Its outcome is then
	// unknown, and the caller reads what the server holds.
	once bool
	// pacer, when paced is false, is the endpoint's own pacer (see
	// Client.endpointPacer); nil: not paced.
	pacer *pacer
}

func (cl *call) op() string { return cl.method + " " + cl.path }

// attemptResult is the outcome of one HTTP exchange.
type attemptResult struct {
	body      []byte
	status    int
	err       *Error
	threshold time.Duration // from a 429 body
	// noResponse marks a network error after which a retry is safe and
	// may help (not a timeout, not a certificate or DNS failure).
	noResponse bool
	// written reports that the transport wrote the request (tracked for
	// once calls only).
	written bool
}

// doDecode sends cl and decodes the body of an accepted request with decode,
// which is given the call's op and permission for its errors.
func doDecode[T any](ctx context.Context, c *Client, cl call, decode func(op, perm string, body []byte) (T, error)) (T, error) {
	body, err := c.do(ctx, cl)
	if err != nil {
		var zero T
		return zero, err
	}
	return decode(cl.op(), cl.perm, body)
}

// do performs cl with pacing and retries and returns the body of a 2xx
// response. The body of a 200 may still say success:false; the decoders
// check that.
//
// Retry policy:
//   - 429 (any method): wait the threshold the body names (else the
//     configured one) plus 0–25% jitter, at most 60 s, at most 5 times.
//     The request was refused, so repeating it is safe even for the PUT.
//     A paced request's 429 also teaches the pacer (see pacer.release).
//   - 502/503/504 (GET only) and network errors where no response arrived
//     (any method; the PUT replaces the whole document, so repeating it is
//     harmless; but a once call whose request was written is not
//     repeated): exponential backoff with jitter, at most 3 times.
//   - 500 and other statuses: not retried. A 500 is usually the server
//     failing on this very request; repeating it only makes the user wait.
//   - Timeouts: not retried. The user has already waited a full timeout
//     for a hung server; the UI offers a manual retry instead.
func (c *Client) do(ctx context.Context, cl call) ([]byte, error) {
	op := cl.op()
	limited, retries := 0, 0
	for {
		pc := cl.pacer
		if cl.paced {
			pc = c.pacer
		}
		paced := pc != nil
		actx := ctx
		var dep *departure
		if paced {
			report := func(d time.Duration) { c.emit(Event{Kind: EventPacing, Op: op, Wait: d}) }
			var err error
			if dep, err = pc.acquire(ctx, report); err != nil {
				return nil, ctxError(op, ctx)
			}
			// The request departs when it is written, after any dial
			// and TLS handshake (see pacer).
			actx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
				WroteRequest: func(info httptrace.WroteRequestInfo) {
					if info.Err == nil {
						dep.written()
					}
				},
			})
		}
		res := c.attempt(actx, &cl, op)
		if paced {
			// A 429 teaches the pacer (a longer threshold, else a wider
			// margin) before the next paced request may go.
			pc.release(dep, res.status == http.StatusTooManyRequests, res.threshold)
		}
		if res.err == nil {
			return res.body, nil
		}
		var wait time.Duration
		var ev Event
		switch {
		case res.status == http.StatusTooManyRequests:
			if limited >= maxRateLimitRetries {
				return nil, res.err
			}
			limited++
			wait = c.rateLimitWait(res.threshold)
			ev = Event{Kind: EventRateLimited, Op: op, Wait: wait, Attempt: limited}
		case res.noResponse && !(cl.once && res.written), cl.method == http.MethodGet && retryableStatus(res.status):
			if retries >= maxRetries {
				return nil, res.err
			}
			retries++
			wait = c.backoff(retries)
			ev = Event{Kind: EventRetry, Op: op, Wait: wait, Attempt: retries}
		default:
			return nil, res.err
		}
		c.emit(ev)
		if err := c.clock.Sleep(ctx, wait); err != nil {
			return nil, ctxError(op, ctx)
		}
	}
}

func retryableStatus(s int) bool {
	return s == http.StatusBadGateway || s == http.StatusServiceUnavailable || s == http.StatusGatewayTimeout
}

// attempt makes one HTTP exchange under the per-attempt timeout.
func (c *Client) attempt(ctx context.Context, cl *call, op string) attemptResult {
	if ctx.Err() != nil {
		return attemptResult{err: ctxError(op, ctx)}
	}
	var wrote atomic.Bool
	if cl.once {
		// Composed with the pacer's trace, if any.
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { wrote.Store(true) },
		})
	}
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()

	var body io.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body)
	}
	u := c.base + cl.path
	if cl.base != "" {
		u = cl.base + cl.path
	}
	if cl.query != "" {
		u += "?" + cl.query
	}
	req, err := http.NewRequestWithContext(actx, cl.method, u, body)
	if err != nil {
		// Only a bug can get here (New validated the base URL); do not
		// quote err, which holds the URL.
		return attemptResult{err: &Error{Kind: ErrUsage, Op: op, Msg: "cannot build the request"}}
	}
	req.Header.Set("Authorization", "Bearer "+c.key())
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "vastdash/"+c.version)
	if cl.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	resp, err := c.hc.Do(req)
	if err != nil {
		res := c.transportResult(ctx, actx, op, err)
		res.written = wrote.Load()
		return res
	}
	defer closeBody(resp.Body)

	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	limit := c.maxBody
	if !ok && limit > errBodyCap {
		limit = errBodyCap
	}
	if ok && resp.ContentLength > limit {
		return attemptResult{status: resp.StatusCode, err: &Error{Kind: ErrTooLarge, Op: op, Status: resp.StatusCode}}
	}
	b, over, err := readBody(resp.Body, limit, resp.ContentLength)
	if err != nil {
		res := c.transportResult(ctx, actx, op, err)
		res.written = true // an answer began: the request arrived
		return res
	}
	if ok {
		if over {
			return attemptResult{status: resp.StatusCode, err: &Error{Kind: ErrTooLarge, Op: op, Status: resp.StatusCode}}
		}
		return attemptResult{body: b, status: resp.StatusCode}
	}
	// An error body cut at errBodyCap is still good for its first 200
	// characters.
	e := c.statusError(op, resp.StatusCode, cl.perm, b)
	return attemptResult{status: resp.StatusCode, err: e, threshold: e.Threshold}
}

// readBody reads at most limit bytes; over reports a body longer than that.
func readBody(r io.Reader, limit, contentLength int64) (b []byte, over bool, err error) {
	var buf bytes.Buffer
	if contentLength > 0 && contentLength <= limit {
		buf.Grow(int(contentLength) + bytes.MinRead)
	}
	_, err = buf.ReadFrom(io.LimitReader(r, limit+1))
	b = buf.Bytes()
	if int64(len(b)) > limit {
		return b[:limit], true, nil
	}
	return b, false, err
}

// closeBody drains a little of what is left, so a keep-alive connection can
// be reused, then closes.
func closeBody(rc io.ReadCloser) {
	_, _ = io.CopyN(io.Discard, rc, drainCap)
	_ = rc.Close()
}

// transportResult classifies an error from sending the request or reading
// the response.
func (c *Client) transportResult(ctx, actx context.Context, op string, err error) attemptResult {
	if ctx.Err() != nil {
		return attemptResult{err: ctxError(op, ctx)}
	}
	if actx.Err() != nil {
		return attemptResult{err: &Error{Kind: ErrTimeout, Op: op, Err: context.DeadlineExceeded}}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return attemptResult{err: &Error{Kind: ErrTimeout, Op: op, Err: c.cleanCause(err)}}
	}
	return attemptResult{
		err:        &Error{Kind: ErrTransport, Op: op, Err: c.cleanCause(err)},
		noResponse: !permanentTransport(err),
	}
}

// permanentTransport reports network errors a retry cannot fix.
func permanentTransport(err error) bool {
	var (
		dnsErr   *net.DNSError
		certErr  *tls.CertificateVerificationError
		authErr  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalErr x509.CertificateInvalidError
	)
	switch {
	case errors.As(err, &dnsErr):
		return dnsErr.IsNotFound
	case errors.As(err, &certErr), errors.As(err, &authErr), errors.As(err, &hostErr), errors.As(err, &invalErr):
		return true
	}
	return false
}

// causeError carries a cleaned text for an underlying error while keeping
// it reachable for errors.Is/As (net.OpError, io.ErrUnexpectedEOF, …).
type causeError struct {
	msg string
	err error
}

func (e *causeError) Error() string { return e.msg }
func (e *causeError) Unwrap() error { return e.err }

// cleanCause strips the URL from a *url.Error (it carries the query), and
// sanitizes the rest: Go's transport quotes server bytes in some errors
// ("malformed HTTP response ..."). If the text somehow holds the key, the
// original is dropped from the chain altogether.
func (c *Client) cleanCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err
	}
	text := err.Error()
	if strings.Contains(text, c.key()) {
		return errors.New(c.clean(text, 200))
	}
	return &causeError{msg: c.clean(text, 200), err: err}
}

// clean prepares server-controlled text for an error message: the key is
// redacted (before and after removing control sequences, which could split
// it), then it is sanitized and cut to n characters.
func (c *Client) clean(s string, n int) string {
	return sanitize.Short(c.redact(sanitize.String(c.redact(s))), n)
}

// ctxError reports the caller's context ending: ErrTimeout for a deadline,
// ErrCanceled otherwise, with the context's error in the chain.
func ctxError(op string, ctx context.Context) *Error {
	err := ctx.Err()
	if errors.Is(err, context.DeadlineExceeded) {
		return &Error{Kind: ErrTimeout, Op: op, Err: err}
	}
	return &Error{Kind: ErrCanceled, Op: op, Err: err}
}

// rateLimitWait is the wait after a 429: the server's threshold, else the
// configured one, else the backoff base; plus 0–25% jitter so clients
// sharing a key do not retry in lockstep; at most maxWait.
func (c *Client) rateLimitWait(th time.Duration) time.Duration {
	if th <= 0 {
		th = c.threshold
	}
	if th <= 0 {
		th = c.backoffBase
	}
	return min(th+jitter(th), maxWait)
}

// backoff is the wait before retry n (1-based): base×2^(n-1), capped, plus
// 0–25% jitter.
func (c *Client) backoff(n int) time.Duration {
	d := c.backoffBase
	for i := 1; i < n && d < c.backoffCap; i++ {
		d *= 2
	}
	if d > c.backoffCap {
		d = c.backoffCap
	}
	return d + jitter(d)
}

func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return time.Duration(rand.Int64N(int64(d)/4 + 1))
}

func (c *Client) emit(e Event) {
	if c.observe != nil {
		c.observe(e)
	}
}
