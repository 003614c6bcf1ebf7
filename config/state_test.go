package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestStatePath(t *testing.T) {
	env := fakeEnv(t, map[string]string{"XDG_STATE_HOME": "/xdg/state"})
	if got := StatePath(env); got != "/xdg/state/vastdash/state.toml" {
		t.Errorf("with XDG_STATE_HOME: %q", got)
	}
	env = fakeEnv(t, map[string]string{"XDG_STATE_HOME": "relative"})
	if got, want := StatePath(env), filepath.Join(env.HomeDir, ".local", "state", "vastdash", "state.toml"); got != want {
		t.Errorf("relative XDG_STATE_HOME: %q, want %q", got, want)
	}
}

// TestStateRoundTrip: what is saved is read back, into a 0600 file.
func TestStateRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state", "vastdash", "state.toml")
	s := NewStateStore(p)
	if st, err := s.Load(); err != nil || !reflect.DeepEqual(st, State{}) {
		t.Fatalf("no file yet: %+v %v", st, err)
	}
	want := State{Range: "2026-11-01..", Types: []string{"instance", "volume"}, Format: "tree", Order: "oldest", Sort: "amount"}
	if err := s.Saver(want)(); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(p)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("state file: %v %v", info, err)
	}
	got, err := NewStateStore(p).Load()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v (%v), want %+v", got, err, want)
	}
}

// TestStateSaveInOrder: a save made before another that was already
// written is dropped, whichever goroutine gets to the file first.
func TestStateSaveInOrder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.toml")
	s := NewStateStore(p)
	older := s.Saver(State{Range: "7d"})
	newer := s.Saver(State{Range: "90d"})
	if err := newer(); err != nil {
		t.Fatal(err)
	}
	if err := older(); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.Load(); st.Range != "90d" {
		t.Fatalf("range %q: an older state replaced a newer one", st.Range)
	}
}

// TestStateNotFollowingLinks: a link at the state's path is neither read
// nor written through; the save replaces the link, the target is intact.
func TestStateNotFollowingLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "precious")
	writeTestFile(t, target, "range = \"7d\"\n", 0o600)
	p := filepath.Join(dir, "state.toml")
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	s := NewStateStore(p)
	if _, err := s.Load(); !errors.Is(err, ErrState) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("a link was read: %v", err)
	}
	if err := s.Saver(State{Range: "90d"})(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "range = \"7d\"\n" {
		t.Fatalf("the link's target was written: %q", b)
	}
	if info, err := os.Lstat(p); err != nil || !info.Mode().IsRegular() {
		t.Fatalf("the link was not replaced by a file: %v %v", info, err)
	}
}

// TestStateCorrupt: a state file that is not ours to read is an ErrState
// error of one line naming the file, never a panic or a partial state.
func TestStateCorrupt(t *testing.T) {
	for name, content := range map[string]string{
		"not toml":     "range = \"7d\n",
		"unknown key":  "colour = \"red\"\n",
		"wrong type":   "types = \"instance\"\n",
		"binary":       "\x00\x01\x02",
		"huge":         strings.Repeat("# x\n", maxStateFile),
		"key and link": "range = 7\n",
	} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "state.toml")
			writeTestFile(t, p, content, 0o600)
			st, err := NewStateStore(p).Load()
			if !errors.Is(err, ErrState) || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v", err)
			}
			if !reflect.DeepEqual(st, State{}) {
				t.Fatalf("a partial state came back: %+v", st)
			}
		})
	}
	p := t.TempDir() // a directory where the file should be
	if _, err := NewStateStore(p).Load(); !errors.Is(err, ErrState) {
		t.Fatalf("a directory: %v", err)
	}
}

// A state file of broken TOML is said as a settings file's is — the file
// and line, the program's words — never the parser's ("expected value but
// found \"nstance\" instead").
func TestStateSyntaxInOwnWords(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.toml")
	writeTestFile(t, p, "range = \"30d\"\ntypes = [instance\n", 0o600)
	_, err := NewStateStore(p).Load()
	if err == nil || !strings.HasPrefix(err.Error(), p+":2: ") || strings.Contains(err.Error(), "nstance") ||
		!strings.Contains(err.Error(), "delete the file to start from the defaults") {
		t.Fatalf("err = %v", err)
	}
}
