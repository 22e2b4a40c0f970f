package migtools_test

import (
	"bufio"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
)

// TestMain gives the tests their server and scratch databases
// (internal/pgserver/pgtest: DATABASE_URL, the docker-compose DSN, else an
// embedded PostgreSQL).
func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Name: "migtools_test"}))
}

// scratchDB creates an empty database, dropped when t ends, and returns
// its DSN.
func scratchDB(t *testing.T) string {
	t.Helper()
	return pgtest.EmptyDB(t)
}

func openDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// oldSchema returns the forward SQL of the last schema pgid shipped with
// tern (integration_test/testdata/history), file by file: an older pgid,
// whose function bodies differ from this one's.
func oldSchema(t *testing.T) []string {
	t.Helper()
	dir := filepath.Join("..", "testdata", "history")
	f, err := os.Open(filepath.Join(dir, "MANIFEST"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var files []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		switch {
		case len(w) == 4 && w[0] == "schema":
			files = nil
		case len(w) == 3 && w[0] == "file":
			b, err := os.ReadFile(filepath.Join(dir, "files", w[2]+".sql"))
			if err != nil {
				t.Fatal(err)
			}
			up, _, ok := strings.Cut(string(b), migrations.Marker)
			if !ok {
				t.Fatalf("%s: no marker", w[1])
			}
			files = append(files, up)
		}
	}
	if len(files) == 0 {
		t.Fatal("MANIFEST lists no schema")
	}
	return files
}

// snapshot describes schema pgid's functions and domains: each function's
// signature and definition, each domain's base type and constraints.
func snapshot(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`
		SELECT 'function ' || p.oid::pg_catalog.regprocedure::text || ' ' || pg_catalog.md5(pg_catalog.pg_get_functiondef(p.oid))
		FROM pg_catalog.pg_proc p WHERE p.pronamespace = 'pgid'::regnamespace
		UNION ALL
		SELECT 'domain ' || t.typname || ' ' || pg_catalog.format_type(t.typbasetype, t.typtypmod) || ' ' ||
			coalesce((SELECT pg_catalog.string_agg(pg_catalog.pg_get_constraintdef(c.oid), ',' ORDER BY c.conname)
				FROM pg_catalog.pg_constraint c WHERE c.contypid = t.oid), '')
		FROM pg_catalog.pg_type t WHERE t.typnamespace = 'pgid'::regnamespace AND t.typtype = 'd'
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("schema pgid has %d functions and domains: %v", len(out), out)
	}
	return out
}

// fresh is the snapshot of a database given this pgid's schema by
// migrations.Up.
func fresh(t *testing.T) []string {
	t.Helper()
	db := openDB(t, scratchDB(t))
	if err := migrations.Up(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return snapshot(t, db)
}

// sameSchema fails t unless got equals want, naming the differences.
func sameSchema(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	for _, s := range got {
		if !slices.Contains(want, s) {
			t.Errorf("%s: not in a fresh install: %s", what, s)
		}
	}
	for _, s := range want {
		if !slices.Contains(got, s) {
			t.Errorf("%s: missing (a fresh install has it): %s", what, s)
		}
	}
}
