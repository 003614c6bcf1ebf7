//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package termguard

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/sys/unix"
)

// Guard is a started guard.
type Guard struct {
	started chan struct{} // closed once the guard runs, or failed to
	w       *os.File      // nil when it failed
	cmd     *exec.Cmd
}

// Start saves the state of tty, the terminal about to be put in raw mode,
// and starts its guard in the background: the process starting (about 3 ms
// of CPU) does not hold up the dashboard's first frame. A guard that
// cannot start is an error the caller may ignore: the dashboard works as
// before without it, and Release does nothing.
func Start(tty *os.File) (*Guard, error) {
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), ioctlGet)
	if err != nil {
		return nil, err
	}
	var state bytes.Buffer
	if err := binary.Write(&state, binary.NativeEndian, tio); err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(guardEnv(os.Environ()), envVar+"="+hex.EncodeToString(state.Bytes()))
	cmd.Stdin, cmd.Stdout = r, os.Stdout
	cmd.ExtraFiles = []*os.File{tty} // fd 3
	// A session of its own: the terminal's signals (a hangup when a
	// dashboard that leads its session ends, ctrl+c, job control) are not
	// the guard's, even before it has started to ignore them.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	g := &Guard{started: make(chan struct{})}
	go func() {
		defer close(g.started)
		defer r.Close() // the guard has its own copy
		if err := cmd.Start(); err != nil {
			w.Close()
			return
		}
		if err := debug.SetCrashOutput(w, debug.CrashOptions{}); err != nil {
			w.Close() // the guard ends on this and restores: harmless
			_ = cmd.Wait()
			return
		}
		g.w, g.cmd = w, cmd
	}()
	return g, nil
}

// Release tells the guard the terminal was restored and waits for it to
// end. A nil Guard is a no-op.
func (g *Guard) Release() {
	if g == nil {
		return
	}
	<-g.started
	if g.w == nil {
		return
	}
	_ = debug.SetCrashOutput(nil, debug.CrashOptions{})
	_, _ = io.WriteString(g.w, releasedMark)
	g.w.Close()
	_ = g.cmd.Wait()
}

// restoreModes leaves what Bubble Tea may have turned on: a synchronized
// update half written, colours, mouse and focus reports, bracketed paste,
// the keyboard enhancements, a hidden cursor and the alternate screen.
var restoreModes = ansi.ResetModeSynchronizedOutput + ansi.ResetStyle +
	ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent + ansi.ResetModeMouseExtSgr +
	ansi.ResetModeFocusEvent + ansi.ResetModeBracketedPaste +
	ansi.PopKittyKeyboard(1) + ansi.ResetModifyOtherKeys +
	ansi.SetModeTextCursorEnable + ansi.ResetModeAltScreenSaveCursor

// guard is the guard process: it waits for the dashboard's end on
// standard input and restores the terminal (fd 3) to state unless the end
// was a release. It restores at the first byte of a crash report, while
// the crashing process still holds the terminal's foreground: once it has
// exited, the shell takes the terminal back and may keep the raw state.
// It returns the exit code.
func guard(state string) int {
	// Signals sent to every process (a shutdown, a kill of the whole
	// tree by a terminal multiplexer) are the dashboard's to handle: the
	// guard waits for its end. SIGTTOU would stop it restoring a terminal
	// whose foreground is no longer the dashboard's.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGHUP, syscall.SIGTSTP, syscall.SIGTTOU)
	raw, err := hex.DecodeString(state)
	var tio unix.Termios
	if err == nil {
		err = binary.Read(bytes.NewReader(raw), binary.NativeEndian, &tio)
	}
	if err != nil {
		return 2
	}
	var got []byte
	buf := make([]byte, 4096)
	for {
		n, err := os.Stdin.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			if string(got) == releasedMark {
				return 0
			}
			break // killed: nothing, or a mark cut short
		}
		if !strings.HasPrefix(releasedMark, string(got)) {
			break // a crash report
		}
	}
	tty := os.NewFile(3, "tty")
	setErr := unix.IoctlSetTermios(int(tty.Fd()), ioctlSet, &tio)
	_, _ = io.WriteString(os.Stdout, restoreModes)
	_, _ = io.Copy(io.Discard, os.Stdin) // the rest of the report, to the process's end
	// On the terminal, not standard error: the dashboard may have sent
	// that elsewhere while it ran.
	_, _ = io.WriteString(os.Stdout, "\r\n"+crashedLine)
	if setErr != nil && !errors.Is(setErr, unix.EIO) {
		return 1
	}
	return 0
}

// guardEnv is what the guard keeps of the dashboard's environment: the
// locale and the Go runtime's own settings, nothing else. The guard needs
// no key, token or password, and a process holding one is one more place
// it could be read from (/proc/PID/environ, a crash dump).
func guardEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "TERM", name == "LANG", strings.HasPrefix(name, "LC_"),
			name == "GODEBUG", name == "GOTRACEBACK", name == "GOMAXPROCS":
			out = append(out, kv)
		}
	}
	return out
}
