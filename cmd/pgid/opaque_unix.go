//go:build unix

package main

import (
	"errors"
	"os"
	"strings"
	"syscall"
)

// followsTrustedLinks: a key file's path may go through symbolic links
// owned by the user or root (see openKeyFile).
const followsTrustedLinks = true

// maxKeyFileLinks bounds the symbolic links followed to a key file, as
// the kernel does (ELOOP after 40).
const maxKeyFileLinks = 40

// openKeyFile opens the key file at path after checking every element of
// the path, as ssh checks authorized_keys: each directory from / down, and
// each symbolic link followed, must be owned by the effective user or
// root; each directory must be writable by no one else (group and others
// may write only a sticky directory, such as /tmp, where they cannot
// replace what they do not own). Then no other user can change what the
// path leads to between the checks and the open, so the file opened is the
// one checked; it is opened without following a link (O_NOFOLLOW) or
// blocking on a FIFO (O_NONBLOCK), and must be owned by the effective user
// or root too. Trusted links are followed, so Kubernetes' secret volumes
// (key -> ..data/key, ..data -> ..2024_...) work. Errors wrap [errKeyFile]
// and name the element at fault.
func openKeyFile(path string) (*os.File, error) {
	real, fi, err := resolveKeyFile(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		// O_NOFOLLOW fails on a link with ELOOP (EMLINK on FreeBSD): the
		// file was replaced since the walk, by its owner or root.
		if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) {
			return nil, keyFileChanged(path)
		}
		return nil, usageError{err}
	}
	opened, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, usageError{err}
	}
	if !os.SameFile(fi, opened) {
		f.Close()
		return nil, keyFileChanged(path)
	}
	if err := trustedOwner(path, real, "file ", opened); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// resolveKeyFile walks path from / one element at a time (Lstat), checks
// each directory and symbolic link on the way and follows the links. It
// returns the path of the file with no link in it, and the file's Lstat.
func resolveKeyFile(path string) (string, os.FileInfo, error) {
	if path == "" {
		return "", nil, usagef("%w: an empty path", errKeyFile)
	}
	todo := path
	if !strings.HasPrefix(path, "/") {
		wd, err := os.Getwd()
		if err != nil {
			return "", nil, usageError{err}
		}
		todo = wd + "/" + path
	}
	root, err := os.Lstat("/")
	if err != nil {
		return "", nil, usageError{err}
	}
	if err := trustedDir(path, "/", root); err != nil {
		return "", nil, err
	}
	var done []string // the resolved elements so far, each a checked directory
	links := 0
	for {
		todo = strings.TrimLeft(todo, "/")
		if todo == "" {
			// The path ends in a directory (or is /).
			p := "/" + strings.Join(done, "/")
			fi, err := os.Lstat(p)
			if err != nil {
				return "", nil, usageError{err}
			}
			return p, fi, nil
		}
		name, rest, _ := strings.Cut(todo, "/")
		todo = rest
		switch name {
		case ".":
			continue
		case "..":
			if len(done) > 0 {
				done = done[:len(done)-1]
			}
			continue
		}
		p := "/" + strings.Join(append(done, name), "/")
		fi, err := os.Lstat(p)
		if err != nil {
			return "", nil, usageError{err}
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			if err := trustedOwner(path, p, "symbolic link ", fi); err != nil {
				return "", nil, err
			}
			if links++; links > maxKeyFileLinks {
				return "", nil, usagef("%w: %s: more than %d symbolic links", errKeyFile, path, maxKeyFileLinks)
			}
			to, err := os.Readlink(p)
			if err != nil || to == "" {
				return "", nil, keyFileChanged(path)
			}
			if strings.HasPrefix(to, "/") {
				done = nil
			}
			todo = to + "/" + todo
		case fi.IsDir():
			if err := trustedDir(path, p, fi); err != nil {
				return "", nil, err
			}
			done = append(done, name)
		case strings.Trim(todo, "/") != "":
			return "", nil, usageError{&os.PathError{Op: "open", Path: path, Err: syscall.ENOTDIR}}
		default:
			// Checked before opening too: another user's file may be
			// one this user cannot open at all.
			if err := trustedOwner(path, p, "file ", fi); err != nil {
				return "", nil, err
			}
			return p, fi, nil
		}
	}
}

// trustedDir checks a directory on the key file's path: owned by the
// effective user or root, and writable by no one else unless sticky.
func trustedDir(path, dir string, fi os.FileInfo) error {
	if err := trustedOwner(path, dir, "directory ", fi); err != nil {
		return err
	}
	if m := fi.Mode(); m.Perm()&0o022 != 0 && m&os.ModeSticky == 0 {
		return usagef("%w: %s: the directory %s is writable by group or others (mode %04o), who could replace the key file: chmod go-w %s, or keep the key file in a directory only you can write", errKeyFile, path, dir, m.Perm(), dir)
	}
	return nil
}

// trustedOwner checks that what fi describes (elem, a kind and the path of
// it) is owned by the effective user or root.
func trustedOwner(path, elem, kind string, fi os.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return usagef("%w: %s: cannot tell who owns %s%s", errKeyFile, path, kind, elem)
	}
	euid := os.Geteuid()
	if st.Uid == 0 || int(st.Uid) == euid {
		return nil
	}
	what := "its owner could replace the key file"
	if kind == "file " {
		what = "it may be another user's key"
	}
	return usagef("%w: %s: the %s%s is owned by uid %d, not by you (uid %d) or root: %s", errKeyFile, path, kind, elem, st.Uid, euid, what)
}

// keyFileChanged is the error for a path that changed during the checks.
func keyFileChanged(path string) error {
	return usagef("%w: %s changed while it was being checked (by its owner or root): try again", errKeyFile, path)
}
