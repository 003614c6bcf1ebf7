package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// State is what the dashboard remembers between runs: the Charges
// filters and sort the user last chose. The values are the screen's to
// judge; a zero field means "not remembered".
type State struct {
	// Range is a preset name ("7d") or a custom range as typed
	// ("2026-10-01..2026-10-31", or open, "2026-11-01..").
	Range string `toml:"range,omitempty"`
	// Types are the contract types shown; empty is every type.
	Types []string `toml:"types,omitempty"`
	// Format is "table" or "tree".
	Format string `toml:"format,omitempty"`
	// Order is "newest" or "oldest" (first).
	Order string `toml:"order,omitempty"`
	// Sort is "server", "amount" or "duration".
	Sort string `toml:"sort,omitempty"`
}

// maxStateFile caps the state file read; a real one is under 200 bytes.
const maxStateFile = 64 << 10

// StatePath returns the state file, $XDG_STATE_HOME/vastdash/state.toml
// (default ~/.local/state/vastdash/state.toml), or "" when there is no
// home to put it in.
func StatePath(env Env) string {
	if x := env.getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "vastdash", "state.toml")
	}
	if env.HomeDir == "" {
		return ""
	}
	return filepath.Join(env.HomeDir, ".local", "state", "vastdash", "state.toml")
}

// StateStore reads and writes the state file. Saves may come from
// concurrent commands: each is numbered when it is made (Saver), and one
// made before the last written is dropped, so an older state never
// replaces a newer one.
type StateStore struct {
	path string

	mu      sync.Mutex
	made    uint64 // the number of the last Saver made
	written uint64 // the number of the last state written
}

// NewStateStore returns the store of path; "" stores nothing.
func NewStateStore(path string) *StateStore { return &StateStore{path: path} }

// Path is the state file's path.
func (s *StateStore) Path() string { return s.path }

// Load reads the state file. A missing file is the zero State and no
// error. Anything else that is not a state file of the user's own — a
// link, not a regular file, someone else's, too large, not TOML, unknown
// keys, wrong types — is an error of one line naming the file; the caller
// ignores the file and says so. Load never fails the program.
func (s *StateStore) Load() (State, error) {
	if s == nil || s.path == "" {
		return State{}, nil
	}
	data, err := readOwn(s.path, maxStateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, nil
	}
	if err != nil {
		return State{}, stateError(s.path, err.Error())
	}
	var st State
	md, err := toml.Decode(string(data), &st)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			// Said as a settings file's syntax is, never in the parser's
			// words ("expected value but found \"nstance\" instead").
			return State{}, stateError(fmt.Sprintf("%s:%d", s.path, pe.Position.Line), syntaxProblem(pe)+"; delete the file to start from the defaults")
		}
		return State{}, stateError(s.path, err.Error())
	}
	if und := md.Undecoded(); len(und) > 0 {
		return State{}, stateError(s.path, fmt.Sprintf("unknown key %q", und[0].String()))
	}
	return st, nil
}

// Saver returns a function that writes st, numbered now: call Saver in
// order (in the model's Update) and the function from anywhere. A state
// older than the last one written is not written.
func (s *StateStore) Saver(st State) func() error {
	if s == nil || s.path == "" {
		return func() error { return nil }
	}
	s.mu.Lock()
	s.made++
	n := s.made
	s.mu.Unlock()
	st.Types = append([]string(nil), st.Types...) // the caller's slice may change
	return func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if n <= s.written {
			return nil // a newer state is on disk already
		}
		var b bytes.Buffer
		b.WriteString("# The Charges filters vastdash last showed. It writes this file itself;\n# delete it to start from the defaults.\n")
		if err := toml.NewEncoder(&b).Encode(st); err != nil {
			return stateError(s.path, err.Error())
		}
		// WriteFile renames a temporary file over the path: a link there is
		// replaced, never followed, and the file is 0600.
		if err := WriteFile(s.path, b.Bytes()); err != nil {
			return stateError(s.path, "cannot write: "+describeErr(err))
		}
		s.written = n
		return nil
	}
}

// readOwn reads at most limit bytes of path, which must be a regular file
// of the user's own, not reached through a link.
func readOwn(path string, limit int64) ([]byte, error) {
	f, err := OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		if info, lerr := os.Lstat(path); lerr == nil && info.Mode()&fs.ModeSymlink != 0 {
			return nil, errors.New("is a symbolic link")
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, errors.New(describeErr(err))
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	switch {
	case err != nil:
		return nil, errors.New(describeErr(err))
	case !info.Mode().IsRegular():
		return nil, errNotRegular
	}
	if why := NotOwnOnly(info); why != "" {
		return nil, errors.New(why)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, errors.New(describeErr(err))
	}
	if int64(len(data)) > limit {
		return nil, errTooLarge
	}
	return data, nil
}

// ErrState is wrapped by every state file error.
var ErrState = errors.New("state file")

// stateError is "LOC: msg" on one line, wrapping ErrState.
func stateError(loc, msg string) error {
	return &stateErr{printable(loc) + ": " + strings.TrimPrefix(oneLine(msg), "toml: ")}
}

type stateErr struct{ msg string }

func (e *stateErr) Error() string { return e.msg }
func (e *stateErr) Unwrap() error { return ErrState }
