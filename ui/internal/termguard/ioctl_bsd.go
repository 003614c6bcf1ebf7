//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package termguard

import "golang.org/x/sys/unix"

const (
	ioctlGet = unix.TIOCGETA
	ioctlSet = unix.TIOCSETA
)
