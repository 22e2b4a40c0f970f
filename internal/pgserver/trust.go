//go:build unix

package pgserver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// pathRule says what a path is used for and what it must allow.
type pathRule struct {
	use string // for messages: "the binaries cache"
	fix string // how to choose another path, for messages
	// sticky accepts a directory that others may write when its sticky bit
	// is set (/tmp): others can add entries there but not rename or remove
	// ours. Only for the parent of a directory made with MkdirTemp.
	sticky bool
	// othersEnter requires every directory to be searchable by others: the
	// server runs as another user (this process is root) and must reach it.
	othersEnter bool
}

// trustedOwner reports whether uid may own what pgserver executes or
// extracts into: root, or this process's effective user.
func trustedOwner(uid uint32) bool {
	return uid == 0 || int(uid) == os.Geteuid()
}

func ownerName(uid uint32) string {
	s := "uid " + strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10)); err == nil {
		s += " (" + u.Username + ")"
	}
	return s
}

func wantOwners() string {
	if os.Geteuid() == 0 {
		return "root"
	}
	return "root or " + ownerName(uint32(os.Geteuid()))
}

// check refuses fi, the Lstat of p, if another user owns it or may write
// it, or (othersEnter) others cannot reach through it.
func (r pathRule) check(p string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return &UnsafePathError{Use: r.use, Path: p, Reason: "of unknown ownership", Fix: r.fix}
	}
	if !trustedOwner(st.Uid) {
		return &UnsafePathError{Use: r.use, Path: p,
			Reason: "owned by " + ownerName(st.Uid) + ", not " + wantOwners(),
			Fix:    "remove it, or make " + wantOwners() + " its owner, or " + r.fix}
	}
	perm := fi.Mode().Perm()
	if perm&0o022 != 0 && !(r.sticky && fi.IsDir() && fi.Mode()&fs.ModeSticky != 0) {
		return &UnsafePathError{Use: r.use, Path: p,
			Reason: fmt.Sprintf("writable by %s (mode %s)", writers(perm), octal(fi.Mode())),
			Fix:    "run chmod go-w " + shQuote(p) + ", or " + r.fix}
	}
	if r.othersEnter {
		need := fs.FileMode(0o004)
		if fi.IsDir() {
			need = 0o001
		}
		if perm&need == 0 {
			return &UnsafePathError{Use: r.use, Path: p,
				Reason: fmt.Sprintf("not readable by the server's unprivileged user (mode %s)", octal(fi.Mode())),
				Fix:    "run chmod a+rX on it, or " + r.fix + " (a path outside /root)"}
		}
	}
	return nil
}

// octal is m's permission bits as chmod takes them, with the sticky bit.
func octal(m fs.FileMode) string {
	o := uint32(m.Perm())
	if m&fs.ModeSticky != 0 {
		o |= 0o1000
	}
	return fmt.Sprintf("%04o", o)
}

func writers(perm fs.FileMode) string {
	switch {
	case perm&0o020 != 0 && perm&0o002 != 0:
		return "group and others"
	case perm&0o020 != 0:
		return "its group"
	}
	return "others"
}

// securePath checks every level of the absolute path p, from /, following
// symbolic links in its directories (each link's own directory is checked
// first, and then its target). p itself must not be a symbolic link. It
// returns p with the links resolved: once every level is owned by root or
// this user and writable by nobody else, no other user can change what
// that name opens.
func securePath(r pathRule, p string) (string, error) {
	return resolvePath(r, p, false)
}

// resolvePath is securePath; with followFinal, a symbolic link as the last
// level is followed (its owner and target checked like any other) instead
// of refused.
func resolvePath(r pathRule, p string, followFinal bool) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s: %q is not an absolute path", r.use, p)
	}
	fi, err := os.Lstat("/")
	if err != nil {
		return "", err
	}
	if err := r.check("/", fi); err != nil {
		return "", err
	}
	todo := splitPath(p)
	cur, links := "/", 0
	for len(todo) > 0 {
		name := todo[0]
		todo = todo[1:]
		if name == ".." {
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return "", fmt.Errorf("%s: %w", r.use, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if len(todo) == 0 && !followFinal {
				return "", &UnsafePathError{Use: r.use, Path: next, Reason: "a symbolic link",
					Fix: "give the directory itself, or " + r.fix}
			}
			// In a sticky directory the link's owner may replace it.
			if st, ok := fi.Sys().(*syscall.Stat_t); !ok || !trustedOwner(st.Uid) {
				return "", &UnsafePathError{Use: r.use, Path: next,
					Reason: "a symbolic link owned by another user", Fix: r.fix}
			}
			if links++; links > 40 {
				return "", fmt.Errorf("%s: %s: too many levels of symbolic links", r.use, p)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", err
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			todo = append(splitPath(target), todo...)
			continue
		}
		if len(todo) > 0 && !fi.IsDir() {
			return "", fmt.Errorf("%s: %s is not a directory", r.use, next)
		}
		if err := r.check(next, fi); err != nil {
			return "", err
		}
		cur = next
	}
	return cur, nil
}

func splitPath(p string) []string {
	var parts []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			parts = append(parts, s)
		}
	}
	return parts
}

// checkTree checks dir with securePath and then every file and directory
// below it with r: what the server executes, loads and reads must be as
// safe as the directory it came from. Symbolic links may point inside the
// tree; a link out of it is checked with securePath like dir.
func checkTree(r pathRule, dir string) (string, error) {
	return checkTreeDepth(r, dir, 0)
}

func checkTreeDepth(r pathRule, dir string, depth int) (string, error) {
	root, err := securePath(r, dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s: %s is not a directory", r.use, root)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return r.check(p, fi)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || !trustedOwner(st.Uid) {
			return &UnsafePathError{Use: r.use, Path: p, Reason: "a symbolic link owned by another user", Fix: r.fix}
		}
		// Resolve the link as the kernel will, level by level, checking
		// every directory and link on the way (a link inside the tree may
		// lead out of it through another link).
		resolved, err := resolvePath(r, p, true)
		if err != nil {
			return err
		}
		if rel, err := filepath.Rel(root, resolved); err == nil && filepath.IsLocal(rel) {
			return nil // inside the tree: checked as part of it
		}
		// Out of the tree: a directory there is checked whole.
		if fi, err := os.Stat(resolved); err == nil && fi.IsDir() {
			if depth >= 8 {
				return fmt.Errorf("%s: %s: links out of the tree nest too deep", r.use, p)
			}
			_, err = checkTreeDepth(r, resolved, depth+1)
			return err
		}
		return nil
	})
	return root, err
}

// mkdirSecure makes the directory p with perm, and any missing parents,
// one level at a time, checking each existing level with securePath before
// it makes anything inside, and then p itself. An existing p is checked,
// never changed: a wrong owner or mode is refused, not repaired.
func mkdirSecure(r pathRule, p string, perm fs.FileMode) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%s: %q is not an absolute path", r.use, p)
	}
	p = filepath.Clean(p)
	var missing []string
	existing := p
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", r.use, err)
		}
		missing = append(missing, filepath.Base(existing))
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		existing = parent
	}
	// A link as the deepest existing level (~/.cache -> /data/cache) is
	// followed when more is to be made below it; p itself must not be one.
	cur, err := resolvePath(r, existing, len(missing) > 0)
	if err != nil {
		return "", err
	}
	for i := len(missing) - 1; i >= 0; i-- {
		next := filepath.Join(cur, missing[i])
		if err := os.Mkdir(next, perm); err == nil {
			// Ours, just made: give it perm whatever the umask took away.
			if err := os.Chmod(next, perm); err != nil {
				return "", err
			}
		} else if !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("%s: %w", r.use, err)
		}
		// Whoever made it, check what is there now.
		fi, err := os.Lstat(next)
		if err != nil {
			return "", fmt.Errorf("%s: %w", r.use, err)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", &UnsafePathError{Use: r.use, Path: next, Reason: "a symbolic link", Fix: "remove it, or " + r.fix}
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("%s: %s is not a directory", r.use, next)
		}
		if err := r.check(next, fi); err != nil {
			return "", err
		}
		cur = next
	}
	return cur, nil
}
