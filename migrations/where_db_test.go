package migrations_test

import (
	"context"
	"database/sql"
	"net"
	"slices"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
)

// ReadStatus says where it read: the database and the server address the
// connection reached, whatever the handle, so that a service can show
// where Up worked when its DSN came from the environment.
func TestStatusWhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.EmptyDB(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := migrations.Up(ctx, pool); err != nil {
		t.Fatal(err)
	}
	for what, read := range map[string]func() (migrations.Status, error){
		"conn": func() (migrations.Status, error) { return migrations.ReadStatus(ctx, conn) },
		"pool": func() (migrations.Status, error) { return migrations.ReadStatus(ctx, pool) },
		"sql":  func() (migrations.Status, error) { return migrations.ReadStatus(ctx, db) },
	} {
		st, err := read()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if st.Database != cfg.Database || st.Version != migrations.Latest() {
			t.Errorf("%s: database %q version %d, want %q, %d", what, st.Database, st.Version, cfg.Database, migrations.Latest())
		}
		host, port, err := net.SplitHostPort(st.Server)
		if err != nil || port != strconv.Itoa(int(cfg.Port)) || net.ParseIP(host) == nil {
			t.Errorf("%s: server %q, want the address of %s:%d", what, st.Server, cfg.Host, cfg.Port)
		}
	}
}

// applySchema applies migrations.Schema in one transaction, as another
// migration tool does with the output of `pgid schema`.
func applySchema(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	schema, err := migrations.Schema()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), "BEGIN;\n"+schema+"\nCOMMIT;"); err != nil {
		t.Fatalf("applying Schema: %v", err)
	}
}

// A schema pgid applied outside the runner (Schema through another tool)
// is reported as such, with what it lacks and has beyond this pgid's; Up
// there records every step and leaves what a fresh install has.
func TestStatusOutside(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.EmptyDB(t), pgx.QueryExecModeCacheStatement)
	st, err := migrations.ReadStatus(ctx, conn)
	if err != nil || st.Outside || st.Version != 0 {
		t.Fatalf("empty database: %+v, %v", st, err)
	}
	applySchema(t, conn)
	st, err = migrations.ReadStatus(ctx, conn)
	if err != nil || !st.Outside || st.Version != 0 || st.Functions != "" || len(st.Lacks) > 0 || len(st.Extra) > 0 || st.Err != nil {
		t.Fatalf("after Schema: %+v, %v; want Outside, nothing lacking or extra", st, err)
	}
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatalf("Up over Schema: %v", err)
	}
	st, err = migrations.ReadStatus(ctx, conn)
	if err != nil || st.Outside || st.Version != migrations.Latest() || !st.FunctionsCurrent || st.Err != nil {
		t.Fatalf("after Up over Schema: %+v, %v", st, err)
	}
	rows, err := conn.Query(ctx, "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = 'pgid'::regnamespace")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, functionList) {
		t.Errorf("functions after Up over Schema:\n%v\nwant testdata/functions.txt:\n%v", got, functionList)
	}

	// Another pgid's schema: a function it lacks, one this pgid lacks.
	other := pgtest.Connect(t, pgtest.EmptyDB(t), pgx.QueryExecModeCacheStatement)
	applySchema(t, other)
	if _, err := other.Exec(ctx, `DROP FUNCTION pgid.gen_objectid() CASCADE;
		CREATE FUNCTION pgid.old_thing(integer) RETURNS integer LANGUAGE sql RETURN 1`); err != nil {
		t.Fatal(err)
	}
	st, err = migrations.ReadStatus(ctx, other)
	if err != nil || !st.Outside || !slices.Contains(st.Lacks, "function pgid.gen_objectid()") || !slices.Equal(st.Extra, []string{"pgid.old_thing(integer)"}) {
		t.Errorf("another pgid's schema: outside %v, lacks %v, extra %v, %v", st.Outside, st.Lacks, st.Extra, err)
	}
}
