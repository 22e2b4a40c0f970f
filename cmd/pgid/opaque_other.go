//go:build !unix

package main

import "os"

// followsTrustedLinks: without O_NOFOLLOW and file owners, a key file that
// is a symbolic link is refused.
const followsTrustedLinks = false

// openKeyFile opens path for reading, refusing a symbolic link. Without
// O_NOFOLLOW (Windows, Plan 9, js, wasip1) it checks path with Lstat
// before opening it and the open file against that with os.SameFile after:
// a file swapped in between is refused as changed, not read.
func openKeyFile(path string) (*os.File, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, usageError{err}
	}
	if before.Mode()&os.ModeSymlink != 0 {
		return nil, symlinkError(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError{err}
	}
	if after, err := f.Stat(); err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, usagef("%w: %s changed while it was being opened: is someone replacing it?", errKeyFile, path)
	}
	return f, nil
}
