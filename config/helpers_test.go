package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testKey looks like a real key; tests assert it never leaks into messages.
const testKey = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// fakeEnv is an Env rooted in a fresh temporary home with the given
// variables and nothing else, so no test depends on the real $HOME.
func fakeEnv(t *testing.T, vars map[string]string) Env {
	t.Helper()
	return Env{
		Getenv:  func(k string) string { return vars[k] },
		HomeDir: t.TempDir(),
	}
}

// writeTestFile creates path (and parents) with the given mode, bypassing
// the umask so the mode is exactly what the test asks for.
func writeTestFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// assertSafeError checks the promises every error of this package makes.
func assertSafeError(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	if strings.Contains(msg, testKey) {
		t.Errorf("error contains the key: %s", msg)
	}
	if strings.ContainsAny(msg, "\n\r") {
		t.Errorf("error is not one line: %q", msg)
	}
}
