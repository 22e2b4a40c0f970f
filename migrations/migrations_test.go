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
	want := []string{"001_schema_and_domains.sql", "002_ulid_functions.sql", "003_objectid_functions.sql", "004_partitions.sql", "005_uuidv7.sql", "006_partition_safety.sql", "007_typeid.sql"}
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
		for _, line := range strings.Split(s, "\n") {
			if code, _, _ := strings.Cut(line, "--"); strings.Contains(code, "DROP") && strings.Contains(code, "CASCADE") {
				t.Errorf("%s: DROP ... CASCADE could drop user data: %s", name, line)
			}
		}
	}
}

// Names in the migrations are bound at creation, not at call time: each
// part of each file first sets its own search_path for the transaction, every
// LANGUAGE sql function has an SQL-standard body (RETURN or BEGIN ATOMIC,
// parsed when created) rather than a quoted one (parsed when inlined, under
// the caller's search_path), and every plpgsql function either fixes its
// search_path or qualifies its operators.
func TestFilesBindNames(t *testing.T) {
	names, err := fs.Glob(migrations.FS, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	const setPath = "SET LOCAL search_path = pg_catalog, pg_temp;"
	for _, name := range names {
		b, err := fs.ReadFile(migrations.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		// Without comment lines.
		var lines []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "--") || strings.HasPrefix(l, "---- create above") {
				lines = append(lines, l)
			}
		}
		up, down, _ := strings.Cut(strings.Join(lines, "\n"), "---- create above / drop below ----")
		for part, sql := range map[string]string{"forward": up, "reverse": down} {
			if !strings.HasPrefix(strings.TrimSpace(sql), setPath) {
				t.Errorf("%s, %s SQL does not start with %q", name, part, setPath)
			}
		}
		for _, fn := range strings.Split(up, "CREATE OR REPLACE FUNCTION ")[1:] {
			sig, _, _ := strings.Cut(fn, "\n")
			lang := fn[strings.Index(fn, "LANGUAGE ")+len("LANGUAGE "):]
			lang, _, _ = strings.Cut(lang, " ")
			switch lang {
			case "sql":
				if !strings.HasPrefix(fn[strings.Index(fn, "\n")+1:], "LANGUAGE sql ") ||
					!(strings.Contains(fn, "\nRETURN ") || strings.Contains(fn, "BEGIN ATOMIC")) ||
					strings.Contains(strings.SplitN(fn, "\nRETURN ", 2)[0], " AS $") {
					t.Errorf("%s: %s needs an SQL-standard body (RETURN ... or BEGIN ATOMIC)", name, sig)
				}
			case "plpgsql":
				body := fn[:strings.Index(fn, "\n$$;")]
				if !strings.Contains(body, "SET search_path = pg_catalog, pg_temp") && !strings.Contains(body, "OPERATOR(pg_catalog.") {
					t.Errorf("%s: plpgsql %s neither sets its search_path nor qualifies its operators", name, sig)
				}
			default:
				t.Errorf("%s: %s: language %q", name, sig, lang)
			}
		}
	}
}
