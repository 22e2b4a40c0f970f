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
// internal/pgserver/pgtest does all this, for every module's tests.
//
// This module keeps what crosses drivers and modules: every driver path,
// lib/pq, sqlc's generated code, upgrades from every shipped schema, the
// Go and SQL blocks of the README and docs/, search_path safety over every
// function. The database tests of migrations, partition and tail are
// beside those packages.
package integration_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
)

// containerImage is what testcontainers-go starts when neither DATABASE_URL
// nor the compose service answers; keep it equal to docker-compose.yml's: the
// newest major .ci/pg-matrix tests.
const containerImage = "postgres:18-alpine"

var (
	baseDSN    string       // the server found, its maintenance database
	serverInfo string       // what the log shows about the server and drivers
	admin      pgtest.Admin // runs CREATE DATABASE / CREATE ROLE on baseDSN
)

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{
		Name:     "integration_test",
		Setup:    func(ctx context.Context, conn *pgx.Conn) error { return migrations.Up(ctx, conn) },
		Hook:     startContainer,
		HookName: "a Docker engine for testcontainers-go to start " + containerImage,
		Eager:    true,
		Started:  started,
	}))
}

// started prints which server and drivers the tests run against, first.
func started(s *pgtest.Server) {
	baseDSN = s.DSN
	serverInfo = fmt.Sprintf("server (%s): %s; pgx %s; lib/pq %s; testcontainers-go %s",
		s.Description, s.Version, moduleVersion("github.com/jackc/pgx/v5"), moduleVersion("github.com/lib/pq"),
		moduleVersion("github.com/testcontainers/testcontainers-go"))
	fmt.Println("integration_test:", serverInfo)
	pgtest.Announce("integration_test: " + serverInfo + "\n" +
		"integration_test: all of this package takes about 2 minutes; go test prints its result when it ends " +
		"(go run ./integration_test/cmd/suite shows progress)")
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

// serverChoice lists what decides which server the tests run against.
var serverChoice = pgtest.ServerChoice()

// newDB creates a database for t from the migrated template (migrated:
// true) or an empty one, drops it when t ends, and returns its DSN.
func newDB(t testing.TB, migrated bool) string {
	t.Helper()
	if migrated {
		return pgtest.DB(t)
	}
	return pgtest.EmptyDB(t)
}

// dropDatabase drops name, disconnecting whoever is still connected.
func dropDatabase(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	return err
}

// dsnFor returns baseDSN pointing at database name.
func dsnFor(name string) string { return pgtest.DSNFor(baseDSN, name) }

// withParam appends a connection parameter to a DSN in either form.
func withParam(dsn, key, value string) string { return pgtest.WithParam(dsn, key, value) }

// connect opens a pgx connection to dsn with the given mode, closed when t
// ends.
func connect(t testing.TB, dsn string, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	return pgtest.Connect(t, dsn, mode)
}

// connectWith opens a connection to dsn whose session starts with params.
func connectWith(t testing.TB, dsn string, params map[string]string) *pgx.Conn {
	t.Helper()
	return pgtest.ConnectWith(t, dsn, params)
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

// sqlState returns err's SQLSTATE, or "" if err is not a server error.
func sqlState(err error) string { return pgtest.SQLState(err) }

// withUser returns dsn connecting as role user (password: its name).
func withUser(dsn, user string) string { return pgtest.WithUser(dsn, user) }

// newRole creates a LOGIN role for t, dropped with what it owns in
// owner's database when t ends.
func newRole(t *testing.T, owner *pgx.Conn) string { return pgtest.NewRole(t, owner) }

func mustExec(t testing.TB, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// functionList is testdata/functions.txt: every function in schema pgid
// after Up, as regprocedure text, sorted bytewise. integration_test's
// security tests read the same file.
var functionList, functionListErr = pgtest.ReadList("../migrations/testdata/functions.txt")

// pgidAllFunctions is the number of functions in schema pgid.
var pgidAllFunctions = len(functionList)
