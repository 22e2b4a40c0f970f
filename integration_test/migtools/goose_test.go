package migtools_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/pressly/goose/v3"

	"github.com/pgid/pgid/migrations"
)

// The service's own goose migrations.
const (
	gooseEvents = `-- +goose Up
CREATE TABLE events (id pgid.ulid PRIMARY KEY, kind text NOT NULL);
-- +goose Down
DROP TABLE events;
`
	gooseEventsRef = `-- +goose Up
ALTER TABLE events ADD COLUMN ref pgid.objectid;
-- +goose Down
ALTER TABLE events DROP COLUMN ref;
`
)

// gooseSchema is pgid's schema as one goose migration: what `pgid schema`
// prints between StatementBegin and StatementEnd, so goose sends it whole,
// bracketed by BEGIN and COMMIT under NO TRANSACTION. Not in goose's own
// transaction: the schema sets search_path (SET LOCAL) to pg_catalog,
// pg_temp for the rest of its transaction, where goose's INSERT into its
// unqualified goose_db_version would then fail (relation does not exist).
func gooseSchema(schema string) string {
	return "-- +goose NO TRANSACTION\n-- +goose Up\n-- +goose StatementBegin\nBEGIN;\n" + schema + "\nCOMMIT;\n-- +goose StatementEnd\n"
}

func gooseUp(t *testing.T, db *sql.DB, files fstest.MapFS) int64 {
	t.Helper()
	p, err := goose.NewProvider(goose.DialectPostgres, db, files)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := p.Up(ctx); err != nil {
		t.Fatalf("goose up: %v", err)
	}
	v, err := p.GetDBVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// ternOld gives db the older pgid the way that pgid's migrations.Up did
// (github.com/jackc/tern: public.pgid_schema_version, a transaction per
// file).
func ternOld(t *testing.T, db *sql.DB) {
	t.Helper()
	ctx := context.Background()
	files := oldSchema(t)
	if _, err := db.ExecContext(ctx, "CREATE TABLE public.pgid_schema_version (version int4 NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	for _, up := range files {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, up); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, "RESET ALL"); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO public.pgid_schema_version VALUES ($1)", len(files)); err != nil {
		t.Fatal(err)
	}
}

// Shape (a): migrations.Up at start-up, then goose with the service's own
// migrations. A database migrated by an older pgid gets the new function
// bodies from migrations.Up; goose never sees pgid's schema.
func TestGooseAfterMigrationsUp(t *testing.T) {
	want := fresh(t)
	ctx := context.Background()
	db := openDB(t, scratchDB(t))

	// Last year: an older pgid, the service's first migration.
	ternOld(t, db)
	if v := gooseUp(t, db, fstest.MapFS{"00001_events.sql": {Data: []byte(gooseEvents)}}); v != 1 {
		t.Fatalf("goose version %d, want 1", v)
	}
	if got := snapshot(t, db); strings.Join(got, "\n") == strings.Join(want, "\n") {
		t.Fatal("the older pgid's schema equals this one's: the test shows no upgrade")
	}

	// Today: this pgid at start-up, then the service's migrations.
	if err := migrations.Up(ctx, db); err != nil {
		t.Fatal(err)
	}
	if v := gooseUp(t, db, fstest.MapFS{
		"00001_events.sql": {Data: []byte(gooseEvents)},
		"00002_ref.sql":    {Data: []byte(gooseEventsRef)},
	}); v != 2 {
		t.Fatalf("goose version %d, want 2", v)
	}
	sameSchema(t, "migrations.Up before goose", snapshot(t, db), want)
	st, err := migrations.ReadStatus(ctx, db)
	if err != nil || st.Version != migrations.Latest() || !st.FunctionsCurrent {
		t.Fatalf("status %+v, %v", st, err)
	}
	insertEvent(t, db)
}

// Shape (b): pgid's schema is a goose migration, `pgid schema` output. A
// newer pgid needs a new goose migration with its `pgid schema` (goose
// never re-runs an applied file); applied over the older schema it makes
// what a fresh install makes.
func TestGooseSchemaMigration(t *testing.T) {
	want := fresh(t)
	db := openDB(t, scratchDB(t))
	schema, err := migrations.Schema()
	if err != nil {
		t.Fatal(err)
	}

	// Last year: the older pgid's schema as migration 1.
	files := fstest.MapFS{
		"00001_pgid.sql":   {Data: []byte(gooseSchema(strings.Join(oldSchema(t), "\n")))},
		"00002_events.sql": {Data: []byte(gooseEvents)},
	}
	if v := gooseUp(t, db, files); v != 2 {
		t.Fatalf("goose version %d, want 2", v)
	}
	old := snapshot(t, db)
	if strings.Join(old, "\n") == strings.Join(want, "\n") {
		t.Fatal("the older pgid's schema equals this one's: the test shows no upgrade")
	}

	// Upgrading pgid without a new migration changes nothing: goose has
	// applied 00001 and does not read it again.
	files["00001_pgid.sql"] = &fstest.MapFile{Data: []byte(gooseSchema(schema))}
	gooseUp(t, db, files)
	sameSchema(t, "control: the older schema stays", snapshot(t, db), old)

	// The upgrade: pgid schema > migrations/00003_pgid.sql (wrapped for
	// goose), a new file.
	files["00003_pgid.sql"] = &fstest.MapFile{Data: []byte(gooseSchema(schema))}
	if v := gooseUp(t, db, files); v != 3 {
		t.Fatalf("goose version %d, want 3", v)
	}
	sameSchema(t, "pgid schema as a new goose migration", snapshot(t, db), want)
	insertEvent(t, db)
}

// insertEvent stores and reads back a row of the service's table.
func insertEvent(t *testing.T, db *sql.DB) {
	t.Helper()
	ctx := context.Background()
	var n int
	if err := db.QueryRowContext(ctx, `INSERT INTO events (id, kind) VALUES (pgid.gen_ulid(), 'signup') RETURNING 1`).Scan(&n); err != nil {
		t.Fatal(err)
	}
}

// The trap gooseSchema avoids: `pgid schema` inside goose's own transaction
// leaves search_path at pg_catalog, pg_temp (SET LOCAL) for goose's INSERT
// into its unqualified version table, and the migration fails.
func TestGooseSchemaInGooseTransaction(t *testing.T) {
	db := openDB(t, scratchDB(t))
	schema, err := migrations.Schema()
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, fstest.MapFS{
		"00001_pgid.sql": {Data: []byte("-- +goose Up\n-- +goose StatementBegin\n" + schema + "\n-- +goose StatementEnd\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Up(context.Background())
	if err == nil || !strings.Contains(err.Error(), `relation "goose_db_version" does not exist`) {
		t.Fatalf("pgid schema in goose's transaction: %v, want goose's version INSERT to fail", err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = 'pgid'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("schema pgid after the failed migration: %d, %v; want none (rolled back)", n, err)
	}
}
