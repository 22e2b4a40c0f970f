package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// pgid migrate status says what pgid migrate up says, and exits 1 when up
// would refuse: a changed checksum, a renumbered version.
func TestMigrateStatusRefusesWhatUpRefuses(t *testing.T) {
	for _, c := range []struct{ name, tamper, want string }{
		{"checksum", "UPDATE pgid.schema_migrations SET checksum = repeat('0', 64) WHERE name = '002_ulid_functions.sql'",
			"002_ulid_functions.sql was applied with checksum 0000"},
		{"renumbered", "UPDATE pgid.schema_migrations SET version = 9 WHERE name = '006_partition_safety.sql'",
			"006_partition_safety.sql"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn, conn := migratedDB(t)
			if _, err := conn.Exec(context.Background(), c.tamper); err != nil {
				t.Fatal(err)
			}
			upCode, _, upErr := runCLI(t, "migrate", "up", "--database-url", dsn)
			code, out, errOut := runCLI(t, "migrate", "status", "--database-url", dsn)
			if upCode != 1 || code != 1 || !strings.Contains(errOut, c.want) || !strings.Contains(upErr, c.want) ||
				!strings.Contains(errOut, "an applied migration differs from the released file") {
				t.Errorf("up: exit %d, %q\nstatus: exit %d\nstdout:\n%s\nstderr:\n%s\nwant both exit 1 naming %q", upCode, upErr, code, out, errOut, c.want)
			}
			if strings.Contains(out, "functions  current") {
				t.Errorf("status calls the functions current:\n%s", out)
			}
			jcode, jout, _ := runCLI(t, "migrate", "status", "--json", "--database-url", dsn)
			if jcode != 1 || !strings.Contains(jout, `"error":`) {
				t.Errorf("status --json: exit %d, %s; want 1 with an error field", jcode, jout)
			}
		})
	}
}

// foreignSchemaDB returns a scratch database in which a role given GRANT
// ALL ON DATABASE created schema pgid (open to all) before pgid was
// installed, that role's name and a connection as it.
func foreignSchemaDB(t *testing.T) (string, string, *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	b := make([]byte, 4)
	rand.Read(b)
	role := "pgid_cli_evil_" + hex.EncodeToString(b)
	su, err := pgx.Connect(ctx, serverDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := su.Exec(ctx, "CREATE ROLE "+role+" LOGIN PASSWORD '"+role+"'"); err != nil {
		t.Fatal(err)
	}
	// Registered before scratchDB's: runs after the database is dropped.
	t.Cleanup(func() {
		if _, err := su.Exec(ctx, "DROP ROLE IF EXISTS "+role); err != nil {
			t.Errorf("drop role %s: %v", role, err)
		}
		su.Close(ctx)
	})
	dsn := scratchDB(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := su.Exec(ctx, "GRANT ALL ON DATABASE "+strings.TrimPrefix(u.Path, "/")+" TO "+role); err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(role, role)
	evil, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { evil.Close(ctx) })
	if _, err := evil.Exec(ctx, "CREATE SCHEMA pgid; GRANT ALL ON SCHEMA pgid TO PUBLIC"); err != nil {
		t.Fatal(err)
	}
	return dsn, role, evil
}

// pgidFunctions counts the functions in schema pgid.
func pgidFunctions(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_proc WHERE pronamespace = 'pgid'::regnamespace").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A schema pgid made by another role (one with CREATE on the database):
// migrate up and migrate status exit 1 naming that role and the fix, and
// nothing is installed.
func TestMigrateRefusesForeignSchema(t *testing.T) {
	dsn, role, evil := foreignSchemaDB(t)
	upCode, _, upErr := runCLI(t, "migrate", "up", "--database-url", dsn)
	code, out, errOut := runCLI(t, "migrate", "status", "--database-url", dsn)
	if upCode != 1 || code != 1 || !strings.Contains(upErr, "owner "+role) || !strings.Contains(errOut, "owner "+role) ||
		!strings.Contains(out, "not trustworthy") || !strings.Contains(errOut, "DROP SCHEMA pgid CASCADE") {
		t.Errorf("up: exit %d, %q\nstatus: exit %d\nstdout:\n%s\nstderr:\n%s\nwant both exit 1 naming %s and the fix", upCode, upErr, code, out, errOut, role)
	}
	if n := pgidFunctions(t, evil); n != 0 {
		t.Errorf("%d functions in the other role's schema", n)
	}
}

// The output of pgid schema, applied by another migration tool as a
// superuser, refuses that schema pgid too: the transaction fails naming
// the role, and installs nothing.
func TestSchemaRefusesForeignSchema(t *testing.T) {
	dsn, role, evil := foreignSchemaDB(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "BEGIN; "+mustRun(t, "schema")+"; COMMIT")
	conn.Exec(ctx, "ROLLBACK")
	if err == nil || !strings.Contains(err.Error(), "not trustworthy") || !strings.Contains(err.Error(), "owner "+role) {
		t.Errorf("pgid schema applied into schema pgid of %s: %v; want it refused naming the role", role, err)
	}
	if n := pgidFunctions(t, evil); n != 0 {
		t.Errorf("%d functions in the other role's schema", n)
	}
}
