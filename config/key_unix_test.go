//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// --api-key-file <(pass show vast) hands us a pipe: it must be read (not
// rejected as "not a regular file") and not judged by its mode.
func TestResolveKeyFromPipe(t *testing.T) {
	t.Run("process substitution", func(t *testing.T) {
		p := pipeFrom(t, testKey+"\n")
		key, src, warns, err := ResolveKey(fakeEnv(t, nil), p)
		if err != nil {
			t.Fatalf("ResolveKey: %v", err)
		}
		if key.Reveal() != testKey || src != p || len(warns) != 0 {
			t.Errorf("got key ok=%v from %q, warnings %q", key.Reveal() == testKey, src, warns)
		}
	})
	// A named pipe whose writer is already there (opened before us) is the
	// same thing under a name; only one nobody writes to is refused.
	t.Run("named pipe with a writer", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "fifo")
		mkfifo(t, fifo)
		// Hold a read end so the writer's open returns at once; it stays
		// open until the test ends so the write cannot fail with EPIPE.
		hold, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer hold.Close()
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := w.WriteString(testKey + "\n")
			if cerr := w.Close(); err == nil {
				err = cerr
			}
			done <- err
		}()
		var key Secret
		returnsPromptly(t, fifo, func() { key, _, _, err = ResolveKey(fakeEnv(t, nil), fifo) })
		if werr := <-done; werr != nil {
			t.Fatal(werr)
		}
		if err != nil || key.Reveal() != testKey {
			t.Errorf("key ok=%v, err %v", key.Reveal() == testKey, err)
		}
	})
}

// A FIFO nobody writes to, named or at a default location, used to hang the
// open forever; it must be a prompt one-line error naming the file.
func TestResolveKeyFIFONeverHangs(t *testing.T) {
	for _, place := range []string{"explicit", "xdg", "legacy"} {
		t.Run(place, func(t *testing.T) {
			env := fakeEnv(t, nil)
			var fifo, flag string
			switch place {
			case "explicit":
				fifo = filepath.Join(t.TempDir(), "key")
				flag = fifo
				// A fallback key must not be used instead.
				writeTestFile(t, filepath.Join(env.HomeDir, ".vast_api_key"), testKey, 0o600)
			case "xdg":
				fifo = KeyPaths(env)[0]
				writeTestFile(t, filepath.Join(env.HomeDir, ".vast_api_key"), testKey, 0o600)
			case "legacy":
				fifo = filepath.Join(env.HomeDir, ".vast_api_key")
			}
			mkfifo(t, fifo)
			var (
				key Secret
				err error
			)
			returnsPromptly(t, fifo, func() { key, _, _, err = ResolveKey(env, flag) })
			if !errors.Is(err, ErrKeyFile) || key != "" {
				t.Fatalf("err = %v, want an ErrKeyFile and no key", err)
			}
			if msg := err.Error(); !strings.Contains(msg, fifo) || !strings.Contains(msg, "not a regular file") {
				t.Errorf("%q does not name %s and say it is not a regular file", msg, fifo)
			}
			assertSafeError(t, err)
		})
	}
}

// Links are followed (people symlink their key file), but what they lead to
// must be a regular file: a device is refused, at a default location too.
func TestResolveKeyDevicesAndLinks(t *testing.T) {
	t.Run("link to a key file", func(t *testing.T) {
		env := fakeEnv(t, nil)
		target := filepath.Join(t.TempDir(), "real_key")
		writeTestFile(t, target, testKey, 0o600)
		link := KeyPaths(env)[0]
		if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		key, src, _, err := ResolveKey(env, "")
		if err != nil || key.Reveal() != testKey || src != link {
			t.Errorf("key ok=%v from %q, %v", key.Reveal() == testKey, src, err)
		}
	})
	for _, explicit := range []bool{true, false} {
		name := map[bool]string{true: "explicit /dev/null", false: "default path linked to /dev/null"}[explicit]
		t.Run(name, func(t *testing.T) {
			env := fakeEnv(t, nil)
			path := os.DevNull
			flag := path
			if !explicit {
				path, flag = KeyPaths(env)[0], ""
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(os.DevNull, path); err != nil {
					t.Fatal(err)
				}
			}
			_, _, _, err := ResolveKey(env, flag)
			if !errors.Is(err, ErrKeyFile) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("err = %v, want %s: not a regular file", err, path)
			}
		})
	}
}
