//go:build unix

package config

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// --api-key-file <(pass show vast) hands us a pipe: it must be read (not
// rejected as "not a regular file") and not judged by its mode.
func TestResolveKeyFromPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() {
		// Blocks until ResolveKey opens the other end.
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			done <- err
			return
		}
		_, err = w.WriteString(testKey + "\n")
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	key, src, warns, err := ResolveKey(fakeEnv(t, nil), fifo)
	if err != nil {
		// Unblock the writer so the goroutine ends before the test does.
		if r, oerr := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); oerr == nil {
			defer r.Close()
		}
		t.Errorf("ResolveKey: %v", err)
	}
	if werr := <-done; werr != nil {
		t.Fatal(werr)
	}
	if key.Reveal() != testKey || src != fifo || len(warns) != 0 {
		t.Errorf("got key ok=%v from %q, warnings %q", key.Reveal() == testKey, src, warns)
	}
}
