package demoserver

import (
	"cmp"
	"context"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Demo keys. They are public constants, not secrets: the demo server is the
// only place they work.
const (
	// DemoKey has full access.
	DemoKey = "vastdash-demo-key"
	// KeyNoBilling is scoped to misc, user_read, instance_read and
	// instance_write: it can read the account and prefs, but neither see
	// charges (billing_read) nor change prefs (user_write).
	KeyNoBilling = "vastdash-demo-nobilling"
	// KeyReadOnly has user_read and billing_read but not user_write, nor
	// instance_read: the key for "no instances panel" tests.
	KeyReadOnly = "vastdash-demo-readonly"
	// KeyNoAccount has billing_read and instance_read but not user_read:
	// it works, yet the account lookup is refused.
	KeyNoAccount = "vastdash-demo-noaccount"
	// KeyScoped has exactly what vastdash reads: billing_read, user_read,
	// instance_read and misc. It can neither change alerts, answer price
	// increases nor make keys.
	KeyScoped = "vastdash-demo-scoped"
)

// Names under which requests are recorded ([Request.KeyName]), so that no
// key, demo or not, is ever copied into a record.
const (
	KeyNameDemo      = "demo"
	KeyNameNoBilling = "nobilling"
	KeyNameReadOnly  = "readonly"
	KeyNameNoAccount = "noaccount"
	KeyNameScoped    = "scoped"
	// KeyNameUnknown is recorded for any Authorization header that is not a
	// known key (or not a Bearer key at all).
	KeyNameUnknown = "unknown"
)

// MaxBodyBytes is the largest request body accepted; larger ones get 400.
const MaxBodyBytes = 1 << 20

// maxRecords bounds the request log of a long --demo session; when it is
// reached the older half is dropped.
const maxRecords = 50_000

// Options configure a [Server]. The zero value is a useful demo.
type Options struct {
	// Seed of the data set; 0 means 1.
	Seed uint64
	// Contracts is the number of top-level contracts generated (instances,
	// volumes and serverless workers together); 0 means 2000.
	Contracts int
	// Now is where the data ends (running contracts end here); zero means
	// time.Now(), truncated to seconds. Same Seed, Now and Contracts give
	// identical data and identical response bytes.
	Now time.Time
	// Span is the history length; 0 means 365 days. Contracts are denser in
	// recent weeks than in old ones.
	Span time.Duration
	// Threshold is the minimum interval between accepted charges requests of
	// one key; 0 means 1 s, negative disables pacing.
	Threshold time.Duration
	// Latency is added before every response: it is waited just before the
	// answer is written, after faults, routing, authentication and pacing,
	// like the real server's processing time. Pacing sees the request when
	// it arrives, so however long the answer takes, the gaps between
	// arrivals are the gaps the client sent.
	Latency time.Duration
	// Jitter varies Latency: each response's latency is Latency plus a
	// uniformly random amount in [-Jitter, +Jitter] (at least zero in all),
	// drawn in order of arrival from a source seeded by Seed, so the same
	// requests in the same order get the same latencies. 0 means none.
	Jitter time.Duration
	// SettingsThreshold, TypesThreshold and InstancesThreshold are the
	// minimum intervals between accepted requests of one key to
	// PUT /api/v0/users/, GET /api/v0/notification-types/ and
	// GET /api/v1/instances/, each endpoint on its own budget; 0 means the
	// documented 5 s, 2 s and 1 s, negative disables that endpoint's pacing.
	SettingsThreshold  time.Duration
	TypesThreshold     time.Duration
	InstancesThreshold time.Duration
	// InvoicesThreshold is the same for GET /api/v1/invoices/: 0 means the
	// documented 3 s, negative disables it.
	InvoicesThreshold time.Duration
	// WebhooksThreshold is the same for every webhooks path together:
	// 0 means 2 s (the notes name none), negative disables it.
	WebhooksThreshold time.Duration
	// Payments is how many payment records the year holds; 0 (or fewer
	// than the generated year, about 40) keeps the generated year. More
	// are added as card top-ups spread over the year (benchmarks).
	Payments int
	// WindowAmounts answers charges by the rule public clients report of
	// the live API rather than the specification's: an entry's amount,
	// and each item's, is what fell inside the queried day.gte..day.lte
	// window (the contract's seconds inside it, pro rata), not the
	// contract's total. [Server.Contracts] and [Server.Tree] follow the
	// same rule; a Filter without bounds gives the totals.
	WindowAmounts bool
	// VolumesThreshold, EndpointsThreshold and WorkerGroupsThreshold are
	// the same for GET /api/v0/volumes/, /api/v0/endptjobs/ and
	// /api/v0/workergroups/: 0 means the documented 5.5 s, 3 s and 2 s,
	// negative disables it.
	VolumesThreshold      time.Duration
	EndpointsThreshold    time.Duration
	WorkerGroupsThreshold time.Duration
	// Leaks gives the account money leaks and decoys (see leaks.go): two
	// stopped instances, an orphan volume, an idle endpoint and an idle
	// GPU; an offline and a loading instance, a busy endpoint, an endpoint
	// without workers and an attached network volume; and two pending
	// price increases. Without it the volumes and price increases are
	// empty and no endpoint has workers; the generated data is the same
	// either way, but for the fixtures' contracts added to the charges.
	Leaks bool
	// Invoices, when not nil, are the payment records served in place of
	// the generated year: tests that need records of chosen times and
	// amounts (late confirmations, records dated ahead, amounts in
	// thousandths). Payments is then ignored.
	Invoices []Invoice
	// PlainText429 answers 429 with a text/plain body instead of JSON.
	PlainText429 bool
	// Hostile puts terminal escape sequences (ESC CSI/OSC), bidi overrides
	// (U+202E), zero-width joiners and C1 controls into every free-text
	// string (descriptions, labels, account names, ssh key, one prefs key)
	// and makes labels about 2 KB long. Identifiers that clients must parse
	// (type, source, api_key) stay clean.
	Hostile bool
	// Clock is the time source of pacing and of [Fault.Until]; nil means
	// time.Now. Tests can pass a fake clock to exercise pacing without
	// sleeping.
	Clock func() time.Time
}

// Request is one request as the server saw it.
type Request struct {
	Method string
	Path   string // as sent, with or without the trailing slash
	Query  url.Values
	Body   []byte
	// Status is the status the server answered with; it is set before any
	// byte of the response is sent, so it is visible as soon as a client has
	// the response. 0 means not answered (yet, or never: Hang).
	Status int
	// KeyName is one of the KeyName* constants (or the name given to
	// [Server.AddKey]); "" when there was no Authorization header.
	KeyName string
	// Time of arrival by [Options.Clock], so a test sharing a fake clock
	// with the client can check the client's pacing.
	Time time.Time
}

type keyInfo struct {
	name    string
	perms   map[string]bool // nil: full access
	revoked bool
	// id is the key's id in the API-keys listing.
	id int64
	// created marks a key made through the API-keys endpoint, keyName the
	// name it was given; deleted one that DELETE removed.
	created, deleted bool
	keyName          string
}

func (k *keyInfo) allows(perm string) bool { return k.perms == nil || k.perms[perm] }

// Server is the fake API. Create it with [New] or [Start]; all methods are
// safe for concurrent use.
type Server struct {
	opts Options
	// data is the data set answered from, replaced whole by Advance; a
	// request reads one data set from start to end.
	data    atomic.Pointer[dataset]
	advance sync.Mutex // one Advance at a time
	clock   func() time.Time

	latency   atomic.Int64
	threshold atomic.Int64

	mu         sync.Mutex
	jitterRNG  *rand.Rand // nil when Options.Jitter <= 0
	keys       map[string]*keyInfo
	nextKeyID  int64 // the last key id given
	reqs       []*Request
	changed    chan struct{} // closed and replaced on every new request
	faults     []*faultState
	prefs      map[string]any
	prefsNoGET bool
	lastCharge map[*keyInfo]time.Time
	lastCall   map[paceKey]time.Time // the other paced endpoints
	balance    balanceSettings       // changed by PUT /api/v0/users/
	views      map[viewKey]*view
	closed     bool
	invoices   []Invoice      // the payment records, oldest first; replaced whole, never changed in place
	decided    map[int64]bool // price increases answered, by id
	webhooks   []WebhookTruth
	// nextWebhook is the id the next created webhook gets.
	nextWebhook int64
	secretRNG   *rand.Rand // the webhooks' signing secrets

	inflight  sync.WaitGroup
	done      chan struct{}
	closeOnce sync.Once

	srv       *http.Server
	url       string
	serveDone chan struct{}
}

// New builds the data set; the server does not listen. Use [Server.Handler]
// to mount it, or [Start] to get a listening one.
func New(opts Options) *Server {
	if opts.Seed == 0 {
		opts.Seed = 1
	}
	if opts.Contracts <= 0 {
		opts.Contracts = 2000
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	opts.Now = opts.Now.Truncate(time.Second)
	if opts.Span <= 0 {
		opts.Span = 365 * 24 * time.Hour
	}
	if opts.Threshold == 0 {
		opts.Threshold = time.Second
	}
	opts.SettingsThreshold = orDefault(opts.SettingsThreshold, 5*time.Second)
	opts.TypesThreshold = orDefault(opts.TypesThreshold, 2*time.Second)
	opts.InstancesThreshold = orDefault(opts.InstancesThreshold, time.Second)
	opts.InvoicesThreshold = orDefault(opts.InvoicesThreshold, 3*time.Second)
	opts.VolumesThreshold = orDefault(opts.VolumesThreshold, 5500*time.Millisecond)
	opts.EndpointsThreshold = orDefault(opts.EndpointsThreshold, 3*time.Second)
	opts.WorkerGroupsThreshold = orDefault(opts.WorkerGroupsThreshold, 2*time.Second)
	opts.WebhooksThreshold = orDefault(opts.WebhooksThreshold, 2*time.Second)
	s := &Server{
		opts:  opts,
		clock: opts.Clock,
		keys: map[string]*keyInfo{
			DemoKey:      {name: KeyNameDemo, id: 1},
			KeyNoBilling: {name: KeyNameNoBilling, id: 2, perms: permSet("misc", "user_read", "instance_read", "instance_write")},
			KeyReadOnly:  {name: KeyNameReadOnly, id: 3, perms: permSet("user_read", "billing_read")},
			KeyNoAccount: {name: KeyNameNoAccount, id: 4, perms: permSet("billing_read", "instance_read")},
			KeyScoped:    {name: KeyNameScoped, id: 5, perms: permSet("billing_read", "user_read", "instance_read", "misc")},
		},
		nextKeyID:  5,
		changed:    make(chan struct{}),
		prefs:      defaultPrefs(opts.Hostile),
		lastCharge: map[*keyInfo]time.Time{},
		lastCall:   map[paceKey]time.Time{},
		balance:    balanceSettings{threshold: 50_000, enabled: true},
		views:      map[viewKey]*view{},
		decided:    map[int64]bool{},
		done:       make(chan struct{}),
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	s.data.Store(generate(opts.Seed, opts.Contracts, opts.Now, opts.Span, opts.Hostile, opts.Leaks))
	s.invoices = s.ds().payments(opts.Seed, opts.Payments)
	if opts.Invoices != nil {
		s.invoices = slices.Clone(opts.Invoices)
		slices.SortStableFunc(s.invoices, func(a, b Invoice) int { return cmp.Compare(a.Created, b.Created) })
	}
	s.secretRNG = rand.New(rand.NewPCG(opts.Seed, 0x7365637265747321))
	for i, w := range defaultWebhooks(opts.Now.Unix()) {
		w.Secret = s.newSecret()
		if opts.Hostile {
			w.Name = hostile(w.Name, int64(40+i))
		}
		s.webhooks = append(s.webhooks, w)
		s.nextWebhook = w.ID + 1
	}
	if opts.Jitter > 0 {
		// A stream of its own, so jitter does not shift the data set.
		s.jitterRNG = rand.New(rand.NewPCG(opts.Seed, 0x6a6974746572121))
	}
	s.latency.Store(int64(opts.Latency))
	s.threshold.Store(int64(opts.Threshold))
	return s
}

func permSet(perms ...string) map[string]bool {
	m := make(map[string]bool, len(perms))
	for _, p := range perms {
		m[p] = true
	}
	return m
}

// Start is [New] plus listening on 127.0.0.1 on a free port.
func Start(opts Options) (*Server, error) {
	s := New(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.srv = &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// In --demo mode the server runs under a full-screen UI: any log line
		// on stderr would tear the screen.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	s.url = "http://" + ln.Addr().String()
	s.serveDone = make(chan struct{})
	go func() {
		defer close(s.serveDone)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL is the base URL of a started server, "http://127.0.0.1:<port>"; ""
// for a server from [New].
func (s *Server) URL() string { return s.url }

// Handler serves the API; usable with any http.Server (httptest included).
// A request that must end without an answer (Hang, a Delay or Latency cut
// short, ResetAfterBytes) panics with http.ErrAbortHandler, which net/http
// turns into a silently dropped connection.
func (s *Server) Handler() http.Handler { return http.HandlerFunc(s.serveHTTP) }

// Close stops listening, releases hanging and delayed requests and waits for
// every handler to return, so no goroutine of the server outlives it.
// Requests arriving at [Server.Handler] afterwards get 503.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		// Connections first, so a released request cannot slip out an
		// answer on its way out.
		if s.srv != nil {
			_ = s.srv.Close()
			<-s.serveDone
		}
		close(s.done)
		s.inflight.Wait()
	})
}

// Now is the end of the data set (Options.Now truncated to seconds).
func (s *Server) Now() time.Time { return time.Unix(s.ds().now, 0).In(s.opts.Now.Location()) }

// ds is the data set in force.
func (s *Server) ds() *dataset { return s.data.Load() }

// UserID is the id of the demo account.
func (s *Server) UserID() int64 { return s.ds().userID }

// Credit is the account's credit in thousandths of a dollar, as served in
// users/current. It is about 2.5 times the pro-rated spend of the last seven
// days, so it would last two to three weeks.
func (s *Server) Credit() int64 { return s.ds().credit }

// RevokeKey makes key answer 404 auth_error from now on. Unknown keys are
// ignored.
func (s *Server) RevokeKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := s.keys[key]; k != nil {
		k.revoked = true
	}
}

// AddKey registers another key recorded under name. perms lists its
// permission categories (e.g. "billing_read", "user_read", "user_write");
// nil means full access.
func (s *Server) AddKey(key, name string, perms []string) {
	k := &keyInfo{name: name}
	if perms != nil {
		k.perms = permSet(perms...)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextKeyID++
	k.id = s.nextKeyID
	s.keys[key] = k
}

// SetLatency changes the delay added before every response.
func (s *Server) SetLatency(d time.Duration) { s.latency.Store(int64(d)) }

// SetThreshold changes the charges pacing interval; negative disables it.
func (s *Server) SetThreshold(d time.Duration) { s.threshold.Store(int64(d)) }

// SetPrefsGET(false) makes GET of notification-prefs answer 405, like an
// API that only has the documented PUT.
func (s *Server) SetPrefsGET(ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prefsNoGET = !ok
}

// Requests returns a copy of the recorded requests, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.reqs))
	for i, r := range s.reqs {
		out[i] = *r
		out[i].Query = cloneValues(r.Query)
		out[i].Body = append([]byte(nil), r.Body...)
	}
	return out
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// CountStatus counts recorded requests answered with code.
func (s *Server) CountStatus(code int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.reqs {
		if r.Status == code {
			n++
		}
	}
	return n
}

// ResetRequests forgets the recorded requests.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
}

// WaitRequests blocks until at least n requests have arrived since the last
// [Server.ResetRequests] (answered or not), or ctx is done. Tests use it to
// know that a client's request reached the server, e.g. one that a Hang
// fault holds.
func (s *Server) WaitRequests(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		have := len(s.reqs)
		ch := s.changed
		s.mu.Unlock()
		if have >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// record logs the request and draws its jitter (see Options.Jitter) under
// the same lock, so the draws follow the order of arrival.
func (s *Server) record(r *http.Request, body []byte, keyName string) (*Request, time.Duration) {
	rec := &Request{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Body: body,
		KeyName: keyName, Time: s.clock(),
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) >= maxRecords {
		s.reqs = append(s.reqs[:0:0], s.reqs[len(s.reqs)/2:]...)
	}
	s.reqs = append(s.reqs, rec)
	close(s.changed)
	s.changed = make(chan struct{})
	var jitter time.Duration
	if j := int64(s.opts.Jitter); s.jitterRNG != nil && j > 0 {
		jitter = time.Duration(s.jitterRNG.Int64N(2*j+1) - j)
	}
	return rec, jitter
}

// statusWriter records the status into the request log before the header is
// written, so a client never sees a response whose record is incomplete.
type statusWriter struct {
	http.ResponseWriter
	s     *Server
	rec   *Request
	wrote bool
	// delay (Options.Latency and Jitter) is waited before the header is
	// written; ctx ends it early (see Server.sleep).
	delay time.Duration
	ctx   context.Context
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.wrote = true
		w.s.sleep(w.ctx, w.delay)
		w.s.mu.Lock()
		w.rec.Status = code
		w.s.mu.Unlock()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the real writer (Flush).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// sleep waits d, or aborts the request (see abort) when the client or the
// server goes away first.
func (s *Server) sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		abort()
	case <-s.done:
		abort()
	}
}

// abort ends a request without any answer: net/http drops the connection
// (and logs nothing) for this panic, where a plain return would send an
// empty 200.
func abort() { panic(http.ErrAbortHandler) }

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, "unavailable", "The demo server is closed.")
		return
	}
	s.inflight.Add(1)
	s.mu.Unlock()
	defer s.inflight.Done()

	body, err := io.ReadAll(io.LimitReader(r.Body, MaxBodyBytes+1))
	tooBig := len(body) > MaxBodyBytes
	if tooBig {
		body = body[:MaxBodyBytes]
	}
	_, ki, hasAuth := s.lookupKey(r)
	name := ""
	switch {
	case ki != nil:
		name = ki.name
	case hasAuth:
		name = KeyNameUnknown
	}
	rec, jitter := s.record(r, body, name)
	// The latency is waited when the answer is written, not here: the
	// charges pacing must see the request as it arrived.
	delay := max(time.Duration(s.latency.Load())+jitter, 0)
	sw := &statusWriter{ResponseWriter: w, s: s, rec: rec, delay: delay, ctx: r.Context()}
	if err != nil && !tooBig {
		writeError(sw, http.StatusBadRequest, "", "Could not read the request body.")
		return
	}
	if f := s.takeFault(r); f != nil {
		s.applyFault(sw, r, f, body, tooBig)
		return
	}
	s.route(sw, r, body, tooBig)
}
