package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes data to path so that only the owner can read it: missing
// parent directories are created 0700 and the file ends up 0600, also when it
// already existed with looser permissions. The write is atomic (temporary
// file in the same directory, then rename), so a crash never leaves a
// half-written key or settings file.
func WriteFile(path string, data []byte) error {
	return writePrivate(path, data, os.Rename)
}

// writePrivate writes data to a new 0600 temporary file beside path
// (creating missing parent directories 0700) and hands it to place, which
// puts it at path (a rename, or a link that refuses to replace). The
// temporary file is gone afterwards, whatever happened.
func writePrivate(path string, data []byte, place func(tmp, path string) error) (err error) {
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
		}
		// After a rename the name is already gone; after a link it is a
		// second name of the file.
		_ = os.Remove(tmp.Name())
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
	return place(tmp.Name(), path)
}

// OpenPrivate opens path for appending (the --debug log). A missing file is
// created 0600, with any missing parent directories 0700. An existing one is
// used only if it is a regular file of the user's, with no other hard links,
// that group and others can neither read nor write; its mode is never
// changed, nor is anything else the program did not create. Anything else
// at path (a link, device, FIFO, directory, another user's file) is refused
// without waiting or writing. Errors read "PATH: reason" on one line, so
// the caller can put the flag's name in front. The caller closes the file.
func OpenPrivate(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, privateError(path, err)
	}
	// O_EXCL creates a file that is certainly new, so certainly ours; it
	// also fails on any symbolic link, dangling or not, instead of creating
	// the link's target.
	const flags = os.O_WRONLY | os.O_APPEND | openFlags | noFollow
	f, err := os.OpenFile(path, flags|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		// Ours: give it exactly 0600 whatever the umask took away, so
		// the user can read the log they asked for.
		if err := f.Chmod(0o600); err != nil {
			_ = f.Close()
			return nil, privateError(path, err)
		}
		return f, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, privateError(path, err)
	}
	// Something is there. Open it without creating or following it, then
	// judge what was opened, not what a look at the path found earlier, so
	// the path cannot be swapped in between.
	f, err = os.OpenFile(path, flags, 0)
	if err != nil {
		return nil, privateError(path, err)
	}
	info, err := f.Stat()
	reason := ""
	switch {
	case err != nil:
		reason = describeErr(err)
	case !info.Mode().IsRegular():
		err = errNotRegular
		reason = err.Error()
	default:
		reason = NotOwnOnly(info)
		// Refused, not warned about or tightened: the log holds the
		// account's details, and a warning would come after they were
		// written where others can read them; tightening would change a
		// file the user made, perhaps for a reason.
		if reason == "" && !isWindows && info.Mode().Perm()&0o077 != 0 {
			reason = fmt.Sprintf("other users can read or write it (mode %04o); chmod 600 it or name a new file", info.Mode().Perm())
		}
	}
	if reason != "" {
		_ = f.Close()
		return nil, &pathError{path: path, reason: reason, err: err}
	}
	return f, nil
}

// pathError is OpenPrivate's one-line "PATH: reason", wrapping the system
// call's error, if any, for errors.Is.
type pathError struct {
	path, reason string
	err          error
}

func (e *pathError) Error() string { return printable(e.path) + ": " + e.reason }
func (e *pathError) Unwrap() error { return e.err }

// privateError is OpenPrivate's error for a failed system call. The path is
// looked at again only to word the reason: the errno O_NOFOLLOW gives for a
// link differs by system and reads "too many levels of symbolic links" on
// Linux, and a FIFO with no reader fails with "no such device or address".
func privateError(path string, err error) error {
	reason := describeErr(err)
	if info, lerr := os.Lstat(path); lerr == nil {
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			reason = "is a symbolic link"
		case info.IsDir():
			reason = "is a directory"
		case !info.Mode().IsRegular():
			reason = errNotRegular.Error()
		}
	}
	return &pathError{path: path, reason: reason, err: err}
}
