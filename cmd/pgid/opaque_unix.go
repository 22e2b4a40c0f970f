//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"
)

// openKeyFile opens path for reading without following a final symbolic
// link (O_NOFOLLOW) and without blocking on a FIFO (O_NONBLOCK, which
// changes nothing for a regular file): what it opens is what readKeyFile
// then checks with fstat and reads.
func openKeyFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		// O_NOFOLLOW fails on a link with ELOOP (EMLINK on FreeBSD,
		// EFTYPE on NetBSD, which Lstat catches unless the link has
		// gone again).
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
			return nil, symlinkError(path)
		}
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return nil, symlinkError(path)
		}
		return nil, usageError{err}
	}
	return f, nil
}
