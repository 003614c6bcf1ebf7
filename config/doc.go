// Package config resolves what vastdash needs before it can talk to the
// Vast.ai API: the API key, the base URL and the user's display settings.
//
// It follows the conventions of the official Vast.ai CLI so that an existing
// CLI user needs no extra setup: the key comes from --api-key-file, then
// VAST_API_KEY, then $XDG_CONFIG_HOME/vastai/vast_api_key, then the legacy
// ~/.vast_api_key; the URL from --url, then VAST_URL, then
// https://console.vast.ai.
//
// The package never prints. Everything that would be shown to the user comes
// back as a value (warnings as strings, one-line errors that never contain the
// key), and every read of the environment or the file system goes through an
// [Env], so tests run against temporary directories and fake variables.
//
// It also saves a key where the official CLI reads it ([SaveKey]: 0600, by
// rename, never through a link, never over an existing file unless told)
// and removes it ([RemoveKey]).
//
// Errors can be classified with errors.Is against [ErrNoKey], [ErrKeyFile],
// [ErrBadKey], [ErrBadURL], [ErrInsecureURL], [ErrSettings], [ErrKeyExists]
// and [ErrKeySave].
package config
