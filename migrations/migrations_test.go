package migrations_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/jackc/tern/v2/migrate"

	"github.com/pgid/pgid/migrations"
)

// The migrations load without a database; tests against a server are in
// integration_test.
func TestLoad(t *testing.T) {
	m, err := migrate.NewMigrator(context.Background(), nil, migrations.VersionTable)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LoadMigrations(migrations.FS); err != nil {
		t.Fatal(err)
	}
	want := []string{"001_schema_and_domains.sql", "002_ulid_functions.sql", "003_objectid_functions.sql", "004_partitions.sql"}
	if len(m.Migrations) != len(want) {
		t.Fatalf("got %d migrations, want %d", len(m.Migrations), len(want))
	}
	for i, mig := range m.Migrations {
		if mig.Name != want[i] || mig.Sequence != int32(i+1) {
			t.Errorf("migration %d: %s (sequence %d), want %s", i, mig.Name, mig.Sequence, want[i])
		}
		if mig.UpSQL == "" || mig.DownSQL == "" {
			t.Errorf("%s: every migration needs forward and reverse SQL", mig.Name)
		}
	}
}

// Every file is up to the marker idempotent SQL and has no tern template
// syntax (tern runs files through text/template).
func TestFiles(t *testing.T) {
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		b, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if strings.Count(s, "---- create above / drop below ----") != 1 {
			t.Errorf("%s: want exactly one tern up/down marker", name)
		}
		if strings.Contains(s, "{{") {
			t.Errorf("%s: contains template syntax {{", name)
		}
		up, _, _ := strings.Cut(s, "---- create above / drop below ----")
		for _, bad := range []string{"CREATE FUNCTION", "CREATE SCHEMA pgid", "CREATE TABLE"} {
			if strings.Contains(up, bad) {
				t.Errorf("%s: forward SQL contains %q; use CREATE OR REPLACE or IF NOT EXISTS", name, bad)
			}
		}
		if strings.Contains(up, "CREATE DOMAIN") && !strings.Contains(up, "DO $$") {
			t.Errorf("%s: CREATE DOMAIN outside a DO block is not idempotent", name)
		}
		if strings.Contains(s, "CASCADE") {
			t.Errorf("%s: CASCADE could drop user data", name)
		}
	}
}
