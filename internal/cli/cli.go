package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"charm.land/fang/v2"
	mcobra "github.com/muesli/mango-cobra"
	"github.com/muesli/roff"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/vastdash/vastdash/internal/suggest"
)

// The command line is a tree of cobra commands run by fang: help generated
// from the flag definitions (styled on a terminal, plain text otherwise),
// `completion bash|zsh|fish`, `man`, `--version`. The global flags are
// persistent flags of the root, defined once in options.register, so they
// work before or after a command.
//
// Errors stay vastdash's own: every usage error, whether cobra's, pflag's or
// a flag value's, is one plain line "vastdash: … (see vastdash CMD --help)"
// and exit 2, before the key is looked up or any request made (see
// keepUsageErrors). A command's RunE prints its own failures and leaves the
// exit code in runner.code: fang's error path sees no error of vastdash.

// commands builds the headless commands, in the order the help lists them.
// A new command is a file cmd_NAME.go with a builder like creditCommand
// and one line here.
var commands = []func(r *runner, o *options) *cobra.Command{
	(*runner).creditCommand,
	(*runner).chargesCommand,
	(*runner).notificationsCommand,
	(*runner).paymentsCommand,
	(*runner).statementCommand,
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

// rootCommand is the whole command line of one run, writing help and the
// like to out; o receives the global flags.
func (r *runner) rootCommand(o *options, out io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:     "vastdash",
		Short:   rootShort,
		Long:    rootLong,
		Example: rootExample,
		Args:    unknownCommand,
		RunE:    r.runs(func() int { return r.dashboard(*o) }),
		// Suggest "credit" for "credti" (cobra's default is off when
		// the root has its own Args).
		SuggestionsMinimumDistance: 2,
	}
	o.register(root.PersistentFlags())
	for _, build := range commands {
		root.AddCommand(build(r, o))
	}
	root.AddCommand(r.manCommand())
	// Before the completion command, which keeps the writer it sees.
	root.SetOut(out)
	root.SetErr(r.stderr)
	root.SetIn(strings.NewReader(""))
	r.completionShells(root)
	helpCommand(root)
	r.keepUsageErrors(root)
	mergeGlobalFlags(root)
	// "vastdash v1.2.0", as before cobra: scripts may read it.
	root.SetVersionTemplate("{{.Name}} {{.Version}}\n")
	return root
}

// keepUsageErrors makes the usage errors of the tree under c (a bad flag,
// a stray argument) end the run quietly, kept in r.usage for run to print:
// an error returned to fang would make it ask the terminal for its
// background colour (raw mode, a query, up to 2 s without an answer) just
// to style a line that vastdash prints plain. Returning nil from the flag
// error hook ends cobra's run without running anything; after an argument
// error the command's RunE is skipped here.
func (r *runner) keepUsageErrors(c *cobra.Command) {
	c.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		r.usage = &usageErr{cmd: c, err: flagError(c, err)}
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
					r.usage = ue
				}
				return nil
			}
		}
		if run := c.RunE; run != nil {
			c.RunE = func(c *cobra.Command, args []string) error {
				if r.usage != nil {
					return nil
				}
				return run(c, args)
			}
		}
		if run := c.Run; run != nil {
			c.Run = func(c *cobra.Command, args []string) {
				if r.usage == nil {
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

// runs is a RunE that runs f and keeps its exit code. f has printed its
// own errors; returning nil keeps them away from fang's error path.
func (r *runner) runs(f func() int) func(*cobra.Command, []string) error {
	return func(*cobra.Command, []string) error {
		r.code = f()
		return nil
	}
}

// run runs the command line on args and returns the exit code.
func (r *runner) run(args []string) int {
	var o options
	out := newCobraOut(r.stdout)
	root := r.rootCommand(&o, out)
	// cobra reads os.Args when given nil.
	root.SetArgs(append([]string{}, args...))
	err := fang.Execute(context.Background(), root,
		fang.WithVersion(versionString()),
		// vastdash's man command writes through out, checked.
		fang.WithoutManpage(),
		// One plain line, printed below: fang's handler prints a
		// styled block of several lines on a terminal.
		fang.WithErrorHandler(func(io.Writer, fang.Styles, error) {}),
	)
	// Help, version, completion and man pages: complete, or an error.
	if ferr := out.Flush(); ferr != nil {
		return r.writeError(ferr)
	}
	if r.usage != nil {
		return r.usageError(commandName(r.usage.cmd), r.usage.err)
	}
	if err != nil {
		// cobra's own commands (completion): a usage error too.
		return r.usageError("", err)
	}
	return r.code
}

// commandName is c's path without the program: "charges", "" for the root.
func commandName(c *cobra.Command) string {
	if c == nil || !c.HasParent() {
		return ""
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// usageErr is a usage error found while parsing the command line of cmd.
type usageErr struct {
	cmd *cobra.Command
	err error
}

func (e *usageErr) Error() string { return e.err.Error() }
func (e *usageErr) Unwrap() error { return e.err }

// unknownCommand is the root's argument check: the root takes none, so a
// word there is a command vastdash does not have.
func unknownCommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return notACommand(c, c, args[0])
}

// notACommand is the usage error of c for word, which names no command
// under parent: it suggests the nearest ones.
func notACommand(c, parent *cobra.Command, word string) error {
	msg := "unknown command " + argText(word)
	if s := parent.SuggestionsFor(word); len(s) > 0 && !looksLikeKey(word) {
		msg += " (did you mean " + orList(s) + "?)"
	}
	return &usageErr{cmd: c, err: errors.New(msg)}
}

// noArgs is the argument check of a command that takes only flags.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return &usageErr{cmd: c, err: fmt.Errorf("unexpected argument %s", argText(args[0]))}
	}
	return nil
}

// flagError rewrites pflag's errors in vastdash's words: "--flag" style,
// a suggestion for a mistyped name, a value's own message, and never the
// whole word typed, which may be a key pasted in the wrong place.
func flagError(c *cobra.Command, err error) error {
	var (
		own      *flagValueError
		unknown  *pflag.NotExistError
		invalid  *pflag.InvalidValueError
		required *pflag.ValueRequiredError
	)
	switch {
	case errors.As(err, &own):
		return own
	case errors.As(err, &unknown):
		if unknown.GetSpecifiedShortnames() != "" {
			return fmt.Errorf("unknown flag -%s", string([]rune(unknown.GetSpecifiedName())[:1]))
		}
		name := unknown.GetSpecifiedName()
		if looksLikeKey(name) {
			return errors.New("unknown flag (a name that looks like an API key, not shown)")
		}
		if owners := commandsWithFlag(c, name); len(owners) == 1 {
			return fmt.Errorf("--%s goes after the command: vastdash %s --%s", name, owners[0], name)
		} else if len(owners) > 1 {
			return fmt.Errorf("--%s goes after the command (%s): vastdash %s --%s", name, orList(owners), owners[0], name)
		}
		msg := "unknown flag --" + name
		if s := suggestFlags(c.Flags(), name); len(s) > 0 {
			msg += " (did you mean " + orList(s) + "?)"
		}
		return errors.New(msg)
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		want := f.Value.Type()
		if want == "bool" {
			want = "true or false"
		}
		return fmt.Errorf("--%s %s: want %s", f.Name, argText(invalid.GetValue()), want)
	case errors.As(err, &required):
		return fmt.Errorf("--%s needs a value", required.GetFlag().Name)
	}
	return err
}

// commandsWithFlag names the commands below c that have their own flag
// name: a command's flag given before the command ("vastdash --json
// credit") lands on the root, which does not know it.
func commandsWithFlag(c *cobra.Command, name string) []string {
	var owners []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && sub.LocalNonPersistentFlags().Lookup(name) != nil {
			owners = append(owners, sub.Name())
		}
	}
	return owners
}

// suggestFlags are the flags of fs closest to a mistyped name: one edit
// away (two for names longer than 4 letters, where two edits still leave
// most of the word), or starting with what was typed ("--api-key" suggests
// --api-key-file). The nearest win; at most three.
func suggestFlags(fs *pflag.FlagSet, typed string) []string {
	most := 2
	if len(typed) > 4 {
		most = 3
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	out := suggest.Closest(typed, names, most, true)
	for i := range out {
		out[i] = "--" + out[i]
	}
	slices.Sort(out)
	return out[:min(len(out), 3)]
}

// completionShells adds cobra's completion command now, rather than when it
// runs, to make a missing or unknown shell a usage error: by itself cobra
// prints the command's help and exits 0.
func (r *runner) completionShells(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sh := range c.Commands() {
			shells = append(shells, sh.Name())
		}
		c.Args = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &usageErr{cmd: c, err: fmt.Errorf("unknown shell %s (want %s)", argText(args[0]), orList(shells))}
			}
			return nil
		}
		c.RunE = func(c *cobra.Command, _ []string) error {
			r.usage = &usageErr{cmd: c, err: fmt.Errorf("name the shell: %s", orList(shells))}
			return nil
		}
	}
}

// mergeGlobalFlags merges the global flags into the flags of every command
// under c now, as cobra does for the one command it parses: the help lists
// a command the same way whichever command it is asked of
// (`vastdash --help`, `vastdash help`), "man [--flags]" included, which is
// true, as the global flags work after any command.
func mergeGlobalFlags(c *cobra.Command) {
	c.InheritedFlags()
	for _, sub := range c.Commands() {
		mergeGlobalFlags(sub)
	}
}

// helpCommand replaces cobra's help command, which answers a topic it does
// not know with the root's help and exit 0: `vastdash help chrages` is a
// usage error that suggests charges, like `vastdash chrages`.
func helpCommand(root *cobra.Command) {
	find := func(c *cobra.Command, args []string) (*cobra.Command, []string) {
		target, rest, err := c.Root().Find(args)
		if err != nil || target == nil {
			return c.Root(), args
		}
		return target, rest
	}
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "help about any command",
		Args: func(c *cobra.Command, args []string) error {
			target, rest := find(c, args)
			if len(rest) == 0 {
				return nil
			}
			return notACommand(c, target, rest[0])
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			target, _ := find(c, args)
			var names []cobra.Completion
			for _, sub := range target.Commands() {
				if sub.IsAvailableCommand() {
					names = append(names, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			target, _ := find(c, args)
			// What parsing `target --help` would have set up: its help and
			// version flags (mergeGlobalFlags did the rest).
			target.InitDefaultHelpFlag()
			target.InitDefaultVersionFlag()
			// Written to out: a failed write is seen at the flush in run.
			_ = target.Help()
			return nil
		},
	})
	root.InitDefaultHelpCmd()
}

// manCommand prints the manual page, built from the same command tree as
// the help.
func (r *runner) manCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "man",
		Short: "print the manual page in roff: vastdash man > vastdash.1",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			page, err := mcobra.NewManPage(1, cmd.Root())
			if err != nil {
				r.code = r.runtimeError(err)
				return nil
			}
			// A failed write is seen at the flush in run.
			_, _ = io.WriteString(cmd.OutOrStdout(), page.Build(roff.NewDocument()))
			return nil
		},
	}
}

// cobraOut is what cobra and fang write to (help, version, completion
// scripts, the man page): buffered, so run checks the answer once at
// the flush, as a command's. Through Fd fang sees a terminal behind it and
// styles the help; not with NO_COLOR, which gets plain text.
type cobraOut struct {
	*bufio.Writer
	fd uintptr
}

func newCobraOut(w io.Writer) *cobraOut {
	out := &cobraOut{Writer: bufio.NewWriterSize(w, answerBuffer), fd: ^uintptr(0)}
	if f, ok := w.(*os.File); ok && os.Getenv("NO_COLOR") == "" {
		out.fd = f.Fd()
	}
	return out
}

// Fd is the file descriptor of the terminal behind, or an invalid one.
func (w *cobraOut) Fd() uintptr { return w.fd }

// Read and Close make a cobraOut a term.File for fang; nothing reads it.
func (w *cobraOut) Read([]byte) (int, error) { return 0, io.EOF }

// Close does nothing: stdout stays open.
func (w *cobraOut) Close() error { return nil }
