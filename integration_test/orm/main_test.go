package ormtest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
)

// TestMain gives the tests their server and scratch databases
// (internal/pgserver/pgtest: DATABASE_URL, the docker-compose DSN, else an
// embedded PostgreSQL), each a copy of a template with pgid's schema.
func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{
		Name:  "orm_test",
		Setup: func(ctx context.Context, conn *pgx.Conn) error { return migrations.Up(ctx, conn) },
	}))
}

// newDB creates a scratch database with pgid's schema applied (the ORMs
// build pgid.objectid columns), drops it when t ends, and returns its DSN.
func newDB(t *testing.T) string {
	t.Helper()
	return pgtest.DB(t)
}

// columnTypes returns table's columns and their types as format_type
// writes them (a domain by its qualified name, e.g. pgid.objectid[]).
func columnTypes(t *testing.T, dsn, table string) map[string]string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod)
		FROM pg_catalog.pg_attribute a WHERE a.attrelid = $1::pg_catalog.regclass AND a.attnum > 0 AND NOT a.attisdropped`, table)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for rows.Next() {
		var n, typ string
		if err := rows.Scan(&n, &typ); err != nil {
			t.Fatal(err)
		}
		got[n] = typ
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// assertColumns fails t unless table has exactly the columns and types of want.
func assertColumns(t *testing.T, dsn, table string, want map[string]string) {
	t.Helper()
	got := columnTypes(t, dsn, table)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("columns of %s:\n got %v\nwant %v", table, got, want)
	}
}
