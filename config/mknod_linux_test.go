package config

import "syscall"

// mknodLike makes at dst a device node with the mode and device number of
// src, so tests running as root can harm a twin instead of the real device.
func mknodLike(dst, src string) error {
	var st syscall.Stat_t
	if err := syscall.Stat(src, &st); err != nil {
		return err
	}
	return syscall.Mknod(dst, st.Mode, int(st.Rdev))
}
