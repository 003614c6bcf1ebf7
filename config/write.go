package config

import (
	"os"
	"path/filepath"
)

// WriteFile writes data to path so that only the owner can read it: missing
// parent directories are created 0700 and the file ends up 0600, also when it
// already existed with looser permissions. The write is atomic (temporary
// file in the same directory, then rename), so a crash never leaves a
// half-written key or settings file.
func WriteFile(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// CreateTemp makes the file 0600 from the start, so the data is never
	// readable by others, even briefly.
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	// Explicit chmod: the mode must not depend on how CreateTemp or the
	// umask behave on this system.
	if err = tmp.Chmod(0o600); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// OpenPrivate opens path for appending (for the --debug log), creating it
// and its parent directories if needed, and makes sure it is 0600 even if it
// already existed with looser permissions. The caller closes the file.
func OpenPrivate(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}
