//go:build unix

package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// A FIFO nobody writes to as the settings file, named with --config or at
// the default path, used to hang the open forever; it must be a prompt
// one-line error naming the file.
func TestLoadSettingsFIFONeverHangs(t *testing.T) {
	for _, explicit := range []bool{true, false} {
		t.Run(map[bool]string{true: "explicit", false: "default"}[explicit], func(t *testing.T) {
			env := fakeEnv(t, nil)
			fifo, flag := SettingsPath(env), ""
			if explicit {
				fifo = filepath.Join(t.TempDir(), "my.toml")
				flag = fifo
			}
			mkfifo(t, fifo)
			var err error
			returnsPromptly(t, fifo, func() { _, err = LoadSettings(env, flag) })
			if !errors.Is(err, ErrSettings) {
				t.Fatalf("err = %v, want an ErrSettings", err)
			}
			if msg := err.Error(); !strings.Contains(msg, fifo) || !strings.Contains(msg, "not a regular file") {
				t.Errorf("%q does not name %s and say it is not a regular file", msg, fifo)
			}
			assertSafeError(t, err)
		})
	}
}

// --config <(...) names a pipe with a writer, like --api-key-file <(...).
func TestLoadSettingsFromPipe(t *testing.T) {
	p := pipeFrom(t, "theme = \"dark\"\n")
	s, err := LoadSettings(fakeEnv(t, nil), p)
	if err != nil || s.Theme != "dark" {
		t.Errorf("got %+v, %v", s, err)
	}
}
