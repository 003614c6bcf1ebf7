package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// buildBinary builds vastdash once per test run, for the tests that need a
// real process in a real terminal.
var buildBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "vastdash-bin-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "vastdash")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return bin, nil
})

// binDir is where buildBinary built, "" until it did.
var binDir string

// removeBinary deletes what buildBinary built, once every test has run.
func removeBinary() {
	if binDir != "" {
		os.RemoveAll(binDir)
	}
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// ptyRun is the dashboard running in a pseudo-terminal, with everything it
// wrote to the terminal.
type ptyRun struct {
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	done chan error
}

func startDashboard(t *testing.T, bin string) *ptyRun {
	t.Helper()
	cmd := exec.Command(bin, "--demo")
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "TERM=xterm-256color", "COLORFGBG=15;0")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	r := &ptyRun{cmd: cmd, tty: tty, done: make(chan error, 1)}
	go func() {
		buf := make([]byte, 32<<10)
		for {
			n, err := tty.Read(buf)
			r.mu.Lock()
			r.out.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() { r.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		tty.Close()
	})
	return r
}

func (r *ptyRun) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// waitOutput waits until the terminal received want.
func (r *ptyRun) waitOutput(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(r.output(), want) {
		if time.Now().After(deadline) {
			out := r.output()
			t.Fatalf("the terminal never showed %q; it got %d bytes, ending %q", want, len(out), out[max(len(out)-1500, 0):])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// restored reports that the last switch to the alternate screen and the
// last mouse mode set were both undone after them.
func restored(out string) bool {
	on := strings.LastIndex(out, "\x1b[?1049h")
	off := strings.LastIndex(out, "\x1b[?1049l")
	mouseOn := strings.LastIndex(out, "\x1b[?1002h")
	mouseOff := strings.LastIndex(out, "\x1b[?1002l")
	return on >= 0 && off > on && mouseOff > mouseOn
}

// A signal to the dashboard (kill, a closing terminal, ctrl+c sent by
// another process) ends it cleanly, with the terminal restored, every time
// — also after the Charges screen started its loads. Before one owner took
// the signals, SIGTERM hung it about half the time.
func TestSignalEndsTheDashboardCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	runs := 12
	for i := 0; i < runs; i++ {
		sig := []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}[i%3]
		r := startDashboard(t, bin)
		r.waitOutput(t, "DEMO") // the first frame
		if _, err := io.WriteString(r.tty, "2"); err != nil {
			t.Fatal(err)
		}
		r.waitOutput(t, "START") // the Charges screen's column heads
		if err := r.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-r.done:
			var ee *exec.ExitError
			if err != nil && !(asExit(err, &ee) && ee.ExitCode() == exitRuntime) {
				t.Fatalf("run %d (%v): exit %v, want 0 or 1", i, sig, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("run %d: the dashboard hung after %v", i, sig)
		}
		// Give the reader the last bytes the process wrote.
		deadline := time.Now().Add(2 * time.Second)
		for !restored(r.output()) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if !restored(r.output()) {
			t.Fatalf("run %d (%v): the terminal was left in the alternate screen or with mouse reporting on", i, sig)
		}
	}
}

func asExit(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*ee = e
	return ok
}
