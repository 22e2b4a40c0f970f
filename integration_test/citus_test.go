package integration_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/pgid/pgid/internal/pgserver"
	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/opaque"
	"github.com/pgid/pgid/partition"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/typeid"
	"github.com/pgid/pgid/ulidtype"
)

// The Citus tests: pgid on a Citus 13.2 cluster (a coordinator and two
// workers, each an embedded server from Debian's PostgreSQL 15 binaries
// with citus.so built by .ci/citus-build), started once by TestCitus, whose
// subtests each take a database of their own on every node. docs/CITUS.md
// says what they show.

// citusBinaries is where .ci/citus-build installs Citus: Debian's
// PostgreSQL 15.
const citusBinaries = "/usr/lib/postgresql/15"

// citusTestUser is the system user the cluster's servers run as when this
// process is root: one of their own (see replicaTestUser).
const citusTestUser = "pgid-test-citus"

// citusCluster starts the cluster, or skips (fails under CI=true) when
// Citus is not built.
func citusCluster(t testing.TB) *pgserver.Cluster {
	t.Helper()
	if _, err := os.Stat(citusBinaries + "/lib/citus.so"); err != nil {
		msg := "CITUS TESTS NOT RUN: no Citus in " + citusBinaries + "/lib (build it with .ci/citus-build; docs/CITUS.md)"
		if os.Getenv("CI") == "true" || os.Getenv("PGID_CITUS") == "required" {
			t.Fatal(msg)
		}
		// One line where it is seen: the terminal, if any (go test shows
		// nothing of a passing package without -v), and the test's log.
		pgtest.Announce("integration_test: " + msg)
		t.Skip(msg)
	}
	runAs := ""
	if os.Geteuid() == 0 {
		runAs = systemUser(t, citusTestUser, "pgid Citus tests")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	c, err := pgserver.StartCitus(ctx, pgserver.EmbeddedOptions{Binaries: citusBinaries, RunAsUser: runAs}, 2)
	if err != nil {
		t.Fatalf("start a Citus cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("stop the Citus cluster: %v", err)
		}
	})
	conn, err := pgx.Connect(ctx, c.Coordinator.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v, cv string
	if err := conn.QueryRow(ctx, "SELECT version(), citus_version()").Scan(&v, &cv); err != nil {
		t.Fatal(err)
	}
	t.Logf("Citus cluster (a coordinator and %d workers) up in %v: %s; %s", len(c.Workers), time.Since(began).Round(time.Millisecond), cv, v)
	return c
}

// systemUser returns name, created as a system user (a group of its own,
// no home, no login) if missing.
func systemUser(t testing.TB, name, comment string) string {
	t.Helper()
	if _, err := user.Lookup(name); err == nil {
		return name
	}
	out, err := exec.Command("useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
		"--shell", "/usr/sbin/nologin", "--comment", comment, name).CombinedOutput()
	if _, lerr := user.Lookup(name); err != nil && lerr != nil {
		t.Fatalf("useradd %s: %v: %s", name, err, out)
	}
	return name
}

// citusDB is a database of its own on every node of c, with the citus
// extension and the nodes registered; dropped when t ends. migrated: pgid's
// migrations applied on the coordinator.
type citusDB struct {
	c    *pgserver.Cluster
	name string
	dsn  string // the coordinator's
	conn *pgx.Conn
}

func newCitusDB(t testing.TB, c *pgserver.Cluster, migrated bool) *citusDB {
	t.Helper()
	ctx := context.Background()
	name := "pgid_citus_" + randomHex(4)
	dsn, err := c.CreateDatabase(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	d := &citusDB{c: c, name: name, dsn: dsn}
	t.Cleanup(func() {
		if err := c.DropDatabase(context.Background(), name); err != nil {
			t.Errorf("drop %s: %v", name, err)
		}
	})
	d.conn = d.connect(t, c.Coordinator)
	if migrated {
		if err := migrations.Up(ctx, d.conn); err != nil {
			t.Fatalf("pgid migrate up on the coordinator: %v", err)
		}
		// pgidpgx's types, loaded again now that the domains exist.
		if err := pgidpgx.LoadTypes(ctx, d.conn); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// connect opens a connection to node s's copy of the database, with
// pgidpgx.AfterConnect.
func (d *citusDB) connect(t testing.TB, s *pgserver.Server) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(d.c.DSN(s, d.name))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := pgidpgx.AfterConnect(context.Background(), conn); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// exec runs statements on the coordinator, failing t on an error.
func (d *citusDB) exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	if _, err := d.conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// onWorkers runs query (one value) on every worker through
// run_command_on_workers and returns the results, failing t on an error.
func (d *citusDB) onWorkers(t testing.TB, query string) []string {
	t.Helper()
	rows, err := d.conn.Query(context.Background(),
		"SELECT success, result FROM pg_catalog.run_command_on_workers($1) ORDER BY nodeport", query)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var ok bool
		var res string
		if err := rows.Scan(&ok, &res); err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Fatalf("on a worker: %s: %s", query, res)
		}
		out = append(out, res)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (d *citusDB) scalar(t testing.TB, query string, args ...any) string {
	t.Helper()
	var s string
	if err := d.conn.QueryRow(context.Background(), query, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return s
}

func TestCitus(t *testing.T) {
	if !strings.Contains(serverInfo, "PostgreSQL 15.") {
		// The cluster runs Debian's PostgreSQL 15 whatever server the run
		// tests: once per CI run, in the run on the local 15.
		t.Skip("the Citus tests run in the runs on PostgreSQL 15 (Citus is built for Debian's 15); this run's server is another")
	}
	c := citusCluster(t)
	t.Run("Migrations", func(t *testing.T) { citusMigrations(t, c) })
	t.Run("Drivers", func(t *testing.T) { citusDrivers(t, c) })
	t.Run("Unique", func(t *testing.T) { citusUnique(t, c) })
	t.Run("Partitions", func(t *testing.T) { citusPartitions(t, c) })
	t.Run("Tail", func(t *testing.T) { citusTail(t, c) })
	t.Run("Docs", func(t *testing.T) { citusDocs(t, c) })
}

// pgidFunctions is the list of pgid's functions with their bodies' hash,
// on the node the query runs on.
const pgidFunctions = `SELECT count(*) || ' ' || md5(string_agg(p.oid::regprocedure::text || md5(p.prosrc), ',' ORDER BY p.oid::regprocedure::text))
FROM pg_proc p WHERE p.pronamespace = 'pgid'::regnamespace`

func citusMigrations(t *testing.T, c *pgserver.Cluster) {
	ctx := context.Background()
	d := newCitusDB(t, c, true)
	st, err := migrations.ReadStatus(ctx, d.conn)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != migrations.Latest() || !st.FunctionsCurrent {
		t.Fatalf("status on the coordinator: %+v", st)
	}
	// Schema, domains, functions on every worker, as on the coordinator.
	want := d.scalar(t, pgidFunctions)
	for i, got := range d.onWorkers(t, pgidFunctions) {
		if got != want {
			t.Errorf("worker %d: pgid functions %s, coordinator %s", i+1, got, want)
		}
	}
	t.Logf("pgid functions (count, hash) on the coordinator and each worker: %s", want)
	for i, got := range d.onWorkers(t, "SELECT count(*) FROM pg_type WHERE typnamespace = 'pgid'::regnamespace AND typname IN ('ulid', 'objectid')") {
		if got != "2" {
			t.Errorf("worker %d: %s pgid domains, want 2", i+1, got)
		}
	}
	// A table that uses them, so that Down has something to refuse.
	d.exec(t, "CREATE TABLE m (tenant int, id pgid.ulid DEFAULT pgid.gen_ulid_v7(), PRIMARY KEY (tenant, id))")
	d.exec(t, "SELECT create_distributed_table('m', 'tenant')")
	d.exec(t, "INSERT INTO m (tenant) SELECT g FROM generate_series(1, 20) g")
	if err := migrations.Down(ctx, d.conn); err == nil {
		t.Fatal("Down with a distributed table using pgid.ulid: no error")
	} else {
		t.Logf("Down with a table using the domain: %v", firstLine(err))
	}
	d.exec(t, "DROP TABLE m")
	if err := migrations.Down(ctx, d.conn); err != nil {
		t.Fatalf("Down: %v", err)
	}
	for i, got := range d.onWorkers(t, "SELECT count(*) FROM pg_namespace WHERE nspname = 'pgid'") {
		if got != "0" {
			t.Errorf("worker %d after Down: schema pgid still there", i+1)
		}
	}
	if err := migrations.Up(ctx, d.conn); err != nil {
		t.Fatalf("Up again: %v", err)
	}
	if got := d.onWorkers(t, pgidFunctions); len(got) != 2 || got[0] != want || got[1] != want {
		t.Errorf("after Down and Up: workers %v, want %s", got, want)
	}

	// An upgrade: the functions step recorded as an earlier edition, and a
	// function changed (as an older pgid had it) on every node; Up
	// re-applies the definitions and Citus carries them to the workers.
	d.exec(t, `CREATE OR REPLACE FUNCTION pgid.ulid_to_text(id uuid) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE RETURN 'old edition'`)
	if got := d.onWorkers(t, "SELECT pgid.ulid_to_text(gen_random_uuid())"); got[0] != "old edition" || got[1] != "old edition" {
		t.Fatalf("the old definition did not reach the workers: %v", got)
	}
	d.exec(t, "UPDATE pgid.schema_migrations SET checksum = '39f48c99dd4c2a540dbe66270a60c3e9b3eba6ccedfeca63e0f05b014ed9b61c' WHERE version IS NULL")
	if err := migrations.Up(ctx, d.conn); err != nil {
		t.Fatalf("Up over an earlier edition: %v", err)
	}
	id := ulidtype.MustParse("01J9ZQ0000000000000000000A")
	for i, got := range d.onWorkers(t, "SELECT pgid.ulid_to_text('"+id.UUIDString()+"')") {
		if got != id.String() {
			t.Errorf("worker %d after the upgrade: ulid_to_text = %q, want %q", i+1, got, id.String())
		}
	}
	if got := d.onWorkers(t, pgidFunctions); got[0] != want || got[1] != want {
		t.Errorf("after the upgrade: workers %v, want %s", got, want)
	}

	// A least-privilege role on the coordinator: no superuser, no
	// CREATE; SELECT and INSERT on one distributed table.
	password := randomHex(12)
	d.exec(t, "CREATE ROLE pgid_citus_app LOGIN PASSWORD '"+password+"'")
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), c.Coordinator.DSN)
		if err == nil {
			conn.Exec(context.Background(), "DROP ROLE IF EXISTS pgid_citus_app")
			conn.Close(context.Background())
		}
	})
	if err := c.Authorize(ctx, d.name, "pgid_citus_app", password); err != nil {
		t.Fatal(err)
	}
	d.exec(t, "CREATE TABLE orders (tenant int, id pgid.ulid DEFAULT pgid.gen_ulid_v7(), oid pgid.objectid DEFAULT pgid.gen_objectid(), PRIMARY KEY (tenant, id))")
	d.exec(t, "SELECT create_distributed_table('orders', 'tenant')")
	d.exec(t, "GRANT SELECT, INSERT ON orders TO pgid_citus_app")
	d.exec(t, "DROP TABLE IF EXISTS m")
	appDSN := strings.Replace(d.dsn, "postgres:"+passwordOf(t, d.dsn)+"@", "pgid_citus_app:"+password+"@", 1)
	app, err := pgx.Connect(ctx, appDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close(ctx)
	if err := pgidpgx.AfterConnect(ctx, app); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Exec(ctx, "INSERT INTO orders (tenant) SELECT g % 4 FROM generate_series(1, 40) g"); err != nil {
		t.Fatalf("the app role's INSERT with DEFAULTs: %v", err)
	}
	var n int
	if err := app.QueryRow(ctx, "SELECT count(*) FROM orders WHERE id >= $1", ulidtype.Since(time.Now().Add(-time.Hour))).Scan(&n); err != nil || n != 40 {
		t.Fatalf("the app role's window: %d rows, %v; want 40", n, err)
	}
	st, err = migrations.ReadStatus(ctx, app)
	if err != nil || !st.FunctionsCurrent || st.Version != migrations.Latest() {
		t.Fatalf("status as the app role: %+v, %v", st, err)
	}
	t.Logf("least-privilege role: INSERT with DEFAULT pgid.gen_ulid_v7()/gen_objectid(), a window and the status through the coordinator")
}

func passwordOf(t testing.TB, dsn string) string {
	t.Helper()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Password
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// citusDrivers: pgx and database/sql through the coordinator, on a table
// distributed by a tenant and one distributed by its ObjectId.
func citusDrivers(t *testing.T, c *pgserver.Cluster) {
	ctx := context.Background()
	d := newCitusDB(t, c, true)
	d.exec(t, `CREATE TABLE events (tenant bigint NOT NULL, id pgid.ulid NOT NULL DEFAULT pgid.gen_ulid_v7(), body text, PRIMARY KEY (tenant, id))`)
	d.exec(t, "SELECT create_distributed_table('events', 'tenant', shard_count => 16)")
	d.exec(t, `CREATE TABLE docs (id pgid.objectid PRIMARY KEY DEFAULT pgid.gen_objectid(), body text)`)
	d.exec(t, "SELECT create_distributed_table('docs', 'id')")

	// Rows at known times: tenant 1..8, one row a minute over two hours.
	now := time.Now()
	var ids []ulidtype.ULID
	var tenants []int64
	for i := range 120 {
		id := ulidAt(now.Add(-time.Duration(i) * time.Minute).Add(-30 * time.Second))
		ids = append(ids, id)
		tenants = append(tenants, int64(i%8+1))
	}
	// Binary parameters: arrays of ULIDs through unnest.
	if _, err := d.conn.Exec(ctx, "INSERT INTO events (tenant, id, body) SELECT t, i, 'x' FROM unnest($1::bigint[], $2::pgid.ulid[]) AS u(t, i)", tenants, ids); err != nil {
		t.Fatal(err)
	}
	var oids []objectidtype.ObjectID
	for i := range 50 {
		oids = append(oids, oidAt(now.Add(-time.Duration(i)*time.Minute-30*time.Second)))
	}
	if _, err := d.conn.Exec(ctx, "INSERT INTO docs (id, body) SELECT i, 'y' FROM unnest($1::pgid.objectid[]) AS u(i)", oids); err != nil {
		t.Fatal(err)
	}
	// Range/Since windows: the last hour across all 16 shards.
	var n int
	if err := d.conn.QueryRow(ctx, "SELECT count(*) FROM events WHERE id >= $1", ulidtype.Since(now.Add(-time.Hour))).Scan(&n); err != nil || n != 60 {
		t.Fatalf("last hour over the shards: %d, %v; want 60", n, err)
	}
	lo, hi := ulidtype.Range(now.Add(-90*time.Minute), now.Add(-30*time.Minute))
	if err := d.conn.QueryRow(ctx, "SELECT count(*) FROM events WHERE tenant = 3 AND id >= $1 AND id < $2", lo, hi).Scan(&n); err != nil || n != 7 {
		t.Fatalf("tenant 3, [-90m, -30m): %d, %v; want 7", n, err)
	}
	plan := explainLines(t, d.conn, "SELECT count(*) FROM events WHERE tenant = 3 AND id >= $1 AND id < $2", lo, hi)
	if !strings.Contains(plan, "Task Count: 1") || !regexp.MustCompile(`Index (Only )?Scan using events_pkey_\d+`).MatchString(plan) {
		t.Errorf("tenant given: want one task with an index scan of a shard's primary key, got:\n%s", plan)
	} else {
		t.Logf("EXPLAIN with the tenant given: one task, %s", regexp.MustCompile(`Index (Only )?Scan using events_pkey_\d+[^\n]*`).FindString(plan))
	}
	plan = explainLines(t, d.conn, "SELECT count(*) FROM events WHERE id >= $1", ulidtype.Since(now.Add(-time.Hour)))
	if !strings.Contains(plan, "Task Count: 16") {
		t.Errorf("no tenant: want 16 tasks, got:\n%s", plan)
	}
	olo, ohi := objectidtype.Range(now.Add(-20*time.Minute), now)
	if err := d.conn.QueryRow(ctx, "SELECT count(*) FROM docs WHERE id >= $1 AND id < $2", olo, ohi).Scan(&n); err != nil || n != 20 {
		t.Fatalf("docs, last 20 minutes: %d, %v; want 20", n, err)
	}
	// Binary results: ULIDs and ObjectIds, one and in arrays, with = ANY.
	var back []ulidtype.ULID
	if err := d.conn.QueryRow(ctx, "SELECT array_agg(id ORDER BY id DESC) FROM events WHERE id = ANY($1)", ids[:10]).Scan(&back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 10 || back[0] != ids[0] || back[9] != ids[9] {
		t.Fatalf("array of ULIDs back: %v, want %v", back, ids[:10])
	}
	// Looked up by the distribution column: the parameter cast to the
	// domain ($1::pgid.objectid) finds every row, through one shard's
	// primary key. Measured: without the cast (id = $1, a bytea
	// parameter, or an untyped literal) Citus 13.2.2 prunes every shard
	// away (the plan's filter is "false AND (NULL::bytea)::pgid.objectid
	// ...") and the query returns no row; docs/CITUS.md says to cast.
	for _, o := range oids {
		var oback objectidtype.ObjectID
		if err := d.conn.QueryRow(ctx, "SELECT id FROM docs WHERE id = $1::pgid.objectid", o).Scan(&oback); err != nil || oback != o {
			t.Fatalf("ObjectId by id: %v, %v; want %v", oback, err, o)
		}
	}
	// One task (the shard's plan itself Citus does not show for a
	// parameter of a domain over bytea: "Could not get remote plan").
	plan = explainLines(t, d.conn, "SELECT id FROM docs WHERE id = $1::pgid.objectid", oids[7])
	if !strings.Contains(plan, "Task Count: 1\n") {
		t.Errorf("docs by id: want one task, got: %q", plan)
	}
	var uncast int
	if err := d.conn.QueryRow(ctx, "SELECT count(*) FROM docs WHERE id = $1", oids[7]).Scan(&uncast); err != nil {
		t.Fatal(err)
	}
	var literal int
	if err := d.conn.QueryRow(ctx, `SELECT count(*) FROM docs WHERE id = '\x`+oids[7].String()+`'`).Scan(&literal); err != nil {
		t.Fatal(err)
	}
	uncast += literal
	// A table distributed by a ULID: found with or without a cast.
	d.exec(t, "CREATE TABLE byulid (id pgid.ulid PRIMARY KEY)")
	d.exec(t, "SELECT create_distributed_table('byulid', 'id')")
	if _, err := d.conn.Exec(ctx, "INSERT INTO byulid SELECT unnest($1::pgid.ulid[])", ids); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[:20] {
		var back ulidtype.ULID
		if err := d.conn.QueryRow(ctx, "SELECT id FROM byulid WHERE id = $1", id).Scan(&back); err != nil || back != id {
			t.Fatalf("ULID by id: %v, %v; want %v", back, err, id)
		}
	}
	if uncast != 0 {
		t.Errorf("id = $1 without the cast found %d rows: Citus no longer prunes it away; update docs/CITUS.md", uncast)
	} else {
		t.Logf("measured: docs WHERE id = $1 (no cast) and WHERE id = '\\x...' return 0 rows on Citus 13.2.2; with $1::pgid.objectid, 1; a table distributed by a ULID: found without a cast")
	}
	// database/sql over pgx's stdlib, with the same AfterConnect.
	cfg, err := pgx.ParseConfig(d.dsn)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(pgidpgx.AfterConnect))
	defer db.Close()
	var sid ulidtype.ULID
	if err := db.QueryRowContext(ctx, "SELECT id FROM events WHERE tenant = $1 AND id = $2", tenants[5], ids[5]).Scan(&sid); err != nil || sid != ids[5] {
		t.Fatalf("database/sql: %v, %v; want %v", sid, err, ids[5])
	}
	var dn int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM docs WHERE id >= $1", objectidtype.Since(now.Add(-10*time.Minute))).Scan(&dn); err != nil || dn != 10 {
		t.Fatalf("database/sql window on docs: %d, %v; want 10", dn, err)
	}
	// A reference table (a copy on every node) keyed by ULID, joined to
	// the distributed one on the workers.
	d.exec(t, "CREATE TABLE kinds (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid_v7(), name text)")
	d.exec(t, "SELECT create_reference_table('kinds')")
	d.exec(t, "INSERT INTO kinds (name) VALUES ('a'), ('b')")
	d.exec(t, "ALTER TABLE events ADD COLUMN kind pgid.ulid REFERENCES kinds (id)")
	d.exec(t, "UPDATE events SET kind = (SELECT id FROM kinds WHERE name = 'a') WHERE tenant % 2 = 0")
	if err := d.conn.QueryRow(ctx, "SELECT count(*) FROM events e JOIN kinds k ON k.id = e.kind WHERE k.name = 'a' AND e.id >= $1", ulidtype.Since(now.Add(-time.Hour))).Scan(&n); err != nil || n != 30 {
		t.Fatalf("join with the reference table: %d, %v; want 30", n, err)
	}
	// Opaque codes and TypeIDs of IDs read back through Citus are those
	// of the IDs written; pgid.typeid_text and ulid_to_text run on the
	// workers agree with Go.
	codec, err := opaque.NewCodec(opaque.NewKey(1, []byte("citus test key, 32 bytes long!!!")))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := d.conn.Query(ctx, "SELECT id, pgid.typeid_text('evt', id), pgid.ulid_to_text(id) FROM events WHERE tenant IN (1, 2, 3)")
	if err != nil {
		t.Fatal(err)
	}
	written := map[ulidtype.ULID]bool{}
	for _, id := range ids {
		written[id] = true
	}
	seen := 0
	for rows.Next() {
		var id ulidtype.ULID
		var tid, txt string
		if err := rows.Scan(&id, &tid, &txt); err != nil {
			t.Fatal(err)
		}
		a, err := typeid.AnyFromUUID("evt", id.UUID())
		if err != nil {
			t.Fatal(err)
		}
		if !written[id] || tid != a.String() || txt != id.String() {
			t.Fatalf("id %v: typeid_text %q (Go %q), ulid_to_text %q", id, tid, a, txt)
		}
		if got, err := codec.OpenULID(codec.ULIDCode(id)); err != nil || got != id {
			t.Fatalf("opaque code of %v opens to %v, %v", id, got, err)
		}
		seen++
	}
	if err := rows.Err(); err != nil || seen != 45 {
		t.Fatalf("rows of tenants 1-3: %d, %v; want 45", seen, err)
	}
}

// explainLines is EXPLAIN (COSTS OFF) of query, its lines joined.
func explainLines(t *testing.T, conn *pgx.Conn, query string, args ...any) string {
	t.Helper()
	return explain(t, conn, query, args...)
}

// citusUnique: DEFAULT pgid.gen_ulid_v7() and pgid.gen_objectid() evaluated
// on the coordinator and on the workers by concurrent writers stay unique.
func citusUnique(t *testing.T, c *pgserver.Cluster) {
	ctx := context.Background()
	d := newCitusDB(t, c, true)
	d.exec(t, `CREATE TABLE u (tenant int NOT NULL, id pgid.ulid NOT NULL DEFAULT pgid.gen_ulid_v7(), oid pgid.objectid NOT NULL DEFAULT pgid.gen_objectid(), node text, PRIMARY KEY (tenant, id))`)
	d.exec(t, "SELECT create_distributed_table('u', 'tenant')")
	// The sequence behind gen_objectid on each node. Measured: Citus
	// creates it on each worker as a dependency of the function, not with
	// the coordinator's start but with a range of the worker's own, from
	// its group id times 2^48 (as for any bigint sequence it propagates):
	// the 5 bytes after the seconds are 00 0g 00 00 00 on worker g, the
	// coordinator keeps its random value. Every node's values differ.
	seq := "SELECT seqstart || ' ' || seqmin || ' ' || seqmax FROM pg_sequence WHERE seqrelid = 'pgid.objectid_counter'::regclass"
	cs := d.scalar(t, seq)
	ws := d.onWorkers(t, seq)
	t.Logf("pgid.objectid_counter (start, min, max): coordinator %s; workers %q", cs, ws)
	prefix := "SELECT encode(substr(pgid.gen_objectid(), 5, 5), 'hex')"
	vals := map[string]bool{d.scalar(t, prefix): true}
	for _, w := range d.onWorkers(t, prefix) {
		vals[w] = true
	}
	if len(vals) != 3 {
		t.Fatalf("the 5 bytes after the seconds on the 3 nodes: %d distinct values, want 3: %v", len(vals), vals)
	}
	t.Logf("the 5 bytes after the seconds, per node: %v", vals)
	// pgid.objectid_reseed() on a worker fails (setval outside the
	// worker's range) and changes nothing; on the coordinator it works.
	rows, err := d.conn.Query(ctx, "SELECT nodeid, success, result FROM run_command_on_all_nodes($$SELECT pgid.objectid_reseed()$$) ORDER BY nodeid")
	if err != nil {
		t.Fatal(err)
	}
	var okNodes, failed int
	for rows.Next() {
		var id int
		var ok bool
		var res string
		if err := rows.Scan(&id, &ok, &res); err != nil {
			t.Fatal(err)
		}
		if ok {
			okNodes++
		} else if strings.Contains(res, "out of bounds") {
			failed++
			t.Logf("pgid.objectid_reseed() on node %d: %s", id, firstLine(errors.New(res)))
		}
	}
	if okNodes != 1 || failed != 2 {
		t.Errorf("pgid.objectid_reseed() on every node: %d succeeded, %d out of bounds; measured before: 1 (the coordinator) and 2 (the workers)", okNodes, failed)
	}

	// Writers: 3 on the coordinator, 3 on each worker (Citus routes
	// writes from any node; the DEFAULTs are evaluated where the INSERT
	// runs), plus INSERT ... SELECT from the coordinator.
	const perWriter = 300
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for _, s := range c.Nodes() {
		for w := range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				conn, err := pgx.Connect(ctx, c.DSN(s, d.name))
				if err != nil {
					errs <- err
					return
				}
				defer conn.Close(ctx)
				for i := range perWriter {
					if _, err := conn.Exec(ctx, "INSERT INTO u (tenant, node) VALUES ($1, inet_server_port()::text)", (w*perWriter+i)%32); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 5 {
			if _, err := d.conn.Exec(ctx, "INSERT INTO u (tenant, node) SELECT tenant, 'insert-select' FROM u WHERE node IS NOT NULL LIMIT 200"); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var total, ulids, objs int
	if err := d.conn.QueryRow(ctx, "SELECT count(*), count(DISTINCT id), count(DISTINCT oid) FROM u").Scan(&total, &ulids, &objs); err != nil {
		t.Fatal(err)
	}
	if total < 9*perWriter || ulids != total || objs != total {
		t.Fatalf("%d rows: %d distinct ULIDs, %d distinct ObjectIds", total, ulids, objs)
	}
	var nodeValues int
	if err := d.conn.QueryRow(ctx, "SELECT count(DISTINCT substr(oid, 5, 5)) FROM u WHERE node <> 'insert-select'").Scan(&nodeValues); err != nil || nodeValues != 3 {
		t.Fatalf("the writers' ObjectIds carry %d node values, %v; want 3 (one per node)", nodeValues, err)
	}
	rows, err = d.conn.Query(ctx, "SELECT node, count(*), count(DISTINCT substr(oid, 5, 5)) FROM u GROUP BY node ORDER BY node")
	if err != nil {
		t.Fatal(err)
	}
	var per []string
	for rows.Next() {
		var node string
		var n, v int
		if err := rows.Scan(&node, &n, &v); err != nil {
			t.Fatal(err)
		}
		per = append(per, fmt.Sprintf("%s: %d rows, %d random values", node, n, v))
	}
	t.Logf("unique across nodes: %d rows, %d distinct ULIDs, %d distinct ObjectIds (by the port of the node that ran the INSERT: %s)", total, ulids, objs, strings.Join(per, "; "))
}

// citusPartitions: partition.Ensure on a distributed table partitioned by
// its ID.
func citusPartitions(t *testing.T, c *pgserver.Cluster) {
	ctx := context.Background()
	d := newCitusDB(t, c, true)
	d.exec(t, `CREATE TABLE ev (tenant int NOT NULL, id pgid.ulid NOT NULL DEFAULT pgid.gen_ulid_v7(), PRIMARY KEY (tenant, id)) PARTITION BY RANGE (id)`)
	d.exec(t, "SELECT create_distributed_table('ev', 'tenant')")
	d.exec(t, `CREATE TABLE ev_note (tenant int NOT NULL, id pgid.ulid NOT NULL, note text, FOREIGN KEY (tenant, id) REFERENCES ev ON DELETE CASCADE)`)
	d.exec(t, "SELECT create_distributed_table('ev_note', 'tenant', colocate_with => 'ev')")
	now := time.Now().UTC()
	plan := partition.Plan{Parent: "ev", Kind: partition.KindULID, Every: partition.Day, Ahead: 2, Retain: partition.Span{Duration: 48 * time.Hour}, Now: now.AddDate(0, 0, -4)}
	rep, err := partition.Ensure(ctx, d.conn, plan)
	if err != nil {
		t.Fatalf("Ensure 4 days ago: %v", err)
	}
	t.Logf("created %d partitions (4 days ago, 2 ahead)", len(rep.Created))
	plan.Now = now
	dry := plan
	dry.DryRun = true
	drep, err := partition.Ensure(ctx, d.conn, dry)
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	var parts int
	if err := d.conn.QueryRow(ctx, "SELECT count(*) FROM pgid.list_partitions('ev')").Scan(&parts); err != nil {
		t.Fatal(err)
	}
	if len(drep.Created) == 0 || parts != len(rep.Created) {
		t.Fatalf("dry run: would create %d, %d partitions exist (want unchanged %d)", len(drep.Created), parts, len(rep.Created))
	}
	// Rows in an old partition, with a note each (ON DELETE CASCADE).
	oldID := ulidAt(now.AddDate(0, 0, -4).Add(time.Hour))
	d.exec(t, "INSERT INTO ev (tenant, id) VALUES (1, $1)", oldID)
	d.exec(t, "INSERT INTO ev_note (tenant, id, note) VALUES (1, $1, 'old')", oldID)
	rep, err = partition.Ensure(ctx, d.conn, plan)
	if err != nil {
		t.Fatalf("Ensure now: %v", err)
	}
	d.exec(t, "INSERT INTO ev (tenant, id) VALUES (2, $1)", ulidtype.New())
	t.Logf("now: created %d, retired %d, FK actions %v", len(rep.Created), len(rep.Dropped), rep.FKActions)
	if len(rep.Dropped) == 0 {
		t.Fatalf("retention retired nothing: %+v", rep)
	}
	// Every partition is a distributed table with shards on the workers;
	// the retired ones are gone from every node.
	var notDist int
	if err := d.conn.QueryRow(ctx, `SELECT count(*) FROM pgid.list_partitions('ev') p
		WHERE NOT EXISTS (SELECT FROM pg_dist_partition d WHERE d.logicalrelid = p.partition::regclass)`).Scan(&notDist); err != nil {
		t.Fatal(err)
	}
	if notDist != 0 {
		t.Errorf("%d partitions are not distributed", notDist)
	}
	shards := d.onWorkers(t, "SELECT count(*) FROM pg_class WHERE relname ~ '^ev_p[0-9]+_[0-9]+$'")
	var want int
	if err := d.conn.QueryRow(ctx, `SELECT count(*) FROM pg_dist_shard s JOIN pgid.list_partitions('ev') p ON s.logicalrelid = p.partition::regclass`).Scan(&want); err != nil {
		t.Fatal(err)
	}
	var got int
	for _, s := range shards {
		var n int
		fmt.Sscan(s, &n)
		got += n
	}
	if got != want {
		t.Errorf("shard tables of the partitions on the workers: %d (%v), want %d (retired ones dropped everywhere)", got, shards, want)
	}
	var rowsLeft, notes int
	if err := d.conn.QueryRow(ctx, "SELECT (SELECT count(*) FROM ev), (SELECT count(*) FROM ev_note)").Scan(&rowsLeft, &notes); err != nil {
		t.Fatal(err)
	}
	if rowsLeft != 1 || notes != 0 {
		t.Errorf("after retention: %d rows, %d notes; want 1 and 0 (the note cascaded)", rowsLeft, notes)
	}
	list, err := partition.List(ctx, d.conn, "ev")
	if err != nil {
		t.Fatal(err)
	}
	var est []string
	for _, p := range list {
		est = append(est, fmt.Sprintf("%s %d", p.Name, p.RowEstimate))
	}
	t.Logf("partition list row estimates on the coordinator (the shells of the distributed partitions): %s", strings.Join(est, ", "))
}

// citusTail: tail refuses a distributed table in pgid's words.
func citusTail(t *testing.T, c *pgserver.Cluster) {
	ctx := context.Background()
	d := newCitusDB(t, c, true)
	d.exec(t, "CREATE TABLE feed (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid_v7(), body text)")
	d.exec(t, "SELECT create_distributed_table('feed', 'id')")
	err := tail.Enable(ctx, d.conn, "feed", 2*time.Second)
	if !errors.Is(err, tail.ErrCitus) {
		t.Fatalf("tail.Enable on a distributed table: %v, want tail.ErrCitus", err)
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != tail.CodeCitus || !strings.Contains(pe.Message, "Citus") || !strings.Contains(pe.Hint, "logical decoding") {
		t.Fatalf("tail.Enable: %v (want SQLSTATE %s naming Citus and logical decoding)", err, tail.CodeCitus)
	}
	t.Logf("tail.Enable: %v", err)
	// A reference table too, and the same through SQL.
	d.exec(t, "CREATE TABLE ref (id pgid.objectid PRIMARY KEY DEFAULT pgid.gen_objectid())")
	d.exec(t, "SELECT create_reference_table('ref')")
	if _, err := d.conn.Exec(ctx, "SELECT pgid.tail_enable('ref', '2 seconds')"); !errors.As(err, &pe) || pe.Code != "PGI24" {
		t.Fatalf("pgid.tail_enable on a reference table: %v, want SQLSTATE PGI24", err)
	}
	// A table set up for tailing before it was distributed (triggers
	// allowed with citus.enable_unsafe_triggers): a Tailer's first read
	// refuses it.
	d.exec(t, "CREATE TABLE late (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid_v7())")
	d.exec(t, "SELECT pgid.tail_enable('late', '2 seconds')")
	d.exec(t, "SET citus.enable_unsafe_triggers = on")
	d.exec(t, "SELECT create_distributed_table('late', 'id')")
	d.exec(t, "RESET citus.enable_unsafe_triggers")
	tl, err := tail.New(d.conn, tail.Config[ulidtype.ULID]{Table: "late"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tl.Next(ctx)
	if !errors.Is(err, tail.ErrCitus) {
		t.Fatalf("Tailer.Next on a distributed table: %v, want tail.ErrCitus", err)
	}
	// A local table of the same database is tailed as ever.
	d.exec(t, "CREATE TABLE local_feed (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid_v7())")
	if err := tail.Enable(ctx, d.conn, "local_feed", 2*time.Second); err != nil {
		t.Fatalf("tail.Enable on a local table of a Citus database: %v", err)
	}
}

// ulidAt and oidAt make an ID of time at.
func ulidAt(at time.Time) ulidtype.ULID {
	return ulidtype.NewGenerator(func() time.Time { return at }, rand.Reader).New()
}

func oidAt(at time.Time) objectidtype.ObjectID {
	return objectidtype.NewGenerator(func() time.Time { return at }, rand.Reader).New()
}

// citusDocs runs docs/CITUS.md's blocks, each marked <!-- test: citus -->:
// the SQL blocks in order on the coordinator of a new database with pgid's
// migrations, and the Go blocks, which must stand line for line in this
// file, through the functions below.
func citusDocs(t *testing.T, c *pgserver.Cluster) {
	ctx := context.Background()
	b, err := os.ReadFile("../docs/CITUS.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	all := regexp.MustCompile("(?m)^```(sql|go)$").FindAllStringIndex(doc, -1)
	blocks := regexp.MustCompile("(?s)<!-- test: citus -->\n```(sql|go)\n(.*?)```").FindAllStringSubmatch(doc, -1)
	if len(blocks) != len(all) || len(blocks) < 7 {
		t.Fatalf("docs/CITUS.md: %d SQL and Go blocks, %d marked <!-- test: citus --> (want all, at least 7)", len(all), len(blocks))
	}
	src, err := os.ReadFile("citus_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := codeLines(string(src))
	d := newCitusDB(t, c, true)
	ranSQL, ranGo := 0, 0
	for _, blk := range blocks {
		switch blk[1] {
		case "sql":
			// The simple protocol: the block's statements in one Exec,
			// as psql -c would send them.
			if _, err := d.conn.Exec(ctx, blk[2], pgx.QueryExecModeSimpleProtocol); err != nil {
				t.Fatalf("docs/CITUS.md block:\n%s\n%v", blk[2], err)
			}
			ranSQL++
		case "go":
			if !containsRun(code, codeLines(blk[2])) {
				t.Fatalf("docs/CITUS.md Go block is not in citus_test.go:\n%s", blk[2])
			}
			ranGo++
		}
	}
	// What the blocks made: 64 events over 8 tenants, every node's own
	// ObjectId value, partitions of clicks that are distributed.
	var n int
	if err := d.conn.QueryRow(ctx, "SELECT count(*) FROM events WHERE id >= pgid.ulid_min_at(now() - interval '1 hour')").Scan(&n); err != nil || n != 64 {
		t.Fatalf("events in the last hour: %d, %v; want 64", n, err)
	}
	cfg, err := pgxpool.ParseConfig(d.dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.AfterConnect = pgidpgx.AfterConnect
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ids, err := tenantLastHour(ctx, pool, 3)
	if err != nil || len(ids) != 8 {
		t.Fatalf("tenantLastHour(3): %d IDs, %v; want 8", len(ids), err)
	}
	ranGo++ // the block's function, run
	var docID objectidtype.ObjectID
	if err := d.conn.QueryRow(ctx, "SELECT id FROM documents WHERE body = 'doc 7'").Scan(&docID); err != nil {
		t.Fatal(err)
	}
	if body, err := documentBody(ctx, pool, docID); err != nil || body != "doc 7" {
		t.Fatalf("documentBody: %q, %v; want doc 7", body, err)
	}
	ranGo++
	var parts int
	if err := d.conn.QueryRow(ctx, `SELECT count(*) FROM pgid.list_partitions('clicks') p
		JOIN pg_dist_partition d ON d.logicalrelid = p.partition`).Scan(&parts); err != nil || parts != 3 {
		t.Fatalf("distributed partitions of clicks: %d, %v; want 3", parts, err)
	}
	t.Logf("docs/CITUS.md: %d SQL blocks run on the coordinator, %d Go blocks found in citus_test.go and run", ranSQL, ranGo/2)
}

func documentBody(ctx context.Context, pool *pgxpool.Pool, id objectidtype.ObjectID) (string, error) {
	var body string
	err := pool.QueryRow(ctx, "SELECT body FROM documents WHERE id = $1::pgid.objectid", id).Scan(&body)
	return body, err
}

func tenantLastHour(ctx context.Context, pool *pgxpool.Pool, tenant int64) ([]ulidtype.ULID, error) {
	rows, err := pool.Query(ctx,
		"SELECT id FROM events WHERE tenant_id = $1 AND id >= $2 ORDER BY id",
		tenant, ulidtype.Since(time.Now().Add(-time.Hour)))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[ulidtype.ULID])
}

// BenchmarkCitusWindow: a time window (the last hour) over a table
// distributed into 16 shards on the two workers, against the same table,
// not distributed, on the coordinator: the same server binaries and
// settings, one machine. 200,000 rows over two days, 64 tenants
// (PGID_BENCH_ROWS changes the count; PGID_BENCH_ID_INDEX=1 adds an index
// on id to both tables).
func BenchmarkCitusWindow(b *testing.B) {
	c := citusCluster(b)
	d := newCitusDB(b, c, true)
	ctx := context.Background()
	rowsN := 200000
	if v := os.Getenv("PGID_BENCH_ROWS"); v != "" {
		fmt.Sscan(v, &rowsN)
	}
	now := time.Now()
	for _, tbl := range []string{"w_local", "w_dist"} {
		d.exec(b, "CREATE TABLE "+tbl+" (tenant_id bigint NOT NULL, id pgid.ulid NOT NULL, payload text, PRIMARY KEY (tenant_id, id))")
		if os.Getenv("PGID_BENCH_ID_INDEX") != "" {
			// For windows across tenants: an index on the ID alone.
			d.exec(b, "CREATE INDEX ON "+tbl+" (id)")
		}
	}
	d.exec(b, "SELECT create_distributed_table('w_dist', 'tenant_id', shard_count => 16)")
	rows := make([][]any, rowsN)
	span := 48 * time.Hour
	for i := range rows {
		at := now.Add(-time.Duration(i) * (span / time.Duration(rowsN)))
		rows[i] = []any{int64(i % 64), ulidAt(at), "payload"}
	}
	for _, tbl := range []string{"w_local", "w_dist"} {
		if _, err := d.conn.CopyFrom(ctx, pgx.Identifier{tbl}, []string{"tenant_id", "id", "payload"}, pgx.CopyFromRows(rows)); err != nil {
			b.Fatal(err)
		}
		d.exec(b, "ANALYZE "+tbl)
	}
	since := ulidtype.Since(now.Add(-time.Hour))
	want := 0
	if err := d.conn.QueryRow(ctx, "SELECT count(*) FROM w_local WHERE id >= $1", since).Scan(&want); err != nil {
		b.Fatal(err)
	}
	for _, q := range []struct{ name, sql string }{
		{"all-tenants", "SELECT count(*) FROM %s WHERE id >= $1"},
		{"one-tenant", "SELECT count(*) FROM %s WHERE tenant_id = 7 AND id >= $1"},
	} {
		for _, tbl := range []struct{ name, table string }{{"one-server", "w_local"}, {"citus-16-shards", "w_dist"}} {
			b.Run(q.name+"/"+tbl.name, func(b *testing.B) {
				query := fmt.Sprintf(q.sql, tbl.table)
				var n int
				for b.Loop() {
					if err := d.conn.QueryRow(ctx, query, since).Scan(&n); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n), "rows")
			})
		}
	}
	b.Logf("%d rows over 48 h; the last hour holds %d", rowsN, want)
}
