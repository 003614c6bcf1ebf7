// Package billing is the application layer of vastdash: the rules of the
// domain that the dashboard (ui/) and the headless commands (package main)
// both call, so that each rule lives in exactly one place. It sits on the
// wire layer (api/) and imports no UI.
//
// It owns:
//   - charges feeds (Feed): one loader per query, shared by every listener of
//     that query, with the pager, the refused-token restart, the 429 policy,
//     progress, cancellation and the value bounds;
//   - the instances, read once for every reader that asks at the same
//     moment (Instances, the rate's CurrentRate);
//   - the notification catalogue, read once a session (Catalogue), and
//     the low-balance threshold as the account record holds it
//     (ThresholdOf);
//   - burn rate, runway and the query they need (Meter, BurnQuery);
//   - payment records (PaymentsFeed, on the same loader as the charges
//     feed), their effect on the credit (Effect) and the monthly statement
//     reconstructed back from today's credit (Statement, BuildStatement);
//   - the bounds a value from the server must meet before anything uses it
//     (CheckCharge).
//
// It is the core the features stand on, each a package of its own above
// it that takes the Service: billing/notices (alert switches, the
// threshold's saves, webhooks), billing/leaks (the audit) and
// billing/access (what a key may do, a key for vastdash alone).
//
// The anchor is soft-serve's pkg/backend: one backend that its SSH commands
// and its UI alike call.
package billing

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/ledger"
	"github.com/vastdash/vastdash/money"
	"github.com/vastdash/vastdash/spend"
)

// Service is the billing layer of one session: one client (one key, one
// pacing budget), the location days begin in, and the feeds in use. It is
// safe for concurrent use. Close it when the session ends: every feed's
// loader stops.
type Service struct {
	client *api.Client
	loc    *time.Location
	now    func() time.Time
	// rateWait is how long a feed waits after a 429 that named no threshold.
	rateWait time.Duration
	// pages, payPages and instances, when set, replace the client's
	// pagers of charges, payment records and instances (tests).
	pages     func(api.ChargesQuery) Source[api.Charge]
	payPages  func(api.InvoicesQuery) Source[api.Invoice]
	instances func() Source[api.Instance]

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	feeds map[string]any // *feed[Q, E] by kind and query
	// flight shares the instances' reading, and their first page, among
	// the readers that ask while one is read (see Instances).
	flight singleflight.Group
	// first is the instances' first page last answered: the access
	// probe and a reading made a moment apart share it (instancesPage).
	first *firstPage

	cat catalogueCache

	// resolve looks up a webhook URL's host (see WithResolver);
	// resolveSet tells a nil set on purpose from the default.
	resolve    Resolver
	resolveSet bool

	// The amount rule (amounts.go): known, tried this session, and who
	// keeps it for the account. ruleMu also makes concurrent feeds wait
	// for the one detection.
	ruleMu    sync.Mutex
	rule      AmountRule
	ruleTried bool
	onRule    func(AmountRule)

	// lh is the run's ledger (sync.go), whose open, failure, note and close
	// are its own (ledger.Handle); nil without one. ruleTaken once the
	// amount rule it keeps was read (set under ruleMu).
	lh        *ledger.Handle
	ruleTaken atomic.Bool
	// syncs are the charges' and the payments' syncs: each kind syncs one
	// at a time (on its endpoint's budget), the two side by side.
	syncs map[string]*kindSync
}

// kindSync serializes the syncs of one kind of rows and remembers what
// this run synced.
type kindSync struct {
	mu     sync.Mutex
	synced []ledger.Span // under mu
}

// Option configures a Service.
type Option func(*Service)

// WithLocation sets where calendar days begin (default time.Local).
func WithLocation(loc *time.Location) Option {
	return func(s *Service) {
		if loc != nil {
			s.loc = loc
		}
	}
}

// WithClock sets the clock (tests fix it); nil keeps time.Now.
func WithClock(now func() time.Time) Option {
	return func(s *Service) {
		if now != nil {
			s.now = now
		}
	}
}

// WithRateWait sets how long a feed waits after a 429 the client gave up on
// when the server named no threshold (default: the documented 1 s). Tests
// shorten it.
func WithRateWait(d time.Duration) Option {
	return func(s *Service) {
		if d > 0 {
			s.rateWait = d
		}
	}
}

// WithPages makes feeds page through fn instead of the client: the seam the
// front ends' tests use to drive a screen with fixed pages.
func WithPages(fn func(api.ChargesQuery) Source[api.Charge]) Option {
	return func(s *Service) { s.pages = fn }
}

// New returns the billing layer over client. base bounds every loader's
// life: when it ends, loads stop (as on Close).
func New(base context.Context, client *api.Client, opts ...Option) *Service {
	if base == nil {
		base = context.Background()
	}
	s := &Service{
		client:   client,
		loc:      time.Local,
		now:      time.Now,
		rateWait: time.Second,
		feeds:    map[string]any{},
		syncs:    map[string]*kindSync{ledger.KindCharges: {}, ledger.KindPayments: {}},
	}
	for _, o := range opts {
		o(s)
	}
	s.ctx, s.cancel = context.WithCancel(base)
	return s
}

// Close stops every feed and waits for their loaders to end.
func (s *Service) Close() {
	s.cancel()
	s.wg.Wait()
}

// Location is where calendar days begin.
func (s *Service) Location() *time.Location { return s.loc }

// Now is the service's clock in its location.
func (s *Service) Now() time.Time { return s.now().In(s.loc) }

// Client is the wire client: the features on the core (billing/notices,
// billing/leaks, billing/access) make their requests through it, paced on
// the session's one budget; the front ends never need it.
func (s *Service) Client() *api.Client { return s.client }

// ErrNoCredit is the error of an account record that holds no credit
// figure (null, or no field): never read as $0, which is an empty account.
var ErrNoCredit = errors.New(`the account record holds no credit figure (field "credit")`)

// CreditUnknown is the reason a front end gives for a runway (or any
// figure built on the credit) when the account holds no credit figure.
const CreditUnknown = "the credit is unknown"

// CreditOf is u's credit, or ErrNoCredit when the record holds none: the
// commands fail on it (exit 1, naming the field), and a statement, which
// runs back from the credit, cannot be built without it.
func CreditOf(u api.User) (money.Amount, error) {
	if u.CreditMissing {
		return 0, ErrNoCredit
	}
	return u.Credit, nil
}

// Account reads the key owner's account record.
func (s *Service) Account(ctx context.Context) (api.User, error) {
	if s.client == nil {
		return api.User{}, ErrNoClient
	}
	return s.client.CurrentUser(ctx)
}

// When is t in the one short form people read, in the service's zone:
// "26 Nov 14:05" this year, "30 Dec 2025" in another (spend.Short); the
// commands' text output writes times with it, as the screens do.
func (s *Service) When(t time.Time) string { return spend.Short(t.In(s.loc), s.Now()) }

// WhenLong is t with its year and zone, in the service's zone: "26 Nov
// 2026 14:05 UTC".
func (s *Service) WhenLong(t time.Time) string { return spend.Long(t.In(s.loc)) }
