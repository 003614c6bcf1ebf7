//go:build !unix || aix || (solaris && !illumos)

package config

import (
	"errors"
	"os"
)

// errNoPaceLock: no flock(2) here; each client paces itself alone.
var errNoPaceLock = errors.New("no file lock on this system: the pace is not shared")

func lockPaceFile(*os.File) error { return errNoPaceLock }
func unlockPaceFile(*os.File)     {}
