package migtools_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/golang-migrate/migrate/v4"
	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"

	"github.com/pgid/pgid/migrations"
)

// The service's own golang-migrate migrations.
const (
	migrateEvents    = "CREATE TABLE events (id pgid.ulid PRIMARY KEY, kind text NOT NULL);"
	migrateEventsRef = "ALTER TABLE events ADD COLUMN ref pgid.objectid;"
)

// migrateSchema is pgid's schema as one golang-migrate file: golang-migrate
// sends a file whole and without a transaction, and the schema must run in
// one (it sets search_path with SET LOCAL), so the file brackets
// `pgid schema` with BEGIN and COMMIT.
func migrateSchema(schema string) string {
	return "BEGIN;\n" + schema + "\nCOMMIT;\n"
}

func migrateUp(t *testing.T, db *sql.DB, files fstest.MapFS) uint {
	t.Helper()
	src, err := iofs.New(files, ".")
	if err != nil {
		t.Fatal(err)
	}
	drv, err := pgxmigrate.WithInstance(db, &pgxmigrate.Config{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "pgx5", drv)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		t.Fatalf("migrate up: %v", err)
	}
	v, dirty, err := m.Version()
	if err != nil || dirty {
		t.Fatalf("migrate version %d, dirty %v: %v", v, dirty, err)
	}
	return v
}

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

// Shape (a) with golang-migrate: migrations.Up at start-up re-applies the
// newer pgid's functions over an older pgid's.
func TestMigrateAfterMigrationsUp(t *testing.T) {
	want := fresh(t)
	db := openDB(t, scratchDB(t))
	ternOld(t, db)
	if v := migrateUp(t, db, fstest.MapFS{"1_events.up.sql": file(migrateEvents)}); v != 1 {
		t.Fatalf("version %d, want 1", v)
	}
	if strings.Join(snapshot(t, db), "\n") == strings.Join(want, "\n") {
		t.Fatal("the older pgid's schema equals this one's: the test shows no upgrade")
	}
	if err := migrations.Up(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	if v := migrateUp(t, db, fstest.MapFS{"1_events.up.sql": file(migrateEvents), "2_ref.up.sql": file(migrateEventsRef)}); v != 2 {
		t.Fatalf("version %d, want 2", v)
	}
	sameSchema(t, "migrations.Up before golang-migrate", snapshot(t, db), want)
	insertEvent(t, db)
}

// Shape (b) with golang-migrate: `pgid schema` as a migration; a newer pgid
// is a new file, which converges to a fresh install.
func TestMigrateSchemaMigration(t *testing.T) {
	want := fresh(t)
	db := openDB(t, scratchDB(t))
	schema, err := migrations.Schema()
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{
		"1_pgid.up.sql":   file(migrateSchema(strings.Join(oldSchema(t), "\n"))),
		"2_events.up.sql": file(migrateEvents),
	}
	if v := migrateUp(t, db, files); v != 2 {
		t.Fatalf("version %d, want 2", v)
	}
	if strings.Join(snapshot(t, db), "\n") == strings.Join(want, "\n") {
		t.Fatal("the older pgid's schema equals this one's: the test shows no upgrade")
	}
	files["3_pgid.up.sql"] = file(migrateSchema(schema))
	if v := migrateUp(t, db, files); v != 3 {
		t.Fatalf("version %d, want 3", v)
	}
	sameSchema(t, "pgid schema as a new golang-migrate file", snapshot(t, db), want)
	insertEvent(t, db)
}
