package config

import (
	"fmt"
	"io/fs"
	"os"
)

// OpenNoFollow opens path as the program opens every file of its own (the
// ledger's too): never through a symbolic link in its last component,
// without waiting at a FIFO for a writer, never taking a terminal as the
// controlling one. flag and perm are os.OpenFile's; the caller still
// judges what was opened (NotOwnOnly).
func OpenNoFollow(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|openFlags|noFollow, perm)
}

// NotOwnOnly says why a file opened for writing may be someone else's, ""
// if it is not: owned by another user (planted beforehand in a shared
// directory), or one of several names for a file (a hard link planted next
// to one of ours would send the log into it). Where the system does not
// say who owns a file, "".
func NotOwnOnly(info fs.FileInfo) string {
	uid, links, ok := fileOwner(info)
	switch {
	case !ok:
		return ""
	case uid != os.Geteuid():
		return fmt.Sprintf("owned by another user (uid %d)", uid)
	case links > 1:
		return "has other hard links"
	}
	return ""
}

// OwnedByUser reports that the file info describes is the user's (false
// where the system does not say): only then may the program change its
// mode.
func OwnedByUser(info fs.FileInfo) bool {
	uid, _, ok := fileOwner(info)
	return ok && uid == os.Geteuid()
}

// FolderNotPrivate says why a folder the program keeps private files in
// (the key's, the ledger's) must not be used, "" when it may: info is
// the folder's Lstat. A symbolic link is refused (what is written would
// go wherever it points), and so is a folder owned by another user or
// one others may write in (a file there could be swapped or planted).
// Where the system does not say who owns what, only links are judged.
func FolderNotPrivate(info fs.FileInfo) string {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return "is a symbolic link; vastdash never writes through one"
	case !info.IsDir():
		return "is not a folder"
	}
	if uid, _, ok := fileOwner(info); ok && uid != os.Geteuid() {
		return fmt.Sprintf("is owned by another user (uid %d)", uid)
	}
	if !isWindows && info.Mode().Perm()&0o022 != 0 {
		return fmt.Sprintf("can be written by other users (mode %04o); chmod 700 it", info.Mode().Perm())
	}
	return ""
}
