package partition_test

import (
	"context"
	"os"
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
		Name:  "partition",
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

// connectWith opens a connection to dsn whose session starts with params.
func connectWith(t testing.TB, dsn string, params map[string]string) *pgx.Conn {
	t.Helper()
	return pgtest.ConnectWith(t, dsn, params)
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
