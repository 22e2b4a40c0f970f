package migrations_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
)

// TestMain gives the database tests their server and scratch databases
// (internal/pgserver/pgtest: DATABASE_URL, the docker-compose DSN, else an
// embedded PostgreSQL): each test's database is a copy of a template with
// pgid's migrations applied.
func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{
		Name:  "migrations",
		Setup: func(ctx context.Context, conn *pgx.Conn) error { return migrations.Up(ctx, conn) },
	}))
}

// admin runs CREATE ROLE and the like on the server.
var admin pgtest.Admin

// newDB creates a database for t from the migrated template (migrated:
// true) or an empty one, drops it when t ends, and returns its DSN.
func newDB(t testing.TB, migrated bool) string {
	t.Helper()
	if migrated {
		return pgtest.DB(t)
	}
	return pgtest.EmptyDB(t)
}

// connect opens a pgx connection to dsn with the given mode, closed when t
// ends.
func connect(t testing.TB, dsn string, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	return pgtest.Connect(t, dsn, mode)
}

// randomHex returns n random bytes in hex, for role and database names.
func randomHex(n int) string { return pgtest.RandomHex(n) }

// sqlState returns err's SQLSTATE, or "" if err is not a server error.
func sqlState(err error) string { return pgtest.SQLState(err) }

// withUser returns dsn connecting as role user (password: its name).
func withUser(dsn, user string) string { return pgtest.WithUser(dsn, user) }

// newRole creates a LOGIN role for t, dropped with what it owns in
// owner's database when t ends.
func newRole(t *testing.T, owner *pgx.Conn) string { return pgtest.NewRole(t, owner) }

// withParam appends a connection parameter to a DSN in either form.
func withParam(dsn, key, value string) string { return pgtest.WithParam(dsn, key, value) }

// functionList is testdata/functions.txt: every function in schema pgid
// after Up, as regprocedure text, sorted bytewise. integration_test's
// security tests read the same file.
var functionList, functionListErr = pgtest.ReadList("testdata/functions.txt")

// The functions in schema pgid after Up are those of testdata/functions.txt.
func TestFunctionList(t *testing.T) {
	t.Parallel()
	if functionListErr != nil {
		t.Fatal(functionListErr)
	}
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	rows, err := conn.Query(context.Background(), "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = 'pgid'::regnamespace")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, functionList) {
		t.Errorf("functions in schema pgid after Up:\n%s\nwant testdata/functions.txt:\n%s", strings.Join(got, "\n"), strings.Join(functionList, "\n"))
	}
}
