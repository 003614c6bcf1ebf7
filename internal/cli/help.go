package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
)

// The commands cobra gives every program, made to behave like vastdash's
// own: help, completion and the manual page.

// completionShells adds cobra's completion command now, rather than when it
// runs, to make a missing or unknown shell a usage error: by itself cobra
// prints the command's help and exits 0.
func (x *execution) completionShells(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sh := range c.Commands() {
			shells = append(shells, sh.Name())
		}
		c.Short = "print a completion script for " + orList(shells)
		c.Args = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &usageErr{cmd: c, err: fmt.Errorf("unknown shell %s (want %s)", argText(args[0]), orList(shells))}
			}
			return nil
		}
		c.RunE = func(c *cobra.Command, _ []string) error {
			x.usage = &usageErr{cmd: c, err: fmt.Errorf("name the shell: %s", orList(shells))}
			return nil
		}
	}
}

// mergeGlobalFlags merges the global flags into the flags of every command
// under c now, as cobra does for the one command it parses: the help lists
// a command the same way whichever command it is asked of
// (`vastdash --help`, `vastdash help`), "man [--flags]" included, which is
// true, as the global flags work after any command. Only the help and the
// manual need it: a command's run does not pay for it (a quarter of a
// millisecond of every `credit`).
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
			// Written to out: a failed write is seen at the flush in execute.
			_ = target.Help()
			return nil
		},
	})
	root.InitDefaultHelpCmd()
}

// newManCommand prints the manual page, built from the same command tree
// as the help.
func newManCommand(x *execution) *cobra.Command {
	return &cobra.Command{
		Use:   "man",
		Short: "print the manual page in roff: vastdash man > vastdash.1",
		Args:  noArgs,
		RunE: x.runE(func(cmd *cobra.Command) error {
			// A failed write is seen at the flush in execute.
			_, _ = io.WriteString(cmd.OutOrStdout(), manPage(cmd.Root(), x.env.version))
			return nil
		}),
	}
}

// cobraOut is what cobra writes to (help, version, completion scripts, the
// man page): buffered, so execute checks the answer once at the flush, as a
// command's. Its Fd is the terminal behind it, which styles the help; an
// invalid one in a pipe and with NO_COLOR, which get plain text.
type cobraOut struct {
	*bufio.Writer
	fd uintptr
}

func newCobraOut(w io.Writer) *cobraOut {
	out := &cobraOut{Writer: bufio.NewWriterSize(w, answerBuffer), fd: ^uintptr(0)}
	if f, ok := w.(*os.File); ok && os.Getenv("NO_COLOR") == "" && term.IsTerminal(f.Fd()) {
		out.fd = f.Fd()
	}
	return out
}

// Fd is the file descriptor of the terminal behind, or an invalid one.
func (w *cobraOut) Fd() uintptr { return w.fd }
