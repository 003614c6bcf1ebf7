package config

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PaceGate shares one key's pace between the processes that use it (a
// dashboard, a cron command and serve on one key): a small file beside
// the ledger, locked with flock(2) for the moment it is read and written,
// holds for each endpoint the time its next request may go. A process
// claims a turn only when that time has come and moves it one gap on, so
// the key's requests leave one gap apart whichever process sends them:
// together the processes take no longer than one after another, and none
// is starved by 429s. It satisfies api.Gate.
//
// Where flock(2) is not available every call fails and each client paces
// itself alone, as before.
type PaceGate struct {
	path string
	mu   sync.Mutex // the flock is the file's; goroutines of this process queue here
	f    *os.File
}

// maxPaceAhead bounds a time read from the file: a turn further ahead than
// the longest wait the client makes (a clock set back, a damaged file) is
// not waited for.
const maxPaceAhead = 10 * time.Second

// maxPaceFile bounds what is read of the file: one line per endpoint.
const maxPaceFile = 16 << 10

// OpenPaceGate opens (creating it 0600, and its folder 0700) the pace file
// at path: never through a symbolic link, in a folder that is the user's
// alone, a regular file of the user's. The caller closes it.
func OpenPaceGate(path string) (*PaceGate, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if info, err := os.Lstat(dir); err != nil {
		return nil, err
	} else if why := FolderNotPrivate(info); why != "" {
		return nil, fmt.Errorf("%s %s", printable(dir), why)
	}
	f, err := OpenNoFollow(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, privateError(path, err)
	}
	info, err := f.Stat()
	why := ""
	switch {
	case err != nil:
		why = describeErr(err)
	case !info.Mode().IsRegular():
		why = errNotRegular.Error()
	default:
		why = NotOwnOnly(info)
	}
	if why != "" {
		_ = f.Close()
		return nil, &pathError{path: path, reason: why, err: err}
	}
	return &PaceGate{path: path, f: f}, nil
}

// Close closes the file.
func (g *PaceGate) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.f.Close()
}

// Reserve waits until earliest and until the key's next turn at class has
// come, claims it (the next turn is gap later) and returns the moment it
// was claimed, when the request may depart.
func (g *PaceGate) Reserve(ctx context.Context, class string, earliest time.Time, gap time.Duration) (time.Time, error) {
	if err := sleepUntil(ctx, earliest); err != nil {
		return time.Time{}, err
	}
	for {
		var next time.Time
		claimed := false
		err := g.update(func(turns map[string]time.Time, now time.Time) bool {
			if next = turns[class]; next.After(now) {
				return false
			}
			next, claimed = now, true
			turns[class] = now.Add(gap)
			return true
		})
		switch {
		case err != nil:
			return time.Time{}, err
		case claimed:
			return next, nil
		}
		if err := sleepUntil(ctx, next); err != nil {
			return time.Time{}, err
		}
	}
}

// Departed moves the next turn at class to gap after at, when the request
// left later than its turn (a dial, a handshake).
func (g *PaceGate) Departed(class string, at time.Time, gap time.Duration) {
	_ = g.update(func(turns map[string]time.Time, _ time.Time) bool {
		if at.Add(gap).After(turns[class]) {
			turns[class] = at.Add(gap)
			return true
		}
		return false
	})
}

// update reads the turns under the lock, lets change edit them (it says
// whether it did) and writes them back. Turns that have passed are
// dropped, and one too far ahead is read as passed.
func (g *PaceGate) update(change func(turns map[string]time.Time, now time.Time) bool) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := lockPaceFile(g.f); err != nil {
		return err
	}
	defer unlockPaceFile(g.f)
	now := time.Now()
	turns, err := g.read(now)
	if err != nil {
		return err
	}
	if !change(turns, now) {
		return nil
	}
	var b bytes.Buffer
	for class, t := range turns {
		if t.After(now) {
			fmt.Fprintf(&b, "%s %d\n", class, t.UnixNano())
		}
	}
	if _, err := g.f.WriteAt(b.Bytes(), 0); err != nil {
		return err
	}
	return g.f.Truncate(int64(b.Len()))
}

// read parses the file: "CLASS UNIXNANO" lines; anything else is skipped.
func (g *PaceGate) read(now time.Time) (map[string]time.Time, error) {
	turns := map[string]time.Time{}
	sc := bufio.NewScanner(io.NewSectionReader(g.f, 0, maxPaceFile))
	for sc.Scan() {
		class, ns, ok := strings.Cut(sc.Text(), " ")
		n, err := strconv.ParseInt(ns, 10, 64)
		if !ok || err != nil || class == "" {
			continue
		}
		if t := time.Unix(0, n); t.After(now) && t.Before(now.Add(maxPaceAhead)) {
			turns[class] = t
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, bufio.ErrTooLong) {
		return nil, err
	}
	return turns, nil
}

// sleepUntil waits until t or until ctx ends (its error).
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
