package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/vastdash/vastdash/api/demoserver"
	"github.com/vastdash/vastdash/config"
)

func TestRuntimeErrorsAreOneLine(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 600})
	srv.AddFault(demoserver.Fault{Path: "/api/v0/charges", Status: 500, Body: `{"success":false,"msg":"boom\u001b[2J"}`})
	res := headless(t, srv, demoserver.DemoKey, append([]string{"charges", "--output", "csv"}, wholeSpan()...)...)
	res.failed(t, exitRuntime, "boom")
	if strings.Contains(res.errOut, "\x1b") {
		t.Fatalf("escape reached stderr: %q", res.errOut)
	}

	// Permission: the key cannot read charges.
	srv.ClearFaults()
	// credit --runway is not among them: the credit is still the answer (see
	// TestCreditRunwayWithoutBillingRead).
	headless(t, srv, demoserver.KeyReadOnly, "notifications", "--email", "off").failed(t, exitRuntime, "user_write")
}

func TestInterruptStopsCleanly(t *testing.T) {
	srv := startServer(t, demoserver.Options{Contracts: 10})
	srv.AddFault(demoserver.Fault{Path: "/api/v0/users/current", Hang: true})
	res := headlessWith(t, srv, demoserver.DemoKey, func(r *env) {
		r.context = func() (context.Context, context.CancelFunc) {
			// ctrl+c as soon as the request reaches the server.
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				if srv.WaitRequests(ctx, 1) == nil {
					cancel()
				}
			}()
			return ctx, cancel
		}
	}, "credit")
	res.failed(t, exitRuntime, "interrupted")
}

func TestKeyNeverPrinted(t *testing.T) {
	const canary = "CANARY-headless-key-0042"
	srv := startServer(t, demoserver.Options{Contracts: 10})
	runs := [][]string{
		{"credit"},
		{"credit", "--json", "--runway"},
		{"charges", "--output", "csv"},
		{"charges", "--output", "json", "--items"},
		{"notifications"},
		{"notifications", "--webhooks", "on"},
		{"charges", "--output", "nope"},
	}
	for _, args := range runs {
		res := headless(t, srv, canary, args...)
		if res.code == 0 {
			t.Errorf("%v: exit 0 with a key the server does not know", args)
		}
		if strings.Contains(res.out+res.errOut, "CANARY") {
			t.Errorf("%v: the key leaked: %q %q", args, res.out, res.errOut)
		}
	}
	headless(t, srv, canary, "credit").failed(t, exitRuntime, "rejected")
}

func TestDemoFlagNeedsNoKey(t *testing.T) {
	isolate(t)
	var out, errb bytes.Buffer
	r := testEnv(&out, &errb)
	r.demo = demoserver.Options{Contracts: 20, Threshold: -1}
	if code := run([]string{"credit", "--demo"}, r); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), "$") || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("stdout %q", out.String())
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
	sess, _ := openSession(testEnv(io.Discard, &errb), globals{flags: config.Flags{APIKeyFile: keyFile, URL: "http://127.0.0.1:9"}}, sessionOptions{})
	if sess != nil {
		sess.Close()
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
	commands = append(commands, func(x *execution) *cobra.Command {
		return &cobra.Command{Use: "boom", RunE: x.runE(func(*cobra.Command) error {
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

func TestTimeoutFlag(t *testing.T) {
	isolate(t)
	// The demo server answers after 60 ms; a 1 ms timeout gives up first.
	code, out, errOut := runMain("--demo", "--timeout", "1ms", "credit")
	if code != 1 || out != "" || !strings.Contains(errOut, "did not answer GET /api/v0/users/current/ in time") {
		t.Fatalf("--timeout 1ms: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := runMain("--demo", "--timeout", "-1s", "credit"); code != 2 || !strings.Contains(errOut, "--timeout") {
		t.Fatalf("negative timeout: %d %q", code, errOut)
	}
}

// A server that cannot be reached is said in the dashboard's words: the
// host and port, the cause, and what to check — not Go's dial error.
func TestUnreachableServerInUsersWords(t *testing.T) {
	isolate(t)
	t.Setenv("VAST_API_KEY", demoserver.DemoKey)
	code, out, errOut := runMain("--url", "http://127.0.0.1:9", "credit")
	want := "vastdash: cannot reach 127.0.0.1:9 (connection refused) — check the URL (--url / VAST_URL) and the network\n"
	if code != exitRuntime || out != "" || errOut != want {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, want)
	}
}
