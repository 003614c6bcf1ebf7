package config

import (
	"errors"
	"time"
)

// Bounds of the refresh setting. The floor keeps a refresh well above the
// endpoints' pacing (one instances page a second, and a reading may take
// several); the ceiling is a day, past which "live" means nothing.
const (
	DefaultRefresh = 60 * time.Second
	MinRefresh     = 10 * time.Second
	MaxRefresh     = 24 * time.Hour
)

// errRefresh is the one-line error of a bad refresh value.
var errRefresh = errors.New(`refresh must be "0" (off) or a duration from "10s" to "24h", like "60s" or "5m"`)

// interval decodes the refresh setting: a Go duration ("60s", "5m", "1h30m")
// within [MinRefresh, MaxRefresh], or "0" (a string or the number 0) for
// off.
type interval struct {
	value time.Duration
	set   bool
}

// UnmarshalTOML implements toml.Unmarshaler.
func (iv *interval) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case int64:
		if x != 0 {
			return errRefresh
		}
		iv.value, iv.set = 0, true
		return nil
	case string:
		if x == "0" {
			iv.value, iv.set = 0, true
			return nil
		}
		d, err := time.ParseDuration(x)
		if err != nil || d < MinRefresh || d > MaxRefresh {
			return errRefresh
		}
		iv.value, iv.set = d, true
		return nil
	}
	return errRefresh
}
