//go:build unix

package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	// The first open creates the file, the second appends to it: a file of
	// the user's that only they can read is the one kind reused.
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
}

// OpenPrivate appends only to a regular file of the user's that nobody else
// can read or write, and changes nothing it did not create: every other
// thing at the path is refused with one line naming it and saying why, and
// left as it was. None of them may hang the open.
func TestOpenPrivateRefuses(t *testing.T) {
	noUmask(t)
	type unchanged func(t *testing.T)
	tests := []struct {
		name   string
		root   bool // needs root (chown, mknod)
		setup  func(t *testing.T, p string) (string, unchanged)
		reason string
	}{
		{"device", false, func(t *testing.T, p string) (string, unchanged) {
			const m = 0o666 | fs.ModeDevice | fs.ModeCharDevice
			if os.Geteuid() != 0 {
				// Only root could chmod it, so a broken build cannot harm it.
				return os.DevNull, modeIs(os.DevNull, m)
			}
			// As root a broken build would chmod the real /dev/null, so use
			// a twin of it made for the test.
			if err := mknodLike(p, os.DevNull); err != nil {
				t.Skip("mknod:", err)
			}
			return p, modeIs(p, m)
		}, "not a regular file"},
		{"link to a file", false, func(t *testing.T, p string) (string, unchanged) {
			target := filepath.Join(t.TempDir(), "target")
			writeTestFile(t, target, "mine\n", 0o644)
			symlink(t, target, p)
			return p, both(modeIs(target, 0o644), contentIs(target, "mine\n"))
		}, "is a symbolic link"},
		{"dangling link", false, func(t *testing.T, p string) (string, unchanged) {
			target := filepath.Join(t.TempDir(), "target")
			symlink(t, target, p)
			return p, func(t *testing.T) {
				if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("the link's target was created (%v)", err)
				}
			}
		}, "is a symbolic link"},
		{"FIFO", false, func(t *testing.T, p string) (string, unchanged) {
			mkfifo(t, p)
			return p, modeIs(p, 0o600|fs.ModeNamedPipe)
		}, "not a regular file"},
		{"FIFO being read", false, func(t *testing.T, p string) (string, unchanged) {
			mkfifo(t, p)
			r, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = r.Close() })
			return p, modeIs(p, 0o600|fs.ModeNamedPipe)
		}, "not a regular file"},
		{"directory", false, func(t *testing.T, p string) (string, unchanged) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p, modeIs(p, 0o755|fs.ModeDir)
		}, "is a directory"},
		// Refused rather than tightened or warned about: the log holds the
		// account's details, and once written they would already be out.
		{"own file others can read", false, func(t *testing.T, p string) (string, unchanged) {
			writeTestFile(t, p, "keep\n", 0o644)
			return p, both(modeIs(p, 0o644), contentIs(p, "keep\n"))
		}, "other users can read or write it (mode 0644); chmod 600 it or name a new file"},
		{"own file others can write", false, func(t *testing.T, p string) (string, unchanged) {
			writeTestFile(t, p, "keep\n", 0o602)
			return p, both(modeIs(p, 0o602), contentIs(p, "keep\n"))
		}, "(mode 0602)"},
		{"another user's file", true, func(t *testing.T, p string) (string, unchanged) {
			writeTestFile(t, p, "theirs\n", 0o600)
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Skip("chown:", err)
			}
			return p, both(modeIs(p, 0o600), contentIs(p, "theirs\n"))
		}, "owned by another user (uid 65534)"},
		// A second name for a file of ours elsewhere (planted in a shared
		// directory, say) would send the log into that file.
		{"hard link", false, func(t *testing.T, p string) (string, unchanged) {
			other := filepath.Join(t.TempDir(), "elsewhere")
			writeTestFile(t, other, "keep\n", 0o600)
			if err := os.Link(other, p); err != nil {
				t.Skip("link:", err)
			}
			return p, contentIs(other, "keep\n")
		}, "has other hard links"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.root && os.Geteuid() != 0 {
				t.Skip("needs root")
			}
			p, check := tt.setup(t, filepath.Join(t.TempDir(), "debug.log"))
			var (
				f   *os.File
				err error
			)
			returnsPromptly(t, p, func() { f, err = OpenPrivate(p) })
			if err == nil {
				_ = f.Close()
				t.Fatal("opened, want a refusal")
			}
			if msg := err.Error(); !strings.HasPrefix(msg, p+": ") || !strings.Contains(msg, tt.reason) {
				t.Errorf("error %q, want %q", msg, p+": "+tt.reason)
			}
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("error is not one line: %q", err)
			}
			check(t)
		})
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// modeIs returns a check that p (not followed) still has mode m.
func modeIs(p string, m fs.FileMode) func(*testing.T) {
	return func(t *testing.T) {
		t.Helper()
		info, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode() != m {
			t.Errorf("%s mode %v, want it left at %v", p, info.Mode(), m)
		}
	}
}

// contentIs returns a check that p still holds exactly want.
func contentIs(p, want string) func(*testing.T) {
	return func(t *testing.T) {
		t.Helper()
		if b, err := os.ReadFile(p); err != nil || string(b) != want {
			t.Errorf("%s holds %q (%v), want it left as %q", p, b, err, want)
		}
	}
}

func both(a, b func(*testing.T)) func(*testing.T) {
	return func(t *testing.T) { a(t); b(t) }
}
