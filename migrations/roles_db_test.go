package migrations_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/ulidtype"
)

// Migrate as the owner, run as an application role that owns nothing of
// pgid: Up with nothing to do, tables with the domains and SQL defaults,
// temporary tables, every function, range queries with SQL-side bounds.
func TestApplicationRole(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DB(t)
	owner := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	role := pgtest.NewRole(t, owner)
	// Where the application keeps its tables (PostgreSQL 15 gives PUBLIC no
	// CREATE on schema public).
	if _, err := owner.Exec(ctx, "CREATE SCHEMA app AUTHORIZATION "+role); err != nil {
		t.Fatal(err)
	}
	app := pgtest.Connect(t, pgtest.WithUser(dsn, role), pgx.QueryExecModeCacheStatement)

	if err := migrations.Up(ctx, app); err != nil {
		t.Fatalf("Up with nothing to do, as %s: %v", role, err)
	}
	if _, err := app.Exec(ctx, `
		CREATE TABLE app.events (
			id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid(),
			o pgid.objectid NOT NULL DEFAULT pgid.gen_objectid(),
			n int NOT NULL);
		CREATE TEMP TABLE scratch (id pgid.ulid, o pgid.objectid)`); err != nil {
		t.Fatalf("tables with the pgid domains, as %s: %v", role, err)
	}
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	for i := range 100 {
		if _, err := app.Exec(ctx, "INSERT INTO app.events (id, n) VALUES ($1, $2)",
			ulidtype.MinAt(t0.Add(time.Duration(i)*time.Second)), i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := app.Exec(ctx, "INSERT INTO app.events (n) VALUES (100), (101)"); err != nil {
		t.Fatalf("SQL defaults: %v", err)
	}
	if _, err := app.Exec(ctx, "INSERT INTO scratch SELECT id, o FROM app.events"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := app.QueryRow(ctx, "SELECT count(*) FROM app.events WHERE id >= pgid.ulid_min_at($1) AND id < pgid.ulid_min_at($2)",
		t0.Add(10*time.Second), t0.Add(20*time.Second)).Scan(&n); err != nil || n != 10 {
		t.Fatalf("range with SQL bounds as %s: %d rows, %v; want 10", role, n, err)
	}
	var ok bool
	if err := app.QueryRow(ctx, `
		SELECT bool_and(pgid.ulid_from_text(pgid.ulid_to_text(id)) = id
		            AND pgid.objectid_from_hex(pgid.objectid_to_hex(o)) = o
		            AND pgid.objectid_from_short(pgid.objectid_to_short(o)) = o
		            AND pgid.ulid_time(id) IS NOT NULL AND pgid.ulid_max_at(now()) > id
		            AND pgid.objectid_time(o) IS NOT NULL
		            AND pgid.objectid_min_at(now()) < pgid.objectid_max_at(now()))
		FROM scratch`).Scan(&ok); err != nil || !ok {
		t.Fatalf("functions as %s: %v, %v", role, ok, err)
	}
	var out any
	if err := app.QueryRow(ctx, "SELECT pgid.ulid_from_text('nope')").Scan(&out); pgtest.SQLState(err) != "22P02" {
		t.Fatalf("bad text as %s: %v, want 22P02", role, err)
	}
}

// Up with migrations to apply tells a role that does not own the database
// that the migrations are the owner's, and leaves nothing behind.
func TestApplicationRoleCannotMigrate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.EmptyDB(t)
	owner := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	role := pgtest.NewRole(t, owner)
	app := pgtest.Connect(t, pgtest.WithUser(dsn, role), pgx.QueryExecModeCacheStatement)
	err := migrations.Up(ctx, app)
	if !errors.Is(err, migrations.ErrNotOwner) || pgtest.SQLState(err) != "42501" {
		t.Fatalf("Up on an empty database as %s: %v; want ErrNotOwner wrapping 42501", role, err)
	}
	var schemas int
	if err := owner.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = 'pgid'").Scan(&schemas); err != nil || schemas != 0 {
		t.Fatalf("schema pgid after a refused Up: %d, %v", schemas, err)
	}
}
