package integration_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/pgserver"
	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// majorBinaries returns the installation directory of PostgreSQL major
// (bin/initdb, bin/postgres) from .ci/pg-binaries, which fetches it once
// into its cache.
func majorBinaries(t *testing.T, major string) string {
	t.Helper()
	out, err := exec.Command("../.ci/pg-binaries", major).Output()
	if err != nil {
		t.Fatalf(".ci/pg-binaries %s: %v", major, err)
	}
	return strings.TrimSpace(string(out))
}

// startMajor starts an embedded server of the binaries in dir, stopped and
// removed when t ends, and connects to its database postgres.
func startMajor(t *testing.T, dir string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := retryShared(ctx, t, func() (*pgserver.Server, error) {
		return pgserver.StartEmbedded(ctx, pgserver.EmbeddedOptions{Binaries: dir, RunAsUser: replicaUser(t)})
	})
	if err != nil {
		t.Fatalf("start PostgreSQL from %s: %v", dir, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("stop %s: %v", s.Description, err)
		}
	})
	return connect(t, s.DSN, pgx.QueryExecModeCacheStatement)
}

// A database that pgid migrated on PostgreSQL 17 and that moved to 18 keeps
// 17's body of pgid.gen_ulid_v7 and its recorded checksum, which is
// today's: ReadStatus says the functions are not current, and Up installs
// the body that returns uuidv7(). The npm binaries hold neither pg_upgrade
// nor pg_dump, so the move is what both leave behind, made by SQL: 17's
// definition of every pgid function (pg_get_functiondef), its version
// table and the state of pgid.objectid_counter, written over a database of
// 18 that Up installed.
func TestUpgradeMajor17To18(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	old := startMajor(t, majorBinaries(t, "17"))
	if err := migrations.Up(ctx, old); err != nil {
		t.Fatal(err)
	}
	if st, err := migrations.ReadStatus(ctx, old); err != nil || !st.FunctionsCurrent {
		t.Fatalf("status on 17 after Up: %+v, %v", st, err)
	}
	var lastOld objectidtype.ObjectID
	if err := old.QueryRow(ctx, "SELECT pgid.gen_objectid()").Scan(&lastOld); err != nil {
		t.Fatal(err)
	}
	// What a dump of 17 holds.
	mustExec(t, old, "SET search_path = pg_catalog, pg_temp")
	rows, err := old.Query(ctx, `SELECT pg_get_functiondef(p.oid) FROM pg_proc p
		WHERE p.pronamespace = 'pgid'::regnamespace AND p.prokind = 'f' ORDER BY p.oid`)
	if err != nil {
		t.Fatal(err)
	}
	defs, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var oldBody string
	var counter int64
	var recorded string
	if err := old.QueryRow(ctx, `SELECT pg_get_function_sqlbody('pgid.gen_ulid_v7()'::regprocedure),
		(SELECT last_value FROM pgid.objectid_counter),
		(SELECT checksum FROM pgid.schema_migrations WHERE name = $1)`, migrations.FunctionsStep).Scan(&oldBody, &counter, &recorded); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(oldBody, "uuidv7") || recorded != migrations.FunctionsChecksum() {
		t.Fatalf("on 17: gen_ulid_v7 body %q, recorded checksum %s (today's %s)", oldBody, recorded, migrations.FunctionsChecksum())
	}

	moved := startMajor(t, majorBinaries(t, "18"))
	if err := migrations.Up(ctx, moved); err != nil {
		t.Fatal(err)
	}
	tx, err := moved.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SET LOCAL search_path = pg_catalog, pg_temp"); err != nil {
		t.Fatal(err)
	}
	for _, def := range defs {
		if _, err := tx.Exec(ctx, def); err != nil {
			t.Fatalf("17's definition on 18: %v\n%s", err, def)
		}
	}
	if _, err := tx.Exec(ctx, "SELECT setval('pgid.objectid_counter', $1)", counter); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	st, err := migrations.ReadStatus(ctx, moved)
	if err != nil || st.FunctionsCurrent || st.Functions != migrations.FunctionsChecksum() || st.Version != migrations.Latest() {
		t.Fatalf("status on 18 with 17's functions: %+v, %v; want the recorded checksum today's and FunctionsCurrent false", st, err)
	}
	if err := migrations.Up(ctx, moved); err != nil {
		t.Fatal(err)
	}
	st, err = migrations.ReadStatus(ctx, moved)
	if err != nil || !st.FunctionsCurrent {
		t.Fatalf("status on 18 after Up: %+v, %v", st, err)
	}
	var body string
	if err := moved.QueryRow(ctx, "SELECT pg_get_function_sqlbody('pgid.gen_ulid_v7()'::regprocedure)").Scan(&body); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(body, "uuidv7()") {
		t.Fatalf("gen_ulid_v7 on 18 after Up: %q, want uuidv7()", body)
	}
	// uuidv7(): strictly increasing within the backend, also within a
	// microsecond.
	rows, err = moved.Query(ctx, `WITH g AS MATERIALIZED (SELECT i, pgid.gen_ulid_v7() AS u FROM generate_series(1, 5000) i)
		SELECT u FROM g ORDER BY i`)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[ulidtype.ULID])
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i].Compare(ids[i-1]) <= 0 || !ids[i].IsV7() {
			t.Fatalf("value %d %s after %s", i, ids[i].UUIDString(), ids[i-1].UUIDString())
		}
	}
	// The copy continues 17's counter, and so its database value:
	// pgid.objectid_reseed() gives it its own.
	var next objectidtype.ObjectID
	var drawn []byte
	if err := moved.QueryRow(ctx, "SELECT pgid.gen_objectid(), pgid.objectid_reseed()").Scan(&next, &drawn); err != nil {
		t.Fatal(err)
	}
	if objectIDTail(next) != objectIDTail(lastOld)+1 || string(drawn) == string(lastOld[4:9]) {
		t.Errorf("on 18: %s after 17's %s; reseed drew %x", next, lastOld, drawn)
	}
	// Nothing more to do on either.
	if err := migrations.Up(ctx, old); err != nil {
		t.Fatal(err)
	}
	if st, err := migrations.ReadStatus(ctx, old); err != nil || !st.FunctionsCurrent {
		t.Errorf("status on 17 after a second Up: %+v, %v", st, err)
	}
}
