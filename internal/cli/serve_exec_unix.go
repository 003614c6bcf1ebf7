//go:build unix

package cli

import (
	"fmt"
	"os"
	"syscall"
)

// execServe replaces this process with vastdash-serve run on args, the
// same command line: the same process id, so a service manager's signals
// and the exit code are the server's own. It returns only when that cannot
// be done.
func execServe(args []string) error {
	bin, err := serveProgram()
	if err != nil {
		return err
	}
	err = syscall.Exec(bin, append([]string{bin}, args...), os.Environ())
	return fmt.Errorf("cannot run %s: %w", bin, err)
}
