//go:build unix

package config

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a named pipe at path (and its parents), skipping the test
// where the file system cannot hold one.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
}

// hangDeadline is far beyond what opening and checking a file takes, so
// reaching it means the call is stuck, not slow.
const hangDeadline = 10 * time.Second

// returnsPromptly runs fn and fails the test if fn has not returned within
// hangDeadline, which is how a plain open of a FIFO nobody has open at the
// other end behaves: it waits forever. A broken build then fails instead of
// hanging the test binary. To let the stuck goroutine end, fifo (if not "")
// is opened read-write once, which never blocks and counts as both ends.
func returnsPromptly(t *testing.T, fifo string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
		return
	case <-time.After(hangDeadline):
	}
	t.Errorf("still blocked after %v (opening %s waits for the other end of a pipe?)", hangDeadline, fifo)
	if fifo != "" {
		if f, err := os.OpenFile(fifo, os.O_RDWR, 0); err == nil {
			_ = f.Close()
		}
	}
	select {
	case <-done:
	case <-time.After(hangDeadline):
		t.Fatal("and it could not be unblocked")
	}
}

// pipeFrom returns a path naming the read end of an anonymous pipe, the
// way the shell's <(cmd) hands a command's output over (/dev/fd/N). Like a
// command that takes a moment (pass asking gpg), the writer sends content a
// little later and then closes, so a reader must wait for it rather than
// take the empty pipe for end of file.
func pipeFrom(t *testing.T, content string) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(50 * time.Millisecond)
		_, _ = w.WriteString(content)
		_ = w.Close()
	}()
	t.Cleanup(func() {
		<-done
		_ = r.Close()
	})
	p := fmt.Sprintf("/dev/fd/%d", r.Fd())
	if _, err := os.Stat(p); err != nil {
		t.Skip("no /dev/fd:", err)
	}
	return p
}
