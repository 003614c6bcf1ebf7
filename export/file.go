package export

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxTries bounds the numbered names Create tries: a folder holding a
// thousand exports of one range is more likely a loop than a user.
const maxTries = 1000

// Create makes a new file for an export in dir, named name ("x.csv"), or
// "x-2.csv", "x-3.csv" … when that exists: an export never overwrites
// anything. The file is created with O_EXCL and O_NOFOLLOW (where the
// system has it), so neither an existing file nor a symlink planted under
// the name is written through, and mode 0600: charges are private. It
// returns the file and its path.
func Create(dir, name string) (*os.File, string, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for n := 1; n <= maxTries; n++ {
		p := filepath.Join(dir, name)
		if n > 1 {
			p = filepath.Join(dir, stem+"-"+strconv.Itoa(n)+ext)
		}
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
		if err == nil {
			return f, p, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, "", err
		}
	}
	return nil, "", errors.New("no free name: " + filepath.Join(dir, name) + " and " + strconv.Itoa(maxTries-1) + " numbered ones exist")
}
