package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"go.uber.org/goleak"

	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/config"
)

// isolate points every key and settings location at an empty temp home.
func isolate(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("VAST_API_KEY", "")
	t.Setenv("VAST_URL", "")
	return home
}

func runMain(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestVersionAndHelp(t *testing.T) {
	isolate(t)
	code, out, _ := runMain("--version")
	if code != 0 || !strings.HasPrefix(out, "vastdash ") {
		t.Fatalf("--version: %d %q", code, out)
	}
	code, out, _ = runMain("--help")
	if code != 0 || !strings.Contains(out, "--demo") || !strings.Contains(out, "VAST_API_KEY") {
		t.Fatalf("--help: %d %q", code, out)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	isolate(t)
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--no-such-flag"}, nil, "unknown flag --no-such-flag (see vastdash --help)"},
		{[]string{"extra"}, nil, `unknown command "extra"`},
		{nil, nil, "VAST_API_KEY"}, // no key anywhere: say where one can come from
		{nil, nil, "--demo"},
		{[]string{"--url", "http://billing.example.com"}, map[string]string{"VAST_API_KEY": "CANARY-main-key-0042"}, "plain http"},
		{[]string{"--api-key-file", "/nonexistent/key"}, nil, "/nonexistent/key"},
	}
	for _, c := range cases {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		code, out, errOut := runMain(c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, errOut)
		}
		if out != "" {
			t.Errorf("%v: stdout %q, want nothing", c.args, out)
		}
		if !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%v: stderr %q, want one line containing %q", c.args, errOut, c.want)
		}
		if strings.Contains(errOut, "CANARY") {
			t.Errorf("%v: the key leaked: %q", c.args, errOut)
		}
		for k := range c.env {
			t.Setenv(k, "")
		}
	}
}

func TestKeyFileWarning(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, "key")
	if err := os.WriteFile(path, []byte("CANARY-main-key-0042\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A remote plain-http URL stops the run after the key was read, before
	// any TUI starts; the warning must already be out and the key not.
	_, _, errOut := runMain("--api-key-file", path, "--url", "http://example.com")
	if strings.Contains(errOut, "CANARY") {
		t.Fatalf("key leaked: %q", errOut)
	}
	s, err := openSessionForTest(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s, "readable by other users") {
		t.Fatalf("no permission warning: %q", s)
	}
}

// openSessionForTest resolves a session with a key file against a loopback
// URL (nothing listens; no request is made) and returns what it printed.
func openSessionForTest(keyFile string) (string, error) {
	var errb bytes.Buffer
	sess, _ := newRunner(io.Discard, &errb).openSession(options{flags: config.Flags{APIKeyFile: keyFile, URL: "http://127.0.0.1:9"}}, nil)
	if sess != nil {
		sess.close()
	}
	return errb.String(), nil
}

func TestDebugLogIsPrivateAndRedacted(t *testing.T) {
	home := isolate(t)
	path := filepath.Join(home, "logs", "vastdash-debug.log")
	code, out, errOut := runMain("--demo", "--debug", path, "credit")
	if code != 0 || !strings.HasPrefix(out, "$") {
		t.Fatalf("credit with --debug: %d %q %q", code, out, errOut)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("debug log mode %v, want 0600", fi.Mode().Perm())
	}
	log, _ := os.ReadFile(path)
	if !strings.Contains(string(log), "GET ") || !strings.Contains(string(log), `"api_key":"[redacted]"`) {
		t.Fatalf("debug log lacks the request or the redaction:\n%s", log)
	}
	if strings.Contains(string(log), demoserver.DemoKey) {
		t.Fatal("the key reached the debug log")
	}
}

// --debug refuses what it must not write through or change, here a link
// (to a file of the user's: it is neither appended to nor chmodded), with
// one line naming the flag and the path, and exit 2 before any request.
func TestDebugRefusesSymlink(t *testing.T) {
	home := isolate(t)
	target := filepath.Join(home, "notes.txt")
	if err := os.WriteFile(target, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(home, "debug.log")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("symlink:", err)
	}
	code, out, errOut := runMain("--demo", "--debug", link, "credit")
	if want := "vastdash: --debug " + link + ": is a symbolic link\n"; code != exitUsage || out != "" || errOut != want {
		t.Errorf("got %d %q %q, want %d and %q", code, out, errOut, exitUsage, want)
	}
	fi, err := os.Stat(target)
	if b, _ := os.ReadFile(target); err != nil || fi.Mode().Perm() != 0o644 || string(b) != "mine\n" {
		t.Errorf("the link's target was changed: %v %q %v", fi.Mode(), b, err)
	}
}

func TestPanicIsOneLineExit1(t *testing.T) {
	isolate(t)
	saved := commands
	defer func() { commands = saved }()
	commands = append(commands, func(r *runner, _ *options) *cobra.Command {
		return &cobra.Command{Use: "boom", RunE: r.runs(func() int {
			panic("CANARY-panic-value with internals")
		})}
	})
	code, out, errOut := runMain("boom")
	if code != 1 || out != "" {
		t.Fatalf("panic: exit %d, stdout %q", code, out)
	}
	if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "internal error") || strings.Contains(errOut, "CANARY") {
		t.Fatalf("panic message %q: want one line without the panic value", errOut)
	}
}

// No run may leave a goroutine behind: every request ends with its command.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestTimeoutFlag(t *testing.T) {
	isolate(t)
	// The demo server answers after 60 ms; a 1 ms timeout gives up first.
	code, out, errOut := runMain("--demo", "--timeout", "1ms", "credit")
	if code != 1 || out != "" || !strings.Contains(errOut, "no response in time") {
		t.Fatalf("--timeout 1ms: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := runMain("--demo", "--timeout", "-1s", "credit"); code != 2 || !strings.Contains(errOut, "--timeout") {
		t.Fatalf("negative timeout: %d %q", code, errOut)
	}
}
