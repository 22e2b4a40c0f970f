package migtools_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/golang-migrate/migrate/v4"
	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/pressly/goose/v3"

	"github.com/pgid/pgid/migrations"
)

// guideSection returns the section under heading of docs/MIGRATIONS.md
// (where the README's migration sections moved), its lines joined by
// spaces (inline code may wrap).
func guideSection(t *testing.T, heading string) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/MIGRATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## "+heading+"\n")
	if !ok {
		t.Fatalf("docs/MIGRATIONS.md has no section %q", heading)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	return strings.Join(strings.Fields(sec), " ")
}

// TestMigrateBeforeUpDirty: golang-migrate run before migrations.Up was
// added fails on a file that uses pgid's types and records that version
// dirty; Up then does not clear it. docs/MIGRATIONS.md's recovery (Up, then force
// the version before the failed file, then up) does, and the guide says
// the order first.
func TestMigrateBeforeUpDirty(t *testing.T) {
	sec := guideSection(t, "Your own migrations")
	for _, want := range []string{
		"Dirty database version 1. Fix and force version.",
		"`m.Force(-1)`", "`migrate force -- -1`",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("docs/MIGRATIONS.md's \"Your own migrations\" does not show %s", want)
		}
	}
	ctx := context.Background()
	db := openDB(t, scratchDB(t))
	files := fstest.MapFS{"1_events.up.sql": file(migrateEvents)}
	newMigrate := func() *migrate.Migrate {
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
		return m
	}

	// golang-migrate before migrations.Up: the file fails, version 1 dirty.
	m := newMigrate()
	if err := m.Up(); err == nil || !strings.Contains(err.Error(), `schema "pgid" does not exist`) {
		t.Fatalf("migrate up before migrations.Up: %v, want the missing schema pgid", err)
	}
	if v, dirty, err := m.Version(); v != 1 || !dirty || err != nil {
		t.Fatalf("after the failed file: version %d dirty %v %v, want 1 dirty", v, dirty, err)
	}
	// Adding migrations.Up does not clear it.
	if err := migrations.Up(ctx, db); err != nil {
		t.Fatal(err)
	}
	err := newMigrate().Up()
	var dirty migrate.ErrDirty
	if !errors.As(err, &dirty) || err.Error() != "Dirty database version 1. Fix and force version." {
		t.Fatalf("migrate up after migrations.Up: %v, want golang-migrate's dirty error", err)
	}
	// The failed file left nothing: golang-migrate sent it as one implicit
	// transaction. Recovery: force the version before it, then up.
	var events bool
	if err := db.QueryRow("SELECT to_regclass('events') IS NOT NULL").Scan(&events); err != nil || events {
		t.Fatalf("the failed file left table events: %v %v", events, err)
	}
	m = newMigrate()
	if err := m.Force(-1); err != nil {
		t.Fatal(err)
	}
	if err := m.Up(); err != nil {
		t.Fatalf("migrate up after force -1: %v", err)
	}
	if v, d, err := m.Version(); v != 1 || d || err != nil {
		t.Fatalf("after the recovery: version %d dirty %v %v", v, d, err)
	}
	insertEvent(t, db)
}

// TestGooseBeforeUp: goose in the same wrong order rolls the failed file
// back and records nothing, so adding migrations.Up is all it takes.
func TestGooseBeforeUp(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, scratchDB(t))
	files := fstest.MapFS{"00001_events.sql": file(gooseEvents)}
	p, err := goose.NewProvider(goose.DialectPostgres, db, files)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err == nil || !strings.Contains(err.Error(), `schema "pgid" does not exist`) {
		t.Fatalf("goose up before migrations.Up: %v, want the missing schema pgid", err)
	}
	if v, err := p.GetDBVersion(ctx); v != 0 || err != nil {
		t.Fatalf("after the failed file goose records version %d (%v), want 0", v, err)
	}
	if err := migrations.Up(ctx, db); err != nil {
		t.Fatal(err)
	}
	if v := gooseUp(t, db, files); v != 1 {
		t.Fatalf("goose version %d after migrations.Up, want 1", v)
	}
	insertEvent(t, db)
}
