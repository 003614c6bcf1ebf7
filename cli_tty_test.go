package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

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
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "NO_COLOR=") {
			base = append(base, kv)
		}
	}
	cmd.Env = append(base, append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "VAST_API_KEY=", "TERM=xterm-256color"}, env...)...)
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

// queries are the terminal queries fang sends before it styles help.
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
	if want := "vastdash: unknown flag --jsn (see vastdash charges --help)\r\n"; code != exitUsage || out != want {
		t.Fatalf("exit %d, terminal got %q; want %d and %q", code, out, exitUsage, want)
	}
}

// Help is styled in a terminal, and plain with NO_COLOR: the same text,
// no colour or attribute.
func TestHelpInATerminalHonoursNoColor(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	styled, code := ttyRun(t, nil, "charges", "--help")
	if code != 0 || !sgr.MatchString(styled) || !strings.Contains(sgr.ReplaceAllString(styled, ""), "--group-by") {
		t.Fatalf("exit %d: help in a terminal is not styled: %q", code, styled)
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
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "VAST_API_KEY=")
	out, err := cmd.CombinedOutput()
	if want := "credit\ntext csv json\n--group-by\non off\n"; err != nil || string(out) != want {
		t.Fatalf("bash completed %q (%v), want %q", out, err, want)
	}
}
