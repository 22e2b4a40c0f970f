package sqlc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
)

// TestServiceOutsideTheRepository does what docs/DRIVERS.md's sqlc section tells
// a user to do, in a new module in a temporary directory that has no
// migrations/ and no copy of this example: write pgid's schema with
// `pgid schema`, point sqlc v1.31.1 at it with docs/DRIVERS.md's overrides,
// generate pgx/v5 and database/sql code, check that every ID is a pgid type
// (a missing schema or override silently gives interface{}), build the
// service against this checkout (a replace directive) and run its own test,
// which inserts and reads IDs through both generated packages in a scratch
// database migrated by `pgid migrate`.
func TestServiceOutsideTheRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sqlc and a service module: minutes on a cold cache")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	svc := filepath.Join(tmp, "svc")
	pgidBin := filepath.Join(tmp, "pgid")
	run := func(dir string, env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
		}
		return string(out)
	}
	// The service is its own module: no go.work, no GOFLAGS from outside.
	alone := []string{"GOWORK=off", "GOFLAGS=-mod=mod", "CGO_ENABLED=0"}

	run(root, nil, "go", "build", "-o", pgidBin, "./cmd/pgid")
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(svc, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(svc, "db"), 0o755); err != nil {
		t.Fatal(err)
	}
	// docs/DRIVERS.md's commands, as written, with the pgid just built first on
	// the PATH.
	path := []string{"PATH=" + tmp + string(os.PathListSeparator) + os.Getenv("PATH")}
	sh := func(line string) (string, error) {
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = svc
		cmd.Env = append(os.Environ(), path...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	// docs/DRIVERS.md's commands, listed in testdata (cmd/pgid's
	// TestReadmeCommands reads the list too).
	readmeCommands, err := pgtest.ReadList("testdata/readme_commands.txt")
	if err != nil || len(readmeCommands) != 3 {
		t.Fatalf("testdata/readme_commands.txt: %d commands, %v; want 3", len(readmeCommands), err)
	}
	for _, line := range readmeCommands[:2] {
		if out, err := sh(line); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
	write("db/schema.sql", svcSchema)
	write("db/query.sql", svcQueries)
	write("sqlc.yaml", svcSqlcYAML)
	write("go.mod", fmt.Sprintf("module example.com/svc\n\ngo 1.25.0\n\nrequire github.com/pgid/pgid v0.0.0\n\nreplace github.com/pgid/pgid => %s\n", root))
	write("svc_test.go", svcTest)

	run(svc, alone, "go", "run", "github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1", "generate")

	// docs/DRIVERS.md's check: grep finds no interface{} (exit status 1).
	if out, err := sh(readmeCommands[2]); err == nil || out != "" {
		t.Errorf("%s: %v\n%s", readmeCommands[2], err, out)
	}
	// And it fails where it should: the same configuration with the ULID
	// override misspelled, as sqlc silently accepts it.
	write("typo.yaml", strings.ReplaceAll(strings.ReplaceAll(svcSqlcYAML, `db_type: "pgid.ulid"`, `db_type: "pgid.uild"`), "out: store", "out: typo/store"))
	run(svc, alone, "go", "run", "github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1", "generate", "-f", "typo.yaml")
	if out, err := sh(strings.Replace(readmeCommands[2], "store/", "typo/", 1)); err != nil || !strings.Contains(out, "interface{}") {
		t.Errorf("docs/DRIVERS.md's grep misses a misspelled override: %v\n%s", err, out)
	}
	if err := os.RemoveAll(filepath.Join(svc, "typo")); err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"store", "store/sqlstore"} {
		code := ""
		for _, f := range []string{"models.go", "query.sql.go"} {
			b, err := os.ReadFile(filepath.Join(svc, pkg, f))
			if err != nil {
				t.Fatal(err)
			}
			code += string(b)
		}
		if strings.Contains(code, "interface{}") || strings.Contains(code, "pgtype.UUID") {
			t.Errorf("%s: an ID sqlc could not type (interface{} or pgtype.UUID):\n%s", pkg, code)
		}
		for _, want := range []string{
			`ID\s+ulidtype\.ULID`, `CustomerID\s+objectidtype\.ObjectID`, `ParentID\s+ulidtype\.NullULID`,
			`ids \[\]ulidtype\.ULID`, `since ulidtype\.ULID`,
		} {
			if !regexp.MustCompile(want).MatchString(code) {
				t.Errorf("%s: no %q in the generated code", pkg, want)
			}
		}
	}

	dsn := pgtest.EmptyDB(t)
	run(svc, nil, pgidBin, "migrate", "--database-url", dsn)
	run(svc, alone, "go", "mod", "tidy")
	out := run(svc, append(alone, "DATABASE_URL="+dsn), "go", "test", "-count=1", "-v", ".")
	if !strings.Contains(out, "--- PASS: TestOrders") {
		t.Errorf("the service's test did not pass:\n%s", out)
	}
}

const svcSchema = `CREATE TABLE orders (
  id          pgid.ulid PRIMARY KEY,
  customer_id pgid.objectid NOT NULL,
  parent_id   pgid.ulid,
  total_cents bigint NOT NULL
);
`

const svcQueries = `-- name: CreateOrder :one
INSERT INTO orders (id, customer_id, parent_id, total_cents)
VALUES (@id, @customer_id, @parent_id, @total_cents)
RETURNING *;

-- name: GetOrder :one
SELECT * FROM orders WHERE id = @id;

-- name: ListOrdersSince :many
SELECT * FROM orders WHERE id >= @since ORDER BY id;

-- name: GetOrders :many
SELECT * FROM orders WHERE id = ANY(@ids::pgid.ulid[]) ORDER BY id;
`

// svcSqlcYAML is docs/DRIVERS.md's configuration: the schema from pgid schema,
// and the overrides.
const svcSqlcYAML = `version: "2"
sql:
  - engine: postgresql
    schema: ["db/pgid.sql", "db/schema.sql"]
    queries: ["db/query.sql"]
    gen:
      go:
        package: store
        out: store
        sql_package: pgx/v5
        overrides: &pgid
          - db_type: "pgid.ulid"
            go_type: "github.com/pgid/pgid/ulidtype.ULID"
          - db_type: "pgid.ulid"
            nullable: true
            go_type: "github.com/pgid/pgid/ulidtype.NullULID"
          - db_type: "pgid.objectid"
            go_type: "github.com/pgid/pgid/objectidtype.ObjectID"
          - db_type: "pgid.objectid"
            nullable: true
            go_type: "github.com/pgid/pgid/objectidtype.NullObjectID"
  - engine: postgresql
    schema: ["db/pgid.sql", "db/schema.sql"]
    queries: ["db/query.sql"]
    gen:
      go:
        package: sqlstore
        out: store/sqlstore
        overrides: *pgid
`

// svcTest is the service's own test: both generated packages against the
// scratch database.
const svcTest = `package svc

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib"

	"example.com/svc/store"
	"example.com/svc/store/sqlstore"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/ulidtype"
)

func TestOrders(t *testing.T) {
	ctx := context.Background()
	dsn := os.Getenv("DATABASE_URL")
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// What docs/DRIVERS.md asks of pgx connections: domain arrays
	// (@ids::pgid.ulid[]) need the types registered.
	if err := pgidpgx.AfterConnect(ctx, conn); err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile("db/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, string(schema)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	customer := objectidtype.New()
	first, err := store.New(conn).CreateOrder(ctx, store.CreateOrderParams{
		ID: ulidtype.New(), CustomerID: customer, TotalCents: 1250})
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := sqlstore.New(db)
	second, err := q.CreateOrder(ctx, sqlstore.CreateOrderParams{
		ID: ulidtype.New(), CustomerID: customer, ParentID: ulidtype.NullULID{ULID: first.ID, Valid: true}, TotalCents: 99})
	if err != nil {
		t.Fatal(err)
	}
	got, err := q.GetOrder(ctx, first.ID)
	if err != nil || got.ID != first.ID || got.CustomerID != customer || got.ParentID.Valid {
		t.Fatalf("GetOrder = %+v, %v", got, err)
	}
	since, err := store.New(conn).ListOrdersSince(ctx, ulidtype.Since(start))
	if err != nil || len(since) != 2 || since[1].ID != second.ID || since[1].ParentID.ULID != first.ID {
		t.Fatalf("ListOrdersSince = %+v, %v", since, err)
	}
	for _, ids := range [][]ulidtype.ULID{{second.ID, first.ID}} {
		a, err := store.New(conn).GetOrders(ctx, ids)
		if err != nil || len(a) != 2 || a[0].ID != first.ID {
			t.Fatalf("pgx GetOrders = %+v, %v", a, err)
		}
		b, err := q.GetOrders(ctx, ids)
		if err != nil || len(b) != 2 || b[1].ID != second.ID {
			t.Fatalf("database/sql GetOrders = %+v, %v", b, err)
		}
	}
}
`
