package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Env is everything this package reads from the outside world. Tests build
// one with a map-backed Getenv and a temporary HomeDir; a nil Getenv or Open
// falls back to the real process environment and file system.
type Env struct {
	// Getenv looks up an environment variable; "" means unset.
	Getenv func(key string) string
	// HomeDir is the user's home directory; "" disables the ~ locations.
	HomeDir string
	// Open opens a file for reading. Key and settings files are read through
	// it, with a size cap, and their type and permissions are taken from the
	// opened file so what is checked is the file actually read. It must not
	// wait for the other end of a FIFO; the default does not.
	Open func(name string) (fs.File, error)
}

// DefaultEnv returns the Env of the running process.
func DefaultEnv() Env {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "" // no home: only env vars and explicit paths remain usable
	}
	return Env{
		Getenv:  os.Getenv,
		HomeDir: home,
		Open:    openRead,
	}
}

func (e Env) getenv(key string) string {
	if e.Getenv == nil {
		return os.Getenv(key)
	}
	return e.Getenv(key)
}

func (e Env) open(name string) (fs.File, error) {
	if e.Open == nil {
		return openRead(name)
	}
	return e.Open(name)
}

// openRead opens name for reading without waiting on a FIFO: a plain open
// of one that nothing writes to blocks until something does, possibly
// forever, before any check could run. Links are followed, as people
// symlink their key files; the caller judges the file that was opened.
func openRead(name string) (fs.File, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && info.Mode()&fs.ModeNamedPipe != 0 {
		err = setBlocking(f)
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// configHome returns $XDG_CONFIG_HOME, or ~/.config when it is unset. Per the
// XDG spec a relative value is invalid and ignored. "" means neither is known.
func (e Env) configHome() string {
	if x := e.getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return x
	}
	if e.HomeDir == "" {
		return ""
	}
	return filepath.Join(e.HomeDir, ".config")
}

// tilde shortens a path under the home directory to ~/..., for messages.
func (e Env) tilde(p string) string {
	if e.HomeDir == "" {
		return p
	}
	rel, err := filepath.Rel(e.HomeDir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return p
	}
	return "~" + string(filepath.Separator) + rel
}

// errTooLarge reports a file over the read cap.
var errTooLarge = errors.New("file too large")

// readCapped reads at most limit bytes of name and returns its info too.
// name must be a regular file. With pipeOK (a path the user named) it may
// also be a pipe, such as --api-key-file <(pass show vast), that has a
// writer: one nothing writes to reads as end of file at once, and is
// refused rather than taken for an empty file. The cap guards against a
// huge file or an endless pipe.
func (e Env) readCapped(name string, limit int64, pipeOK bool) ([]byte, fs.FileInfo, error) {
	f, err := e.open(name)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	pipe := info.Mode()&fs.ModeNamedPipe != 0
	switch {
	case info.IsDir():
		return nil, info, errIsDir
	case !info.Mode().IsRegular() && !(pipeOK && pipe):
		// Devices too: /dev/tty would wait for typing, /dev/zero never ends.
		return nil, info, errNotRegular
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, info, err
	}
	if int64(len(data)) > limit {
		return nil, info, errTooLarge
	}
	if pipe && len(data) == 0 {
		return nil, info, errEmptyPipe
	}
	return data, info, nil
}

var (
	errIsDir      = errors.New("is a directory")
	errNotRegular = errors.New("not a regular file")
	errEmptyPipe  = errors.New("not a regular file, and nothing was written to the pipe")
)

// describeErr turns a file error into a short reason that never repeats the
// path (the caller's message already names it).
func describeErr(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, errIsDir):
		return "is a directory"
	case errors.Is(err, errTooLarge):
		return "file too large"
	case errors.Is(err, errNotRegular), errors.Is(err, errEmptyPipe):
		return err.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return oneLine(pe.Err.Error())
	}
	return oneLine(err.Error())
}

// tooOpen reports whether a file's mode lets group or others read or write
// it. Pipes (--api-key-file <(...)) are not judged, nor is anything on
// Windows, where the mode bits are synthesised.
func tooOpen(info fs.FileInfo) bool {
	return !isWindows && info.Mode().IsRegular() && info.Mode().Perm()&0o077 != 0
}

// permWarning is the message for a key or settings file other users can read.
func permWarning(path string) string {
	return fmt.Sprintf("warning: %s is readable by other users; run: chmod 600 %s", printable(path), shellQuote(path))
}

// shellQuote quotes p for a POSIX shell when it holds anything beyond a
// conservative safe set, so the suggested chmod command can be pasted as is.
func shellQuote(p string) string {
	safe := p != ""
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+:,@%=", r)) {
			safe = false
			break
		}
	}
	if safe {
		return p
	}
	return "'" + strings.ReplaceAll(printable(p), "'", `'\''`) + "'"
}

// isWindows: Unix permission bits are not meaningful there.
const isWindows = runtime.GOOS == "windows"
