package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// EnvAPIKey is the environment variable the official CLI reads the key from.
const EnvAPIKey = "VAST_API_KEY"

// maxKeyFile caps how much of a key file is read; real keys are 64 bytes.
const maxKeyFile = 4096

// KeyPaths returns the key files searched when neither --api-key-file nor
// VAST_API_KEY is given, in order: $XDG_CONFIG_HOME/vastai/vast_api_key
// (default ~/.config/...), then the legacy ~/.vast_api_key. Locations that
// cannot be known (no home directory) are left out.
func KeyPaths(env Env) []string {
	var paths []string
	if ch := env.configHome(); ch != "" {
		paths = append(paths, filepath.Join(ch, "vastai", "vast_api_key"))
	}
	if env.HomeDir != "" {
		paths = append(paths, filepath.Join(env.HomeDir, ".vast_api_key"))
	}
	return paths
}

// ResolveKey finds the API key the way the official CLI does: apiKeyFile
// (the --api-key-file flag) if not empty, else $VAST_API_KEY, else the files
// of [KeyPaths]. Surrounding whitespace is trimmed.
//
// It returns the key, where it came from ("env VAST_API_KEY" or the file's
// path) and warnings for the user (a key file other users can read, an empty
// key file that was skipped). An explicit file that cannot be used is an
// [ErrKeyFile] error naming the path; finding nothing is [ErrNoKey].
func ResolveKey(env Env, apiKeyFile string) (key Secret, source string, warnings []string, err error) {
	if apiKeyFile != "" {
		k, warns, err := readKeyFile(env, apiKeyFile, true)
		if err != nil {
			return "", "", nil, err
		}
		return k, apiKeyFile, warns, nil
	}
	if v := strings.TrimSpace(env.getenv(EnvAPIKey)); v != "" {
		const src = "env " + EnvAPIKey
		if err := checkKey(v, src); err != nil {
			return "", "", nil, err
		}
		return Secret(v), src, nil, nil
	}
	for _, p := range KeyPaths(env) {
		k, warns, err := readKeyFile(env, p, false)
		warnings = append(warnings, warns...)
		if err != nil {
			return "", "", nil, err
		}
		if k != "" {
			return k, p, warnings, nil
		}
	}
	return "", "", warnings, noKeyError(env)
}

// readKeyFile reads one key file. For an implicit location a missing file
// returns ("", nil, nil) so the search goes on, and an empty file is skipped
// with a warning; for an explicit one both are errors. A file that exists but
// cannot be read is an error either way: silently falling through to another
// key would be surprising. So is one that is not a regular file, except that
// an explicit path may be a pipe (<(pass show vast)).
func readKeyFile(env Env, path string, explicit bool) (Secret, []string, error) {
	data, info, err := env.readCapped(path, maxKeyFile, explicit)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return "", nil, nil
		}
		return "", nil, newError(ErrKeyFile, fmt.Sprintf("cannot read API key file %s: %s", printable(path), describeErr(err)))
	}
	var warns []string
	if tooOpen(info) {
		warns = append(warns, permWarning(path))
	}
	k := strings.TrimSpace(string(data))
	if k == "" {
		if explicit {
			return "", nil, newError(ErrKeyFile, fmt.Sprintf("API key file %s is empty", printable(path)))
		}
		return "", append(warns, fmt.Sprintf("warning: %s is empty; ignoring it", printable(path))), nil
	}
	if err := checkKey(k, printable(path)); err != nil {
		return "", nil, err
	}
	return Secret(k), warns, nil
}

// checkKey rejects keys with inner whitespace, control or non-ASCII bytes:
// no real key has them (a file with a second line is the usual cause), and
// sending them would fail with a confusing 401 or a malformed header.
func checkKey(k, source string) error {
	for i := 0; i < len(k); i++ {
		if c := k[i]; c <= ' ' || c >= 0x7f {
			return newError(ErrBadKey, fmt.Sprintf("API key from %s contains spaces, control or non-ASCII characters; it should be a single word", source))
		}
	}
	return nil
}

// noKeyError names the places a key can come from, on one line.
func noKeyError(env Env) error {
	where := "~/.config/vastai/vast_api_key"
	if paths := KeyPaths(env); len(paths) > 0 {
		where = env.tilde(paths[0])
	}
	return newError(ErrNoKey, fmt.Sprintf("no API key: set %s, write it to %s, pass --api-key-file, or try --demo", EnvAPIKey, printable(where)))
}
