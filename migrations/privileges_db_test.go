package migrations_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
)

// foreignPrivileges lists the privileges role holds on the objects of
// schema pgid beyond what PUBLIC is given (USAGE on the schema, types and
// sequences, EXECUTE on functions, SELECT on the version table), or WITH GRANT
// OPTION, each as "object: privilege".
func foreignPrivileges(t *testing.T, conn *pgx.Conn, role string) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `
		WITH o(kind, name, acl) AS (
		  SELECT 'schema', nspname::text, nspacl FROM pg_namespace WHERE nspname = 'pgid'
		  UNION ALL SELECT CASE relkind WHEN 'S' THEN 'sequence' ELSE 'table' END, relname::text, relacl
		    FROM pg_class WHERE relnamespace = 'pgid'::regnamespace
		  UNION ALL SELECT 'function', oid::regprocedure::text, proacl FROM pg_proc WHERE pronamespace = 'pgid'::regnamespace
		  UNION ALL SELECT 'type', typname::text, typacl FROM pg_type WHERE typnamespace = 'pgid'::regnamespace)
		SELECT format('%s %s: %s%s', o.kind, o.name, e.privilege_type, CASE WHEN e.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END)
		FROM o, aclexplode(o.acl) e
		WHERE e.grantee = $1::regrole
		  AND (e.is_grantable OR NOT (o.kind, e.privilege_type) IN (('schema', 'USAGE'), ('type', 'USAGE'), ('function', 'EXECUTE'), ('sequence', 'USAGE'))
		       AND NOT (o.kind = 'table' AND o.name = 'schema_migrations' AND e.privilege_type = 'SELECT'))
		ORDER BY 1`, role)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// The database owner's default privileges (ALTER DEFAULT PRIVILEGES GRANT
// ALL ON TABLES, SEQUENCES, FUNCTIONS, TYPES and SCHEMAS TO app, a common
// set-up) give app nothing on pgid's objects beyond what PUBLIC has: Up
// revokes the rest in the transaction that created them, so app can
// neither put a trigger on the version table, write it, nor create
// objects in schema pgid.
func TestUpRevokesDefaultPrivileges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn, su, _, owner := ownedDB(t)
	app, appConn := grantAllOnDatabase(t, dsn, su)
	for _, kind := range []string{"TABLES", "SEQUENCES", "FUNCTIONS", "TYPES", "SCHEMAS"} {
		if _, err := owner.Exec(ctx, "ALTER DEFAULT PRIVILEGES GRANT ALL ON "+kind+" TO "+app+" WITH GRANT OPTION"); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { su.Exec(context.Background(), "DROP OWNED BY "+app) })
	if err := migrations.Up(ctx, owner); err != nil {
		t.Fatalf("owner's Up: %v", err)
	}
	if got := foreignPrivileges(t, su, app); len(got) > 0 {
		t.Errorf("after the owner's Up, %s holds what PUBLIC does not:\n%s", app, strings.Join(got, "\n"))
	}
	if _, err := appConn.Exec(ctx, `CREATE SCHEMA app_code; CREATE FUNCTION app_code.f() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$;
		CREATE TRIGGER t BEFORE INSERT ON pgid.schema_migrations FOR EACH ROW EXECUTE FUNCTION app_code.f()`); pgtest.SQLState(err) != "42501" {
		t.Errorf("%s's trigger on the version table: %v; want 42501", app, err)
	}
	if _, err := appConn.Exec(ctx, "UPDATE pgid.schema_migrations SET checksum = NULL"); pgtest.SQLState(err) != "42501" {
		t.Errorf("%s's UPDATE of the version table: %v; want 42501", app, err)
	}
	if _, err := appConn.Exec(ctx, "CREATE FUNCTION pgid.trap() RETURNS int LANGUAGE sql RETURN 1"); pgtest.SQLState(err) != "42501" {
		t.Errorf("%s's function in schema pgid: %v; want 42501", app, err)
	}
	for _, c := range []*pgx.Conn{owner, su, appConn} {
		if st, err := migrations.ReadStatus(ctx, c); err != nil || st.Err != nil || len(st.Untrusted) > 0 {
			t.Errorf("status: %+v, %v", st, err)
		}
	}
	// A functions step applied again (a new pgid) revokes as well.
	if _, err := owner.Exec(ctx, "UPDATE pgid.schema_migrations SET checksum = $1 WHERE name = $2",
		migrations.FunctionsHistory()[0], migrations.FunctionsStep); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Exec(ctx, "DROP FUNCTION pgid.ulid_is_v7(uuid)"); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, owner); err != nil {
		t.Fatalf("owner's Up of the functions: %v", err)
	}
	if got := foreignPrivileges(t, su, app); len(got) > 0 {
		t.Errorf("after the functions step, %s holds:\n%s", app, strings.Join(got, "\n"))
	}
}

// The attack of issue 34: app holds INSERT, UPDATE and TRIGGER on the
// version table (what an earlier pgid's Up left under the owner's default
// privileges), adds a trigger calling its own function and makes the
// functions step pending. Status, Up and Down refuse the database, naming
// the trigger, the privileges and the fixes; a superuser's Up never fires
// the trigger. The fixes named make the database pass again.
func TestRefuseTriggerOnVersionTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn, su, _, owner := ownedDB(t)
	if err := migrations.Up(ctx, owner); err != nil {
		t.Fatal(err)
	}
	app, appConn := grantAllOnDatabase(t, dsn, su)
	t.Cleanup(func() { su.Exec(context.Background(), "DROP OWNED BY "+app) })
	if _, err := owner.Exec(ctx, "GRANT INSERT, UPDATE, DELETE, TRIGGER ON pgid.schema_migrations TO "+app); err != nil {
		t.Fatal(err)
	}
	if _, err := appConn.Exec(ctx, `CREATE SCHEMA app_code; CREATE TABLE app_code.ran (who name);
		GRANT USAGE ON SCHEMA app_code TO PUBLIC; GRANT INSERT ON app_code.ran TO PUBLIC;
		CREATE FUNCTION app_code.f() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN INSERT INTO app_code.ran VALUES (current_user); RETURN NEW; END$$;
		CREATE TRIGGER app_trap BEFORE INSERT OR UPDATE OR DELETE ON pgid.schema_migrations FOR EACH ROW EXECUTE FUNCTION app_code.f();
		UPDATE pgid.schema_migrations SET checksum = NULL WHERE name = 'functions/';
		DELETE FROM app_code.ran`); err != nil {
		t.Fatal(err)
	}
	words := []string{"trigger app_trap on pgid.schema_migrations", "app_code.f()", "owner " + app,
		"DROP TRIGGER app_trap ON pgid.schema_migrations",
		"REVOKE DELETE, INSERT, TRIGGER, UPDATE ON TABLE pgid.schema_migrations FROM " + app}
	for _, c := range []*pgx.Conn{owner, su} {
		st, err := migrations.ReadStatus(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		wantUntrusted(t, "status", st.Err, words...)
		if len(st.Untrusted) != 2 {
			t.Errorf("status: Untrusted %q; want the trigger and the privileges", st.Untrusted)
		}
		_, err = migrations.Version(ctx, c)
		wantUntrusted(t, "Version", err, words...)
	}
	wantUntrusted(t, "superuser's Up", migrations.Up(ctx, su), words...)
	wantUntrusted(t, "superuser's Down", migrations.Down(ctx, su), words...)
	var ran []string
	rows, err := su.Query(ctx, "SELECT who::text FROM app_code.ran")
	if err == nil {
		ran, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil || len(ran) > 0 {
		t.Errorf("%s's trigger ran as %v (%v)", app, ran, err)
	}

	// The fixes named.
	if _, err := su.Exec(ctx, "DROP TRIGGER app_trap ON pgid.schema_migrations; REVOKE DELETE, INSERT, TRIGGER, UPDATE ON TABLE pgid.schema_migrations FROM "+app+" CASCADE"); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, su); err != nil {
		t.Fatalf("Up after the fix: %v", err)
	}
	if st, err := migrations.ReadStatus(ctx, owner); err != nil || st.Err != nil || !st.FunctionsCurrent {
		t.Errorf("status after the fix: %+v, %v", st, err)
	}
}

// Privileges that let another role plant code: CREATE on schema pgid (an
// overload of an internal function matching better than pgid's own),
// USAGE on it WITH GRANT OPTION, a column privilege, and any privilege
// given to PUBLIC beyond pgid's; each makes status, Up and Down refuse
// the database, naming the role, the privilege and the REVOKE.
func TestRefuseForeignPrivileges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct{ name, grant, want string }{
		{"create on schema", "GRANT CREATE ON SCHEMA pgid TO %s", "REVOKE CREATE ON SCHEMA pgid FROM %s CASCADE"},
		{"usage with grant option", "GRANT USAGE ON SCHEMA pgid TO %s WITH GRANT OPTION", "REVOKE GRANT OPTION FOR USAGE ON SCHEMA pgid FROM %s CASCADE"},
		{"column", "GRANT UPDATE (checksum) ON pgid.schema_migrations TO %s", "REVOKE UPDATE (checksum) ON TABLE pgid.schema_migrations FROM %s CASCADE"},
		{"public", "GRANT TRIGGER ON pgid.schema_migrations TO PUBLIC", "REVOKE TRIGGER ON TABLE pgid.schema_migrations FROM PUBLIC CASCADE"},
		{"function with grant option", "GRANT EXECUTE ON FUNCTION pgid.gen_ulid() TO %s WITH GRANT OPTION", "REVOKE GRANT OPTION FOR EXECUTE ON ROUTINE pgid.gen_ulid() FROM %s CASCADE"},
		{"domain with grant option", "GRANT USAGE ON DOMAIN pgid.ulid TO %s WITH GRANT OPTION", "REVOKE GRANT OPTION FOR USAGE ON TYPE pgid.ulid FROM %s CASCADE"},
		{"sequence", "CREATE SEQUENCE pgid.counter; GRANT USAGE, UPDATE ON SEQUENCE pgid.counter TO %s", "REVOKE UPDATE, USAGE ON SEQUENCE pgid.counter FROM %s CASCADE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dsn, su, _, owner := ownedDB(t)
			if err := migrations.Up(ctx, owner); err != nil {
				t.Fatal(err)
			}
			app, _ := grantAllOnDatabase(t, dsn, su)
			grant, fix := c.grant, c.want
			if strings.Contains(grant, "%s") {
				grant, fix = strings.ReplaceAll(grant, "%s", app), strings.ReplaceAll(fix, "%s", app)
			}
			if _, err := owner.Exec(ctx, grant); err != nil {
				t.Fatal(err)
			}
			st, err := migrations.ReadStatus(ctx, owner)
			if err != nil {
				t.Fatal(err)
			}
			wantUntrusted(t, "status", st.Err, fix)
			wantUntrusted(t, "Up", migrations.Up(ctx, owner), fix)
			wantUntrusted(t, "Down", migrations.Down(ctx, owner), fix)
			if _, err := owner.Exec(ctx, fix); err != nil {
				t.Fatalf("the fix %q: %v", fix, err)
			}
			if st, err := migrations.ReadStatus(ctx, owner); err != nil || st.Err != nil {
				t.Errorf("status after the fix: %+v, %v", st, err)
			}
		})
	}
}

// A role with nothing but CREATE on the database can put a trusted
// extension's objects in schema pgid (CREATE EXTENSION ... SCHEMA pgid):
// status, Up and Down refuse the database naming the extension, its owner
// and DROP EXTENSION, instead of Down failing with 2BP01.
func TestRefuseExtensionInSchemaPgid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	available := 0
	for _, ext := range []string{"pgcrypto", "hstore", "citext", "ltree", "pg_trgm"} {
		t.Run(ext, func(t *testing.T) {
			t.Parallel()
			dsn, su, _, owner := ownedDB(t)
			var ok bool
			if err := su.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_available_extensions WHERE name = $1)", ext).Scan(&ok); err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Skipf("extension %s is not installed on this server", ext)
			}
			available++
			if err := migrations.Up(ctx, owner); err != nil {
				t.Fatal(err)
			}
			role := pgtest.NewRole(t, su)
			if _, err := su.Exec(ctx, "DO $$BEGIN EXECUTE format('GRANT CREATE ON DATABASE %I TO "+role+"', current_database()); END$$"); err != nil {
				t.Fatal(err)
			}
			conn := pgtest.Connect(t, pgtest.WithUser(dsn, role), pgx.QueryExecModeCacheStatement)
			if _, err := conn.Exec(ctx, "CREATE EXTENSION "+ext+" SCHEMA pgid"); err != nil {
				t.Fatalf("CREATE EXTENSION %s SCHEMA pgid as %s: %v", ext, role, err)
			}
			t.Cleanup(func() { su.Exec(context.Background(), "DROP EXTENSION IF EXISTS "+ext) })
			refusedEverywhere(t, owner, su, "extension "+ext, "owner "+role, "DROP EXTENSION "+ext)
			if _, err := su.Exec(ctx, "DROP EXTENSION "+ext); err != nil {
				t.Fatal(err)
			}
			if err := migrations.Down(ctx, owner); err != nil {
				t.Errorf("Down after DROP EXTENSION: %v", err)
			}
		})
	}
	t.Cleanup(func() {
		if available == 0 {
			t.Error("none of the trusted contrib extensions is installed: nothing was tested")
		}
	})
}

// refusedEverywhere checks that status (as owner), Up (as owner) and Down
// (as su) refuse schema pgid with ErrUntrusted naming words, and returns
// status's error.
func refusedEverywhere(t *testing.T, owner, su *pgx.Conn, words ...string) error {
	t.Helper()
	ctx := context.Background()
	st, err := migrations.ReadStatus(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	wantUntrusted(t, "status", st.Err, words...)
	wantUntrusted(t, "Up", migrations.Up(ctx, owner), words...)
	wantUntrusted(t, "Down", migrations.Down(ctx, su), words...)
	return st.Err
}

// An extension installed in another schema with a member in schema pgid:
// a function of pgid's, or schema pgid itself, added to it (ALTER
// EXTENSION ... ADD). Its owner could replace that member with its
// extension's next version script: status, Up and Down refuse, naming the
// extension, until the member leaves it. Many members elsewhere (several
// contrib extensions) cost nothing extra: the check looks at each member
// once.
func TestRefuseExtensionMemberInSchemaPgid(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, c := range []struct{ name, member string }{
		{"function", "FUNCTION pgid.ulid_time(uuid)"},
		{"schema", "SCHEMA pgid"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, su, _, owner := ownedDB(t)
			var ok bool
			if err := su.QueryRow(ctx, "SELECT count(*) = 3 FROM pg_available_extensions WHERE name IN ('hstore', 'ltree', 'citext')").Scan(&ok); err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Skip("hstore, ltree or citext is not installed on this server")
			}
			if err := migrations.Up(ctx, owner); err != nil {
				t.Fatal(err)
			}
			mustExec := func(sql string) {
				t.Helper()
				if _, err := su.Exec(ctx, sql); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
			mustExec("CREATE EXTENSION hstore SCHEMA public; CREATE EXTENSION ltree SCHEMA public; CREATE EXTENSION citext SCHEMA public")
			if err := migrations.Up(ctx, owner); err != nil {
				t.Fatalf("Up with extensions in schema public only: %v", err)
			}
			mustExec("ALTER EXTENSION ltree ADD " + c.member)
			stErr := refusedEverywhere(t, owner, su, "extension ltree", "DROP EXTENSION ltree")
			for _, other := range []string{"hstore", "citext"} {
				if stErr != nil && strings.Contains(stErr.Error(), "extension "+other) {
					t.Errorf("status names extension %s, which has no member in schema pgid: %v", other, stErr)
				}
			}
			mustExec("ALTER EXTENSION ltree DROP " + c.member)
			if err := migrations.Up(ctx, owner); err != nil {
				t.Errorf("Up after the member left the extension: %v", err)
			}
		})
	}
}

// The managed-cloud set-up: an admin role (CREATEDB, CREATEROLE, not a
// superuser) owns the database, a NOLOGIN role owns pgid's objects and
// the deployer is a member of it. The deployer's Up with nothing to apply
// passes, and so does status; a NOINHERIT member (pg_has_role USAGE false)
// is refused unless it SET ROLEs to the owning role; a role that is no
// member is refused, and so is a superuser (which trusts no role by
// membership).
func TestMembersOfOwningRoleTrusted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.EmptyDB(t)
	su := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	var db, suName string
	if err := su.QueryRow(ctx, "SELECT current_database(), current_user").Scan(&db, &suName); err != nil {
		t.Fatal(err)
	}
	admin, objects, deployer, noinherit, stranger := pgtest.NewRole(t, su), pgtest.NewRole(t, su), pgtest.NewRole(t, su), pgtest.NewRole(t, su), pgtest.NewRole(t, su)
	if _, err := su.Exec(ctx, "ALTER ROLE "+admin+" CREATEDB CREATEROLE; ALTER ROLE "+objects+" NOLOGIN; ALTER ROLE "+noinherit+" NOINHERIT; "+
		"ALTER DATABASE "+db+" OWNER TO "+admin+"; GRANT CREATE ON DATABASE "+db+" TO "+objects+"; "+
		"GRANT "+objects+" TO "+deployer+"; GRANT "+objects+" TO "+noinherit); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := su.Exec(context.Background(), "DROP SCHEMA IF EXISTS pgid CASCADE; ALTER DATABASE "+db+" OWNER TO "+pgx.Identifier{suName}.Sanitize()); err != nil {
			t.Errorf("give the database back: %v", err)
		}
	})
	conn := func(role string) *pgx.Conn {
		return pgtest.Connect(t, pgtest.WithUser(dsn, role), pgx.QueryExecModeCacheStatement)
	}
	dep := conn(deployer)
	// The deployer installs as the owning role.
	if _, err := dep.Exec(ctx, "SET ROLE "+objects); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, dep); err != nil {
		t.Fatalf("Up as %s (SET ROLE): %v", objects, err)
	}
	if _, err := dep.Exec(ctx, "RESET ROLE"); err != nil {
		t.Fatal(err)
	}
	var owner string
	if err := su.QueryRow(ctx, "SELECT nspowner::regrole::text FROM pg_namespace WHERE nspname = 'pgid'").Scan(&owner); err != nil || owner != objects {
		t.Fatalf("schema pgid owned by %s (%v); want %s", owner, err, objects)
	}
	if err := migrations.Up(ctx, dep); err != nil {
		t.Errorf("the deployer's Up with nothing to apply: %v", err)
	}
	if st, err := migrations.ReadStatus(ctx, dep); err != nil || st.Err != nil || !st.FunctionsCurrent || len(st.Untrusted) > 0 {
		t.Errorf("the deployer's status: %+v, %v", st, err)
	}
	ni := conn(noinherit)
	wantUntrusted(t, "NOINHERIT member's Up", migrations.Up(ctx, ni), "owner "+objects)
	if _, err := ni.Exec(ctx, "SET ROLE "+objects); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, ni); err != nil {
		t.Errorf("NOINHERIT member's Up after SET ROLE: %v", err)
	}
	wantUntrusted(t, "a stranger's Up", migrations.Up(ctx, conn(stranger)), "owner "+objects)
	wantUntrusted(t, "the database owner's Up", migrations.Up(ctx, conn(admin)), "owner "+objects)
	wantUntrusted(t, "a superuser's Up", migrations.Up(ctx, su), "owner "+objects)
}

// Schema's text, run by another tool as the database owner, revokes what
// the owner's default privileges gave pgid's objects, as Up does, and
// refuses a schema pgid on which another role holds CREATE.
func TestSchemaRevokesDefaultPrivileges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	schema, err := migrations.Schema()
	if err != nil {
		t.Fatal(err)
	}
	dsn, su, _, owner := ownedDB(t)
	app, _ := grantAllOnDatabase(t, dsn, su)
	t.Cleanup(func() { su.Exec(context.Background(), "DROP OWNED BY "+app) })
	for _, kind := range []string{"TABLES", "FUNCTIONS", "TYPES", "SCHEMAS"} {
		if _, err := owner.Exec(ctx, "ALTER DEFAULT PRIVILEGES GRANT ALL ON "+kind+" TO "+app); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := owner.Exec(ctx, "BEGIN; "+schema+"; COMMIT"); err != nil {
		t.Fatalf("Schema's text as the owner: %v", err)
	}
	if got := foreignPrivileges(t, su, app); len(got) > 0 {
		t.Errorf("after Schema's text, %s holds:\n%s", app, strings.Join(got, "\n"))
	}
	if _, err := owner.Exec(ctx, "GRANT CREATE ON SCHEMA pgid TO "+app); err != nil {
		t.Fatal(err)
	}
	if _, err := owner.Exec(ctx, "BEGIN; "+schema+"; COMMIT"); pgtest.SQLState(err) != "42501" ||
		!strings.Contains(err.Error(), "REVOKE CREATE ON SCHEMA pgid FROM "+app) {
		t.Errorf("Schema's text with CREATE on schema pgid for %s: %v; want 42501 naming the REVOKE", app, err)
	}
	owner.Exec(ctx, "ROLLBACK")
}

// After Up, PUBLIC holds on each object of schema pgid exactly what the
// runner's table of expected privileges (publicGrants) says, so that the
// table the trust check reads is the one truth about pgid's grants.
func TestPublicGrantsTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	rows, err := conn.Query(ctx, `
		WITH o(kind, name, acl) AS (
		  SELECT 'schema', nspname::text, coalesce(nspacl, acldefault('n', nspowner)) FROM pg_namespace WHERE nspname = 'pgid'
		  UNION ALL SELECT CASE relkind WHEN 'S' THEN 'sequence' ELSE 'table' END, relname::text,
		                   coalesce(relacl, acldefault(CASE relkind WHEN 'S' THEN 's' ELSE 'r' END::"char", relowner))
		    FROM pg_class WHERE relnamespace = 'pgid'::regnamespace AND relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
		  UNION ALL SELECT 'function', proname::text, coalesce(proacl, acldefault('f', proowner))
		    FROM pg_proc WHERE pronamespace = 'pgid'::regnamespace
		  UNION ALL SELECT 'type', typname::text, coalesce(typacl, acldefault('T', typowner)) FROM pg_type t
		    WHERE typnamespace = 'pgid'::regnamespace AND typrelid = 0
		      AND NOT EXISTS (SELECT FROM pg_type e WHERE e.typarray = t.oid))
		SELECT o.kind, o.name, coalesce((SELECT string_agg(e.privilege_type, ',' ORDER BY e.privilege_type)
		                                 FROM aclexplode(o.acl) e WHERE e.grantee = 0), '')
		FROM o ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	type object struct{ kind, name, public string }
	objects, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (object, error) {
		var o object
		return o, r.Scan(&o.kind, &o.name, &o.public)
	})
	if err != nil {
		t.Fatal(err)
	}
	grants := migrations.PublicGrants()
	for _, o := range objects {
		want := ""
		for _, g := range grants {
			if g[0] == o.kind && (g[1] == o.name || strings.HasSuffix(g[1], "*") && strings.HasPrefix(o.name, strings.TrimSuffix(g[1], "*"))) {
				want = g[2]
				break
			}
		}
		if o.public != want {
			t.Errorf("%s pgid.%s: PUBLIC holds %q, the table of expected privileges says %q", o.kind, o.name, o.public, want)
		}
	}
	if len(objects) < 4 {
		t.Errorf("only %d objects in schema pgid: %v", len(objects), objects)
	}
}
