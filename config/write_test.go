//go:build unix

package config

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// noUmask clears the umask for the test, so a mode that comes out right
// proves the code set it rather than the umask happening to be strict.
func noUmask(t *testing.T) {
	old := syscall.Umask(0)
	t.Cleanup(func() { syscall.Umask(old) })
}

func mode(t *testing.T, p string) fs.FileMode {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode().Perm()
}

func TestWriteFile(t *testing.T) {
	noUmask(t)
	root := t.TempDir()

	t.Run("new file in new directories", func(t *testing.T) {
		p := filepath.Join(root, "a", "b", "vast_api_key")
		if err := WriteFile(p, []byte("k1")); err != nil {
			t.Fatal(err)
		}
		if m := mode(t, p); m != 0o600 {
			t.Errorf("file mode %o, want 600", m)
		}
		for _, d := range []string{filepath.Join(root, "a"), filepath.Join(root, "a", "b")} {
			if m := mode(t, d); m != 0o700 {
				t.Errorf("%s mode %o, want 700", d, m)
			}
		}
	})

	t.Run("existing loose file is replaced and tightened", func(t *testing.T) {
		p := filepath.Join(root, "loose")
		writeTestFile(t, p, "old content that is longer", 0o644)
		if err := WriteFile(p, []byte("new")); err != nil {
			t.Fatal(err)
		}
		if m := mode(t, p); m != 0o600 {
			t.Errorf("file mode %o, want 600", m)
		}
		if b, _ := os.ReadFile(p); string(b) != "new" {
			t.Errorf("content %q", b)
		}
	})

	t.Run("no temporary files left behind", func(t *testing.T) {
		entries, err := os.ReadDir(filepath.Join(root, "a", "b"))
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 {
			t.Errorf("directory holds %d entries, want only the file", len(entries))
		}
	})

	t.Run("failure leaves no temp file", func(t *testing.T) {
		dir := filepath.Join(root, "target-is-dir")
		if err := os.MkdirAll(filepath.Join(dir, "x", "child"), 0o700); err != nil {
			t.Fatal(err)
		}
		// Renaming a file over a non-empty directory fails.
		if err := WriteFile(filepath.Join(dir, "x"), []byte("k")); err == nil {
			t.Fatal("expected an error")
		}
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Errorf("left %d entries, want 1", len(entries))
		}
	})
}

func TestOpenPrivate(t *testing.T) {
	noUmask(t)
	root := t.TempDir()
	p := filepath.Join(root, "logs", "debug.log")
	for _, line := range []string{"one\n", "two\n"} {
		f, err := OpenPrivate(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(line); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := os.ReadFile(p); string(b) != "one\ntwo\n" {
		t.Errorf("content %q, want both lines appended", b)
	}
	if m := mode(t, p); m != 0o600 {
		t.Errorf("file mode %o, want 600", m)
	}
	if m := mode(t, filepath.Dir(p)); m != 0o700 {
		t.Errorf("dir mode %o, want 700", m)
	}

	loose := filepath.Join(root, "loose.log")
	writeTestFile(t, loose, "keep\n", 0o666)
	f, err := OpenPrivate(loose)
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	if m := mode(t, loose); m != 0o600 {
		t.Errorf("existing file mode %o, want tightened to 600", m)
	}
	if b, _ := os.ReadFile(loose); string(b) != "keep\n" {
		t.Errorf("existing content %q was not kept", b)
	}
}
