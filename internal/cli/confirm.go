package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Every command that asks before it acts (auth login replacing a key file,
// auth logout, ledger forget, audit accept and reject, webhooks delete and
// rotate) asks the one way: -y/--yes does not ask; without it the question
// goes to stderr and the answer is read from stdin when stdin is a
// terminal; with no terminal to ask on, the run is a usage error before
// anything is sent (exit 2); any answer but y or yes does nothing and
// exits 1.

// yesFlag adds -y/--yes to cmd, stored in p; verb is what it then does
// without asking ("delete").
func yesFlag(cmd *cobra.Command, p *bool, verb string) {
	cmd.Flags().BoolVarP(p, "yes", "y", false, verb+" without asking (needed when stdin is not a terminal)")
}

// action is what a command asks about, for its question and refusals.
type action struct {
	// command is the command's path after "vastdash" ("webhooks delete").
	command string
	// does is what it would do ("deletes webhook 3"), done what is not
	// done when it does not ("deleted").
	does, done string
}

// canAsk is the check before anything is sent: without yes there must be
// a terminal on stdin to ask on.
func (e *env) canAsk(yes bool, a action) error {
	if yes || e.stdinTerminal() {
		return nil
	}
	return fmt.Errorf("%s asks before it %s, and stdin is not a terminal to ask on: add --yes (nothing was %s)", a.command, a.does, a.done)
}

// confirm asks question on the terminal unless yes; an answer other than
// y or yes is an error that says nothing was done. canAsk has passed.
func (e *env) confirm(yes bool, question string, a action) error {
	if yes {
		return nil
	}
	if err := e.canAsk(false, a); err != nil {
		return usageError(err)
	}
	fmt.Fprint(e.stderr, question+" [y/N] ")
	line, err := bufio.NewReader(io.LimitReader(e.stdin, 256)).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(e.stderr)
	} else {
		lineTyped(e.stderr) // the answer's return ended the line
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return fmt.Errorf("nothing was %s: the answer was not yes", a.done)
}
