package pgserver

import (
	"errors"
	"fmt"
)

// ErrUnsafePath is what [StartEmbedded] returns, wrapped in an
// [*UnsafePathError], when a directory it would execute from, extract into or
// keep its cache in is owned by another user, writable by another user, or a
// symbolic link where a directory should be, at any level of the path.
var ErrUnsafePath = errors.New("unsafe path")

// UnsafePathError names the path [StartEmbedded] refused, why, and how to
// fix it. It matches [ErrUnsafePath] with errors.Is.
type UnsafePathError struct {
	// Use is what the path was for, e.g. "the binaries cache".
	Use string
	// Path is the path refused: the level of it that is unsafe.
	Path string
	// Reason says what is wrong with Path, e.g. "owned by uid 65534".
	Reason string
	// Fix says how to make it safe or what to use instead.
	Fix string
}

func (e *UnsafePathError) Error() string {
	return fmt.Sprintf("refusing %s: %s is %s; %s", e.Use, e.Path, e.Reason, e.Fix)
}

// Unwrap makes errors.Is(err, ErrUnsafePath) true.
func (e *UnsafePathError) Unwrap() error { return ErrUnsafePath }

// ErrSharedUser is what [StartEmbedded], running as root, returns when the
// user the server would run as is or may be shared with other processes,
// which could then read and change the server's files and signal it: a
// process that is not one of pgid's servers already runs as it, or it is
// nobody, or (outside Linux) there is no /proc to check.
var ErrSharedUser = errors.New("the embedded server's user is shared")

// EmbeddedVersion is the PostgreSQL version StartEmbedded downloads when no
// binaries are given.
const EmbeddedVersion = "18.3.0"

// RootCacheDir is the default cache when this process is root: a directory
// only root may write and the server's unprivileged user may read.
const RootCacheDir = "/var/cache/pgid"

// EmbeddedOptions configure [StartEmbedded]. The zero value reads
// PGID_POSTGRES_BINARIES and PGID_POSTGRES_CACHE, and otherwise downloads
// PostgreSQL 18 into the default cache.
type EmbeddedOptions struct {
	// Binaries is a directory holding bin/initdb and bin/postgres (with the
	// lib and share they find next to them); when empty,
	// $PGID_POSTGRES_BINARIES; when that is empty too, EmbeddedVersion is
	// downloaded (once) into the cache.
	Binaries string
	// RunAsUser is the unprivileged user the server runs as when this
	// process is root; when empty, $PGID_POSTGRES_USER; when that is empty
	// too, [DefaultUser] (created if missing). It must be a user no other
	// process runs as: nobody and root are refused.
	RunAsUser string
	// BinaryRepositoryURL replaces [MavenCentral] as the download source (a
	// mirror with the same layout, publishing .sha256 or .sha1 files).
	BinaryRepositoryURL string
	// CacheDir is where downloaded binaries are kept; when empty,
	// $PGID_POSTGRES_CACHE; when that is empty too, [RootCacheDir] for root,
	// otherwise pgid in os.UserCacheDir ($XDG_CACHE_HOME or ~/.cache).
	CacheDir string
	// Logf, if set, reports progress (e.g. a first download).
	Logf func(format string, args ...any)
	// Getenv replaces os.Getenv (tests).
	Getenv func(string) string

	// started, if set, is called with each process StartEmbedded starts,
	// right after it started (tests read its credentials).
	started func(name string, pid int)
	// portChosen, if set, is called with each port chosen for the
	// postmaster, before it starts (tests take the port in between).
	portChosen func(port int)
}

func (o *EmbeddedOptions) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}
