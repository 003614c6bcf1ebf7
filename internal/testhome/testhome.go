// Package testhome keeps a test run out of the user's own folders.
//
// go test runs in the user's environment: a test that runs a command, or
// the built binary, with the HOME and XDG_* it inherited reads the user's
// settings and writes the user's ledger, state file or key. A test binary's
// TestMain wraps its tests in Wrap: for the whole run HOME and every XDG
// base directory point at an empty folder that stands in for the user's,
// the user's key and API address are unset, and a run that leaves anything
// in that folder fails, naming what was written — there a test that forgot
// folders of its own would have written into the user's. Env gives a child
// process folders of the test's own. Only tests import this package.
package testhome

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Folders are the variables that name a user's folders, each with where it
// goes under a home of a test's own (HOME is the home itself).
var Folders = []struct{ Name, Under string }{
	{"HOME", "."},
	{"XDG_CONFIG_HOME", ".config"},
	{"XDG_DATA_HOME", ".local/share"},
	{"XDG_STATE_HOME", ".local/state"},
	{"XDG_CACHE_HOME", ".cache"},
}

// Account are the variables that would hand a test the user's account: the
// API key and the API address.
var Account = []string{"VAST_API_KEY", "VAST_URL"}

// original is the environment the test binary started with, kept for Go's
// own tools (see Original); nil until Wrap runs.
var original []string

// Original is the environment the test binary started with, before Wrap
// replaced the user's folders: what `go build` needs to find the user's build
// and module caches (without them it would rebuild everything, into the
// stand-in folder). Give it to Go's tools only, never to vastdash.
func Original() []string {
	if original == nil {
		return os.Environ()
	}
	return slices.Clone(original)
}

// Env is the current environment for a child process with HOME and every
// XDG base directory under home, and neither the API key nor the API
// address; extra ("K=V") comes last, so it wins where it names one again.
func Env(home string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !isFolder(name) && !slices.Contains(Account, name) {
			env = append(env, kv)
		}
	}
	env = append(env, Vars(home)...)
	return append(env, extra...)
}

// Vars are HOME and every XDG base directory under home ("K=V"), for a
// child process whose environment a test writes whole.
func Vars(home string) []string {
	var vars []string
	for _, f := range Folders {
		vars = append(vars, f.Name+"="+filepath.Join(home, f.Under))
	}
	return vars
}

func isFolder(name string) bool {
	for _, f := range Folders {
		if f.Name == name {
			return true
		}
	}
	return false
}

// M is what a TestMain runs: *testing.M.
type M interface{ Run() int }

// Wrap returns m whose Run gives the tests a stand-in for the user's folders
// (see the package comment) and fails the run (exit 1) when the tests left
// anything there, saying what on stderr. Use it as
// goleak.VerifyTestMain(testhome.Wrap(m)).
func Wrap(m M) M { return wrapped{m: m, report: os.Stderr} }

type wrapped struct {
	m      M
	report io.Writer
}

func (w wrapped) Run() int {
	original = os.Environ()
	dir, err := os.MkdirTemp("", "vastdash-user-folders-")
	if err != nil {
		fmt.Fprintf(w.report, "testhome: no folder to stand in for the user's: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	restore := setenv(dir)
	defer restore()
	code := w.m.Run()
	if left := Leftovers(dir); len(left) > 0 {
		fmt.Fprintf(w.report, "testhome: the tests wrote into the user's own folders (HOME, XDG_*): %s; "+
			"give such a test folders of its own (t.TempDir() in HOME and XDG_*, testhome.Env)\n",
			strings.Join(left, ", "))
		return 1
	}
	return code
}

// setenv points the folders under dir and unsets the account's variables;
// what it returns puts the environment back.
func setenv(dir string) func() {
	type was struct {
		v  string
		ok bool
	}
	saved := map[string]was{}
	keep := func(name string) {
		v, ok := os.LookupEnv(name)
		saved[name] = was{v, ok}
	}
	for _, f := range Folders {
		keep(f.Name)
		os.Setenv(f.Name, filepath.Join(dir, f.Under))
	}
	for _, name := range Account {
		keep(name)
		os.Unsetenv(name)
	}
	return func() {
		for name, w := range saved {
			if w.ok {
				os.Setenv(name, w.v)
			} else {
				os.Unsetenv(name)
			}
		}
	}
}

// Leftovers lists what is in dir, relative to it, folders included: nothing
// when it is empty or gone.
func Leftovers(dir string) []string {
	var left []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path != dir {
				left = append(left, path)
			}
			return nil
		}
		if path != dir {
			rel, _ := filepath.Rel(dir, path)
			left = append(left, rel)
		}
		return nil
	})
	return left
}
