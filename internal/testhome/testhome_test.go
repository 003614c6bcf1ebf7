package testhome

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// userEnv makes the process look like a user's shell: folders of their own
// and a key in the environment.
func userEnv(t *testing.T) string {
	t.Helper()
	user := filepath.Join(t.TempDir(), "user")
	for _, f := range Folders {
		t.Setenv(f.Name, filepath.Join(user, f.Under))
	}
	t.Setenv("VAST_API_KEY", "users-real-key")
	t.Setenv("VAST_URL", "https://console.vast.ai")
	return user
}

// A child process gets every folder under the test's home and none of the
// user's, nor the user's key; what the test adds wins.
func TestEnvGivesFoldersOfTheTestsOwn(t *testing.T) {
	user := userEnv(t)
	home := t.TempDir()
	env := Env(home, "VAST_API_KEY=test-key", "XDG_CONFIG_HOME="+home)
	last := map[string]string{}
	for _, kv := range env {
		name, v, _ := strings.Cut(kv, "=")
		last[name] = v
		if strings.HasPrefix(v, user) || v == "users-real-key" {
			t.Errorf("the child would see the user's %s", kv)
		}
	}
	for _, f := range Folders {
		if v := last[f.Name]; !strings.HasPrefix(v, home) {
			t.Errorf("%s=%q, want a folder under %s", f.Name, v, home)
		}
	}
	if last["XDG_DATA_HOME"] != filepath.Join(home, ".local/share") {
		t.Errorf("XDG_DATA_HOME=%q", last["XDG_DATA_HOME"])
	}
	if last["VAST_API_KEY"] != "test-key" || last["XDG_CONFIG_HOME"] != home {
		t.Errorf("what the test added does not win: key %q, config %q", last["VAST_API_KEY"], last["XDG_CONFIG_HOME"])
	}
	if _, ok := last["VAST_URL"]; ok {
		t.Error("the user's VAST_URL reaches the child")
	}
}

// fakeM stands for a package's tests: it records what it saw, and may write
// where a test that forgot its own folders would.
type fakeM struct {
	write      bool
	sawHome    string
	sawKey     bool
	sawDataDir string
}

func (m *fakeM) Run() int {
	m.sawHome = os.Getenv("HOME")
	_, m.sawKey = os.LookupEnv("VAST_API_KEY")
	m.sawDataDir = os.Getenv("XDG_DATA_HOME")
	if m.write {
		dir := filepath.Join(m.sawDataDir, "vastdash")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			panic(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ledger-demo.db"), nil, 0o600); err != nil {
			panic(err)
		}
	}
	return 0
}

// A run whose tests write into the folders standing for the user's fails,
// naming the file; one that writes nothing passes; neither sees the user's
// folders or key, and the environment is the user's again afterwards.
func TestWrapFailsARunThatWritesTheUsersFolders(t *testing.T) {
	user := userEnv(t)
	for _, write := range []bool{false, true} {
		m := &fakeM{write: write}
		var report strings.Builder
		code := wrapped{m: m, report: &report}.Run()
		if m.sawHome == "" || strings.HasPrefix(m.sawHome, user) || strings.HasPrefix(m.sawDataDir, user) || m.sawKey {
			t.Errorf("the tests saw HOME=%q XDG_DATA_HOME=%q, key set %v: the user's", m.sawHome, m.sawDataDir, m.sawKey)
		}
		if write && (code == 0 || !strings.Contains(report.String(), "ledger-demo.db")) {
			t.Errorf("a run that wrote a ledger into the user's folders: exit %d, report %q", code, report.String())
		}
		if !write && (code != 0 || report.Len() != 0) {
			t.Errorf("a run that wrote nothing: exit %d, report %q", code, report.String())
		}
		if _, err := os.Stat(m.sawHome); !os.IsNotExist(err) {
			t.Errorf("the stand-in folder %s is left behind (%v)", m.sawHome, err)
		}
		if os.Getenv("HOME") != user || os.Getenv("VAST_API_KEY") != "users-real-key" {
			t.Errorf("the environment is not put back: HOME=%q", os.Getenv("HOME"))
		}
		if got := Original(); !contains(got, "HOME="+user) {
			t.Error("Original() does not hold the environment the run started with")
		}
	}
}

func contains(env []string, kv string) bool {
	for _, e := range env {
		if e == kv {
			return true
		}
	}
	return false
}
