//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// saveEnv is an env whose XDG_CONFIG_HOME is a folder that does not exist
// yet, under a fresh home.
func saveEnv(t *testing.T) (Env, string) {
	t.Helper()
	home := t.TempDir()
	xdg := filepath.Join(home, "xdg")
	return Env{Getenv: func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return xdg
		}
		return ""
	}, HomeDir: home}, filepath.Join(xdg, "vastai", "vast_api_key")
}

// noTemp fails when a temporary file was left beside the key.
func noTemp(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("a temporary file was left behind: %s", e.Name())
		}
	}
}

func TestSaveKeyWritesWhereTheCLIReads(t *testing.T) {
	noUmask(t)
	env, want := saveEnv(t)
	path, err := SaveKey(env, testKey, false)
	if err != nil {
		t.Fatal(err)
	}
	if path != want || KeySavePath(env) != want {
		t.Fatalf("saved to %s, want %s", path, want)
	}
	if m := mode(t, path); m != 0o600 {
		t.Errorf("file mode %o, want 600", m)
	}
	for _, d := range []string{filepath.Dir(want), filepath.Dir(filepath.Dir(want))} {
		if m := mode(t, d); m != 0o700 {
			t.Errorf("created folder %s is %o, want 700", d, m)
		}
	}
	k, src, warns, err := ResolveKey(env, "")
	if err != nil || k.Reveal() != testKey || src != want || len(warns) != 0 {
		t.Fatalf("read back %v from %s, warnings %v", err, src, warns)
	}
	noTemp(t, filepath.Dir(want))
}

// A folder that exists keeps its mode: only folders vastdash creates are
// made 0700.
func TestSaveKeyLeavesAnExistingFolder(t *testing.T) {
	noUmask(t)
	env, path := saveEnv(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := SaveKey(env, testKey, false); err != nil {
		t.Fatal(err)
	}
	if m := mode(t, filepath.Dir(path)); m != 0o755 {
		t.Errorf("the existing folder became %o", m)
	}
}

func TestSaveKeyAsksBeforeReplacing(t *testing.T) {
	noUmask(t)
	env, path := saveEnv(t)
	writeTestFile(t, path, "old-key\n", 0o644)
	_, err := SaveKey(env, testKey, false)
	if !errors.Is(err, ErrKeyExists) || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("got %v, want ErrKeyExists", err)
	}
	assertSafeError(t, err)
	if b, _ := os.ReadFile(path); string(b) != "old-key\n" {
		t.Fatalf("the existing file was changed: %q", b)
	}
	if _, err := SaveKey(env, testKey, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != testKey+"\n" {
		t.Fatalf("not replaced: %q", b)
	}
	if m := mode(t, path); m != 0o600 {
		t.Errorf("replaced file is %o, want 600", m)
	}
	noTemp(t, filepath.Dir(path))
}

// A file that appears between the look and the write is not replaced:
// the link that puts the key in place refuses.
func TestSaveKeyNeverReplacesARacingFile(t *testing.T) {
	dir := t.TempDir()
	tmp, path := filepath.Join(dir, "tmp"), filepath.Join(dir, "vast_api_key")
	writeTestFile(t, tmp, "new", 0o600)
	writeTestFile(t, path, "theirs", 0o600)
	if err := linkNew(tmp, path); !errors.Is(err, os.ErrExist) {
		t.Fatalf("got %v, want ErrExist", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "theirs" {
		t.Fatalf("replaced: %q", b)
	}
}

// A link at the target is never written through nor replaced, dangling or
// not, even when replacing was allowed.
func TestSaveKeyRefusesASymlink(t *testing.T) {
	for _, replace := range []bool{false, true} {
		for _, dangling := range []bool{false, true} {
			env, path := saveEnv(t)
			target := filepath.Join(t.TempDir(), "elsewhere")
			if !dangling {
				writeTestFile(t, target, "theirs", 0o600)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			_, err := SaveKey(env, testKey, replace)
			if !errors.Is(err, ErrKeySave) || !strings.Contains(err.Error(), "symbolic link") {
				t.Fatalf("replace=%v dangling=%v: got %v", replace, dangling, err)
			}
			assertSafeError(t, err)
			if got, _ := os.Readlink(path); got != target {
				t.Fatalf("the link was replaced")
			}
			if b, err := os.ReadFile(target); dangling && err == nil || !dangling && string(b) != "theirs" {
				t.Fatalf("written through the link: %q %v", b, err)
			}
			noTemp(t, filepath.Dir(path))
		}
	}
}

func TestSaveKeyRefusesAFolderAtTheTarget(t *testing.T) {
	env, path := saveEnv(t)
	if err := os.MkdirAll(path, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := SaveKey(env, testKey, true)
	if !errors.Is(err, ErrKeySave) || !strings.Contains(err.Error(), "a folder") {
		t.Fatalf("got %v", err)
	}
}

// A config folder that cannot be written: one clear line naming it,
// nothing written, nothing left behind.
func TestSaveKeyReadOnlyFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders")
	}
	env, path := saveEnv(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(path), 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Dir(path), 0o700) })
	_, err := SaveKey(env, testKey, false)
	if !errors.Is(err, ErrKeySave) || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("got %v", err)
	}
	assertSafeError(t, err)
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("something was written: %v", err)
	}
	noTemp(t, filepath.Dir(path))

	// The config home itself read-only: the folder cannot be made.
	env2, path2 := saveEnv(t)
	xdg := filepath.Dir(filepath.Dir(path2))
	if err := os.MkdirAll(xdg, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(xdg, 0o700) })
	if _, err := SaveKey(env2, testKey, false); !errors.Is(err, ErrKeySave) || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("got %v", err)
	}
}

// The target is judged before anything is sent: free, taken, a link, a
// folder on the way that is a file or cannot be written.
func TestCheckKeyTarget(t *testing.T) {
	env, path := saveEnv(t)
	if err := CheckKeyTarget(env); err != nil {
		t.Fatalf("free: %v", err)
	}
	writeTestFile(t, path, "k", 0o600)
	if err := CheckKeyTarget(env); !errors.Is(err, ErrKeyExists) {
		t.Fatalf("taken: %v", err)
	}
	env, path = saveEnv(t)
	writeTestFile(t, filepath.Dir(filepath.Dir(path)), "", 0o600)
	if err := CheckKeyTarget(env); !errors.Is(err, ErrKeySave) || !strings.Contains(err.Error(), "not a directory; nothing was written") {
		t.Fatalf("a file on the way: %v", err)
	}
	if os.Geteuid() == 0 {
		t.Skip("root writes into read-only folders")
	}
	env, path = saveEnv(t)
	home := filepath.Dir(filepath.Dir(filepath.Dir(path)))
	if err := os.Chmod(home, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(home, 0o700) })
	if err := CheckKeyTarget(env); !errors.Is(err, ErrKeySave) || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("read-only: %v", err)
	}
}

// A config home that is a file, not a folder (what root meets where a
// read-only folder would not stop it): the same one line.
func TestSaveKeyFolderIsAFile(t *testing.T) {
	env, path := saveEnv(t)
	writeTestFile(t, filepath.Dir(filepath.Dir(path)), "", 0o600)
	_, err := SaveKey(env, testKey, false)
	if !errors.Is(err, ErrKeySave) || !strings.Contains(err.Error(), "nothing was written") || strings.Count(err.Error(), "\n") != 0 {
		t.Fatalf("got %v", err)
	}
}

func TestSaveKeyRefusesABadKeyAndNoHome(t *testing.T) {
	env, path := saveEnv(t)
	if _, err := SaveKey(env, "two words", false); !errors.Is(err, ErrBadKey) {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Lstat(path); err == nil {
		t.Fatal("a bad key was written")
	}
	if _, err := SaveKey(Env{Getenv: func(string) string { return "" }}, testKey, false); !errors.Is(err, ErrKeySave) {
		t.Fatalf("no home: %v", err)
	}
}

func TestParseKey(t *testing.T) {
	if k, err := ParseKey("  "+testKey+"\r\n", "standard input"); err != nil || k.Reveal() != testKey {
		t.Fatalf("got %v", err)
	}
	for _, bad := range []string{"a b", "key\x1b[2J", "key\x00", "ключ"} {
		_, err := ParseKey(bad, "standard input")
		if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), "standard input") {
			t.Errorf("%q: %v", bad, err)
		}
		if err != nil && strings.Contains(err.Error(), bad) {
			t.Errorf("the error quotes the input: %v", err)
		}
	}
	if _, err := ParseKey(" \n", "standard input"); !errors.Is(err, ErrNoKey) {
		t.Errorf("empty: %v", err)
	}
}

func TestRemoveKey(t *testing.T) {
	env, path := saveEnv(t)
	writeTestFile(t, path, testKey, 0o600)
	if err := RemoveKey(env, path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("not removed")
	}
	// A link goes, what it points to stays.
	target := filepath.Join(t.TempDir(), "real")
	writeTestFile(t, target, testKey, 0o600)
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	if err := RemoveKey(env, path); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != testKey {
		t.Fatal("removed through the link")
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := RemoveKey(env, path); !errors.Is(err, ErrKeySave) {
		t.Fatalf("a folder: %v", err)
	}
	if err := RemoveKey(env, path+"-gone"); !errors.Is(err, ErrKeySave) || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing: %v", err)
	}
}

func TestReadableByOthers(t *testing.T) {
	dir := t.TempDir()
	open, closed := filepath.Join(dir, "open"), filepath.Join(dir, "closed")
	writeTestFile(t, open, "k", 0o644)
	writeTestFile(t, closed, "k", 0o600)
	if got, err := ReadableByOthers(open); err != nil || !got {
		t.Errorf("0644: %v %v", got, err)
	}
	if got, err := ReadableByOthers(closed); err != nil || got {
		t.Errorf("0600: %v %v", got, err)
	}
}

// A key folder that is a link, or that others may write in, is refused
// before anything is written: the key never lands in the link's target
// (here a folder all may write in), and the check before a key is made
// says so too.
func TestSaveKeyRefusesALinkedOrOpenFolder(t *testing.T) {
	noUmask(t)
	env, path := saveEnv(t)
	open := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(filepath.Dir(path)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(open, filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{"check": CheckKeyTarget(env), "save": func() error { _, err := SaveKey(env, testKey, true); return err }()} {
		if !errors.Is(err, ErrKeySave) || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("%s: error %v", name, err)
		}
		assertSafeError(t, err)
	}
	if entries, _ := os.ReadDir(open); len(entries) != 0 {
		t.Fatalf("written through the link: %v", entries)
	}
	// The folder itself open to all.
	if err := os.Remove(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := SaveKey(env, testKey, false); !errors.Is(err, ErrKeySave) || !strings.Contains(err.Error(), "written by other users") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Lstat(path); err == nil {
		t.Fatal("the key was written into a folder others may write in")
	}
}
