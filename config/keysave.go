package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrKeyExists means a key file is already where [SaveKey] would write: the
// caller asks before replacing it.
var ErrKeyExists = errors.New("a key file exists")

// ErrKeySave means the key could not be saved (or removed): a link or
// something other than a regular file at the path, a folder that cannot be
// written. Nothing was written.
var ErrKeySave = errors.New("cannot save the API key")

// KeySavePath is where [SaveKey] writes the key: the official CLI's own
// key file, $XDG_CONFIG_HOME/vastai/vast_api_key (default
// ~/.config/vastai/vast_api_key), so both programs read the same key. ""
// when there is no home directory to put it in.
func KeySavePath(env Env) string {
	if ch := env.configHome(); ch != "" {
		return filepath.Join(ch, "vastai", "vast_api_key")
	}
	return ""
}

// ConsoleKeysURL is the console's page where keys are made (and deleted).
const ConsoleKeysURL = "https://cloud.vast.ai/manage-keys/"

// CheckKeyTarget judges [KeySavePath] before anything is made or written:
// nil when a key can be saved there, [ErrKeyExists] when a key file is
// there (ask, then save with replace), else why nothing can be saved: a
// link or no regular file there, or a folder on the way that cannot be
// written.
func CheckKeyTarget(env Env) error {
	return checkKeyTargetAt(env, KeySavePath(env))
}

// checkKeyTargetAt is CheckKeyTarget for the key file at path (an
// account's too).
func checkKeyTargetAt(env Env, path string) error {
	if path == "" {
		return errNoHome
	}
	if err := saveTarget(path, env.Shown(path), false); err != nil {
		return err
	}
	if err := keyFolder(env, path); err != nil {
		return err
	}
	// The nearest folder on the way that exists is where something will
	// be created: the key's folder, or the first one to make.
	dir := filepath.Dir(path)
	for {
		info, err := os.Stat(dir)
		switch {
		case err == nil && !info.IsDir():
			return newError(ErrKeySave, fmt.Sprintf("cannot save the API key to %s: %s is not a folder; nothing was written", env.Shown(path), env.Shown(dir)))
		case err == nil:
			if err := writable(dir); err != nil {
				return newError(ErrKeySave, fmt.Sprintf("cannot save the API key to %s: cannot write in %s: %s; nothing was written", env.Shown(path), env.Shown(dir), describeErr(err)))
			}
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			return newError(ErrKeySave, fmt.Sprintf("cannot save the API key to %s: %s: %s; nothing was written", env.Shown(path), env.Shown(dir), describeErr(err)))
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil
		}
		dir = up
	}
}

// errNoHome is the error of saving with no home directory.
var errNoHome = newError(ErrKeySave, "cannot save the API key: there is no home directory to save it in (set HOME or XDG_CONFIG_HOME)")

// ParseKey trims what the user pasted or piped (from names where, for the
// message: "standard input") and checks it is a key: one word of
// printable ASCII. It never quotes what it was given.
func ParseKey(s, from string) (Secret, error) {
	k := strings.TrimSpace(s)
	if k == "" {
		return "", newError(ErrNoKey, "no API key in "+from)
	}
	if err := checkKey(k, from); err != nil {
		return "", err
	}
	return Secret(k), nil
}

// SaveKey writes key to [KeySavePath]: missing folders are created 0700,
// the file is written 0600 to a temporary file beside it and moved into
// place, so the file is never half-written nor readable by others. A
// regular file already there is [ErrKeyExists] unless replace (the caller
// asked the user); even then, a symbolic link, a folder or anything else
// that is not a regular file is never replaced nor written through
// ([ErrKeySave]). Without replace the file is put in place by a hard link,
// which fails if one appeared meanwhile. It returns the path written.
func SaveKey(env Env, key Secret, replace bool) (string, error) {
	return saveKeyAt(env, KeySavePath(env), key, replace)
}

// saveKeyAt is SaveKey to the key file at path (an account's too).
func saveKeyAt(env Env, path string, key Secret, replace bool) (string, error) {
	if path == "" {
		return "", errNoHome
	}
	if err := checkKey(key.Reveal(), "the key to save"); err != nil {
		return "", err
	}
	shown := env.Shown(path)
	if err := saveTarget(path, shown, replace); err != nil {
		return "", err
	}
	if err := keyFolder(env, path); err != nil {
		return "", err
	}
	place := os.Rename
	if !replace {
		place = linkNew
	}
	err := writePrivate(path, []byte(key.Reveal()+"\n"), place)
	switch {
	case errors.Is(err, fs.ErrExist) && !replace:
		return "", newError(ErrKeyExists, shown+" already exists")
	case err != nil:
		return "", newError(ErrKeySave, fmt.Sprintf("cannot save the API key to %s: %s; nothing was written", shown, saveReason(env, path, err)))
	}
	return path, nil
}

// saveTarget judges what is at path before anything is written.
func saveTarget(path, shown string, replace bool) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return newError(ErrKeySave, fmt.Sprintf("cannot save the API key to %s: %s; nothing was written", shown, describeErr(err)))
	case info.Mode()&fs.ModeSymlink != 0:
		return newError(ErrKeySave, fmt.Sprintf("%s is a symbolic link; vastdash never writes through one: remove it, or put the key where it points yourself", shown))
	case !info.Mode().IsRegular():
		return newError(ErrKeySave, fmt.Sprintf("%s is not a regular file (%s); nothing was written", shown, modeWord(info)))
	case !replace:
		return newError(ErrKeyExists, shown+" already exists")
	}
	return nil
}

// keyFolder refuses the key's own folder when the key would not be
// private in it: a symbolic link (the key would be written through into
// wherever it points, perhaps a folder all may write), or a folder
// another user owns or others may write in, where the file could be
// swapped or read. A folder that does not exist yet is made 0700.
func keyFolder(env Env, path string) error {
	dir := filepath.Dir(path)
	info, err := os.Lstat(dir)
	if err != nil {
		return nil // made 0700 by the save, or its error says why not
	}
	if why := FolderNotPrivate(info); why != "" {
		return newError(ErrKeySave, fmt.Sprintf("cannot save the API key to %s: its folder %s %s; nothing was written", env.Shown(path), env.Shown(dir), why))
	}
	return nil
}

// linkNew puts tmp at path only if nothing is there: link(2) never
// replaces, so a file or link that appeared since the check is kept (the
// error is fs.ErrExist). Where hard links are not supported, a rename
// after one more look is the best that can be done.
func linkNew(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, lerr := os.Lstat(path); lerr == nil {
		return fs.ErrExist
	}
	return os.Rename(tmp, path)
}

// saveReason words a failed save: the folder's name when it is the folder
// that cannot be written.
func saveReason(env Env, path string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.HasPrefix(path, pe.Path+string(filepath.Separator)) {
		return fmt.Sprintf("%s: %s", env.Shown(pe.Path), describeErr(err))
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return oneLine(le.Err.Error())
	}
	if errors.As(err, &pe) && filepath.Dir(pe.Path) == filepath.Dir(path) {
		// The temporary file beside the key could not be made: the
		// folder is not writable.
		return fmt.Sprintf("cannot write in %s: %s", env.Shown(filepath.Dir(path)), describeErr(err))
	}
	return describeErr(err)
}

// modeWord names what a non-regular file is.
func modeWord(info fs.FileInfo) string {
	switch m := info.Mode(); {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a pipe"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a file"
}

// RemoveKey deletes the key file at path (the one [ResolveKey] found): a
// regular file, or a symbolic link, which is removed itself and never what
// it points to. Anything else is refused.
func RemoveKey(env Env, path string) error {
	shown := env.Shown(path)
	info, err := os.Lstat(path)
	if err == nil && !info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0 {
		return newError(ErrKeySave, fmt.Sprintf("%s is not a regular file (%s); nothing was removed", shown, modeWord(info)))
	}
	if err == nil {
		err = os.Remove(path)
	}
	if err != nil {
		return newError(ErrKeySave, fmt.Sprintf("cannot remove %s: %s", shown, describeErr(err)))
	}
	return nil
}

// ReadableByOthers reports whether the key file at path (followed, as
// [ResolveKey] follows it) lets group or others read or write it.
func ReadableByOthers(path string) (bool, error) {
	info, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	return tooOpen(info), nil
}

// Shown is path as messages show it: ~/… under the home directory, quoted
// when it holds anything that is not printable.
func (e Env) Shown(path string) string { return printable(e.tilde(path)) }
