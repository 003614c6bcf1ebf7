//go:build unix && !aix && (!solaris || illumos)

package alerting

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/vastdash/vastdash/config"
)

// stateLock is the lock file beside a state file (PATH.lock), held alone
// with flock(2) for as long as a run reads the state, sends and writes it
// back: serve and a cron `alerts check` on the same account take turns,
// so nothing is sent twice.
type stateLock struct{ f *os.File }

// lockState takes the lock of the state at path, waiting for another
// vastdash until ctx ends.
func lockState(ctx context.Context, path string) (*stateLock, error) {
	p := path + ".lock"
	if err := os.MkdirAll(dirOf(p), 0o700); err != nil {
		return nil, fmt.Errorf("alert state lock %s: %w", p, err)
	}
	f, err := config.OpenNoFollow(p, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("alert state lock %s: %w", p, err)
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = errors.New("not a regular file")
	}
	if err == nil {
		if why := config.NotOwnOnly(info); why != "" {
			err = errors.New(why)
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("alert state lock %s: %w", p, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &stateLock{f: f}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("alert state lock %s: %w", p, err)
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("%w: another vastdash is sending this account's alerts (%s)", ErrBusy, p)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// release lets the lock go.
func (l *stateLock) release() { _ = l.f.Close() }
