// The tests of the built binary as a whole process: signals, a terminal on
// every stream, a full disk. Everything else is tested in the packages
// (internal/cli for the commands, ui for the dashboard).
package main

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"go.uber.org/goleak"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/internal/testhome"
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
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = testhome.Original() // the user's build cache: vastdash itself never sees it
	out, err := build.CombinedOutput()
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
	return startDashboardSize(t, bin, 80, 24)
}

// startDashboardSize is startDashboard in a cols×rows terminal.
func startDashboardSize(t testing.TB, bin string, cols, rows uint16) *ptyRun {
	t.Helper()
	cmd := exec.Command(bin, "--demo")
	home := t.TempDir()
	cmd.Env = testhome.Env(home, "TERM=xterm-256color", "COLORFGBG=15;0")
	return startPTY(t, cmd, cols, rows)
}

// startPTY starts cmd in a cols×rows pseudo-terminal, recording what it
// writes; the cleanup kills it.
func startPTY(t testing.TB, cmd *exec.Cmd, cols, rows uint16) *ptyRun {
	t.Helper()
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
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
func (r *ptyRun) waitOutput(t testing.TB, want string) {
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
			if err != nil && !(asExit(err, &ee) && ee.ExitCode() == 1) {
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

// ttyRun runs the built vastdash with args in a pseudo-terminal (stdin,
// stdout and stderr) and returns what it wrote and its exit code. It
// answers a terminal's background and device-attribute queries, as a
// terminal does, so help styled for a terminal does not wait for them.
func ttyRun(t *testing.T, env []string, args ...string) (string, int) {
	t.Helper()
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(bin, args...)
	// The caller's NO_COLOR would decide the styled case for it.
	var base []string
	for _, kv := range testhome.Env(home, "XDG_CONFIG_HOME="+home, "VAST_API_KEY=", "TERM=xterm-256color") {
		if !strings.HasPrefix(kv, "NO_COLOR=") {
			base = append(base, kv)
		}
	}
	cmd.Env = append(base, env...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var (
		mu  sync.Mutex
		out bytes.Buffer
	)
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 32<<10)
		answered := false
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			query := strings.Contains(out.String(), "\x1b]11;?")
			mu.Unlock()
			if query && !answered {
				answered = true
				_, _ = tty.Write([]byte("\x1b]11;rgb:0000/0000/0000\x07\x1b[?62;22c"))
			}
			if err != nil {
				return
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("%v did not end", args)
	}
	// The output is all in once the reader sees the terminal close.
	tty.Close()
	<-read
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	return out.String(), code
}

// queries are the terminal queries a program sends to learn the
// terminal's background colour: help must style without them.
var queries = regexp.MustCompile(`\x1b\]11;\?(\x07|\x1b\\)|\x1b\[c`)

// sgr matches a colour or text attribute sequence.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// In a terminal a usage error is still one plain line, sent at once: no
// query to the terminal (fang's error path asks for the background colour
// first), no styled block.
func TestUsageErrorInATerminalIsOnePlainLine(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	out, code := ttyRun(t, nil, "charges", "--jsn")
	if want := "vastdash: unknown flag --jsn (did you mean --json?) (see vastdash charges --help)\r\n"; code != 2 || out != want {
		t.Fatalf("exit %d, terminal got %q; want 2 and %q", code, out, want)
	}
}

// Help is styled in a terminal, at once (no question to the terminal
// first), and plain with NO_COLOR: the same text, no colour or attribute.
func TestHelpInATerminalHonoursNoColor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	styled, code := ttyRun(t, nil, "charges", "--help")
	if code != 0 || !sgr.MatchString(styled) || !strings.Contains(sgr.ReplaceAllString(styled, ""), "--group-by") {
		t.Fatalf("exit %d: help in a terminal is not styled: %q", code, styled)
	}
	if queries.MatchString(styled) {
		t.Errorf("help asked the terminal for its colours before it printed: %q", styled)
	}
	plain, code := ttyRun(t, []string{"NO_COLOR=1"}, "charges", "--help")
	text := queries.ReplaceAllString(plain, "")
	if code != 0 || strings.Contains(text, "\x1b") || !strings.Contains(text, "--group-by") {
		t.Fatalf("exit %d: help with NO_COLOR holds escape sequences: %q", code, text)
	}
}

// The bash script really completes, in bash, through the built binary
// (bash-completion's word splitter stood in for by a minimal one).
func TestBashCompletionCompletes(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if testing.Short() || err != nil {
		t.Skip("needs bash and the built binary")
	}
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(bin, dir+"/vastdash"); err != nil {
		t.Fatal(err)
	}
	script := `_get_comp_words_by_ref() { cur="${COMP_WORDS[COMP_CWORD]}"; prev="${COMP_WORDS[COMP_CWORD-1]}"; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
compopt() { :; }
source <(vastdash completion bash)
complete_line() {
	read -ra W <<< "$1"; [[ "$1" == *" " ]] && W+=("")
	COMP_WORDS=("${W[@]}"); COMP_CWORD=$((${#W[@]}-1)); COMP_LINE="$1"; COMP_POINT=${#1}; COMPREPLY=()
	__start_vastdash; echo "${COMPREPLY[*]}"
}
complete_line "vastdash cr"
complete_line "vastdash charges --output "
complete_line "vastdash --demo charges --gro"
complete_line "vastdash notifications --webhooks "
`
	cmd := exec.Command(bash, "-c", script)
	cmd.Env = testhome.Env(dir, "PATH="+dir+":"+os.Getenv("PATH"), "XDG_CONFIG_HOME="+dir, "VAST_API_KEY=")
	out, err := cmd.CombinedOutput()
	if want := "credit\ntext csv json\n--group-by\non off\n"; err != nil || string(out) != want {
		t.Fatalf("bash completed %q (%v), want %q", out, err, want)
	}
}

// A real process whose stdout is /dev/full, where there is one: every
// answer, help and man page included, is exit 1 and one line saying the
// answer could not be written (internal/cli tests the same with stand-ins).
func TestHeadlessDevFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := demoserver.Start(demoserver.Options{Contracts: 100})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	home := t.TempDir()
	for _, args := range [][]string{
		{"credit"},
		{"credit", "--json"},
		{"notifications"},
		{"charges", "--output", "csv", "--from", "2015-01-01", "--utc"},
		{"charges", "--from", "2015-01-01", "--utc"},
		{"--help"},
		{"--version"},
		{"completion", "fish"},
		{"man"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"--url", srv.URL()}, args...)...)
			cmd.Env = testhome.Env(home, "XDG_CONFIG_HOME="+home, "VAST_API_KEY="+demoserver.DemoKey)
			var errb strings.Builder
			cmd.Stdout, cmd.Stderr = full, &errb
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 {
				t.Fatalf("%v: %v, want exit 1 (stderr %q)", args, err, errb.String())
			}
			if got := errb.String(); got != "vastdash: cannot write the answer: no space left on device\n" {
				t.Errorf("stderr %q, want one line saying the answer could not be written", got)
			}
		})
	}
}

// No test may leave a goroutine behind, nor write into the user's own
// folders (testhome: every process a test starts gets folders of its own);
// the binary is removed at the end. The cleanup exits with goleak's code,
// which a leak found after passing tests sets.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(testhome.Wrap(m), goleak.Cleanup(func(code int) {
		removeBinary()
		os.Exit(code)
	}))
}

var listeningRe = regexp.MustCompile(`url=(http://\S+)/metrics`)

// logWriter keeps what serve logs and sends the address it listens on.
type logWriter struct {
	mu   sync.Mutex
	b    strings.Builder
	sent bool
	urls chan string
}

func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if m := listeningRe.FindStringSubmatch(l.b.String()); m != nil && !l.sent {
		l.sent = true
		l.urls <- m[1]
	}
	return len(p), nil
}

func (l *logWriter) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// `vastdash serve --demo` as a service manager runs it, serving the
// figures; SIGTERM (and ctrl+c's SIGINT) with a scrape in progress ends it with
// exit 0 within a second, the log's last line saying so.
func TestServeStopsOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			home := t.TempDir()
			cmd := exec.Command(bin, "serve", "--demo", "--listen", "127.0.0.1:0")
			cmd.Env = testhome.Env(home, "VAST_API_KEY=")
			log := &logWriter{urls: make(chan string, 1)}
			cmd.Stderr = log
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var base string
			select {
			case base = <-log.urls:
			case <-time.After(20 * time.Second):
				t.Fatal("serve did not say where it listens")
			}
			client := &http.Client{Timeout: 10 * time.Second}
			deadline := time.Now().Add(20 * time.Second)
			for {
				resp, err := client.Get(base + "/healthz")
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode == http.StatusOK {
						break
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("/healthz never ok: %v", err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			// Scrapes keep coming while the signal lands; every one
			// that got an answer got all of it.
			stop := make(chan struct{})
			scrapes := make(chan error, 1)
			go func() {
				var bad error
				for {
					select {
					case <-stop:
						scrapes <- bad
						return
					default:
					}
					resp, err := client.Get(base + "/metrics")
					if err != nil {
						continue // refused once the listener closed
					}
					b, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil || !strings.Contains(string(b), "vast_up 1") {
						bad = err
						if bad == nil {
							bad = io.ErrUnexpectedEOF
						}
					}
				}
			}()
			time.Sleep(50 * time.Millisecond)
			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err = cmd.Wait()
			took := time.Since(start)
			close(stop)
			if err != nil || took > time.Second {
				t.Fatalf("after %v: exit %v, want 0 within a second\n%s", sig, err, log.String())
			}
			if bad := <-scrapes; bad != nil {
				t.Errorf("a scrape in flight was cut: %v", bad)
			}
			if !strings.HasSuffix(log.String(), "level=INFO msg=stopped\n") {
				t.Errorf("log:\n%s", log.String())
			}
		})
	}
}

// The first run, end to end in a real terminal: no key anywhere, the
// sign-in screen; a wrong key pasted is refused in place; the right one
// verifies, is saved 0600 where the vastai CLI reads it, and the
// dashboard opens on the Overview with the credit. The key is never
// written to the terminal.
func TestFirstRunSignsIn(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin, err := buildBinary()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := demoserver.Start(demoserver.Options{Contracts: 50, InstancesThreshold: -1, InvoicesThreshold: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const key = "CANARY-first-run-3c8b"
	srv.AddKey(key, "canary", nil)

	home := t.TempDir()
	cmd := exec.Command(bin, "--url", srv.URL())
	cmd.Env = append(testhome.Vars(home), "TERM=xterm-256color", "PATH="+os.Getenv("PATH"), "COLORFGBG=15;0")
	r := startPTY(t, cmd, 80, 24)
	tty := r.tty

	paste := func(s string) {
		t.Helper()
		if _, err := io.WriteString(tty, "\x1b[200~"+s+"\x1b[201~"); err != nil {
			t.Fatal(err)
		}
	}
	r.waitOutput(t, "sign in")
	r.waitOutput(t, "manage-keys")
	paste("wrong-key")
	io.WriteString(tty, "\r")
	r.waitOutput(t, "rejected")
	io.WriteString(tty, "\x15") // ctrl+u
	paste(key + "\n")
	io.WriteString(tty, "\r")
	r.waitOutput(t, "demo@vastdash.example")
	if _, err := os.Stat(filepath.Join(home, ".config", "vastai", "vast_api_key")); !os.IsNotExist(err) {
		t.Fatal("written before the user confirmed")
	}
	io.WriteString(tty, "\r")
	r.waitOutput(t, "Overview")
	r.waitOutput(t, "signed in; the key is saved to ~/.config/vastai/vast_api_key")
	info, err := os.Stat(filepath.Join(home, ".config", "vastai", "vast_api_key"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", info, err)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".config", "vastai", "vast_api_key")); strings.TrimSpace(string(b)) != key {
		t.Fatalf("saved %q", b)
	}
	io.WriteString(tty, "q")
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatalf("exit %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the dashboard did not quit")
	}
	if out := r.output(); strings.Contains(out, "CANARY") || strings.Contains(out, "3c8b") {
		t.Fatal("the key was written to the terminal")
	}
}
