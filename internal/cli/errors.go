package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/vastdash/vastdash/sanitize"
)

// Exit codes.
const (
	exitOK      = 0
	exitRuntime = 1
	exitUsage   = 2
)

// A command returns an error and report turns it into one line on stderr
// and the exit code, in one place: a usage error (exit 2, pointing at the
// command's help), a configuration error (exit 2), or a failure of the work
// itself (exit 1): the network, the API, an interrupt, the --deadline, or
// stdout that cannot take the answer.

// usageErr is a usage error of a command: a bad flag, argument or
// combination. cmd is filled in by the command's runner when the command
// leaves it nil.
type usageErr struct {
	cmd *cobra.Command
	err error
}

func (e *usageErr) Error() string { return e.err.Error() }
func (e *usageErr) Unwrap() error { return e.err }

// usageError is err as a usage error of the running command.
func usageError(err error) error { return &usageErr{err: err} }

// configErr is a configuration error: the key, the URL, the settings, the
// --debug file. Exit 2, like a usage error, but without the help pointer.
type configErr struct{ err error }

func (e *configErr) Error() string { return e.err.Error() }
func (e *configErr) Unwrap() error { return e.err }

func configError(err error) error { return &configErr{err} }

// writeErr is a failure to write the answer to stdout.
type writeErr struct{ err error }

func (e *writeErr) Error() string { return "cannot write the answer: " + unwrapPath(e.err).Error() }
func (e *writeErr) Unwrap() error { return e.err }

// explained is an error told in a user's words by the billing layer (a
// server that cannot be reached named with its host and what to check), as
// the dashboard tells it.
type explained struct {
	err  error
	text string
}

func (e *explained) Error() string { return e.text }
func (e *explained) Unwrap() error { return e.err }

// errDeadline is the cause of a command context whose --deadline passed.
var errDeadline = errors.New("the --deadline passed")

// report prints err as one line on w and returns its exit code; nil is 0.
func report(w io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var (
		ue *usageErr
		ce *configErr
		we *writeErr
	)
	switch {
	case errors.As(err, &ue):
		see := "vastdash --help"
		if name := commandName(ue.cmd); name != "" {
			see = "vastdash " + name + " --help"
		}
		fmt.Fprintf(w, "vastdash: %s (see %s)\n", oneLine(ue.Error()), see)
		return exitUsage
	case errors.As(err, &ce):
		fmt.Fprintf(w, "vastdash: %s\n", oneLine(ce.Error()))
		return exitUsage
	case errors.As(err, &we):
		// Not "interrupted": a closed pipe is what the user sees.
	case errors.Is(err, errDeadline):
		err = errors.New("gave up: the --deadline passed before the answer was complete")
	case errors.Is(err, context.Canceled):
		err = errors.New("interrupted")
	}
	fmt.Fprintf(w, "vastdash: %s\n", oneLine(err.Error()))
	return exitRuntime
}

// warn prints a warning as one line: "vastdash: …".
func warn(w io.Writer, msg string) {
	fmt.Fprintf(w, "vastdash: %s\n", oneLine(msg))
}

// oneLine makes a message safe for a terminal and a single line.
func oneLine(s string) string {
	return strings.TrimSpace(sanitize.String(s))
}

// unwrapPath is err without the path of an *fs.PathError: for stdout it is
// "/dev/stdout", which tells the user nothing.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// commandName is c's path without the program: "charges", "" for the root.
func commandName(c *cobra.Command) string {
	if c == nil || !c.HasParent() {
		return ""
	}
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}
