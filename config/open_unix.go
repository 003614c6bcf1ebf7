//go:build unix

package config

import (
	"io/fs"
	"os"
	"syscall"
)

// openFlags go on every open of a path the user gave. O_NONBLOCK makes
// opening a FIFO return at once instead of waiting, possibly forever, for a
// process at its other end (a write-only open with no reader fails with
// ENXIO instead); regular files ignore it. O_NOCTTY keeps a terminal named
// by mistake from becoming the controlling terminal.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// noFollow makes an open fail when the last component is a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// fileOwner is the owner (uid) and the number of hard links of the file
// info describes; ok is false where the system does not say.
func fileOwner(info fs.FileInfo) (uid int, links uint64, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), uint64(st.Nlink), true
}

// writable reports why the user cannot create files in dir, nil when
// they can.
func writable(dir string) error {
	return syscall.Access(dir, 0x2|0x1) // W_OK | X_OK
}

// setBlocking clears the O_NONBLOCK that openFlags set. For a pipe that is
// to be read it must be cleared: where Go cannot poll a FIFO (macOS) a read
// before the writer's data arrives would fail with EAGAIN instead of
// waiting. A read with no writer at all still returns end of file at once.
func setBlocking(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return serr
}
