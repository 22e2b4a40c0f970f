package integration_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/pgserver"
	"github.com/pgid/pgid/migrations"
)

// Servers of their own for the logical replication tests: a publisher
// (wal_level = logical) and a subscriber, each an embedded server
// (internal/pgserver: initdb and postgres as an unprivileged user when
// root, SCRAM, a free loopback port, removed at the end) started from the
// binaries of the server the run uses, so that CI's runs on PostgreSQL 15
// (Debian's, found by pgserver) and 18 (PGID_POSTGRES_BINARIES) and the
// .ci/pg-matrix majors each test their own version.

// lrBinaries is the installation directory (holding bin/initdb and
// bin/postgres) of the server at baseDSN, when it runs on this machine:
// pg_config's BINDIR, which the server computes from its own executable's
// path. Empty otherwise, and then pgserver chooses as it always does
// ($PGID_POSTGRES_BINARIES, an installed PostgreSQL, a download).
func lrBinaries(t testing.TB) string {
	t.Helper()
	lrBinOnce.Do(func() {
		cfg, err := pgx.ParseConfig(baseDSN)
		if err != nil || (cfg.Host != "127.0.0.1" && cfg.Host != "localhost" && cfg.Host != "::1" && !strings.HasPrefix(cfg.Host, "/")) {
			return
		}
		conn, err := pgx.Connect(context.Background(), baseDSN)
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		var bindir string
		if err := conn.QueryRow(context.Background(), "SELECT setting FROM pg_config WHERE name = 'BINDIR'").Scan(&bindir); err != nil {
			return
		}
		for _, p := range []string{"initdb", "postgres"} {
			if _, err := os.Stat(filepath.Join(bindir, p)); err != nil {
				return
			}
		}
		lrBinDir = filepath.Dir(bindir)
	})
	return lrBinDir
}

var (
	lrBinOnce sync.Once
	lrBinDir  string
)

// replicaTestUser is the system user the replication tests' servers run
// as when this process is root: one of their own, not
// [pgserver.DefaultUser]. internal/pgserver's TestLocalAttacker, which go
// test may run at the same time in a mount namespace of its own, counts
// every process of DefaultUser it did not start as an attacker's.
const replicaTestUser = "pgid-test-replica"

var replicaUserOnce struct {
	sync.Once
	err error
}

// replicaUser returns the RunAsUser of the replication tests' servers:
// replicaTestUser, created (a system user with a group of its own, no
// home, no login) if missing, when this process is root; empty otherwise.
func replicaUser(t testing.TB) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return ""
	}
	replicaUserOnce.Do(func() {
		if _, err := user.Lookup(replicaTestUser); err == nil {
			return
		}
		out, err := exec.Command("useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
			"--shell", "/usr/sbin/nologin", "--comment", "pgid replication tests", replicaTestUser).CombinedOutput()
		if _, lerr := user.Lookup(replicaTestUser); err != nil && lerr != nil {
			replicaUserOnce.err = fmt.Errorf("useradd %s: %v: %s", replicaTestUser, err, out)
		}
	})
	if replicaUserOnce.err != nil {
		t.Fatal(replicaUserOnce.err)
	}
	return replicaTestUser
}

// retryShared calls start until it is not refused with ErrSharedUser or
// ctx ends. As root an embedded server runs as pgserver's own user, and a
// start is refused while another process runs as that user:
// internal/pgserver's tests start such processes on purpose, and go test
// runs packages in parallel. They are short-lived.
func retryShared(ctx context.Context, t testing.TB, start func() (*pgserver.Server, error)) (*pgserver.Server, error) {
	for {
		s, err := start()
		if !errors.Is(err, pgserver.ErrSharedUser) || ctx.Err() != nil {
			return s, err
		}
		t.Logf("retrying in 1 s: %v", err)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// lrServer is an embedded server with the pgid migrations applied to its
// database postgres, and one connection to it.
type lrServer struct {
	*pgserver.Server
	conn    *pgx.Conn
	version int // server_version_num / 10000
}

// startLR starts an embedded server with extra settings, applies the
// migrations and connects; everything is stopped and removed when t ends.
func startLR(t testing.TB, settings ...string) *lrServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := retryShared(ctx, t, func() (*pgserver.Server, error) {
		return pgserver.StartEmbedded(ctx, pgserver.EmbeddedOptions{Binaries: lrBinaries(t), RunAsUser: replicaUser(t), Settings: settings})
	})
	if err != nil {
		t.Fatalf("start an embedded server: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("stop %s: %v", s.Description, err)
		}
	})
	conn, err := pgx.Connect(ctx, s.DSN)
	if err != nil {
		t.Fatalf("connect to %s: %v", s.Description, err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatalf("migrations on %s: %v", s.Description, err)
	}
	var num int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&num); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", s.Description)
	return &lrServer{Server: s, conn: conn, version: num / 10000}
}

// startLogicalPair starts a publisher and a subscriber. The subscriber
// retries a failed apply after 100 ms instead of 5 s
// (wal_retrieve_retry_interval), so that a stalled subscription shows its
// errors quickly.
func startLogicalPair(t testing.TB) (pub, sub *lrServer) {
	t.Helper()
	pub = startLR(t, "wal_level=logical")
	sub = startLR(t, "wal_retrieve_retry_interval=100ms")
	return pub, sub
}

// logPath is the server's log file (pgserver keeps it next to the run
// directory that holds the data directory).
func (s *lrServer) logPath() string {
	return filepath.Join(filepath.Dir(filepath.Dir(s.DataDir)), "postgres.log")
}

// exec runs sql on s's connection and fails the test on an error.
func (s *lrServer) exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	if _, err := s.conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}
