package integration_test

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgid/pgid/migrations"
)

// sqlState returns err's SQLSTATE, or "" if err is not a server error.
func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

func pgidObjects(t *testing.T, conn *pgx.Conn) (types, funcs int) {
	t.Helper()
	err := conn.QueryRow(context.Background(), `
		SELECT (SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'pgid'),
		       (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'pgid')`).Scan(&types, &funcs)
	if err != nil {
		t.Fatal(err)
	}
	return types, funcs
}

func schemaVersion(t *testing.T, conn *pgx.Conn) int32 {
	t.Helper()
	m, err := migrations.NewMigrator(context.Background(), conn)
	if err != nil {
		t.Fatal(err)
	}
	v, err := m.GetCurrentVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Up, Up again, the forward SQL by hand twice, Down, Up.
func TestMigrationsUpDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, false), pgx.QueryExecModeCacheStatement)

	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatalf("second Up: %v", err)
	}
	if v := schemaVersion(t, conn); v != 4 {
		t.Fatalf("version after Up: %d, want 4", v)
	}
	// 2 domains + 2 array types; 6 ULID + 8 ObjectId + 8 partition functions.
	if types, funcs := pgidObjects(t, conn); types != 4 || funcs != 22 {
		t.Fatalf("after Up: %d types, %d functions; want 4, 22", types, funcs)
	}

	// Each file's forward part, as someone would paste it into psql, twice.
	names, _ := fs.Glob(migrations.FS, "*.sql")
	for range 2 {
		for _, name := range names {
			b, _ := fs.ReadFile(migrations.FS, name)
			up, _, _ := strings.Cut(string(b), "---- create above / drop below ----")
			if _, err := conn.Exec(ctx, up); err != nil {
				t.Fatalf("re-running %s by hand: %v", name, err)
			}
		}
	}
	if types, funcs := pgidObjects(t, conn); types != 4 || funcs != 22 {
		t.Fatalf("after re-running: %d types, %d functions; want 4, 22", types, funcs)
	}

	if err := migrations.Down(ctx, conn); err != nil {
		t.Fatalf("Down: %v", err)
	}
	if v := schemaVersion(t, conn); v != 0 {
		t.Fatalf("version after Down: %d, want 0", v)
	}
	var schemas int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = 'pgid'").Scan(&schemas); err != nil {
		t.Fatal(err)
	}
	if schemas != 0 {
		t.Fatal("schema pgid still exists after Down")
	}
	var table string
	if err := conn.QueryRow(ctx, "SELECT to_regclass($1)::text", migrations.VersionTable).Scan(&table); err != nil || table != "pgid_schema_version" {
		t.Fatalf("version table %s after Down: %q, %v", migrations.VersionTable, table, err)
	}
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatalf("Up after Down: %v", err)
	}
	if types, funcs := pgidObjects(t, conn); types != 4 || funcs != 22 {
		t.Fatalf("after Down, Up: %d types, %d functions; want 4, 22", types, funcs)
	}
}

// Down refuses to drop what user tables use, and leaves the data alone.
func TestMigrationsDownRestrict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, `
		CREATE TABLE keep (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid(), o pgid.objectid);
		INSERT INTO keep (o) VALUES (pgid.gen_objectid())`); err != nil {
		t.Fatal(err)
	}
	err := migrations.Down(ctx, conn)
	if sqlState(err) != "2BP01" { // dependent_objects_still_exist
		t.Fatalf("Down with a table using the domains: %v, want SQLSTATE 2BP01", err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM keep").Scan(&n); err != nil || n != 1 {
		t.Fatalf("table after refused Down: %d rows, %v", n, err)
	}
	// 003 (ObjectId functions, unused by the table) was reverted; 002 stopped
	// at pgid.gen_ulid, the column default.
	if v := schemaVersion(t, conn); v != 2 {
		t.Fatalf("version after refused Down: %d, want 2", v)
	}
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatalf("Up after refused Down: %v", err)
	}
	if types, funcs := pgidObjects(t, conn); types != 4 || funcs != 22 {
		t.Fatalf("after Up: %d types, %d functions; want 4, 22", types, funcs)
	}
}

// Concurrent Up calls on one database serialise on tern's advisory lock.
func TestMigrationsConcurrentUp(t *testing.T) {
	t.Parallel()
	dsn := newDB(t, false)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		conn := connect(t, dsn, pgx.QueryExecModeCacheStatement)
		wg.Go(func() { errs[i] = migrations.Up(context.Background(), conn) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Up #%d: %v", i, err)
		}
	}
	conn := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if v := schemaVersion(t, conn); v != 4 {
		t.Fatalf("version: %d, want 4", v)
	}
}

// Bound and conversion functions are IMMUTABLE STRICT PARALLEL SAFE (a
// VOLATILE bound turns an index scan into a seq scan), generators VOLATILE,
// and every function is documented.
func TestFunctionAttributes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	rows, err := conn.Query(ctx, `
		SELECT p.proname, p.provolatile::text, p.proisstrict, p.proparallel::text, l.lanname,
		       coalesce(obj_description(p.oid, 'pg_proc'), '')
		FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
		WHERE p.pronamespace = 'pgid'::regnamespace
		  AND p.proname NOT LIKE '%partition%' -- 004, checked in partition_test.go
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		Name, Volatile string
		Strict         bool
		Parallel, Lang string
		Comment        string
	}
	fns, err := pgx.CollectRows(rows, pgx.RowToStructByPos[fn])
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) != 14 {
		t.Fatalf("%d functions, want 14", len(fns))
	}
	for _, f := range fns {
		if f.Parallel != "s" {
			t.Errorf("%s: parallel %q, want safe", f.Name, f.Parallel)
		}
		if f.Comment == "" {
			t.Errorf("%s: no COMMENT", f.Name)
		}
		if strings.HasPrefix(f.Name, "gen_") {
			if f.Volatile != "v" {
				t.Errorf("%s: volatility %q, want VOLATILE", f.Name, f.Volatile)
			}
			if !strings.Contains(f.Comment, "Not monotonic") {
				t.Errorf("%s: comment does not say it is not monotonic: %q", f.Name, f.Comment)
			}
			continue
		}
		if f.Volatile != "i" || !f.Strict {
			t.Errorf("%s: volatility %q strict %v, want IMMUTABLE STRICT", f.Name, f.Volatile, f.Strict)
		}
		if strings.Contains(f.Name, "_at") || strings.HasSuffix(f.Name, "_to_hex") || strings.HasSuffix(f.Name, "_to_short") {
			if f.Lang != "sql" {
				t.Errorf("%s: language %s, want sql (inlinable)", f.Name, f.Lang)
			}
		}
	}

	// The bound functions are inlined: EXPLAIN VERBOSE shows their body,
	// not a call.
	rows, err = conn.Query(ctx, `EXPLAIN (VERBOSE, COSTS OFF)
		SELECT pgid.ulid_min_at(t), pgid.ulid_max_at(t), pgid.objectid_min_at(t), pgid.objectid_max_at(t)
		FROM (VALUES (now()), (now())) v(t)`)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	if strings.Contains(plan, "_at(") {
		t.Errorf("bound functions not inlined:\n%s", plan)
	}
}
