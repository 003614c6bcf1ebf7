// Package cli is vastdash's command line: the dashboard (the root command)
// and every headless command, each in a file of its own with its flags and
// its output, all on one Session — the key's client, the settings, the
// clock and zone, and the billing layer every rule of the domain comes
// from. main calls Main and exits with its code; see ARCHITECTURE.md.
//
// The command line is a tree of cobra commands: help written from the flag
// definitions (usage.go: styled on a terminal, plain text otherwise),
// `completion bash|zsh|fish`, `man`, `--version`. The global flags are
// persistent flags of the root, so they work before or after a command.
//
// A command returns an error; report prints it as one line and picks the
// exit code. Every usage error, cobra's, pflag's or a flag value's, is one
// plain line "vastdash: … (see vastdash CMD --help)" and exit 2, before the
// key is looked up or any request made (see execution.keepUsageErrors).
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vastdash/vastdash/api"
)

// Main runs the command line args (without the program's name) on the
// process's standard streams and returns the exit code. version is the
// version main was built with, "" for none.
func Main(args []string, version string) int {
	return run(args, processEnv(version))
}

// run is the whole program for args in e: parse, do, return the exit code.
func run(args []string, e *env) (code int) {
	// A bug must not print a stack of internals or exit 2 (Go's panic code,
	// which reads as a usage error): one line, exit 1. The panic value is
	// not printed, since nothing guarantees what it holds.
	defer func() {
		if recover() != nil {
			fmt.Fprintln(e.stderr, "vastdash: internal error (a bug); please report it, with a --debug log if you can")
			code = exitRuntime
		}
	}()
	x := &execution{env: e.wrapNotes(), args: args}
	return x.execute(args)
}

// commands builds the commands, in the order the help lists them. A new
// command is a file NAME.go with a builder like newCreditCommand and one
// line here.
var commands = []func(x *execution) *cobra.Command{
	newCreditCommand,
	newChargesCommand,
	newNotificationsCommand,
	newPaymentsCommand,
	newStatementCommand,
	newSyncCommand,
	newSQLCommand,
	newLedgerCommand,
	newSpendCommand,
	newAuthCommand,
	newServeCommand,
	newWebhooksCommand,
	newAuditCommand,
	newAccountsCommand,
	newAlertsCommand,
	newManCommand,
}

// execution is one run of the command line: the env it meets, the global
// flags as parsed, and the outcome — the usage error the parse ended on, or
// the error the command returned. Only the parse hooks and runE write it.
type execution struct {
	env     *env
	args    []string
	globals globals
	usage   *usageErr
	err     error
}

const rootShort = "A terminal dashboard for your Vast.ai credit, charges and alerts"

const rootLong = rootShort + `.

Without a command vastdash opens the dashboard. A command prints one answer and exits, for scripts, cron jobs and status bars. Flags work before or after the command.

The API key comes from --api-key-file, else VAST_API_KEY, else $XDG_CONFIG_HOME/vastai/vast_api_key (~/.config/vastai/vast_api_key), else ~/.vast_api_key: the same places as the official vastai CLI.

A command writes its answer to stdout, and only once it is complete; on an error stdout stays empty. Progress (only on a terminal), totals, warnings and errors go to stderr, one line each.

Exit codes: 0 ok; 1 runtime error (network, API, interrupted, stdout cannot be written); 2 usage or configuration error, and then no request is made.`

const rootExample = `
# the dashboard on the embedded demo server: no account, no network
vastdash --demo
# the credit and how long it lasts, for a status bar
vastdash credit --runway
# last month's charges as CSV
vastdash charges --from 2026-10-01 --to 2026-10-31 --output csv > october.csv
# shell completion (see vastdash completion --help)
source <(vastdash completion bash)
`

// Bounds of --timeout and --deadline: beyond them a value is a typo (30h
// for 30s) rather than a wish.
const (
	maxTimeout  = time.Hour
	maxDeadline = 24 * time.Hour
)

// registerGlobals defines the global flags on fs, the root's persistent
// flags: the help of every command lists them, and they work before or
// after the command.
func (g *globals) register(fs *pflag.FlagSet) {
	fs.BoolVar(&g.demo, "demo", false, "use the embedded demo server: no account, no network")
	fs.StringVar(&g.flags.APIKeyFile, "api-key-file", "", "read the API key from this `file` (else VAST_API_KEY, else the\nvastai CLI's key file)")
	fs.StringVar(&g.flags.URL, "url", "", "the API base `URL` (default https://console.vast.ai, env VAST_URL)")
	registerAccount(fs, &g.flags.Account)
	fs.StringVar(&g.flags.ConfigFile, "config", "", "settings `file` (default $XDG_CONFIG_HOME/vastdash/config.toml)")
	g.timeout = api.DefaultTimeout
	durationFlag(fs, &g.timeout, "timeout", maxTimeout, "30s", "give up on a request after this long, up to 1h")
	durationFlag(fs, &g.deadline, "deadline", maxDeadline, "2m", "commands: give up on the whole run after this long, up to 24h,\npacing, retries and rate-limit waits included (default: none)")
	fs.StringVar(&g.debug, "debug", "", "log every request and response to this `file` (mode 0600) for a\nbug report; the key, every api_key (the account's, the endpoints') and\nwebhook secrets are redacted")
	fs.BoolVar(&g.noLedger, "no-ledger", false, "neither read nor write the ledger this run: every figure from the\nserver (the ledger setting turns it off for good)")
}

// rootCommand is the whole command line of one run, writing help and the
// like to out.
func (x *execution) rootCommand(out io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:     "vastdash",
		Short:   rootShort,
		Long:    rootLong,
		Example: rootExample,
		Args:    unknownCommand,
		RunE:    x.runE(func(*cobra.Command) error { return x.dashboard() }),
		// Suggest "credit" for "credti" (cobra's default is off when
		// the root has its own Args).
		SuggestionsMinimumDistance: 2,
	}
	x.globals.register(root.PersistentFlags())
	for _, build := range commands {
		root.AddCommand(build(x))
	}
	// Before the completion command, which keeps the writer it sees.
	root.SetOut(out)
	root.SetErr(x.env.stderr)
	root.SetIn(strings.NewReader(""))
	x.completionShells(root)
	helpCommand(root)
	x.keepUsageErrors(root)
	// "vastdash v1.2.0", as before cobra: scripts may read it.
	root.Version = x.env.version
	root.SetVersionTemplate("{{.Name}} {{.Version}}\n")
	// report prints every error, once, as one line; help is vastdash's.
	root.SilenceErrors, root.SilenceUsage = true, true
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { writeHelp(c, c.OutOrStdout()) })
	return root
}

// execute runs the command line on args and returns the exit code.
func (x *execution) execute(args []string) int {
	// Before anything reads a word: a key typed where another value goes
	// must never be repeated, looked up, opened or sent.
	if err := keyOnCommandLine(args); err != nil {
		return report(x.env.stderr, &usageErr{err: err})
	}
	out := newCobraOut(x.env.stdout)
	root := x.rootCommand(out)
	// cobra reads os.Args when given nil.
	root.SetArgs(append([]string{}, args...))
	_, err := root.ExecuteC()
	// Help, version, completion and man pages: complete, or an error.
	if ferr := out.Flush(); ferr != nil {
		return report(x.env.stderr, &writeErr{ferr})
	}
	switch {
	case x.usage != nil:
		return report(x.env.stderr, x.usage)
	case err != nil:
		// cobra's own commands (completion): a usage error too.
		return report(x.env.stderr, &usageErr{err: err})
	}
	return report(x.env.stderr, x.err)
}

// runE is the RunE of a command: f runs and its error is kept for execute
// to report, which prints it as one line. A usage error f returns without
// its command gets c.
func (x *execution) runE(f func(c *cobra.Command) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, _ []string) error {
		err := f(c)
		var ue *usageErr
		if errors.As(err, &ue) && ue.cmd == nil {
			ue.cmd = c
		}
		x.err = err
		return nil
	}
}

// commandRun is a RunE that opens the command's session (days in UTC
// with *utc, progress on stderr when it is a terminal) and runs f on it
// with the command's context: cancelled by ctrl+c or SIGTERM, and by the
// --deadline when one is set. The per-request --timeout bounds each
// request; only the deadline bounds the whole run, pacing, retries and
// 429 waits included. check, if not nil, runs first: a usage error it
// returns sends no request.
func (x *execution) commandRun(utc *bool, check func() error, f func(ctx context.Context, s *Session) error) func(*cobra.Command, []string) error {
	return x.sessionRun(utc, check, sessionOptions{}, f)
}

// commandRunWith is commandRun with the client's transport wrapped by
// transport, if not nil: serve counts the API's answers there.
func (x *execution) commandRunWith(utc *bool, transport func(http.RoundTripper) http.RoundTripper, check func() error, f func(ctx context.Context, s *Session) error) func(*cobra.Command, []string) error {
	return x.sessionRun(utc, check, sessionOptions{transport: transport}, f)
}

// sessionRun is commandRun with the session's options o (the ledger's own
// commands open its file themselves: o.noLedger).
func (x *execution) sessionRun(utc *bool, check func() error, o sessionOptions, f func(ctx context.Context, s *Session) error) func(*cobra.Command, []string) error {
	return x.runE(func(c *cobra.Command) error {
		if check != nil {
			if err := check(); err != nil {
				return usageError(err)
			}
		}
		ctx, stop := x.env.context()
		defer stop()
		if x.globals.deadline > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeoutCause(ctx, x.globals.deadline, errDeadline)
			defer cancel()
		}
		p := newProgress(x.env.stderr, x.env.isTerminal(x.env.stderr))
		p.width = x.env.width(x.env.stderr)
		o.base, o.utc, o.observe = ctx, utc != nil && *utc, p.observe
		s, err := openSession(x.env, x.globals, o)
		if err != nil {
			return err
		}
		defer s.Close()
		s.progress = p
		s.text = textOutput(c)
		err = f(ctx, s)
		p.done()
		var (
			ue *usageErr
			ex *explained
		)
		switch {
		case err == nil, errors.As(err, &ue):
		case errors.As(err, &ex):
			// Told already in the user's words (auth status): explained
			// again, its hint would be said twice.
		case context.Cause(ctx) == errDeadline:
			err = fmt.Errorf("%w: %w", errDeadline, err)
		case errors.As(err, &ex):
			// The command explained it already: explaining its words
			// again repeated the advice in them.
		default:
			err = &explained{err, s.explain(err)}
		}
		return err
	})
}

// keepUsageErrors makes the usage errors of the tree under c (a bad flag,
// a stray argument) end the run quietly, kept in x.usage for execute to
// report. Returning nil from the flag error hook ends cobra's run without
// running anything; after an argument error the command's RunE is skipped
// here.
func (x *execution) keepUsageErrors(c *cobra.Command) {
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		x.usage = &usageErr{cmd: c, err: flagError(c, err, x.args)}
		return nil
	})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if check := c.Args; check != nil {
			c.Args = func(c *cobra.Command, args []string) error {
				if err := check(c, args); err != nil {
					var ue *usageErr
					if !errors.As(err, &ue) {
						ue = &usageErr{cmd: c, err: err}
					}
					x.usage = ue
				}
				return nil
			}
		}
		if run := c.RunE; run != nil {
			c.RunE = func(c *cobra.Command, args []string) error {
				if x.usage != nil {
					return nil
				}
				return run(c, args)
			}
		}
		if run := c.Run; run != nil {
			c.Run = func(c *cobra.Command, args []string) {
				if x.usage == nil {
					run(c, args)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(c)
}
