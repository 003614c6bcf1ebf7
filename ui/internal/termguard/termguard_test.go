//go:build linux

package termguard

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// helperEnv makes the test binary TestHelperDashboard's process: a
// dashboard stand-in that puts its terminal in raw mode and the alternate
// screen under a guard, then ends as the variable says.
const helperEnv = "TERMGUARD_TEST_HELPER"

func TestHelperDashboard(t *testing.T) {
	how := os.Getenv(helperEnv)
	if how == "" {
		t.Skip("the process TestGuardRestoresTheTerminal runs")
	}
	g, err := Start(os.Stdin)
	if err != nil {
		os.Stdout.WriteString("start: " + err.Error() + "\n")
		os.Exit(3)
	}
	<-g.started // a crash before the guard runs is not guarded
	if env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", g.cmd.Process.Pid)); err != nil || bytes.Contains(env, []byte(keyCanary)) {
		os.Stdout.WriteString("the guard's environment holds the key\n")
	}
	saved, err := term.MakeRaw(os.Stdin.Fd())
	if err != nil {
		os.Exit(3)
	}
	os.Stdout.WriteString(ansi.SetModeAltScreenSaveCursor + ansi.SetModeMouseButtonEvent + "ready\r\n")
	switch how {
	case "panic": // in a goroutine nobody recovers
		go func() { panic("boom") }()
		select {}
	case "fatal": // a fatal runtime error, like running out of memory
		debug.SetMaxStack(1 << 20)
		var deeper func(int) int
		deeper = func(n int) int { return deeper(n+1) + 1 }
		deeper(0)
	case "kill":
		select {} // the test sends SIGKILL
	case "release": // what Run does: the terminal restored, then Release
		_ = term.Restore(os.Stdin.Fd(), saved)
		os.Stdout.WriteString(ansi.ResetModeMouseButtonEvent + ansi.ResetModeAltScreenSaveCursor)
		g.Release()
		os.Exit(0)
	}
}

// keyCanary is the key in the dashboard's environment: the guard, which
// needs none of it, must not be given it.
const keyCanary = "CANARY-guard-key-51f0"

// cooked reports that the terminal echoes and reads lines: what raw mode
// turns off and a shell needs back.
func cooked(t *testing.T, tty *os.File) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&unix.ECHO != 0 && tio.Lflag&unix.ICANON != 0
}

// Whatever ends the process — a panic in a goroutine, a fatal runtime
// error, SIGKILL — the guard gives the terminal back cooked, out of the
// alternate screen and mouse reporting, and says so in one line. A
// release (the terminal restored by the dashboard) leaves it alone.
func TestGuardRestoresTheTerminal(t *testing.T) {
	for _, how := range []string{"panic", "fatal", "kill", "release"} {
		t.Run(how, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperDashboard$")
			cmd.Env = append(os.Environ(), helperEnv+"="+how, "VAST_API_KEY="+keyCanary, "VASTAI_TOKEN="+keyCanary)
			tty, err := pty.Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			defer tty.Close()
			var mu sync.Mutex
			var out bytes.Buffer
			go func() {
				buf := make([]byte, 4096)
				for {
					n, err := tty.Read(buf)
					mu.Lock()
					out.Write(buf[:n])
					mu.Unlock()
					if err != nil {
						return
					}
				}
			}()
			output := func() string { mu.Lock(); defer mu.Unlock(); return out.String() }
			waitFor := func(want string) {
				t.Helper()
				deadline := time.Now().Add(10 * time.Second)
				for !strings.Contains(output(), want) {
					if time.Now().After(deadline) {
						t.Fatalf("never got %q; got %q", want, output())
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			waitFor("ready")
			if strings.Contains(output(), "holds the key") {
				t.Fatalf("the guard was given the key: %q", output())
			}
			if how == "kill" {
				_ = cmd.Process.Kill()
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the helper did not end")
			}
			if how == "release" {
				if strings.Contains(output(), crashedLine) || !cooked(t, tty) {
					t.Fatalf("after a release: cooked %v, output %q", cooked(t, tty), output())
				}
				return
			}
			waitFor(strings.TrimSuffix(crashedLine, "\n"))
			after := output()[strings.Index(output(), "ready"):]
			if !cooked(t, tty) || !strings.Contains(after, ansi.ResetModeAltScreenSaveCursor) || !strings.Contains(after, ansi.ResetModeMouseButtonEvent) {
				t.Fatalf("not restored: cooked %v, output after ready %q", cooked(t, tty), after)
			}
		})
	}
}
