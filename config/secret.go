package config

import (
	"fmt"
	"log/slog"
)

const redacted = "[redacted]"

// Secret holds the API key. Every way of printing or serialising it (fmt with
// any verb, JSON, text marshalling, slog) yields "[redacted]"; only [Secret.Reveal]
// returns the key, and only the HTTP layer should call it.
//
// Caveat: fmt cannot call methods on unexported struct fields, so a struct
// that keeps a Secret in an unexported field prints the raw key with %v.
// Keep Secret fields exported (or never format such structs). Likewise
// encoding/json writes string-kinded map keys raw, so never use a Secret as
// a map key.
type Secret string

// Reveal returns the key itself, for the Authorization header.
func (s Secret) Reveal() string { return string(s) }

// String implements fmt.Stringer and returns "[redacted]".
func (s Secret) String() string { return redacted }

// GoString implements fmt.GoStringer (%#v) and returns "[redacted]".
func (s Secret) GoString() string { return redacted }

// Format implements fmt.Formatter so that every verb, including %x and %q
// which would otherwise bypass String, prints "[redacted]".
func (s Secret) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// MarshalText implements encoding.TextMarshaler and returns "[redacted]".
func (s Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// MarshalJSON implements json.Marshaler and returns the JSON string "[redacted]".
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// LogValue implements slog.LogValuer so structured debug logs stay redacted.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redacted) }
