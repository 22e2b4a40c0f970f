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
// pgid's migrations applied. Up to 8 tests run at once (they wait on the
// server; go test -parallel N overrides it).
func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{
		Name:     "migrations",
		Setup:    func(ctx context.Context, conn *pgx.Conn) error { return migrations.Up(ctx, conn) },
		Parallel: 8,
	}))
}

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
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
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
