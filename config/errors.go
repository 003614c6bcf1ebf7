package config

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
)

// Sentinel errors for errors.Is. The errors this package returns carry their
// own one-line message; the sentinel only classifies them, its text is never
// part of the message.
var (
	// ErrNoKey means no API key was found in any of the places searched.
	ErrNoKey = errors.New("no API key")
	// ErrKeyFile means a key file exists (or was named explicitly) but
	// cannot be used: missing, unreadable, not a regular file, empty or far
	// too large.
	ErrKeyFile = errors.New("unusable API key file")
	// ErrBadKey means the key found contains spaces or control characters,
	// which no valid key does and which would corrupt the HTTP header.
	ErrBadKey = errors.New("malformed API key")
	// ErrBadURL means the base URL is not an absolute http(s) URL with a host.
	ErrBadURL = errors.New("bad base URL")
	// ErrInsecureURL means the base URL uses plain http to a host that is
	// not loopback, which would send the key in clear text.
	ErrInsecureURL = errors.New("insecure base URL")
	// ErrSettings means the settings file is malformed, unreadable or holds
	// an unknown key or a bad value.
	ErrSettings = errors.New("bad settings file")
)

// configError is a one-line message classified by one of the sentinels.
// The message is built by us, so it is known not to contain the key.
type configError struct {
	kind error
	msg  string
}

func (e *configError) Error() string { return e.msg }
func (e *configError) Unwrap() error { return e.kind }

func newError(kind error, msg string) error { return &configError{kind: kind, msg: msg} }

// printable returns s unchanged when it is safe to print on one line, and
// Go-quoted otherwise, so that a path or value holding a newline or an escape
// sequence cannot break the one-line promise or drive the terminal.
func printable(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// oneLine escapes non-printable characters inside s (for messages from the
// TOML parser, which may echo bytes of the file) without quoting all of it.
func oneLine(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}
