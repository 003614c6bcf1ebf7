package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/vastdash/vastdash/api"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/billing"
	"github.com/vastdash/vastdash/ui"
	"github.com/vastdash/vastdash/ui/shared"
	"github.com/vastdash/vastdash/ui/signin"
)

// env is the world one run of the command line meets: where it writes,
// its clock, and the seams the tests replace. It is set up before the run
// and only read during it.
type env struct {
	stdout, stderr io.Writer
	// readSecret reads one line from the terminal without echo (the key
	// at auth login's prompt); ctx's end gives up.
	readSecret func(ctx context.Context) (string, error)
	// version is what --version prints and the client's User-Agent says.
	version string
	// clientOptions are added after the defaults (tests shorten pacing).
	clientOptions []api.Option
	// demo configures the server --demo starts.
	demo demoserver.Options
	// now is the clock for default ranges, months and the runway.
	now func() time.Time
	// isTerminal says whether a writer is a terminal (progress on stderr).
	isTerminal func(w io.Writer) bool
	// tty reports whether the process has a terminal to read keys from
	// when stdin is not one (/dev/tty, which Bubble Tea opens then): none
	// under cron or ssh without -t.
	tty func() bool
	// width is how many columns the terminal behind w has, 0 when w is
	// not a terminal (a pipe keeps every column of a table).
	width func(w io.Writer) int
	// context is cancelled on ctrl+c or SIGTERM (tests cancel it
	// themselves).
	context func() (context.Context, context.CancelFunc)
	// ledger lets runs keep the ledger (the settings and --no-ledger
	// decide then); the tests of the wire turn it off, the ledger's own
	// tests on.
	ledger bool
	// stdin is where the answer to a question is read (webhooks delete,
	// ledger forget, auth login and logout ask when it is a terminal) and
	// what auth login --with-token reads the key from.
	stdin io.Reader
	// resolve looks up a webhook URL's host before a save; nil is the
	// system's resolver (--demo looks nothing up).
	resolve billing.Resolver
	// serve makes the exporter of serve (tests give a stand-in).
	serve NewServeBackend
	// runUI, when not nil, runs the dashboard in place of ui.Run (a
	// test's program, with its own input and size).
	runUI func(base context.Context, ctx *shared.Context, opts ui.Options, events *ui.Events) error
	// runSignIn, when not nil, runs the sign-in screen that adds an
	// account in place of ui.SignIn (a test's).
	runSignIn func(base context.Context, o signin.Options) (signin.Result, error)
}

// processEnv is the env of the process: its standard streams, the wall
// clock and its signals. version is the one main was built with, "" for
// none.
func processEnv(version string) *env {
	return &env{
		stdout:     os.Stdout,
		stderr:     os.Stderr,
		stdin:      os.Stdin,
		readSecret: readSecret,
		version:    versionOf(version),
		demo:       demoserver.Options{Latency: 60 * time.Millisecond, Leaks: true},
		serve:      newExporter,
		now:        time.Now,
		isTerminal: isTerminal,
		tty:        hasTTY,
		width:      terminalWidth,
		context:    signalContext,
		ledger:     true,
	}
}

// readSecret reads a line from the terminal on stdin with echo off, for
// the key. ctrl+c (which cancels ctx) gives up at once: the terminal's
// echo is restored and the read is left to end with the process.
func readSecret(ctx context.Context) (string, error) {
	fd := os.Stdin.Fd()
	saved, err := term.GetState(fd)
	if err != nil {
		return "", err
	}
	type answer struct {
		b   []byte
		err error
	}
	done := make(chan answer, 1)
	go func() {
		b, err := term.ReadPassword(fd)
		done <- answer{b, err}
	}()
	select {
	case a := <-done:
		defer clear(a.b)
		return string(a.b), a.err
	case <-ctx.Done():
		_ = term.Restore(fd, saved)
		return "", ctx.Err()
	}
}

// wrapNotes is e with stderr wrapped at words to the terminal's width
// (wordWrapper), e itself in a pipe. Whether stderr is a terminal, and
// how wide, are still asked of the stream under it.
func (e *env) wrapNotes() *env {
	width := e.width(e.stderr)
	if width <= 0 {
		return e
	}
	c := *e
	raw := e.stderr
	c.stderr = newWordWrapper(raw, width)
	isTerminal, widthOf := e.isTerminal, e.width
	c.isTerminal = func(w io.Writer) bool { return isTerminal(under(w, c.stderr, raw)) }
	c.width = func(w io.Writer) int { return widthOf(under(w, c.stderr, raw)) }
	return &c
}

// under is raw when w is wrapped, its wrapper, else w.
func under(w, wrapped, raw io.Writer) io.Writer {
	if w == wrapped {
		return raw
	}
	return w
}

// stdinTerminal reports whether stdin is a terminal: a question is asked
// only there, and the dashboard signs in only with one on both ends.
func (e *env) stdinTerminal() bool {
	w, ok := e.stdin.(io.Writer)
	return ok && e.isTerminal(w)
}

// isTerminal reports whether w is a terminal; only an *os.File can be one.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// hasTTY reports whether the controlling terminal, /dev/tty, opens.
func hasTTY() bool {
	f, err := os.Open("/dev/tty")
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// terminalWidth is the width of the terminal behind w, 0 when there is
// none.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return 0
	}
	cols, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return cols
}

// signalContext is cancelled by ctrl+c or SIGTERM, so a run in progress
// stops its request and exits through the normal error path.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// versionOf is the version to print: the one given at build time, else the
// module version from the build info, else "dev".
func versionOf(built string) string {
	if built != "" {
		return built
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
