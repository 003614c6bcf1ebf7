//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// execServe runs vastdash-serve on args, the same command line, with this
// process's streams, and exits with its exit code: there is no exec here
// to replace this process with it.
func execServe(args []string) error {
	bin, err := serveProgram()
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		os.Exit(0)
	case errors.As(err, &ee):
		os.Exit(ee.ExitCode())
	}
	return err
}
