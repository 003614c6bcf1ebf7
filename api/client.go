// Package api is the wire layer of vastdash: one Client for the Vast.ai
// billing, account and notification-preferences endpoints, with typed
// errors, a pager for lazy loading, pacing and retries. It imports no UI.
//
// Pacing: charges requests of one Client are sent one at a time, each a
// threshold (1 s by default, the server's) plus a small safety margin after
// the previous one was sent, and never before its response has ended, so
// normal use does not provoke a 429 (see pacer); a 429 that happens anyway
// widens the margin for the rest of the Client's life. The account
// settings (5 s), notification catalogue (2 s), instances (1 s), invoices
// (3 s), webhooks (2 s, all of their paths together), volumes (5.5 s),
// serverless endpoints (3 s) and worker groups (2 s) endpoints are paced
// the same way, each on a budget of its own (WithEndpointThreshold). A 429 is waited out
// (the threshold the body names, plus 0–25% jitter, at most 60 s) and
// retried up to 5 times, for any method. GETs also
// retry 502/503/504, and every method retries a lost connection (no
// response arrived; the PUT replaces the whole document, so repeating it is
// harmless) — but a webhook's create, delete, rotation or test delivery,
// or an API key's creation, whose request was sent is not repeated, since
// the server may have acted on it —, up to 3 times with exponential backoff (250 ms doubling to
// 4 s, plus jitter). A 500 and timeouts are not retried: the first is the
// server failing on this very request, the second has already made the
// user wait a full timeout. Waits honour the context and are reported to
// the observer (WithObserver).
//
// Errors: every failed call returns an *Error whose Kind is one of the
// sentinels (errors.Is(err, ErrRateLimited)); its text never holds the key
// and quotes at most 200 sanitized characters of a server body.
package api

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults. The charges threshold is the server's documented minimum
// interval between charges requests of one key.
const (
	DefaultTimeout          = 20 * time.Second
	DefaultChargesThreshold = time.Second
	DefaultMaxBody          = 32 << 20 // 32 MiB
	DefaultBackoffBase      = 250 * time.Millisecond
	DefaultBackoffCap       = 4 * time.Second
)

// Client talks to one API base URL with one key. It is safe for concurrent
// use; charges requests made through it share one pacing budget.
//
// Printing a Client with fmt shows only its base URL.
type Client struct {
	base    string        // without trailing slash
	run     string        // the autoscaler's base: AutoscalerURL, or base when it is not ConsoleURL
	key     func() string // see keyFunc
	hc      *http.Client
	version string
	timeout time.Duration
	maxBody int64
	observe func(Event)

	threshold time.Duration // configured charges threshold; 0 disables pacing
	pacer     *pacer        // nil when threshold is 0
	// endpoint holds the thresholds of the other paced endpoints by path
	// (see WithEndpointThreshold) until New turns them into pacers: each
	// endpoint has its own budget on the server, so one endpoint's calls
	// never hold back another's.
	endpoint    map[string]time.Duration
	pacers      map[string]*pacer // by path; no entry: not paced
	margin      time.Duration     // WithPacingMargin; 0: the pacer's default
	backoffBase time.Duration
	backoffCap  time.Duration
	clock       Clock // what pacing and retries wait on (WithClock)
	gate        Gate  // shares the pace with other processes (WithGate); nil: none

	// secrets are the endpoints' and worker groups' own keys seen in
	// answers (see learnSecret): redacted like the key from any text the
	// client builds.
	secrets *secretSet
}

// secretSet is the secrets a client learned; behind a pointer, so that a
// Client value (printed, copied in a test) carries no lock.
type secretSet struct {
	mu   sync.Mutex
	list []string
}

// keyFunc hides the key inside a closure. fmt prints a func as an address
// whatever the verb and however deep it sits (a Client value, a struct
// holding one), whereas a string or a pointer to a struct would be printed
// through: *Client's String/Format methods alone do not cover every path.
func keyFunc(key string) func() string { return func() string { return key } }

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the *http.Client. The Client works on a copy: its
// Timeout is ignored (see WithTimeout) and redirects that would change the
// method (a PUT turned into a GET) or downgrade https to http are refused.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithVersion sets the version sent in User-Agent: vastdash/<version>
// (default "dev").
func WithVersion(v string) Option { return func(c *Client) { c.version = v } }

// WithTimeout sets the per-attempt request timeout (default 20 s). It
// covers sending the request and reading the whole response, not the time
// spent waiting for the pacer or between retries. d <= 0 keeps the default.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithChargesThreshold sets the minimum interval between charges requests
// (default 1 s, the server's threshold); 0 disables pacing (tests).
func WithChargesThreshold(d time.Duration) Option {
	return func(c *Client) {
		if d < 0 {
			d = 0
		}
		c.threshold = d
	}
}

// WithEndpointThreshold sets the minimum interval between calls of one
// paced endpoint other than charges, named by its path constant
// (SettingsPath 5 s, NotificationTypesPath 2 s, InstancesPath 1 s,
// InvoicesPath 3 s, WebhooksPath 2 s, APIKeysPath 2 s, VolumesPath 5.5 s,
// EndpointJobsPath 3 s, WorkerGroupsPath 2 s by default); 0 disables its
// pacing (tests). Other paths are ignored.
func WithEndpointThreshold(path string, d time.Duration) Option {
	return func(c *Client) {
		if _, ok := c.endpoint[path]; ok {
			c.endpoint[path] = max(d, 0)
		}
	}
}

// WithPacingMargin sets the margin the pacer starts with, added to the
// threshold between departures (default 2% of the threshold, at least
// 10 ms; a 429 grows it). Tests that require zero 429s at thresholds of a
// few milliseconds, on a loaded machine whose scheduler can hold a request
// back longer than that, widen it; d <= 0 keeps the default.
func WithPacingMargin(d time.Duration) Option {
	return func(c *Client) {
		if d > 0 {
			c.margin = d
		}
	}
}

// WithObserver receives pacing and retry events (the UI shows "waiting for
// the rate limit"). It is called from the goroutine making the request.
func WithObserver(f func(Event)) Option { return func(c *Client) { c.observe = f } }

// WithClock makes pacing and retries wait on clk instead of the wall
// clock: a test's demoserver.Clock, shared with the demo server, moves only
// when told, so pacing is exact however loaded the machine. nil keeps the
// wall clock.
func WithClock(clk Clock) Option {
	return func(c *Client) {
		if clk != nil {
			c.clock = clk
		}
	}
}

// withMaxBody caps the size of a response body (default 32 MiB; tests
// lower it); a larger body fails with ErrTooLarge. n <= 0 keeps the
// default.
func withMaxBody(n int64) Option {
	return func(c *Client) {
		if n > 0 {
			c.maxBody = n
		}
	}
}

// WithBackoff sets the retry backoff for 5xx and network errors: the n-th
// retry waits about base×2^(n-1), at most max, plus up to 25% jitter
// (defaults 250 ms and 4 s). Values <= 0 keep the defaults.
func WithBackoff(base, max time.Duration) Option {
	return func(c *Client) {
		if base > 0 {
			c.backoffBase = base
		}
		if max > 0 {
			c.backoffCap = max
		}
	}
}

// EventKind says why a request is waiting.
type EventKind int

// Event kinds.
const (
	EventPacing      EventKind = iota // waiting for the local pacer before sending
	EventRateLimited                  // got a 429; waiting Wait before retrying
	EventRetry                        // 5xx or transport error; waiting Wait before retrying
)

// String names the kind for logs and tests.
func (k EventKind) String() string {
	switch k {
	case EventPacing:
		return "pacing"
	case EventRateLimited:
		return "rate-limited"
	case EventRetry:
		return "retry"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event reports a wait inside a call. It never holds the key.
type Event struct {
	Kind    EventKind
	Op      string        // "GET /api/v0/charges/"
	Wait    time.Duration // how long the call will wait
	Attempt int           // retry number, 1-based (0 for EventPacing)
}

// New returns a Client for baseURL (e.g. https://console.vast.ai) and key.
// The base URL must be an absolute http or https URL with a host and
// without credentials, query or fragment; the key must be non-empty
// printable ASCII without spaces. Violations are an *Error of kind ErrUsage
// whose text never quotes the key.
func New(baseURL, key string, opts ...Option) (*Client, error) {
	base, err := checkBase(baseURL)
	if err != nil {
		return nil, err
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	run := base
	if base == ConsoleURL {
		run = AutoscalerURL
	}
	c := &Client{
		base:        base,
		run:         run,
		secrets:     &secretSet{},
		key:         keyFunc(key),
		version:     "dev",
		timeout:     DefaultTimeout,
		maxBody:     DefaultMaxBody,
		threshold:   DefaultChargesThreshold,
		backoffBase: DefaultBackoffBase,
		backoffCap:  DefaultBackoffCap,
		endpoint:    defaultEndpointThresholds(),
		clock:       wallClock{},
	}
	for _, o := range opts {
		o(c)
	}
	if c.version == "" {
		c.version = "dev"
	}
	if c.backoffCap < c.backoffBase {
		c.backoffCap = c.backoffBase
	}
	c.hc = safeHTTPClient(c.hc)
	if c.threshold > 0 {
		c.pacer = newPacer(c.threshold, c.clock)
		c.pacer.margin = max(c.pacer.margin, c.margin)
		c.pacer.gate, c.pacer.class = c.gate, chargesPath
	}
	c.pacers = make(map[string]*pacer, len(c.endpoint))
	for path, d := range c.endpoint {
		if d > 0 {
			p := newPacer(d, c.clock)
			p.margin = max(p.margin, c.margin)
			p.gate, p.class = c.gate, path
			c.pacers[path] = p
		}
	}
	return c, nil
}

func usageErr(op, msg string) *Error { return &Error{Kind: ErrUsage, Op: op, Msg: msg} }

func checkBase(raw string) (string, error) {
	const op = "New"
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", usageErr(op, "the base URL is not a valid URL")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", usageErr(op, "the base URL must start with https:// or http://")
	case u.Host == "" || u.Hostname() == "":
		return "", usageErr(op, "the base URL has no host")
	case u.User != nil:
		return "", usageErr(op, "the base URL must not contain credentials")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", usageErr(op, "the base URL must not have a query or fragment")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u.String(), nil
}

func checkKey(key string) error {
	if key == "" {
		return usageErr("New", "no API key given")
	}
	for i := 0; i < len(key); i++ {
		if key[i] <= ' ' || key[i] > '~' {
			// Never quote the key, not even in part.
			return usageErr("New", "the API key contains spaces or non-printable characters")
		}
	}
	return nil
}

// safeHTTPClient copies hc (or http.DefaultClient) so the caller's client is
// never modified, drops its Timeout (ours is per attempt) and guards
// redirects.
func safeHTTPClient(hc *http.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	cp := *hc
	cp.Timeout = 0
	next := hc.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		first := via[0]
		// Go turns a redirected PUT into a GET: the "update" would then
		// succeed without changing anything. Refuse and report the 3xx.
		if req.Method != first.Method {
			return http.ErrUseLastResponse
		}
		// Go keeps Authorization on a same-host redirect; never send it in
		// clear text after starting on https.
		if first.URL.Scheme == "https" && req.URL.Scheme != "https" {
			return http.ErrUseLastResponse
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return http.ErrUseLastResponse
		}
		return nil
	}
	return &cp
}

// BaseURL returns the base URL the client talks to (without trailing slash).
func (c *Client) BaseURL() string { return c.base }

// String shows the base URL only, never the key.
func (c *Client) String() string {
	if c == nil {
		return "api.Client(nil)"
	}
	return "api.Client(" + c.base + ")"
}

// GoString is String, so %#v cannot print the key either.
func (c *Client) GoString() string { return c.String() }

// Format writes String for every verb (%v, %+v, %#v, %s, %q, …).
func (c *Client) Format(f fmt.State, verb rune) {
	if verb == 'q' {
		fmt.Fprintf(f, "%q", c.String())
		return
	}
	_, _ = f.Write([]byte(c.String()))
}

// redact replaces every occurrence of the key, and of every secret
// learned, in server-controlled text.
func (c *Client) redact(s string) string {
	if key := c.key(); key != "" && strings.Contains(s, key) {
		s = strings.ReplaceAll(s, key, "[redacted]")
	}
	if c.secrets == nil {
		return s
	}
	c.secrets.mu.Lock()
	defer c.secrets.mu.Unlock()
	for _, sec := range c.secrets.list {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// maxSecrets bounds the secrets a client remembers: an account has a few
// endpoints, and a hostile server must not grow the list without end.
const maxSecrets = 256

// minSecretLen is the shortest secret redacted: shorter text occurs by
// chance (an "x" would blank every x of every message).
const minSecretLen = 8

// learnSecret remembers a secret an answer carries (an endpoint's or
// worker group's api_key, a webhook's signing secret, a key just made),
// so that no error text the client builds afterwards
// can quote it (an error body that echoes it, say).
func (c *Client) learnSecret(s string) {
	if len(s) < minSecretLen {
		return
	}
	c.secrets.mu.Lock()
	defer c.secrets.mu.Unlock()
	if len(c.secrets.list) < maxSecrets && !slices.Contains(c.secrets.list, s) {
		c.secrets.list = append(c.secrets.list, s)
	}
}
