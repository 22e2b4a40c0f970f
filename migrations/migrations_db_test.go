package migrations_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
)

// pgidFunctions is the number of functions in schema pgid outside the
// partition and tail ones: 6 ULID and 9 ObjectId functions (pgid.objectid_reseed too), the internal
// pgid._parse_error, pgid._crockford_pairs and pgid._short_alphabet,
// pgid.gen_ulid_v7 and pgid.ulid_is_v7, and pgid.typeid_text,
// pgid.typeid_uuid and their internal pgid._typeid_error and
// pgid._typeid_quote_byte.
const pgidFunctions = 24

// schemaLatest is the version Up brings a database to: the number of
// versioned files.
var schemaLatest = migrations.Latest()

// pgidAllFunctions is every function in schema pgid, the partition and
// tail ones too: the lines of testdata/functions.txt (TestFunctionList).
var pgidAllFunctions = len(functionList)

func pgidObjects(t *testing.T, conn *pgx.Conn) (types, funcs int) {
	t.Helper()
	err := conn.QueryRow(context.Background(), `
		SELECT (SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'pgid'
		          AND t.typrelid = 0 AND NOT EXISTS (SELECT FROM pg_type e WHERE e.oid = t.typelem AND e.typrelid <> 0)),
		       (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'pgid')`).Scan(&types, &funcs)
	if err != nil {
		t.Fatal(err)
	}
	return types, funcs
}

func schemaVersion(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	v, err := migrations.Version(context.Background(), conn)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Up, Up again, the forward SQL by hand twice, Down, Up.
func TestMigrationsUpDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.EmptyDB(t), pgx.QueryExecModeCacheStatement)

	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatalf("second Up: %v", err)
	}
	if v := schemaVersion(t, conn); v != schemaLatest {
		t.Fatalf("version after Up: %d, want %d", v, schemaLatest)
	}
	// 2 domains + 2 array types; pgidAllFunctions functions.
	if types, funcs := pgidObjects(t, conn); types != 4 || funcs != pgidAllFunctions {
		t.Fatalf("after Up: %d types, %d functions; want 4, %d", types, funcs, pgidAllFunctions)
	}

	// Each file's forward part, as someone would paste it into psql, twice.
	names, _ := fs.Glob(migrations.FS, "*.sql")
	fnames, _ := fs.Glob(migrations.FS, "functions/*.sql")
	names = append(names, fnames...)
	for range 2 {
		for _, name := range names {
			b, _ := fs.ReadFile(migrations.FS, name)
			up, _, _ := strings.Cut(string(b), migrations.Marker)
			if _, err := conn.Exec(ctx, "BEGIN; "+up+"; COMMIT"); err != nil {
				t.Fatalf("re-running %s by hand: %v", name, err)
			}
		}
	}
	if types, funcs := pgidObjects(t, conn); types != 4 || funcs != pgidAllFunctions {
		t.Fatalf("after re-running: %d types, %d functions; want 4, %d", types, funcs, pgidAllFunctions)
	}

	if err := migrations.Down(ctx, conn); err != nil {
		t.Fatalf("Down: %v", err)
	}
	if v := schemaVersion(t, conn); v != 0 {
		t.Fatalf("version after Down: %d, want 0", v)
	}
	var schemas int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = 'pgid'").Scan(&schemas); err != nil {
		t.Fatal(err)
	}
	if schemas != 0 {
		t.Fatal("schema pgid still exists after Down")
	}
	var table *string
	if err := conn.QueryRow(ctx, "SELECT to_regclass($1)::text", migrations.VersionTable).Scan(&table); err != nil || table != nil {
		t.Fatalf("version table %s after Down: %v, %v", migrations.VersionTable, table, err)
	}
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatalf("Up after Down: %v", err)
	}
	if types, funcs := pgidObjects(t, conn); types != 4 || funcs != pgidAllFunctions {
		t.Fatalf("after Down, Up: %d types, %d functions; want 4, %d", types, funcs, pgidAllFunctions)
	}
}

// Down refuses to drop what user tables use, and then has dropped nothing:
// every pgid object is there and the version is unchanged.
func TestMigrationsDownRestrict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, `
		CREATE TABLE keep (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid(), o pgid.objectid);
		INSERT INTO keep (o) VALUES (pgid.gen_objectid())`); err != nil {
		t.Fatal(err)
	}
	err := migrations.Down(ctx, conn)
	if pgtest.SQLState(err) != "2BP01" { // dependent_objects_still_exist
		t.Fatalf("Down with a table using the domains: %v, want SQLSTATE 2BP01", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("nothing dropped, still at version %d", schemaLatest)) {
		t.Errorf("Down's error does not say what state it left: %v", err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM keep").Scan(&n); err != nil || n != 1 {
		t.Fatalf("table after refused Down: %d rows, %v", n, err)
	}
	if v := schemaVersion(t, conn); v != schemaLatest {
		t.Fatalf("version after refused Down: %d, want %d", v, schemaLatest)
	}
	if types, funcs := pgidObjects(t, conn); types != 4 || funcs != pgidAllFunctions {
		t.Fatalf("after refused Down: %d types, %d functions; want 4, %d", types, funcs, pgidAllFunctions)
	}
}

// A user function with an SQL-standard body that calls a pgid function is a
// dependency PostgreSQL tracks, so it stops Down; one with a quoted body is
// not: Down goes ahead, and the function fails when next called.
func TestMigrationsDownUserFunctions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, `
		CREATE FUNCTION std_body(u uuid) RETURNS text LANGUAGE sql RETURN pgid.ulid_to_text(u);
		CREATE FUNCTION quoted_body(u uuid) RETURNS text LANGUAGE sql AS 'SELECT pgid.ulid_to_text(u)'`); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Down(ctx, conn); pgtest.SQLState(err) != "2BP01" || !strings.Contains(err.Error(), "std_body") {
		t.Fatalf("Down with an SQL-standard body calling pgid: %v, want 2BP01 naming std_body", err)
	}
	if types, funcs := pgidObjects(t, conn); types != 4 || funcs != pgidAllFunctions || schemaVersion(t, conn) != schemaLatest {
		t.Fatalf("after refused Down: %d types, %d functions", types, funcs)
	}
	if _, err := conn.Exec(ctx, "DROP FUNCTION std_body(uuid)"); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Down(ctx, conn); err != nil {
		t.Fatalf("Down with only a quoted body calling pgid: %v", err)
	}
	var s string
	if err := conn.QueryRow(ctx, "SELECT quoted_body(gen_random_uuid())").Scan(&s); pgtest.SQLState(err) != "42883" && pgtest.SQLState(err) != "3F000" {
		t.Fatalf("quoted_body after Down: %q, %v; want undefined function or schema", s, err)
	}
}

// After Down and Up on another connection, a statement pgx prepared and
// cached before fails once with XX000 "cache lookup failed for type" (the
// types have new OIDs); pgx drops it from its cache and the next call works.
// Down's documentation says so; this pins the behaviour.
func TestMigrationsDownUpCachedStatements(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DB(t)
	user := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	const q = "SELECT pgid.ulid_to_text($1::pgid.ulid)"
	var s string
	if err := user.QueryRow(ctx, q, "01563e3a-b5d3-d676-4c61-efb99302bd5b").Scan(&s); err != nil {
		t.Fatal(err)
	}
	other := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if err := migrations.Down(ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, other); err != nil {
		t.Fatal(err)
	}
	err := user.QueryRow(ctx, q, "01563e3a-b5d3-d676-4c61-efb99302bd5b").Scan(&s)
	if pgtest.SQLState(err) != "XX000" || !strings.Contains(err.Error(), "cache lookup failed for type") {
		t.Fatalf("cached statement after Down, Up: %v; want XX000 cache lookup failed (update Down's documentation if this changed)", err)
	}
	if err := user.QueryRow(ctx, q, "01563e3a-b5d3-d676-4c61-efb99302bd5b").Scan(&s); err != nil || s != "01ARZ3NDEKTSV4RRFFQ69G5FAV" {
		t.Fatalf("second call: %q, %v", s, err)
	}
}

// Concurrent Up calls on one database serialise on the migration lock.
func TestMigrationsConcurrentUp(t *testing.T) {
	t.Parallel()
	dsn := pgtest.EmptyDB(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
		wg.Go(func() { errs[i] = migrations.Up(context.Background(), conn) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Up #%d: %v", i, err)
		}
	}
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if v := schemaVersion(t, conn); v != schemaLatest {
		t.Fatalf("version: %d, want %d", v, schemaLatest)
	}
}

// Bound and conversion functions are IMMUTABLE STRICT PARALLEL SAFE (a
// VOLATILE bound turns an index scan into a seq scan), generators VOLATILE,
// and every function is documented.
func TestFunctionAttributes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, `CREATE FUNCTION gen_random_bytes_12() RETURNS bytea LANGUAGE sql VOLATILE
		RETURN substr(uuid_send(gen_random_uuid()), 1, 12)`); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `
		SELECT p.proname, p.provolatile::text, p.proisstrict, p.proparallel::text, l.lanname,
		       coalesce(obj_description(p.oid, 'pg_proc'), '')
		FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
		WHERE p.pronamespace = 'pgid'::regnamespace
		  -- functions/05_partitions.sql, checked in partition/ensure_db_test.go
		  AND p.proname NOT LIKE '%partition%' AND p.proname NOT LIKE '\_ensure\_%' AND p.proname NOT LIKE '\_retire\_%'
		  AND p.proname NOT IN ('_utc_text', '_id_time')
		  AND p.proname NOT LIKE '%tail%' -- functions/06_tail.sql, checked in tail/tail_db_test.go
		ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		Name, Volatile string
		Strict         bool
		Parallel, Lang string
		Comment        string
	}
	fns, err := pgx.CollectRows(rows, pgx.RowToStructByPos[fn])
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) != pgidFunctions {
		t.Fatalf("%d functions, want %d", len(fns), pgidFunctions)
	}
	// nextval and setval are PARALLEL UNSAFE: so are the functions that call
	// them.
	sequence := map[string]bool{"gen_objectid": true, "objectid_reseed": true}
	for _, f := range fns {
		if want := map[bool]string{false: "s", true: "u"}[sequence[f.Name]]; f.Parallel != want {
			t.Errorf("%s: parallel %q, want %q", f.Name, f.Parallel, want)
		}
		if f.Comment == "" {
			t.Errorf("%s: no COMMENT", f.Name)
		}
		if strings.HasPrefix(f.Name, "gen_") || sequence[f.Name] {
			if f.Volatile != "v" {
				t.Errorf("%s: volatility %q, want VOLATILE", f.Name, f.Volatile)
			}
			// gen_ulid keeps its random 80 bits; the others say how they order.
			if want := map[bool]string{true: "Not monotonic", false: "increas"}[f.Name == "gen_ulid"]; strings.HasPrefix(f.Name, "gen_") &&
				!strings.Contains(f.Comment, want) {
				t.Errorf("%s: comment does not say %q: %q", f.Name, want, f.Comment)
			}
			continue
		}
		if f.Volatile != "i" || !f.Strict {
			t.Errorf("%s: volatility %q strict %v, want IMMUTABLE STRICT", f.Name, f.Volatile, f.Strict)
		}
		if strings.Contains(f.Name, "_at") || strings.HasSuffix(f.Name, "_to_hex") || strings.HasSuffix(f.Name, "_to_short") {
			if f.Lang != "sql" {
				t.Errorf("%s: language %s, want sql (inlinable)", f.Name, f.Lang)
			}
		}
	}

	// The bound functions, the encoders and the time functions are inlined
	// (their SQL-standard bodies too): EXPLAIN VERBOSE shows their body, not
	// a call.
	rows, err = conn.Query(ctx, `EXPLAIN (VERBOSE, COSTS OFF)
		SELECT pgid.ulid_min_at(t), pgid.ulid_max_at(t), pgid.objectid_min_at(t), pgid.objectid_max_at(t),
		       pgid.ulid_to_text(u), pgid.ulid_time(u), pgid.objectid_to_hex(o), pgid.objectid_to_short(o),
		       pgid.objectid_time(o), pgid.gen_ulid(), pgid.gen_objectid(), pgid.gen_ulid_v7(), pgid.ulid_is_v7(u)
		FROM (VALUES (now(), gen_random_uuid(), gen_random_bytes_12()), (now(), gen_random_uuid(), gen_random_bytes_12())) v(t, u, o)`)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	for _, call := range []string{"_at(", "_to_text(", "_time(", "_to_hex(", "_to_short(", "gen_ulid(", "gen_objectid(", "gen_ulid_v7(", "_is_v7("} {
		if strings.Contains(plan, call) {
			t.Errorf("%s...) not inlined:\n%s", call, plan)
		}
	}
}

// Up refuses a database whose recorded versioned file differs from the
// released one, and applies nothing.
func TestMigrationsChecksumMismatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, `
		UPDATE pgid.schema_migrations SET checksum = repeat('0', 64) WHERE name = '002_ulid_functions.sql';
		DELETE FROM pgid.schema_migrations WHERE version = (SELECT max(version) FROM pgid.schema_migrations)`); err != nil {
		t.Fatal(err)
	}
	err := migrations.Up(ctx, conn)
	if !errors.Is(err, migrations.ErrChecksum) || !strings.Contains(err.Error(), "002_ulid_functions.sql") ||
		!strings.Contains(err.Error(), strings.Repeat("0", 64)) {
		t.Fatalf("Up with a changed 002: %v, want ErrChecksum naming the file and the recorded checksum", err)
	}
	if v := schemaVersion(t, conn); v != schemaLatest-1 {
		t.Errorf("Up applied something after ErrChecksum: version %d, want %d", v, schemaLatest-1)
	}
	if err := migrations.Down(ctx, conn); !errors.Is(err, migrations.ErrChecksum) {
		t.Errorf("Down with a changed 002: %v, want ErrChecksum", err)
	}
}

// The database's ObjectId value (sequence pgid.objectid_counter) is drawn
// once, by 007: Up applying older function definitions again keeps it, and
// the next ID follows the last one.
func TestObjectIDCounterKeptByUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	gen := func() []byte {
		t.Helper()
		var o []byte
		if err := conn.QueryRow(ctx, "SELECT pgid.gen_objectid()").Scan(&o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	before := gen()
	if _, err := conn.Exec(ctx, "UPDATE pgid.schema_migrations SET checksum = $1 WHERE name = $2",
		migrations.FunctionsHistory()[0], migrations.FunctionsStep); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if st, err := migrations.ReadStatus(ctx, conn); err != nil || !st.FunctionsCurrent {
		t.Fatalf("status after Up: %+v, %v", st, err)
	}
	after := gen()
	if binary.BigEndian.Uint64(after[4:]) != binary.BigEndian.Uint64(before[4:])+1 {
		t.Errorf("after Up re-applied the functions: %x, before %x", after, before)
	}
}

// A body chosen by server version that is another version's (a database
// moved by pg_upgrade or a restore keeps its old server's body and its
// recorded checksum) makes ReadStatus say the functions are not current,
// and Up installs the body that fits: on PostgreSQL 18 and later
// pgid.gen_ulid_v7 returns uuidv7(), before it does not. Below 18 the
// moved body is played by one calling a uuidv7() of schema public.
func TestFunctionsFitServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	var v int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&v); err != nil {
		t.Fatal(err)
	}
	body := func() string {
		t.Helper()
		var b string
		if err := conn.QueryRow(ctx, "SELECT pg_get_function_sqlbody('pgid.gen_ulid_v7()'::regprocedure)").Scan(&b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	fits := func() bool { return strings.Contains(body(), "uuidv7()") == (v >= 180000) }
	if !fits() {
		t.Fatalf("server_version_num %d: Up installed %q", v, body())
	}
	moved := "CREATE OR REPLACE FUNCTION pgid.gen_ulid_v7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE RETURN pg_catalog.gen_random_uuid()"
	if v < 180000 {
		moved = `CREATE FUNCTION public.uuidv7() RETURNS uuid LANGUAGE sql VOLATILE RETURN pg_catalog.gen_random_uuid();
			CREATE OR REPLACE FUNCTION pgid.gen_ulid_v7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE RETURN public.uuidv7()`
	}
	if _, err := conn.Exec(ctx, moved); err != nil {
		t.Fatal(err)
	}
	st, err := migrations.ReadStatus(ctx, conn)
	if err != nil || st.FunctionsCurrent || st.Functions != migrations.FunctionsChecksum() || st.Err != nil {
		t.Fatalf("status with another server's body %q: %+v, %v; want the checksum current and FunctionsCurrent false", body(), st, err)
	}
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if st, err := migrations.ReadStatus(ctx, conn); err != nil || !st.FunctionsCurrent || !fits() {
		t.Errorf("after Up: %+v, %v; body %q", st, err, body())
	}
}

// Up replaces function definitions it knows to be older (or unrecorded),
// never those a newer pgid recorded, and keeps a REVOKE on a function it
// replaces; Down refuses versioned files it does not know.
func TestMigrationsFunctionsStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	comment := func() string {
		var c string
		if err := conn.QueryRow(ctx, "SELECT obj_description('pgid.ulid_to_text(uuid)'::regprocedure, 'pg_proc')").Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	released := comment()
	if _, err := conn.Exec(ctx, `
		COMMENT ON FUNCTION pgid.ulid_to_text(uuid) IS 'a newer pgid''s';
		REVOKE EXECUTE ON FUNCTION pgid.ulid_to_text(uuid) FROM PUBLIC;
		UPDATE pgid.schema_migrations SET checksum = repeat('f', 64) WHERE name = 'functions/';
		INSERT INTO pgid.schema_migrations (name, version, checksum) VALUES ('999_future.sql', 999, repeat('e', 64))`); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatalf("Up on a database a newer pgid migrated: %v", err)
	}
	if c := comment(); c != "a newer pgid's" {
		t.Errorf("Up replaced a newer pgid's definitions: comment %q", c)
	}
	st, err := migrations.ReadStatus(ctx, conn)
	if err != nil || st.Version != 999 || st.FunctionsCurrent || st.Functions != strings.Repeat("f", 64) ||
		len(st.Unknown) != 1 || st.Unknown[0] != "999_future.sql" {
		t.Errorf("status: %+v, %v", st, err)
	}
	if err := migrations.Down(ctx, conn); !errors.Is(err, migrations.ErrUnknownVersion) || !strings.Contains(err.Error(), "999_future.sql") {
		t.Errorf("Down with an unknown version: %v, want ErrUnknownVersion naming it", err)
	}

	// Unrecorded definitions (NULL) are replaced; the REVOKE stays.
	if _, err := conn.Exec(ctx, `
		DELETE FROM pgid.schema_migrations WHERE name = '999_future.sql';
		UPDATE pgid.schema_migrations SET checksum = NULL WHERE name = 'functions/'`); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if c := comment(); c != released {
		t.Errorf("comment after Up replaced the definitions: %q, want %q", c, released)
	}
	var public, other bool
	if err := conn.QueryRow(ctx, `SELECT has_function_privilege('public', 'pgid.ulid_to_text(uuid)', 'EXECUTE'),
		has_function_privilege('public', 'pgid.ulid_from_text(text)', 'EXECUTE')`).Scan(&public, &other); err != nil {
		t.Fatal(err)
	}
	if public || !other {
		t.Errorf("EXECUTE for PUBLIC after Up: revoked function %v (want false), other %v (want true)", public, other)
	}
	if st, err := migrations.ReadStatus(ctx, conn); err != nil || !st.FunctionsCurrent || st.Version != migrations.Latest() {
		t.Errorf("status after Up: %+v, %v", st, err)
	}
}

// Version, Up and Down take a pgx pool, a *sql.DB and a *sql.Conn of pgx's
// database/sql driver; another driver, or a connection inside a
// transaction, gets ErrConn.
func TestMigrationsDBKinds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.EmptyDB(t)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := migrations.Up(ctx, pool); err != nil {
		t.Fatalf("Up on a pool: %v", err)
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, err := migrations.Version(ctx, db); err != nil || v != migrations.Latest() {
		t.Fatalf("Version on a *sql.DB: %d, %v", v, err)
	}
	if err := migrations.Down(ctx, db); err != nil {
		t.Fatalf("Down on a *sql.DB: %v", err)
	}
	sc, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if err := migrations.Up(ctx, sc); err != nil {
		t.Fatalf("Up on a *sql.Conn: %v", err)
	}
	if v, err := migrations.Version(ctx, pool); err != nil || v != migrations.Latest() {
		t.Fatalf("Version on a pool: %d, %v", v, err)
	}

	pq, err := sql.Open(pgtest.ForeignDriver, dsn) // lib/pq in integration_test
	if err != nil {
		t.Fatal(err)
	}
	defer pq.Close()
	if err := migrations.Up(ctx, pq); !errors.Is(err, migrations.ErrConn) || !strings.Contains(err.Error(), "pgx/v5/stdlib") {
		t.Errorf("Up through lib/pq: %v, want ErrConn naming pgx's driver", err)
	}
	var nilPool *pgxpool.Pool
	if err := migrations.Up(ctx, nilPool); !errors.Is(err, migrations.ErrConn) {
		t.Errorf("Up on a nil pool: %v, want ErrConn", err)
	}
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Down(ctx, conn); !errors.Is(err, migrations.ErrConn) || !strings.Contains(err.Error(), "transaction") {
		t.Errorf("Down inside a transaction: %v, want ErrConn", err)
	}
}

// A relation named like tern's version table that another role put in
// schema public is never read: Up installs as on a fresh database, and the
// attacker's function never runs as the owner.
func TestMigrationsIgnoreForeignTernTable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.EmptyDB(t)
	owner := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	evil := pgtest.NewRole(t, owner)
	if _, err := owner.Exec(ctx, "GRANT CREATE ON SCHEMA public TO "+evil); err != nil {
		t.Fatal(err)
	}
	attacker := pgtest.Connect(t, pgtest.WithUser(dsn, evil), pgx.QueryExecModeCacheStatement)
	if _, err := attacker.Exec(ctx, `
		CREATE FUNCTION public.trap() RETURNS int LANGUAGE plpgsql AS
		  $$BEGIN RAISE EXCEPTION 'trap ran as %', current_user; END$$;
		CREATE VIEW public.pgid_schema_version AS SELECT public.trap() AS version`); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, owner); err != nil {
		t.Fatalf("Up with a foreign public.pgid_schema_version: %v", err)
	}
	if st, err := migrations.ReadStatus(ctx, owner); err != nil || st.Tern || st.Version != schemaLatest || !st.FunctionsCurrent {
		t.Fatalf("status: %+v, %v", st, err)
	}
	if err := migrations.Down(ctx, owner); err != nil {
		t.Fatalf("Down: %v", err)
	}
	var view *string
	if err := owner.QueryRow(ctx, "SELECT to_regclass('public.pgid_schema_version')::text").Scan(&view); err != nil || view == nil {
		t.Errorf("Down dropped or failed on the other role's view: %v, %v", view, err)
	}
	if _, err := owner.Exec(ctx, "DROP VIEW public.pgid_schema_version; DROP FUNCTION public.trap()"); err != nil {
		t.Fatal(err)
	}
}
