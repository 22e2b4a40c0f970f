// Package integration_test runs pgid against a real PostgreSQL: the
// migrations and SQL functions, and the Go types through every driver path
// (pgx in all five QueryExecModes, pgxpool, database/sql over pgx's stdlib,
// lib/pq).
//
// A server is found by internal/pgserver, in this order, at
//
//  1. DATABASE_URL, if set (it must answer; there is no fallback from it);
//  2. the docker-compose default DSN, [pgserver.ComposeDSN], if something answers;
//  3. a [containerImage] container started with testcontainers-go, if a
//     Docker engine answers;
//  4. an embedded PostgreSQL on a free port, stopped and removed at the end
//     (PGID_POSTGRES=embedded goes straight there; PGID_POSTGRES_BINARIES=DIR
//     runs local binaries instead of downloading).
//
// Without any of them the package fails; it never skips. Each run creates a
// template database with the migrations applied, and each test a database
// copied from it; all of them are dropped again. The role needs CREATEDB.
package integration_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"

	"github.com/pgid/pgid/internal/pgserver"
	"github.com/pgid/pgid/migrations"
)

// containerImage is what testcontainers-go starts when neither DATABASE_URL
// nor the compose service answers; keep it equal to docker-compose.yml's: the
// newest major .ci/pg-matrix tests.
const containerImage = "postgres:18-alpine"

var (
	baseDSN    string        // the server found, its maintenance database
	serverInfo string        // what the log shows about the server and drivers
	templateDB string        // database with the migrations applied
	admin      *pgxpool.Pool // connections to baseDSN for CREATE/DROP DATABASE
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse() // for testing.Verbose in announce
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	dsn, source, cleanup, err := findServer(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration_test: FAIL:", err)
		return 1
	}
	defer cleanup()
	baseDSN = dsn

	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration_test: FAIL: parse DSN:", err)
		return 1
	}
	cfg.MaxConns = 4
	admin, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration_test: FAIL: connect:", err)
		return 1
	}
	defer admin.Close()

	var version string
	if err := admin.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		fmt.Fprintln(os.Stderr, "integration_test: FAIL: SELECT version():", err)
		return 1
	}
	serverInfo = fmt.Sprintf("server (%s): %s; pgx %s; lib/pq %s; testcontainers-go %s",
		source, version, moduleVersion("github.com/jackc/pgx/v5"), moduleVersion("github.com/lib/pq"),
		moduleVersion("github.com/testcontainers/testcontainers-go"))
	fmt.Println("integration_test:", serverInfo)
	announce("integration_test: " + serverInfo + "\n" +
		"integration_test: all of this package takes about 2 minutes; go test prints its result when it ends " +
		"(go run ./integration_test/cmd/suite shows progress)")

	templateDB = "pgid_tmpl_" + randomHex(6)
	if err := createTemplate(ctx, templateDB); err != nil {
		fmt.Fprintln(os.Stderr, "integration_test: FAIL: template database:", err)
		dropDatabase(context.Background(), templateDB)
		return 1
	}
	defer dropDatabase(context.Background(), templateDB)

	return m.Run()
}

// announce writes line to the terminal, if there is one, when go test
// would not show it until the package ends: go test buffers a test
// binary's stdout and stderr both (without -v, or with -v and several
// packages) and shows nothing of a package that passes without -v, so what
// TestMain prints about the server would otherwise appear only at the end,
// if at all. Under -v or -json (the suite command) the output is already
// streamed or shown; without a controlling terminal (CI) there is nowhere
// to write, and nothing is written.
func announce(line string) {
	if testing.Verbose() || os.Getenv("PGID_INNER_GO_TEST") != "" { // cache_test.go's go test
		return
	}
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer tty.Close()
	fmt.Fprintln(tty, line)
}

// findServer returns the DSN of a PostgreSQL server that answers, where it
// came from, and a function that releases it: pgserver.Find, with
// testcontainers-go as its test-only step 3.
func findServer(ctx context.Context) (dsn, source string, cleanup func(), err error) {
	s, err := pgserver.Find(ctx, pgserver.Options{
		Hook:     startContainer,
		HookName: "a Docker engine for testcontainers-go to start " + containerImage,
		Embedded: pgserver.EmbeddedOptions{Logf: func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, format+"\n", args...)
			announce("integration_test: " + fmt.Sprintf(format, args...))
		}},
	})
	if err != nil {
		return "", "", nil, err
	}
	return s.DSN, s.Description, func() {
		if err := s.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "integration_test: stop server:", err)
		}
	}, nil
}

// startContainer is pgserver's step 3: a containerImage container started
// with testcontainers-go, if a Docker engine answers.
func startContainer(ctx context.Context) (dsn, source string, cleanup func(), err error) {
	c, err := tcpostgres.Run(ctx, containerImage,
		tcpostgres.WithDatabase("postgres"),
		tcpostgres.WithUsername("postgres"),
		tcpostgres.WithPassword("postgres"),
		tcpostgres.BasicWaitStrategies(),
	)
	if err == nil {
		dsn, err = c.ConnectionString(ctx, "sslmode=disable")
		if err == nil {
			return dsn, "testcontainers-go " + containerImage, func() { _ = c.Terminate(context.Background()) }, nil
		}
	}
	// Run returns the container together with an error when it was created
	// but did not become ready (image pulled, wait strategy timed out):
	// remove it rather than leave it running.
	if c != nil {
		_ = c.Terminate(context.Background())
	}
	return "", "", nil, err
}

// createTemplate creates database name and applies the migrations to it.
func createTemplate(ctx context.Context, name string) error {
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return err
	}
	conn, err := pgx.Connect(ctx, dsnFor(name))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	return migrations.Up(ctx, conn)
}

// dropDatabase drops name, disconnecting whoever is still connected.
func dropDatabase(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	return err
}

// serverChoice lists what decides which server the tests run against.
var serverChoice = []string{pgserver.EnvDatabaseURL, pgserver.EnvMode, pgserver.EnvBinaries, pgserver.EnvCache, pgserver.EnvSource, pgserver.EnvUser, "TMPDIR"}

var recordOnce sync.Once

// recordServerChoice reads the server choice again once tests run. go test
// caches a result on the environment variables and files the tests read,
// but only from m.Run on: what TestMain read before it to find the server
// is not recorded, so without this a run with PGID_POSTGRES=embedded
// reported the DATABASE_URL run's "ok (cached)".
func recordServerChoice() {
	recordOnce.Do(func() {
		for _, k := range serverChoice {
			os.Getenv(k)
		}
		if d := os.Getenv(pgserver.EnvBinaries); d != "" {
			for _, b := range []string{"initdb", "postgres"} {
				os.Stat(filepath.Join(d, "bin", b))
			}
		}
	})
}

// newDB creates a database for t from the migrated template (migrated:
// true) or an empty one, drops it when t ends, and returns its DSN.
func newDB(t testing.TB, migrated bool) string {
	t.Helper()
	recordServerChoice()
	name := "pgid_t_" + randomHex(6)
	sql := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize()
	if migrated {
		sql += " TEMPLATE " + pgx.Identifier{templateDB}.Sanitize()
	}
	if _, err := admin.Exec(context.Background(), sql); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		if err := dropDatabase(context.Background(), name); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	return dsnFor(name)
}

// dsnFor returns baseDSN pointing at database name, in URL or key=value form
// as baseDSN is written.
func dsnFor(name string) string {
	if strings.Contains(baseDSN, "://") {
		u, err := url.Parse(baseDSN)
		if err == nil {
			u.Path = "/" + name
			return u.String()
		}
	}
	return baseDSN + " dbname=" + name
}

// withParam appends a connection parameter to a DSN in either form.
func withParam(dsn, key, value string) string {
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + url.QueryEscape(key) + "=" + url.QueryEscape(value)
	}
	return dsn + " " + key + "=" + value
}

// connect opens a pgx connection to dsn with the given mode, closed when t
// ends.
func connect(t testing.TB, dsn string, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	recordServerChoice()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// moduleVersion returns the version of module path this binary was built
// with: from the build information, or, since test binaries may lack the
// dependency list, from the go.mod of the module under test.
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == path {
				if d.Replace != nil {
					return d.Version + " => " + d.Replace.Path + " " + d.Replace.Version
				}
				return d.Version
			}
		}
	}
	if b, err := os.ReadFile("go.mod"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
			if len(f) >= 2 && f[0] == path {
				return f[1] + " (go.mod)"
			}
		}
	}
	return "(unknown)"
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// TestServer logs the server and driver versions (they are also printed by
// TestMain) and checks the template has the migrations.
func TestServer(t *testing.T) {
	t.Log(serverInfo)
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	var n int
	if err := conn.QueryRow(context.Background(),
		"SELECT count(*) FROM pg_type WHERE typnamespace = 'pgid'::regnamespace AND typname IN ('ulid', 'objectid', '_ulid', '_objectid')").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Fatalf("pgid types in a test database: %d, want 4", n)
	}
}

// docker-compose.yml and the testcontainers-go fallback run the same image.
func TestComposeImage(t *testing.T) {
	b, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\n    image: "+containerImage+"\n") {
		t.Errorf("docker-compose.yml does not run %s, the image main_test.go's containerImage starts", containerImage)
	}
}
