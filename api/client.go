// Package api is the wire layer of vastdash: one Client for the Vast.ai
// billing, account and notification-preferences endpoints, with typed
// errors, a pager for lazy loading, pacing and retries. It imports no UI.
package api

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"time"
)

// SKELETON: helper-3 replaces the bodies below; signatures are the contract
// the UI is written against.

// Client talks to one API base URL with one key. It is safe for concurrent
// use; charges requests made through it share one pacing budget.
type Client struct {
	base string
	key  string
	hc   *http.Client
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the *http.Client (its Timeout is ignored; see WithTimeout).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithVersion sets the version sent in User-Agent: vastdash/<version>.
func WithVersion(v string) Option { return func(c *Client) {} }

// WithTimeout sets the per-request timeout (default 20 s).
func WithTimeout(d time.Duration) Option { return func(c *Client) {} }

// WithChargesThreshold sets the minimum interval between charges requests
// (default 1 s, the server's threshold); 0 disables pacing (tests).
func WithChargesThreshold(d time.Duration) Option { return func(c *Client) {} }

// WithObserver receives pacing and retry events (the UI shows "waiting for
// the rate limit"). It is called from the goroutine making the request.
func WithObserver(f func(Event)) Option { return func(c *Client) {} }

// EventKind says why a request is waiting.
type EventKind int

// Event kinds.
const (
	EventPacing      EventKind = iota // waiting for the local pacer before sending
	EventRateLimited                  // got a 429; waiting Wait before retrying
	EventRetry                        // 5xx or transport error; waiting Wait before retrying
)

// Event reports a wait inside a call.
type Event struct {
	Kind    EventKind
	Op      string        // "GET /api/v0/charges/"
	Wait    time.Duration // how long the call will wait
	Attempt int           // retry number, 1-based (0 for EventPacing)
}

// New returns a Client for baseURL (e.g. https://console.vast.ai) and key.
func New(baseURL, key string, opts ...Option) (*Client, error) {
	c := &Client{base: baseURL, key: key, hc: http.DefaultClient}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

var errSkeleton = errors.New("not implemented yet")

// CurrentUser reads the key owner's account (GET /api/v0/users/current/).
func (c *Client) CurrentUser(ctx context.Context) (User, error) { return User{}, errSkeleton }

// Charges fetches one page of charges for q, after afterToken ("" for the first page).
func (c *Client) Charges(ctx context.Context, q ChargesQuery, afterToken string) (ChargesPage, error) {
	return ChargesPage{}, errSkeleton
}

// NotificationPrefs reads the whole preferences document.
func (c *Client) NotificationPrefs(ctx context.Context, userID int64) (Prefs, error) {
	return Prefs{}, errSkeleton
}

// SetNotificationPrefs replaces the whole preferences document with p and
// returns the document the server confirmed.
func (c *Client) SetNotificationPrefs(ctx context.Context, userID int64, p Prefs) (Prefs, error) {
	return Prefs{}, errSkeleton
}

// ChargesQuery is a set of charges filters. Zero Format means table, zero
// Limit the server default (100).
type ChargesQuery struct {
	From, To    time.Time      // day.gte / day.lte (sent as unix seconds UTC)
	Types       []ContractType // empty: every type
	Format      Format
	OldestFirst bool // latest_first=false
	Limit       int  // 1..500, or 0 for the server default
}

// Pager hands out the pages of one ChargesQuery in order. Its filters are
// fixed: a token is valid only with the filters it came from. Not safe for
// concurrent use: one Next at a time.
type Pager struct{}

// ErrPagerDone is returned by Next after the last page.
var ErrPagerDone = errors.New("no more pages")

// Pager starts paging q.
func (c *Client) Pager(q ChargesQuery) *Pager { return &Pager{} }

// Next fetches the next page.
func (p *Pager) Next(ctx context.Context) (ChargesPage, error) { return ChargesPage{}, errSkeleton }

// Done reports that the last page has been handed out.
func (p *Pager) Done() bool { return true }

// Total is the server's count of matching contracts (-1 before the first page).
func (p *Pager) Total() int { return -1 }

// Loaded counts the top-level entries handed out so far.
func (p *Pager) Loaded() int { return 0 }

// Query returns the pager's filters.
func (p *Pager) Query() ChargesQuery { return ChargesQuery{} }

// All yields every top-level entry of q, fetching pages as needed.
func (c *Client) All(ctx context.Context, q ChargesQuery) iter.Seq2[Charge, error] {
	return func(yield func(Charge, error) bool) { yield(Charge{}, errSkeleton) }
}
