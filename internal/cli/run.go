// Command vastdash is a terminal dashboard for the Vast.ai billing, account
// and notification API: credit at a glance, charges per contract down to
// their gpu/disk/bwd/bwu items, and the low-credit alert switches.
//
// Without a command it opens the dashboard; the commands credit, charges and
// notifications print one answer and exit, for scripts, cron and status bars.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/pflag"

	tea "charm.land/bubbletea/v2"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/config"
	"github.com/vastdash/vastdash/sanitize"
	"github.com/vastdash/vastdash/ui"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/theme"
)

// version is the version main was built with ("" for none): then the
// module version from the build info, or "dev".
var version = ""

// Exit codes.
const (
	exitOK      = 0
	exitRuntime = 1
	exitUsage   = 2
)

// Main runs the command line args (without the program's name) on the
// process's standard streams and returns the exit code. version is the
// version main was built with, "" for none.
func Main(args []string, v string) int {
	version = v
	return run(args, os.Stdout, os.Stderr)
}

// run is the whole program: parse args, do it, return the exit code.
func run(args []string, stdout, stderr io.Writer) (code int) {
	// A bug must not print a stack of internals or exit 2 (Go's panic code,
	// which reads as a usage error): one line, exit 1. The panic value is
	// not printed, since nothing guarantees what it holds.
	defer func() {
		if recover() != nil {
			fmt.Fprintln(stderr, "vastdash: internal error (a bug); please report it, with a --debug log if you can")
			code = exitRuntime
		}
	}()
	return newRunner(stdout, stderr).run(args)
}

// runner carries what a run writes to and the seams tests replace.
type runner struct {
	stdout, stderr io.Writer
	// clientOptions are added after the defaults (tests shorten pacing).
	clientOptions []api.Option
	// demo configures the server --demo starts.
	demo demoserver.Options
	// now is the clock for default ranges and the runway.
	now func() time.Time
	// isTerminal says whether a writer is a terminal (progress on stderr).
	isTerminal func(w io.Writer) bool
	// context is canceled on ctrl+c (tests cancel it themselves).
	context func() (context.Context, context.CancelFunc)
	// cmdCtx is the running command's context once commandContext made
	// one with a deadline, so an error can say the deadline ended it.
	cmdCtx context.Context
	// code is the exit code the command that ran left.
	code int
	// usage is the usage error that ended the parse of the command line.
	usage *usageErr
}

func newRunner(stdout, stderr io.Writer) *runner {
	return &runner{
		stdout:     stdout,
		stderr:     stderr,
		demo:       demoserver.Options{Latency: 60 * time.Millisecond},
		now:        time.Now,
		isTerminal: isTerminal,
		context:    signalContext,
	}
}

// isTerminal reports whether w is a terminal; only an *os.File can be one.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// options are the global flags.
type options struct {
	demo    bool
	debug   string        // --debug FILE
	timeout time.Duration // --timeout, per request
	// deadline is --deadline: how long a headless command may take in all
	// (pacing, retries and 429 waits included); 0 means no limit.
	deadline time.Duration
	flags    config.Flags
}

// Bounds of --timeout and --deadline: beyond them a value is a typo (30h
// for 30s) rather than a wish.
const (
	maxTimeout  = time.Hour
	maxDeadline = 24 * time.Hour
)

// register defines the global flags on fs, the root's persistent flags:
// the help of every command lists them, and they work before or after
// the command.
func (o *options) register(fs *pflag.FlagSet) {
	fs.BoolVar(&o.demo, "demo", false, "use the embedded demo server: no account, no network")
	fs.StringVar(&o.flags.APIKeyFile, "api-key-file", "", "read the API key from this file (else VAST_API_KEY, else the\nvastai CLI's key file)")
	fs.StringVar(&o.flags.URL, "url", "", "the API base URL (default https://console.vast.ai, env VAST_URL)")
	fs.StringVar(&o.flags.ConfigFile, "config", "", "settings file (default $XDG_CONFIG_HOME/vastdash/config.toml)")
	o.timeout = api.DefaultTimeout
	durationFlag(fs, &o.timeout, "timeout", maxTimeout, "30s", "give up on a request after this long, up to 1h")
	durationFlag(fs, &o.deadline, "deadline", maxDeadline, "2m", "commands: give up on the whole run after this long, up to 24h,\npacing, retries and rate-limit waits included (default: none)")
	fs.StringVar(&o.debug, "debug", "", "log every request and response to this file (mode 0600) for a\nbug report; the key and the account's api_key are redacted")
}

// usageError prints a usage problem as one line pointing at the help of
// cmd ("" for the program) and returns exit 2.
func (r *runner) usageError(cmd string, err error) int {
	see := "vastdash --help"
	if cmd != "" {
		see = "vastdash " + cmd + " --help"
	}
	fmt.Fprintf(r.stderr, "vastdash: %s (see %s)\n", oneLine(err.Error()), see)
	return exitUsage
}

// runtimeError prints a failure of the work itself (network, API,
// interrupt) as one line and returns exit 1. api errors never hold the key.
func (r *runner) runtimeError(err error) int {
	msg := err.Error()
	switch {
	case errors.Is(err, context.Canceled):
		msg = "interrupted"
	case r.cmdCtx != nil && context.Cause(r.cmdCtx) == errDeadline:
		msg = "gave up: the --deadline passed before the answer was complete"
	}
	fmt.Fprintf(r.stderr, "vastdash: %s\n", oneLine(msg))
	return exitRuntime
}

// errDeadline is the cause of a command context whose --deadline passed.
var errDeadline = errors.New("the --deadline passed")

// commandContext is a headless command's context: cancelled by ctrl+c or
// SIGTERM, and by the --deadline when one is set. The per-request
// --timeout bounds each request; only the deadline bounds the whole run,
// pacing, retries and 429 waits included.
func (r *runner) commandContext(o options) (context.Context, context.CancelFunc) {
	ctx, stop := r.context()
	if o.deadline <= 0 {
		return ctx, stop
	}
	dctx, cancel := context.WithTimeoutCause(ctx, o.deadline, errDeadline)
	r.cmdCtx = dctx
	return dctx, func() { cancel(); stop() }
}

// oneLine makes a message safe for a terminal and a single line.
func oneLine(s string) string {
	return strings.TrimSpace(sanitize.String(s))
}

// signalContext is canceled by ctrl+c or SIGTERM, so a run in progress
// stops its request and exits through the normal error path.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// dashboard starts the TUI.
func (r *runner) dashboard(o options) int {
	events := &ui.Events{}
	sess, code := r.openSession(o, events.Observe)
	if sess == nil {
		return code
	}
	defer sess.close()

	// Not r.context(): while the dashboard runs, ui.Run alone handles
	// signals (it quits the program and restores the terminal).
	base, stop := context.WithCancel(context.Background())
	defer stop()
	svc := sess.billing(base)
	defer svc.Close()
	ctx := &shared.Context{
		Billing:      svc,
		DefaultRange: sess.settings.Range,
		Keys:         sess.settings.Keys,
	}
	// The filters the Charges screen showed last time. The dashboard has
	// no filter flags, so nothing given on the command line can be
	// overridden by them; a state file that cannot be read is said on the
	// status line and ignored.
	ctx.State = config.NewStateStore(config.StatePath(config.DefaultEnv()))
	ctx.Remembered, ctx.StateErr = ctx.State.Load()
	uiOpts := ui.Options{Host: sess.host, Demo: o.demo, Theme: sess.settings.Theme, NoMouse: !sess.settings.Mouse,
		Refresh: sess.settings.Refresh, NoBell: !sess.settings.Bell}
	switch sess.settings.Theme {
	case "light":
		uiOpts.Dark = false
	case "dark":
		uiOpts.Dark = true
	default:
		uiOpts.Dark = theme.DarkFromEnv(os.Getenv("COLORFGBG"))
	}
	if err := runQuietly(func() error { return ui.Run(base, ctx, uiOpts, events) }); err != nil {
		msg := oneLine(err.Error())
		if errors.Is(err, ui.ErrInterrupted) {
			msg = "interrupted"
		}
		if errors.Is(err, tea.ErrProgramPanic) {
			// Bubble Tea caught it and restored the terminal.
			msg = "internal error (a bug); the terminal was restored; please report it, with a --debug log if you can"
		}
		fmt.Fprintf(r.stderr, "vastdash: %s\n", msg)
		return exitRuntime
	}
	return exitOK
}

// runQuietly runs the TUI with os.Stderr pointed at /dev/null: nothing may
// write there while the TUI owns the screen, and on a panic Bubble Tea,
// after restoring the terminal, prints the panic value and a stack to
// os.Stderr — internals, and nothing guarantees what the value holds. The
// caller prints one line instead.
func runQuietly(f func() error) error {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return f()
	}
	saved := os.Stderr
	os.Stderr = null
	defer func() {
		os.Stderr = saved
		null.Close()
	}()
	return f()
}

// session is what a run talks to: a client, and in demo mode the server.
type session struct {
	client   *api.Client
	settings config.Settings
	host     string // shown in the header when not the default
	demo     *demoserver.Server
	debugLog *os.File // --debug FILE
}

// billing is the application layer over the session's client, days
// beginning in the settings' time zone unless opts say otherwise; base
// bounds its loads. The caller closes it. Both front ends build theirs here.
func (s *session) billing(base context.Context, opts ...billing.Option) *billing.Service {
	return billing.New(base, s.client, append([]billing.Option{billing.WithLocation(s.settings.Location)}, opts...)...)
}

func (s *session) close() {
	if s.demo != nil {
		s.demo.Close()
	}
	if s.debugLog != nil {
		s.debugLog.Close()
	}
}

// openSession resolves the configuration (or starts the demo server) and
// builds the client; observe, if not nil, receives its pacing and retry
// events. On failure it has printed one line and returns the exit code.
func (r *runner) openSession(o options, observe func(api.Event)) (*session, int) {
	env := config.DefaultEnv()
	s := &session{}
	var baseURL, key string
	if o.demo {
		settings, err := config.LoadSettings(env, o.flags.ConfigFile)
		if err != nil {
			return r.configError(err)
		}
		srv, err := demoserver.Start(r.demo)
		if err != nil {
			fmt.Fprintf(r.stderr, "vastdash: cannot start the demo server: %s\n", oneLine(err.Error()))
			return nil, exitRuntime
		}
		s.demo, s.settings = srv, settings
		baseURL, key = srv.URL(), demoserver.DemoKey
	} else {
		cfg, err := config.Load(env, o.flags)
		if err != nil {
			return r.configError(err)
		}
		for _, w := range cfg.Warnings {
			fmt.Fprintln(r.stderr, "vastdash:", oneLine(w))
		}
		s.settings = cfg.Settings
		baseURL, key = cfg.BaseURL, cfg.Key.Reveal()
		if !config.IsDefaultURL(baseURL) {
			if u, err := url.Parse(baseURL); err == nil {
				s.host = u.Host
			}
		}
	}
	opts := []api.Option{api.WithVersion(versionString())}
	// --timeout and --deadline were checked when parsed; 0 is the
	// zero options of a test.
	if o.timeout > 0 {
		opts = append(opts, api.WithTimeout(o.timeout))
	}
	if o.debug != "" {
		f, err := config.OpenPrivate(o.debug)
		if err != nil {
			s.close()
			// err reads "PATH: reason": "--debug /dev/null: not a regular file".
			return r.configError(fmt.Errorf("--debug %w", err))
		}
		s.debugLog = f
		opts = append(opts, api.WithHTTPClient(&http.Client{Transport: api.DebugTransport(nil, f)}))
	}
	if observe != nil {
		opts = append(opts, api.WithObserver(observe))
	}
	client, err := api.New(baseURL, key, append(opts, r.clientOptions...)...)
	if err != nil {
		s.close()
		return r.configError(err)
	}
	s.client = client
	return s, exitOK
}

// configError prints a configuration error as one line; every such error
// is a usage or configuration problem (exit 2).
func (r *runner) configError(err error) (*session, int) {
	fmt.Fprintf(r.stderr, "vastdash: %s\n", oneLine(err.Error()))
	return nil, exitUsage
}

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
