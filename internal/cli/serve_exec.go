package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// errNoServeProgram says where vastdash-serve must be.
var errNoServeProgram = errors.New("serve needs the " + ServeProgram + " program beside vastdash or on PATH; build it with `go build -o DIR ./cmd/" + ServeProgram + "` (see Monitoring in the README)")

// serveProgram finds vastdash-serve: beside this program first (the two
// are built and installed together), else on PATH.
func serveProgram() (string, error) {
	name := ServeProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		if self, err = filepath.EvalSymlinks(self); err == nil {
			p := filepath.Join(filepath.Dir(self), name)
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
				return p, nil
			}
		}
	}
	if p, err := exec.LookPath(ServeProgram); err == nil {
		return p, nil
	}
	return "", errNoServeProgram
}
