//go:build unix

package export

import "syscall"

// oNoFollow refuses to open a symlink as the file created.
const oNoFollow = syscall.O_NOFOLLOW
