//go:build unix && !aix && (!solaris || illumos)

package ledger

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/vastdash/vastdash/config"
)

// fileLock is the lock file beside a ledger (PATH.lock), locked with
// flock(2): every process with the ledger open holds it shared, and what
// deletes the file or moves it aside takes it alone, without waiting, so
// that it never pulls a file from under a dashboard or a sync.
type fileLock struct {
	f    *os.File
	path string
}

// lockWait bounds how long an open waits for a forget or a move aside to
// let go of the lock: they hold it for milliseconds.
const lockWait = 3 * time.Second

// openLock opens (or creates, 0600) the lock file of the ledger at path,
// never through a symbolic link, and checks it is a regular file of the
// user's.
func openLock(path string) (*fileLock, error) {
	p := path + ".lock"
	f, err := config.OpenNoFollow(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		if why := linkOrOdd(p); why != "" {
			return nil, fmt.Errorf("%w: %s %s", ErrRefused, p, why)
		}
		return nil, fmt.Errorf("%w: %s: %s", ErrUnavailable, p, reason(err))
	}
	info, err := f.Stat()
	switch {
	case err != nil:
		err = fmt.Errorf("%w: %s: %s", ErrUnavailable, p, reason(err))
	case !info.Mode().IsRegular():
		err = fmt.Errorf("%w: %s is not a regular file", ErrRefused, p)
	default:
		if why := config.NotOwnOnly(info); why != "" {
			err = fmt.Errorf("%w: %s: %s", ErrRefused, p, why)
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return &fileLock{f: f, path: p}, nil
}

// flock takes how (LOCK_SH or LOCK_EX) without waiting; busy reports that
// another holds it.
func (l *fileLock) flock(how int) (busy bool, err error) {
	for {
		err = syscall.Flock(int(l.f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// current reports that the lock file is still the one at its path: a
// forget may have deleted it between its open and its lock.
func (l *fileLock) current() bool {
	held, err := l.f.Stat()
	if err != nil {
		return false
	}
	now, err := os.Lstat(l.path)
	return err == nil && os.SameFile(held, now)
}

// lockShared holds the lock of the ledger at path shared, for as long as
// it is open; it waits up to lockWait for one taken alone.
func lockShared(path string) (*fileLock, error) {
	deadline := time.Now().Add(lockWait)
	for {
		l, err := openLock(path)
		if err != nil {
			return nil, err
		}
		busy, err := l.flock(syscall.LOCK_SH)
		switch {
		case err != nil:
			l.release()
			return nil, fmt.Errorf("%w: %s: %s", ErrUnavailable, l.path, reason(err))
		case !busy && l.current():
			return l, nil
		}
		l.release()
		if busy && time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: %s is being deleted or moved aside by another vastdash", ErrUnavailable, path)
		}
		if busy {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// lockAlone takes the lock of the ledger at path alone, without waiting:
// ErrInUse when another process (or another open in this one) holds it.
func lockAlone(path string) (*fileLock, error) {
	for {
		l, err := openLock(path)
		if err != nil {
			return nil, err
		}
		if err := l.alone(); err != nil {
			l.release()
			return nil, err
		}
		if l.current() {
			return l, nil
		}
		l.release()
	}
}

// alone turns a lock held shared into one held alone, without waiting.
func (l *fileLock) alone() error {
	busy, err := l.flock(syscall.LOCK_EX)
	switch {
	case busy:
		return fmt.Errorf("%s is %w (a dashboard, a sync): it is left as it is", l.path[:len(l.path)-len(".lock")], ErrInUse)
	case err != nil:
		return fmt.Errorf("%w: %s: %s", ErrUnavailable, l.path, reason(err))
	}
	return nil
}

// share turns a lock held alone back into a shared one (no one else holds
// it: this cannot wait).
func (l *fileLock) share() { _, _ = l.flock(syscall.LOCK_SH) }

// remove deletes the lock file, held alone, before release (forget).
func (l *fileLock) remove() error {
	if err := os.Remove(l.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// release lets the lock go.
func (l *fileLock) release() {
	if l != nil && l.f != nil {
		_ = l.f.Close()
	}
}
