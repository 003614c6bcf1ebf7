//go:build !unix

package config

import (
	"io/fs"
	"os"
)

// openFlags and noFollow have no portable counterpart here: opening a named
// pipe does not wait for a writer, and the checks after opening still
// require a regular file.
const (
	openFlags = 0
	noFollow  = 0
)

// fileOwner: ownership and link counts are not exposed portably.
func fileOwner(fs.FileInfo) (uid int, links uint64, ok bool) { return 0, 0, false }

// writable: permissions are not checked ahead here; the write says.
func writable(string) error { return nil }

// setBlocking: nothing was made non-blocking.
func setBlocking(*os.File) error { return nil }
