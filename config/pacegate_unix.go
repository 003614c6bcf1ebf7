//go:build unix && !aix && (!solaris || illumos)

package config

import (
	"errors"
	"os"
	"syscall"
)

// lockPaceFile takes the pace file's flock alone, waiting for another
// process's read and write of it (microseconds).
func lockPaceFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// unlockPaceFile lets it go.
func unlockPaceFile(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
