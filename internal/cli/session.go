package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/ledger"
)

// globals are the global flags: they work before or after any command.
type globals struct {
	demo    bool
	debug   string        // --debug FILE
	timeout time.Duration // --timeout, per request
	// deadline is --deadline: how long a headless command may take in all
	// (pacing, retries and 429 waits included); 0 means no limit.
	deadline time.Duration
	// noLedger is --no-ledger: this run neither reads nor writes the
	// ledger.
	noLedger bool
	flags    config.Flags
}

// Session is what one run talks to, built once from the global flags and
// the settings, the same way for the dashboard and every command: the key's
// client, the settings, and the billing layer over them, which holds the
// clock and the zone days begin in. Commands read the account, charges and
// alerts only through Billing: every rule of the domain lives there.
type Session struct {
	// Client is the wire client of the key (or of the demo server).
	Client *api.Client
	// Settings are the settings file's, or the defaults.
	Settings config.Settings
	// Billing is the billing layer of the run; its clock and Location are
	// the run's.
	Billing *billing.Service
	// Host is the API's host when it is not the default, for the header.
	Host string
	// KeySource says where the key came from: "env VAST_API_KEY" or a
	// file's path ("" for --demo and a key being signed in with).
	KeySource string
	// LedgerPath is where the account's ledger is (or would be), named
	// for --demo at once and by findLedger for the commands that open the
	// file themselves; "" before that, when there is no home to keep one
	// in, or --no-ledger keeps this run away from it.
	LedgerPath string
	// noLedger is --no-ledger, for the commands that need the ledger to
	// refuse it (needLedger).
	noLedger bool
	// Account is the account's name ("default": the usual key);
	// accountNamed says the run picked it by name, so every JSON answer
	// names it (account.go).
	Account      string
	accountNamed bool

	// ledger owns the account's ledger this run (nil without one): the
	// billing layer opens it through the handle, beside the dashboard's
	// start or when a command first reads history; Close closes it.
	ledger *ledger.Handle
	// ledgerIdentity is whose ledger this run's is (ledger_account.go);
	// ledgerDir the folder it is in.
	ledgerIdentity func() (ledger.Identity, error)
	ledgerDir      string
	// ledgerHost is the API host the run's ledgers are named by, "" when
	// the run keeps none (the demo, the ledger setting off): a sign-in
	// remembers there whose account a key it saved is (rememberUser).
	ledgerHost string

	stdout, stderr io.Writer
	// width is the terminal's width behind stdout, 0 in a pipe.
	width int
	// text is set when the answer is text, which answer wraps to the
	// width (not JSON nor CSV).
	text bool
	// progress is the status line on stderr (commands only).
	progress *progress
	demo     *demoserver.Server
	debugLog *os.File
	// paceGate shares the key's pace with its other processes; nil when
	// it could not be opened (or --demo).
	paceGate *config.PaceGate
	// baseURL and clientOpts made Client: clientFor makes another client
	// like it for another key.
	baseURL    string
	clientOpts []api.Option
}

// sessionOptions are what differs between the sessions of a run.
type sessionOptions struct {
	// base bounds the billing layer's loads.
	base context.Context
	// utc makes days begin at midnight UTC (--utc), whatever the settings.
	utc bool
	// observe receives the client's pacing and retry events.
	observe func(api.Event)
	// key, when set, is the key to use instead of looking one up: a key
	// being signed in with (the URL and settings are still resolved).
	key *config.Secret
	// noLedger leaves the ledger closed (the commands that read or delete
	// its file themselves); LedgerPath is still set.
	noLedger bool
	// dashboard says a ledger that cannot be used on the status line (the
	// feeds' warnings) rather than on stderr, which the screen covers.
	dashboard bool
	// transport, if not nil, wraps the client's transport (nil: Go's
	// default; the --debug log's when set): serve counts the API's
	// answers there.
	transport func(http.RoundTripper) http.RoundTripper
}

// openSession resolves the key, the URL and the settings (or starts the
// demo server) and builds the client and the billing layer. Its errors are
// configuration errors (exit 2) but for a demo server that cannot start.
func openSession(e *env, g globals, o sessionOptions) (*Session, error) {
	cfg := config.DefaultEnv()
	s := &Session{stdout: e.stdout, stderr: e.stderr, width: e.width(e.stdout), noLedger: g.noLedger}
	var baseURL, key string
	if g.demo {
		if g.flags.Account != "" {
			return nil, configError(errors.New("--demo has no accounts: drop --account"))
		}
		settings, err := config.LoadSettings(cfg, g.flags.ConfigFile)
		if err != nil {
			return nil, configError(err)
		}
		srv, err := demoserver.Start(e.demo)
		if err != nil {
			return nil, fmt.Errorf("cannot start the demo server: %w", err)
		}
		s.demo, s.Settings = srv, settings
		baseURL, key = srv.URL(), demoserver.DemoKey
	} else {
		c, err := loadConfig(cfg, g.flags, o.key)
		if errors.Is(err, config.ErrNoKey) {
			// The way in first, as gh says it: where a key may be put
			// comes after.
			err = fmt.Errorf("%w: sign in with vastdash auth login (or run vastdash at a terminal), or set %s; --demo needs none", config.ErrNoKey, config.EnvAPIKey)
		}
		if err != nil {
			return nil, configError(err)
		}
		for _, w := range c.Warnings {
			warn(e.stderr, w)
		}
		s.Settings, s.KeySource = c.Settings, c.KeySource
		s.Account, s.accountNamed = c.Account, c.Named
		baseURL, key = c.BaseURL, c.Key.Reveal()
		s.Host = hostOf(baseURL)
	}
	opts := []api.Option{api.WithVersion(e.version)}
	// --timeout and --deadline were checked when parsed; 0 is the zero
	// globals of a test.
	if g.timeout > 0 {
		opts = append(opts, api.WithTimeout(g.timeout))
	}
	var transport http.RoundTripper // nil: Go's default
	if g.debug != "" {
		f, err := config.OpenPrivate(g.debug)
		if err != nil {
			s.Close()
			// err reads "PATH: reason": "--debug /dev/null: not a regular file".
			return nil, configError(fmt.Errorf("--debug %w", err))
		}
		s.debugLog = f
		transport = api.DebugTransport(nil, f)
	}
	if o.transport != nil {
		transport = o.transport(transport)
	}
	if transport != nil {
		opts = append(opts, api.WithHTTPClient(&http.Client{Transport: transport}))
	}
	if o.observe != nil {
		opts = append(opts, api.WithObserver(o.observe))
	}
	s.baseURL, s.clientOpts = baseURL, append(opts, e.clientOptions...)
	client, err := api.New(baseURL, key, append(slices.Clip(s.clientOpts), s.openPaceGate(e, cfg, g, o, baseURL, key)...)...)
	if err != nil {
		s.Close()
		return nil, configError(err)
	}
	s.Client = client
	bopts := []billing.Option{billing.WithClock(e.now), billing.WithLocation(s.Settings.Location)}
	if o.utc || s.Settings.Location == nil {
		bopts = append(bopts, billing.WithLocation(time.UTC))
	}
	switch {
	case g.demo:
		// No network: a webhook's host name is not looked up.
		bopts = append(bopts, billing.WithResolver(nil))
	case e.resolve != nil:
		bopts = append(bopts, billing.WithResolver(e.resolve))
	}
	bopts = append(bopts, s.openLedger(e, cfg, g, o, client, key)...)
	s.Billing = billing.New(o.base, client, bopts...)
	return s, nil
}

// hostOf is the host of an API base URL for the header, "" for the
// default one.
func hostOf(base string) string {
	if config.IsDefaultURL(base) {
		return ""
	}
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.Host
}

// loadConfig is config.Load, or, with a key given, the URL and the
// settings alone around that key.
func loadConfig(env config.Env, f config.Flags, key *config.Secret) (config.Config, error) {
	if key == nil {
		return config.Load(env, f)
	}
	base, err := config.ResolveURL(env, f.URL)
	if err != nil {
		return config.Config{}, err
	}
	settings, err := config.LoadSettings(env, f.ConfigFile)
	if err != nil {
		return config.Config{}, err
	}
	if a, ok := settings.Account(f.Account); ok && a.URL != "" && strings.TrimSpace(f.URL) == "" {
		// auth login --account again: the key is tried at the host
		// the account is read at, as loading it would.
		base = a.URL
	}
	return config.Config{Key: *key, BaseURL: base, Settings: settings}, nil
}

// clientFor is a client like the session's for another key: the same URL,
// timeout, debug log and options (a key made for vastdash is verified
// through it).
func (s *Session) clientFor(key string) (*api.Client, error) {
	return api.New(s.baseURL, key, s.clientOpts...)
}

// openPaceGate opens the pace file of the key at its API host, beside
// its ledger (the same folder and name, .pace for .db), and returns the
// client option that shares the key's pace through it with the key's
// other processes: a dashboard, a cron command and serve on one key
// then take turns instead of refusing each other with 429s. Not for
// --demo, whose server is the run's own; not with --no-ledger, which
// leaves the ledger's folder alone; not for the sessions that open no
// ledger (the sign-in's probes of a key perhaps wrong, auth status, the
// ledger's own commands: a few requests, and no file for a key that is
// no account's). A file that cannot be used is one warning, and this run
// paces itself alone.
func (s *Session) openPaceGate(e *env, cfg config.Env, g globals, o sessionOptions, baseURL, key string) []api.Option {
	dir := config.LedgerDir(cfg)
	if g.demo || g.noLedger || o.noLedger || dir == "" {
		return nil
	}
	host := "console.vast.ai"
	if u, err := url.Parse(baseURL); err == nil && u.Host != "" {
		host = u.Host
	}
	path := strings.TrimSuffix(ledger.Path(dir, ledger.Identity{Host: host, Account: ledger.KeyDigest(key)}), ".db") + ".pace"
	gate, err := config.OpenPaceGate(path)
	if err != nil {
		warn(e.stderr, "the key's pace is not shared with other vastdash runs this time: "+err.Error())
		return nil
	}
	s.paceGate = gate
	return []api.Option{api.WithGate(gate)}
}

// openLedger opens the account's ledger when the settings and flags want
// one, and returns the billing options that use it. A ledger that cannot
// be used (a link, another user's file, a read-only folder, a newer
// schema) is said in one warning and the run goes on from the server; a
// corrupt one moved aside is said too. The demo server's ledger is its
// own, by one fixed name, whatever its port.
func (s *Session) openLedger(e *env, cfg config.Env, g globals, o sessionOptions, client *api.Client, key string) []billing.Option {
	dir := config.LedgerDir(cfg)
	if dir == "" {
		return nil
	}
	host := "console.vast.ai"
	switch {
	case g.demo:
		host = "demo"
	default:
		if u, err := url.Parse(client.BaseURL()); err == nil && u.Host != "" {
			host = u.Host
		}
	}
	if g.noLedger {
		return nil
	}
	s.ledgerIdentity = ledgerIdentity(o.base, g.demo, dir, host, client, key)
	if g.demo {
		// The demo's ledger is named without a request, as before.
		id, _ := s.ledgerIdentity()
		s.LedgerPath = ledger.Path(dir, id)
	}
	s.ledgerDir = dir
	if s.Settings.Ledger && e.ledger && !g.demo {
		s.ledgerHost = host
	}
	if o.noLedger || !s.Settings.Ledger || !e.ledger {
		return nil
	}
	if o.dashboard {
		// The dashboard says a ledger that cannot be used on its status
		// line, through the feeds' warnings (the handle's note), and opens
		// it beside its first frame, which nothing of the ledger's is
		// needed for.
		s.ledger = ledger.Opening(dir, s.ledgerIdentity, nil)
		s.ledger.Start()
		return []billing.Option{billing.WithLedger(s.ledger)}
	}
	// A command says it before its answer, on stderr, and opens the ledger
	// when it first reads history: credit, auth or webhooks never pay for
	// it.
	s.ledger = ledger.Opening(dir, s.ledgerIdentity, func(note string) {
		if s.progress != nil {
			s.progress.warn(note)
		} else {
			warn(s.stderr, note)
		}
	})
	return []billing.Option{billing.WithLedger(s.ledger)}
}

// needLedger refuses a command that works on the ledger in a run the user
// kept away from it — --no-ledger, or with setting the ledger setting off
// too — with a usage error saying so; does is what the command does ("sql
// reads the ledger").
func (s *Session) needLedger(does string, setting bool) error {
	switch {
	case s.noLedger:
		return usageError(fmt.Errorf("%s, and --no-ledger keeps this run away from it", does))
	case setting && !s.Settings.Ledger:
		return usageError(fmt.Errorf("%s, and the ledger setting is off (ledger = false)", does))
	}
	return nil
}

// Close stops the billing layer's loads and the demo server, and closes
// the debug log.
func (s *Session) Close() {
	if s.Billing != nil {
		s.Billing.Close()
	}
	if s.demo != nil {
		s.demo.Close()
	}
	if s.debugLog != nil {
		s.debugLog.Close()
	}
	if s.paceGate != nil {
		_ = s.paceGate.Close()
	}
	// After the billing layer: nothing reads the ledger any more.
	_ = s.ledger.Close()
}
