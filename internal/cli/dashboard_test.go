package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// The dashboard with no terminal to draw on or read keys from (cron, ssh
// without -t, stdout to a file) printed Bubble Tea's words, "vastdash:
// bubbletea: error opening TTY: …", exit 1. It is one line in the
// program's words, pointing at the commands, exit 2 like a missing key.
func TestDashboardNeedsATerminal(t *testing.T) {
	const want = "vastdash: the dashboard needs a terminal; a script uses a command (vastdash --help)\n"
	cases := map[string]func(*env){
		"no terminal at all": func(e *env) { e.tty = func() bool { return false } },
		"stdout to a file": func(e *env) {
			e.stdin = fakeTTY{strings.NewReader("")}
			e.isTerminal = func(w io.Writer) bool { _, ok := w.(fakeTTY); return ok }
		},
		"no keys to read": func(e *env) {
			e.isTerminal = func(w io.Writer) bool { _, ok := w.(*bytes.Buffer); return ok }
			e.tty = func() bool { return false }
		},
	}
	for name, tweak := range cases {
		t.Run(name, func(t *testing.T) {
			isolate(t)
			var out, errb bytes.Buffer
			e := testEnv(&out, &errb)
			tweak(e)
			if code := run([]string{"--demo"}, e); code != exitUsage || errb.String() != want || out.Len() != 0 {
				t.Fatalf("exit %d, stderr %q, stdout %q; want exit 2 and %q", code, errb.String(), out.String(), want)
			}
		})
	}
	// Without a key, the missing key is still what is said.
	isolate(t)
	code, out, errOut := runMain()
	if code != exitUsage || out != "" || !strings.Contains(errOut, "no API key") {
		t.Fatalf("no key: exit %d, %q %q", code, out, errOut)
	}
}
