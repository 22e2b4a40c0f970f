package migrations_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
)

// ownedDB creates a database owned by a new non-superuser role, as an
// application's database usually is, and returns its DSN, a superuser
// connection to it, the owner role and a connection as that role.
func ownedDB(t *testing.T) (dsn string, su *pgx.Conn, ownerRole string, owner *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	dsn = pgtest.EmptyDB(t)
	su = pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	var db, suName string
	if err := su.QueryRow(ctx, "SELECT current_database(), current_user").Scan(&db, &suName); err != nil {
		t.Fatal(err)
	}
	ownerRole = pgtest.NewRole(t, su)
	if _, err := su.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" OWNER TO "+ownerRole); err != nil {
		t.Fatal(err)
	}
	// Before newRole's cleanup drops the role: it must own no database,
	// nor a schema pgid holding others' objects.
	t.Cleanup(func() {
		if _, err := su.Exec(context.Background(), "DROP SCHEMA IF EXISTS pgid CASCADE; ALTER DATABASE "+pgx.Identifier{db}.Sanitize()+" OWNER TO "+pgx.Identifier{suName}.Sanitize()); err != nil {
			t.Errorf("give the database back: %v", err)
		}
	})
	return dsn, su, ownerRole, pgtest.Connect(t, pgtest.WithUser(dsn, ownerRole), pgx.QueryExecModeCacheStatement)
}

// grantAllOnDatabase creates the application role of the report: one that
// was given GRANT ALL ON DATABASE (so CREATE on it), and connects as it.
func grantAllOnDatabase(t *testing.T, dsn string, su *pgx.Conn) (string, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	role := pgtest.NewRole(t, su)
	if _, err := su.Exec(ctx, "DO $$BEGIN EXECUTE format('GRANT ALL ON DATABASE %I TO "+role+"', current_database()); END$$"); err != nil {
		t.Fatal(err)
	}
	return role, pgtest.Connect(t, pgtest.WithUser(dsn, role), pgx.QueryExecModeCacheStatement)
}

// pgidFunctionCount counts the functions in schema pgid.
func pgidFunctionCount(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = 'pgid'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// wantUntrusted fails t unless err wraps ErrUntrusted and names every one
// of words.
func wantUntrusted(t *testing.T, what string, err error, words ...string) {
	t.Helper()
	if !errors.Is(err, migrations.ErrUntrusted) {
		t.Errorf("%s: %v; want ErrUntrusted", what, err)
		return
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %v; want it to name %q", what, err, w)
		}
	}
}

// The attack of issue 26: an application role with GRANT ALL ON DATABASE
// creates schema pgid before the owner's first Up. Up, by the owner or a
// superuser, refuses it naming that role and the fix, installs nothing, and
// status says the database is not trustworthy instead of "current".
func TestMigrationsRefuseForeignSchemaPgid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn, su, ownerRole, owner := ownedDB(t)
	evil, attacker := grantAllOnDatabase(t, dsn, su)
	// All may use and create in it, so that the owner's Up can install.
	if _, err := attacker.Exec(ctx, "CREATE SCHEMA pgid; GRANT ALL ON SCHEMA pgid TO PUBLIC"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		who  string
		conn *pgx.Conn
	}{{ownerRole + " (database owner)", owner}, {"a superuser", su}} {
		err := migrations.Up(ctx, c.conn)
		wantUntrusted(t, "Up by "+c.who+" into schema pgid owned by "+evil, err, "schema pgid", "owner "+evil, "DROP SCHEMA pgid CASCADE")
		st, err := migrations.ReadStatus(ctx, c.conn)
		if err != nil {
			t.Fatal(err)
		}
		wantUntrusted(t, "status for "+c.who, st.Err, evil)
		_, err = migrations.Version(ctx, c.conn)
		wantUntrusted(t, "Version for "+c.who, err, evil)
		if st.FunctionsCurrent || !slices.ContainsFunc(st.Untrusted, func(s string) bool { return strings.Contains(s, evil) }) {
			t.Errorf("status for %s: %+v; want not current, %s in Untrusted", c.who, st, evil)
		}
	}
	if n := pgidFunctionCount(t, su); n != 0 {
		t.Errorf("refused Up left %d functions in the other role's schema", n)
	}
	var table *string
	if err := su.QueryRow(ctx, "SELECT to_regclass($1)::text", migrations.VersionTable).Scan(&table); err != nil || table != nil {
		t.Errorf("refused Up made %v, %v", table, err)
	}

	// The fix the error names: drop it, then Up installs a schema the owner owns.
	if _, err := su.Exec(ctx, "DROP SCHEMA pgid CASCADE"); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, owner); err != nil {
		t.Fatalf("Up after the fix: %v", err)
	}
	if st, err := migrations.ReadStatus(ctx, su); err != nil || st.Err != nil || !st.FunctionsCurrent || len(st.Untrusted) > 0 {
		t.Errorf("status after the fix: %+v, %v", st, err)
	}
}

// A function another role planted in the owner's schema pgid (given CREATE
// on it) makes Up and status refuse the database, naming the function.
func TestMigrationsRefusePlantedFunction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn, su, _, owner := ownedDB(t)
	if err := migrations.Up(ctx, owner); err != nil {
		t.Fatal(err)
	}
	evil, attacker := grantAllOnDatabase(t, dsn, su)
	if _, err := owner.Exec(ctx, "GRANT CREATE ON SCHEMA pgid TO "+evil); err != nil {
		t.Fatal(err)
	}
	if _, err := attacker.Exec(ctx, "CREATE FUNCTION pgid.trap() RETURNS int LANGUAGE sql RETURN 1"); err != nil {
		t.Fatal(err)
	}
	wantUntrusted(t, "Up with a function of "+evil+" in schema pgid", migrations.Up(ctx, owner), "pgid.trap()", "owner "+evil)
	st, err := migrations.ReadStatus(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	wantUntrusted(t, "status", st.Err, "pgid.trap()")
	wantUntrusted(t, "Down", migrations.Down(ctx, owner), "pgid.trap()")
}

// forgeVersionTable creates pgid.schema_migrations holding the released
// checksums of every versioned file and of the function definitions.
func forgeVersionTable(t *testing.T, conn *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS pgid;
		CREATE TABLE pgid.schema_migrations (name text PRIMARY KEY, version int4 UNIQUE, checksum text,
		  applied_at timestamptz NOT NULL DEFAULT now(), applied_by name NOT NULL DEFAULT CURRENT_USER);
		GRANT USAGE ON SCHEMA pgid TO PUBLIC; GRANT SELECT ON pgid.schema_migrations TO PUBLIC`); err != nil {
		t.Fatal(err)
	}
	names, _ := fs.Glob(migrations.FS, "*.sql")
	for i, name := range names {
		b, _ := fs.ReadFile(migrations.FS, name)
		if _, err := conn.Exec(ctx, "INSERT INTO pgid.schema_migrations (name, version, checksum) VALUES ($1, $2, $3)",
			name, i+1, migrations.Checksum(b)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, "INSERT INTO pgid.schema_migrations (name, checksum) VALUES ($1, $2)",
		migrations.FunctionsStep, migrations.FunctionsChecksum()); err != nil {
		t.Fatal(err)
	}
}

// The variant of the report: a forged version table holding the released
// checksums. Made by another role it is refused for its owner; made by a
// trusted role (or left after someone dropped pgid's objects) it records
// what the database lacks, and Up and status say so instead of "up to
// date".
func TestMigrationsRefuseForgedVersionTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("other role", func(t *testing.T) {
		t.Parallel()
		dsn, su, _, owner := ownedDB(t)
		evil, attacker := grantAllOnDatabase(t, dsn, su)
		forgeVersionTable(t, attacker)
		wantUntrusted(t, "Up with "+evil+"'s version table", migrations.Up(ctx, owner), "owner "+evil, migrations.VersionTable)
		st, err := migrations.ReadStatus(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		wantUntrusted(t, "status", st.Err, evil)
		if st.FunctionsCurrent || st.Version != 0 {
			t.Errorf("status read the other role's table: %+v", st)
		}
		if n := pgidFunctionCount(t, su); n != 0 {
			t.Errorf("%d functions", n)
		}
	})
	t.Run("owner", func(t *testing.T) {
		t.Parallel()
		_, _, _, owner := ownedDB(t)
		forgeVersionTable(t, owner)
		err := migrations.Up(ctx, owner)
		// Two domains and every function are missing; five are named.
		wantUntrusted(t, "Up with a version table recording what is not there", err,
			"domain pgid.ulid", fmt.Sprintf("and %d more", pgidAllFunctions+2-5), "DELETE FROM "+migrations.VersionTable, "'functions/'", "'001_schema_and_domains.sql'")
		st, serr := migrations.ReadStatus(ctx, owner)
		if serr != nil {
			t.Fatal(serr)
		}
		wantUntrusted(t, "status", st.Err, "domain pgid.ulid")
		if len(st.Missing) != pgidAllFunctions+2 || !slices.Contains(st.Missing, "function pgid.ulid_time(uuid)") || st.Err == nil || err == nil || !strings.Contains(err.Error(), st.Err.Error()) {
			t.Errorf("status: %d missing %v, err %v; want %d missing and Up's error %v",
				len(st.Missing), st.Missing, st.Err, pgidAllFunctions+2, err)
		}
	})
	t.Run("dropped function", func(t *testing.T) {
		t.Parallel()
		conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
		if _, err := conn.Exec(ctx, "DROP FUNCTION pgid.ulid_is_v7(uuid)"); err != nil {
			t.Fatal(err)
		}
		wantUntrusted(t, "Up with a function dropped", migrations.Up(ctx, conn), "pgid.ulid_is_v7")
		st, err := migrations.ReadStatus(ctx, conn)
		if err != nil || len(st.Missing) != 1 || !strings.Contains(st.Missing[0], "pgid.ulid_is_v7") {
			t.Errorf("status: %+v, %v; want pgid.ulid_is_v7 missing", st, err)
		}
		// The fix the error names: forget the definitions, Up applies them.
		if _, err := conn.Exec(ctx, "DELETE FROM "+migrations.VersionTable+" WHERE name = $1", migrations.FunctionsStep); err != nil {
			t.Fatal(err)
		}
		if err := migrations.Up(ctx, conn); err != nil {
			t.Fatalf("Up after the fix: %v", err)
		}
		if st, err := migrations.ReadStatus(ctx, conn); err != nil || st.Err != nil || len(st.Missing) > 0 || !st.FunctionsCurrent {
			t.Errorf("status after the fix: %+v, %v", st, err)
		}
	})
}

// Who may own schema pgid: the role running Up, the database owner or a
// superuser. A superuser's Up on a schema the database owner made works,
// and so do the owner's Up on a superuser's install and an application
// role's Up with nothing to do.
func TestMigrationsTrustedOwners(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("owner's schema, superuser's Up", func(t *testing.T) {
		t.Parallel()
		dsn, su, _, owner := ownedDB(t)
		if _, err := owner.Exec(ctx, "CREATE SCHEMA pgid"); err != nil {
			t.Fatal(err)
		}
		if err := migrations.Up(ctx, su); err != nil {
			t.Fatalf("superuser's Up on the owner's schema pgid: %v", err)
		}
		if err := migrations.Up(ctx, owner); err != nil {
			t.Fatalf("owner's Up on the superuser's objects: %v", err)
		}
		app := pgtest.Connect(t, pgtest.WithUser(dsn, pgtest.NewRole(t, su)), pgx.QueryExecModeCacheStatement)
		if err := migrations.Up(ctx, app); err != nil {
			t.Fatalf("application's Up with nothing to do: %v", err)
		}
		for _, c := range []*pgx.Conn{su, owner, app} {
			if st, err := migrations.ReadStatus(ctx, c); err != nil || st.Err != nil || !st.FunctionsCurrent || st.Version != schemaLatest {
				t.Errorf("status: %+v, %v", st, err)
			}
		}
	})
	t.Run("superuser's install, owner's Up", func(t *testing.T) {
		t.Parallel()
		_, su, _, owner := ownedDB(t)
		if err := migrations.Up(ctx, su); err != nil {
			t.Fatal(err)
		}
		if err := migrations.Up(ctx, owner); err != nil {
			t.Fatalf("owner's Up on a superuser's install: %v", err)
		}
		// The owner cannot drop the superuser's objects: the server says so.
		if err := migrations.Down(ctx, owner); !errors.Is(err, migrations.ErrNotOwner) {
			t.Errorf("owner's Down of a superuser's install: %v; want ErrNotOwner", err)
		}
	})
}

// Status says what Up says: a changed checksum is ErrChecksum in both, and
// so is a versioned file recorded under another version number.
func TestMigrationsStatusSaysWhatUpSays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct{ name, tamper, word string }{
		{"checksum", "UPDATE pgid.schema_migrations SET checksum = repeat('0', 64) WHERE name = '002_ulid_functions.sql'", "002_ulid_functions.sql"},
		{"renumbered", "UPDATE pgid.schema_migrations SET version = 9 WHERE name = '006_partition_safety.sql'", "006_partition_safety.sql"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
			if _, err := conn.Exec(ctx, c.tamper); err != nil {
				t.Fatal(err)
			}
			upErr := migrations.Up(ctx, conn)
			st, err := migrations.ReadStatus(ctx, conn)
			if err != nil {
				t.Fatal(err)
			}
			if !errors.Is(upErr, migrations.ErrChecksum) || !strings.Contains(upErr.Error(), c.word) {
				t.Errorf("Up: %v; want ErrChecksum naming %s", upErr, c.word)
			}
			if !errors.Is(st.Err, migrations.ErrChecksum) || upErr == nil || !strings.Contains(upErr.Error(), st.Err.Error()) {
				t.Errorf("status: Err %v (version %d, functions current %v); want what Up says: %v", st.Err, st.Version, st.FunctionsCurrent, upErr)
			}
		})
	}
}
