package config

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestResolveKeyOrder(t *testing.T) {
	// Each source holds a different key, so the result shows which one won.
	type setup struct {
		explicit, env, xdgFile, legacy bool
		customXDG                      bool
	}
	tests := []struct {
		name       string
		setup      setup
		wantKey    string
		wantSource string // "explicit", "env", "xdg", "legacy"
	}{
		{"explicit beats everything", setup{explicit: true, env: true, xdgFile: true, legacy: true}, "k-explicit", "explicit"},
		{"env beats files", setup{env: true, xdgFile: true, legacy: true}, "k-env", "env"},
		{"xdg file beats legacy", setup{xdgFile: true, legacy: true}, "k-xdg", "xdg"},
		{"legacy file last", setup{legacy: true}, "k-legacy", "legacy"},
		{"custom XDG_CONFIG_HOME", setup{xdgFile: true, legacy: true, customXDG: true}, "k-xdg", "xdg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{}
			env := fakeEnv(t, vars)
			xdgHome := filepath.Join(env.HomeDir, ".config")
			if tt.setup.customXDG {
				xdgHome = filepath.Join(t.TempDir(), "cfg")
				vars["XDG_CONFIG_HOME"] = xdgHome
				// A file in the default place must now be ignored.
				writeTestFile(t, filepath.Join(env.HomeDir, ".config", "vastai", "vast_api_key"), "k-wrong", 0o600)
			}
			paths := map[string]string{
				"explicit": filepath.Join(t.TempDir(), "my key"),
				"env":      "env VAST_API_KEY",
				"xdg":      filepath.Join(xdgHome, "vastai", "vast_api_key"),
				"legacy":   filepath.Join(env.HomeDir, ".vast_api_key"),
			}
			flag := ""
			if tt.setup.explicit {
				writeTestFile(t, paths["explicit"], "k-explicit\n", 0o600)
				flag = paths["explicit"]
			}
			if tt.setup.env {
				vars["VAST_API_KEY"] = "k-env"
			}
			if tt.setup.xdgFile {
				writeTestFile(t, paths["xdg"], "k-xdg", 0o600)
			}
			if tt.setup.legacy {
				writeTestFile(t, paths["legacy"], "k-legacy", 0o600)
			}
			key, src, warns, err := ResolveKey(env, flag)
			if err != nil {
				t.Fatal(err)
			}
			if key.Reveal() != tt.wantKey || src != paths[tt.wantSource] {
				t.Errorf("got key %q from %q, want %q from %q", key.Reveal(), src, tt.wantKey, paths[tt.wantSource])
			}
			if len(warns) != 0 {
				t.Errorf("unexpected warnings %q", warns)
			}
		})
	}
}

func TestResolveKeyTrimsWhitespace(t *testing.T) {
	for _, content := range []string{testKey + "\n", "  " + testKey + " \r\n\n", "\t" + testKey} {
		env := fakeEnv(t, map[string]string{"VAST_API_KEY": content})
		key, _, _, err := ResolveKey(env, "")
		if err != nil || key.Reveal() != testKey {
			t.Errorf("env %q: got %q, %v", content, key.Reveal(), err)
		}
		env = fakeEnv(t, nil)
		p := filepath.Join(env.HomeDir, ".vast_api_key")
		writeTestFile(t, p, content, 0o600)
		key, _, _, err = ResolveKey(env, "")
		if err != nil || key.Reveal() != testKey {
			t.Errorf("file %q: got %q, %v", content, key.Reveal(), err)
		}
	}
}

func TestResolveKeyBlankEnvIsUnset(t *testing.T) {
	env := fakeEnv(t, map[string]string{"VAST_API_KEY": "  \n"})
	p := filepath.Join(env.HomeDir, ".vast_api_key")
	writeTestFile(t, p, testKey, 0o600)
	key, src, _, err := ResolveKey(env, "")
	if err != nil || key.Reveal() != testKey || src != p {
		t.Errorf("got %q from %q, %v; want the file's key", key.Reveal(), src, err)
	}
}

func TestResolveKeyRelativeXDGIgnored(t *testing.T) {
	env := fakeEnv(t, map[string]string{"XDG_CONFIG_HOME": "relative/dir"})
	p := filepath.Join(env.HomeDir, ".config", "vastai", "vast_api_key")
	writeTestFile(t, p, testKey, 0o600)
	_, src, _, err := ResolveKey(env, "")
	if err != nil || src != p {
		t.Errorf("source %q, %v; want %q", src, err, p)
	}
}

func TestResolveKeyExplicitFileErrors(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "empty"), " \n\t\n", 0o600)
	writeTestFile(t, filepath.Join(dir, "huge"), strings.Repeat("a", maxKeyFile+1), 0o600)
	writeTestFile(t, filepath.Join(dir, "twolines"), testKey+"\n# my key\n", 0o600)
	tests := []struct {
		name, file string
		open       func(string) (fs.File, error)
		want       string
		sentinel   error
	}{
		{"missing", "nope", nil, "no such file", ErrKeyFile},
		{"empty", "empty", nil, "is empty", ErrKeyFile},
		{"directory", ".", nil, "is a directory", ErrKeyFile},
		{"too large", "huge", nil, "too large", ErrKeyFile},
		// Tests may run as root, where chmod 000 does not stop reads.
		{"unreadable", "secret", func(string) (fs.File, error) { return nil, &fs.PathError{Op: "open", Path: "x", Err: fs.ErrPermission} }, "permission denied", ErrKeyFile},
		{"inner whitespace", "twolines", nil, "single word", ErrBadKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := fakeEnv(t, map[string]string{"VAST_API_KEY": testKey})
			env.Open = tt.open
			// A fallback key exists everywhere: an explicit file must not fall through to it.
			writeTestFile(t, filepath.Join(env.HomeDir, ".vast_api_key"), testKey, 0o600)
			path := filepath.Join(dir, tt.file)
			key, _, _, err := ResolveKey(env, path)
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("err = %v, want %v", err, tt.sentinel)
			}
			if key != "" {
				t.Error("a key was returned along with the error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.want) {
				t.Errorf("%q does not say %q", msg, tt.want)
			}
			if tt.sentinel == ErrKeyFile && !strings.Contains(msg, path) {
				t.Errorf("%q does not name %s", msg, path)
			}
			assertSafeError(t, err)
		})
	}
}

func TestResolveKeyBadKeyInEnv(t *testing.T) {
	env := fakeEnv(t, map[string]string{"VAST_API_KEY": testKey + " extra"})
	_, _, _, err := ResolveKey(env, "")
	if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), "VAST_API_KEY") {
		t.Fatalf("err = %v", err)
	}
	assertSafeError(t, err)
}

func TestResolveKeyImplicitFiles(t *testing.T) {
	t.Run("empty xdg file is skipped with a warning", func(t *testing.T) {
		env := fakeEnv(t, nil)
		xdg := filepath.Join(env.HomeDir, ".config", "vastai", "vast_api_key")
		legacy := filepath.Join(env.HomeDir, ".vast_api_key")
		writeTestFile(t, xdg, "\n", 0o600)
		writeTestFile(t, legacy, testKey, 0o600)
		key, src, warns, err := ResolveKey(env, "")
		if err != nil || key.Reveal() != testKey || src != legacy {
			t.Fatalf("got %q from %q, %v", key.Reveal(), src, err)
		}
		if len(warns) != 1 || !strings.Contains(warns[0], xdg) || !strings.Contains(warns[0], "empty") {
			t.Errorf("warnings %q", warns)
		}
	})
	t.Run("unreadable xdg file is an error, not a fall-through", func(t *testing.T) {
		env := fakeEnv(t, nil)
		xdg := filepath.Join(env.HomeDir, ".config", "vastai", "vast_api_key")
		writeTestFile(t, filepath.Join(env.HomeDir, ".vast_api_key"), testKey, 0o600)
		env.Open = func(name string) (fs.File, error) {
			if name == xdg {
				return nil, fs.ErrPermission
			}
			return nil, fs.ErrNotExist
		}
		_, _, _, err := ResolveKey(env, "")
		if !errors.Is(err, ErrKeyFile) || !strings.Contains(err.Error(), xdg) || !strings.Contains(err.Error(), "permission denied") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestResolveKeyPermissionWarning(t *testing.T) {
	tests := []struct {
		mode     fs.FileMode
		explicit bool
		warn     bool
	}{
		{0o600, false, false},
		{0o400, false, false},
		{0o644, false, true},
		{0o640, false, true},
		{0o604, true, true},
	}
	if isWindows {
		t.Skip("mode bits are not meaningful on Windows")
	}
	for _, tt := range tests {
		env := fakeEnv(t, nil)
		p := filepath.Join(env.HomeDir, ".config", "vastai", "vast_api_key")
		flag := ""
		if tt.explicit {
			p = filepath.Join(t.TempDir(), "key")
			flag = p
		}
		writeTestFile(t, p, testKey, tt.mode)
		key, _, warns, err := ResolveKey(env, flag)
		if err != nil || key.Reveal() != testKey {
			t.Fatalf("mode %o: %v", tt.mode, err)
		}
		want := []string(nil)
		if tt.warn {
			want = []string{"warning: " + p + " is readable by other users; run: chmod 600 " + p}
		}
		if !slices.Equal(warns, want) {
			t.Errorf("mode %o explicit=%v: warnings %q, want %q", tt.mode, tt.explicit, warns, want)
		}
	}
}

func TestPermWarningQuotesOddPaths(t *testing.T) {
	got := permWarning("/home/u/my key's")
	want := `warning: /home/u/my key's is readable by other users; run: chmod 600 '/home/u/my key'\''s'`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestResolveKeyNoKey(t *testing.T) {
	t.Run("default locations", func(t *testing.T) {
		env := fakeEnv(t, nil)
		_, _, _, err := ResolveKey(env, "")
		if !errors.Is(err, ErrNoKey) {
			t.Fatalf("err = %v, want ErrNoKey", err)
		}
		want := "no API key: set VAST_API_KEY, write it to ~/.config/vastai/vast_api_key, pass --api-key-file, or try --demo"
		if err.Error() != want {
			t.Errorf("got  %s\nwant %s", err, want)
		}
		assertSafeError(t, err)
	})
	t.Run("custom XDG_CONFIG_HOME is named", func(t *testing.T) {
		env := fakeEnv(t, map[string]string{"XDG_CONFIG_HOME": "/srv/cfg"})
		_, _, _, err := ResolveKey(env, "")
		if !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), "/srv/cfg/vastai/vast_api_key") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no home directory", func(t *testing.T) {
		env := Env{Getenv: func(string) string { return "" }}
		_, _, _, err := ResolveKey(env, "")
		if !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), "--demo") {
			t.Fatalf("err = %v", err)
		}
	})
}
