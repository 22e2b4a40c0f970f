package tail_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
)

// TestMain gives the database tests their server and scratch databases
// (internal/pgserver/pgtest: DATABASE_URL, the docker-compose DSN, else an
// embedded PostgreSQL): each test's database is a copy of a template with
// pgid's migrations applied. Up to 8 tests run at once (they wait on the
// server; go test -parallel N overrides it).
func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{
		Name:     "tail",
		Setup:    func(ctx context.Context, conn *pgx.Conn) error { return migrations.Up(ctx, conn) },
		Parallel: 8,
	}))
}

func mustExec(t testing.TB, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// modeName is mode as a subtest name.
func modeName(m pgx.QueryExecMode) string { return strings.ReplaceAll(m.String(), " ", "_") }
