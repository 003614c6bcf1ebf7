//go:build unix && !linux

package config

import "errors"

// mknodLike: the device number's type differs by system; Linux covers it.
func mknodLike(dst, src string) error { return errors.ErrUnsupported }
