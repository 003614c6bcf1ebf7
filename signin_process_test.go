package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vastdash/vastdash/api/demoserver"
)

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
	cmd.Env = []string{"HOME=" + home, "TERM=xterm-256color", "PATH=" + os.Getenv("PATH"), "COLORFGBG=15;0"}
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
