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
// pgid's migrations applied. Up to 8 tests run at once (they wait on the
// server; go test -parallel N overrides it).
func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{
		Name:     "partition",
		Setup:    func(ctx context.Context, conn *pgx.Conn) error { return migrations.Up(ctx, conn) },
		Parallel: 8,
	}))
}
