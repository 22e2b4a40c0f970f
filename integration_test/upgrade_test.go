package integration_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// shippedSchema is one schema pgid shipped on main while it used tern:
// testdata/history/MANIFEST, made from git history by
// testdata/history/extract.sh.
type shippedSchema struct {
	n      int
	commit string
	grant  bool // its Up granted SELECT on the tern version table to PUBLIC
	files  []shippedFile
}

type shippedFile struct{ name, sql string }

func loadShipped(t *testing.T) []shippedSchema {
	t.Helper()
	dir := filepath.Join("testdata", "history")
	f, err := os.Open(filepath.Join(dir, "MANIFEST"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []shippedSchema
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		switch {
		case len(w) == 4 && w[0] == "schema":
			n, _ := strconv.Atoi(w[1])
			out = append(out, shippedSchema{n: n, commit: w[2], grant: w[3] == "1"})
		case len(w) == 3 && w[0] == "file" && len(out) > 0:
			b, err := os.ReadFile(filepath.Join(dir, "files", w[2]+".sql"))
			if err != nil {
				t.Fatal(err)
			}
			out[len(out)-1].files = append(out[len(out)-1].files, shippedFile{w[1], string(b)})
		case len(w) > 0 && strings.HasPrefix(w[0], "#"):
		default:
			t.Fatalf("MANIFEST: bad line %q", sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 8 {
		t.Fatalf("MANIFEST lists %d schemas, want the 8 pgid shipped with tern", len(out))
	}
	return out
}

// ternUp migrates conn's database to schema s the way that schema's
// migrations.Up did with github.com/jackc/tern/v2: the version table
// public.pgid_schema_version created if missing, then each file not yet
// applied, its forward SQL in a transaction that also runs RESET ALL and
// records the version; schemas from cd54335 on then granted SELECT on the
// version table to PUBLIC.
func ternUp(t *testing.T, conn *pgx.Conn, s shippedSchema) {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `
		create table if not exists public.pgid_schema_version(version int4 not null);
		insert into public.pgid_schema_version(version) select 0
		where 0=(select count(*) from public.pgid_schema_version)`); err != nil {
		t.Fatal(err)
	}
	var v int
	if err := conn.QueryRow(ctx, "select version from public.pgid_schema_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	for i := v; i < len(s.files); i++ {
		up, _, ok := strings.Cut(s.files[i].sql, migrations.Marker)
		if !ok {
			t.Fatalf("schema %d, %s: no marker", s.n, s.files[i].name)
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, up); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "reset all"); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "update public.pgid_schema_version set version=$1", i+1)
			return err
		})
		if err != nil {
			t.Fatalf("schema %d (%s), %s: %v", s.n, s.commit, s.files[i].name, err)
		}
	}
	if s.grant {
		if _, err := conn.Exec(ctx, "GRANT SELECT ON public.pgid_schema_version TO PUBLIC"); err != nil {
			t.Fatal(err)
		}
	}
}

// catalogSnapshot describes every object of schema pgid: the schema (owner,
// ACL, comment), each function (definition, attributes, ACL, comment), each
// domain (base type, NOT NULL, default, constraints, ACL, comment) and each
// relation (kind, columns, ACL). ACLs are compared as they act: a NULL ACL
// (never granted nor revoked) as PostgreSQL's default for the object.
func catalogSnapshot(t *testing.T, conn *pgx.Conn) map[string]string {
	t.Helper()
	ctx := context.Background()
	rows, err := conn.Query(ctx, `
		SELECT 'schema pgid', pg_catalog.concat_ws(E'\n',
		         'owner ' || pg_catalog.pg_get_userbyid(n.nspowner),
		         'acl ' || coalesce(n.nspacl, pg_catalog.acldefault('n', n.nspowner))::text,
		         'comment ' || coalesce(pg_catalog.obj_description(n.oid, 'pg_namespace'), ''))
		FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) 'pgid'
		UNION ALL
		SELECT 'function ' || p.oid::pg_catalog.regprocedure::text, pg_catalog.concat_ws(E'\n',
		         pg_catalog.pg_get_functiondef(p.oid),
		         'volatile ' || p.provolatile::text, 'strict ' || p.proisstrict, 'parallel ' || p.proparallel::text,
		         'secdef ' || p.prosecdef, 'leakproof ' || p.proleakproof, 'cost ' || p.procost,
		         'rows ' || p.prorows, 'config ' || coalesce(p.proconfig::text, ''),
		         'owner ' || pg_catalog.pg_get_userbyid(p.proowner),
		         'acl ' || coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner))::text,
		         'comment ' || coalesce(pg_catalog.obj_description(p.oid, 'pg_proc'), ''))
		FROM pg_catalog.pg_proc p WHERE p.pronamespace OPERATOR(pg_catalog.=) 'pgid'::regnamespace
		UNION ALL
		SELECT 'domain ' || t.oid::pg_catalog.regtype::text, pg_catalog.concat_ws(E'\n',
		         'base ' || pg_catalog.format_type(t.typbasetype, t.typtypmod), 'notnull ' || t.typnotnull,
		         'default ' || coalesce(t.typdefault, ''), 'collation ' || t.typcollation::regcollation::text,
		         'constraints ' || coalesce((SELECT pg_catalog.string_agg(c.conname || ' ' || pg_catalog.pg_get_constraintdef(c.oid), '; ' ORDER BY c.conname)
		                                     FROM pg_catalog.pg_constraint c WHERE c.contypid OPERATOR(pg_catalog.=) t.oid), ''),
		         'owner ' || pg_catalog.pg_get_userbyid(t.typowner),
		         'acl ' || coalesce(t.typacl, pg_catalog.acldefault('T', t.typowner))::text,
		         'comment ' || coalesce(pg_catalog.obj_description(t.oid, 'pg_type'), ''))
		FROM pg_catalog.pg_type t WHERE t.typnamespace OPERATOR(pg_catalog.=) 'pgid'::regnamespace AND t.typtype OPERATOR(pg_catalog.=) 'd'
		UNION ALL
		SELECT 'relation ' || c.oid::pg_catalog.regclass::text, pg_catalog.concat_ws(E'\n',
		         'kind ' || c.relkind::text,
		         'columns ' || (SELECT pg_catalog.string_agg(a.attname || ' ' || pg_catalog.format_type(a.atttypid, a.atttypmod)
		                                  || ' ' || a.attnotnull, ', ' ORDER BY a.attnum)
		                        FROM pg_catalog.pg_attribute a WHERE a.attrelid OPERATOR(pg_catalog.=) c.oid AND a.attnum > 0),
		         'owner ' || pg_catalog.pg_get_userbyid(c.relowner),
		         'acl ' || coalesce(c.relacl, pg_catalog.acldefault('r', c.relowner))::text)
		FROM pg_catalog.pg_class c WHERE c.relnamespace OPERATOR(pg_catalog.=) 'pgid'::regnamespace`)
	if err != nil {
		t.Fatal(err)
	}
	snap := map[string]string{}
	var k, v string
	if _, err := pgx.ForEachRow(rows, []any{&k, &v}, func() error { snap[k] = v; return nil }); err != nil {
		t.Fatal(err)
	}
	return snap
}

// snapshotDiff lists the objects whose description differs between got and
// want, or that only one has.
func snapshotDiff(got, want map[string]string) []string {
	var diffs []string
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			diffs = append(diffs, "missing "+k)
		case g != w:
			diffs = append(diffs, "differs "+k+": "+firstDifference(g, w))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, "extra "+k)
		}
	}
	slices.Sort(diffs)
	return diffs
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d: %q, want %q", i+1, cut(gl, 160), cut(wl, 160))
		}
	}
	return "?"
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// appLoad runs an application role's work on its table until stop is
// closed: inserts with the SQL defaults, conversions checked against the Go
// packages, a range query. It returns the number of rounds and the first
// error.
func appLoad(ctx context.Context, conn *pgx.Conn, rounds *atomic.Int64, stop <-chan struct{}) error {
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		var id ulidtype.ULID
		var oid objectidtype.ObjectID
		var text, hex, short, back string
		err := conn.QueryRow(ctx, `INSERT INTO app.events DEFAULT VALUES
			RETURNING id, o, pgid.ulid_to_text(id), pgid.objectid_to_hex(o), pgid.objectid_to_short(o),
			          pgid.ulid_from_text(pgid.ulid_to_text(id))::text`).Scan(&id, &oid, &text, &hex, &short, &back)
		if err != nil {
			return fmt.Errorf("round %d: insert: %w", rounds.Load(), err)
		}
		if text != id.String() || hex != oid.String() || short != oid.Short() || back != id.UUIDString() {
			return fmt.Errorf("round %d: SQL %s %s %s %s, Go %s %s %s %s", rounds.Load(),
				text, hex, short, back, id, oid, oid.Short(), id.UUIDString())
		}
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM app.events
			WHERE id >= pgid.ulid_min_at(now() - interval '1 hour') AND id < pgid.ulid_max_at(now() + interval '1 hour')`).Scan(&n); err != nil || n == 0 {
			return fmt.Errorf("round %d: range query: %d rows, %v", rounds.Load(), n, err)
		}
		rounds.Add(1)
	}
}

// upgradeWithApp runs migrations.Up on owner while an application role works
// on the database, and fails t if the application saw any error.
func upgradeWithApp(t *testing.T, dsn string, owner *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	role := newRole(t, owner)
	// Schemas before cd54335 granted nothing: the DBA granted USAGE.
	if _, err := owner.Exec(ctx, `
		CREATE SCHEMA app AUTHORIZATION `+role+`;
		GRANT USAGE ON SCHEMA pgid TO `+role); err != nil {
		t.Fatal(err)
	}
	app := connect(t, withUser(dsn, role), pgx.QueryExecModeCacheStatement)
	if _, err := app.Exec(ctx, `CREATE TABLE app.events (
		id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid(),
		o pgid.objectid NOT NULL DEFAULT pgid.gen_objectid())`); err != nil {
		t.Fatal(err)
	}
	var rounds atomic.Int64
	stop := make(chan struct{})
	var appErr error
	var wg sync.WaitGroup
	wg.Go(func() { appErr = appLoad(ctx, app, &rounds, stop) })
	waitRounds := func(n int64) {
		for deadline := time.Now().Add(30 * time.Second); rounds.Load() < n && time.Now().Before(deadline); {
			if appErr != nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitRounds(3)
	before := rounds.Load()
	if err := migrations.Up(ctx, owner); err != nil {
		close(stop)
		wg.Wait()
		t.Fatalf("Up: %v", err)
	}
	waitRounds(rounds.Load() + 3)
	close(stop)
	wg.Wait()
	if appErr != nil {
		t.Fatalf("application role during the upgrade: %v", appErr)
	}
	if after := rounds.Load(); before < 3 || after < before+3 {
		t.Fatalf("application rounds: %d before Up, %d in all; want at least 3 before and 3 after", before, after)
	}
	// The DBA's grant goes again, so that the catalogs compare.
	if _, err := owner.Exec(ctx, "REVOKE USAGE ON SCHEMA pgid FROM "+role); err != nil {
		t.Fatal(err)
	}
}

// From every schema pgid shipped with tern, applied as that schema's code
// applied it, today's Up reaches exactly what a fresh install has: the same
// functions (definition, attributes, ACL, comment), domains (base type,
// constraints, ACL), schema grants and version table, while an application
// role keeps working on the database. Also along main: each schema's Up on
// the database the previous one migrated.
func TestUpgradeFromEveryShippedSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	shipped := loadShipped(t)

	fresh := connect(t, newDB(t, false), pgx.QueryExecModeCacheStatement)
	if err := migrations.Up(ctx, fresh); err != nil {
		t.Fatal(err)
	}
	want := catalogSnapshot(t, fresh)
	if len(want) < 30 {
		t.Fatalf("fresh install: %d objects", len(want))
	}

	type upgrade struct {
		name    string
		schemas []shippedSchema
	}
	var cases []upgrade
	for _, s := range shipped {
		cases = append(cases, upgrade{fmt.Sprintf("schema%d_%s", s.n, s.commit), []shippedSchema{s}})
	}
	cases = append(cases, upgrade{"along_main", shipped})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dsn := newDB(t, false)
			owner := connect(t, dsn, pgx.QueryExecModeCacheStatement)
			for _, s := range c.schemas {
				ternUp(t, owner, s)
			}
			last := c.schemas[len(c.schemas)-1]
			if v, err := migrations.Version(ctx, owner); err != nil || v != len(last.files) {
				t.Fatalf("Version of the tern-era database: %d, %v; want %d", v, err, len(last.files))
			}
			diffs := snapshotDiff(catalogSnapshot(t, owner), want)
			t.Logf("before Up: %d differences from a fresh install", len(diffs))
			for _, d := range diffs {
				t.Logf("  %s", d)
			}
			var ternBefore []byte
			owner.QueryRow(ctx, "SELECT pg_catalog.array_agg(version)::text FROM public.pgid_schema_version").Scan(&ternBefore)

			upgradeWithApp(t, dsn, owner)

			if diffs := snapshotDiff(catalogSnapshot(t, owner), want); len(diffs) > 0 {
				t.Errorf("after Up, %d differences from a fresh install:\n%s", len(diffs), strings.Join(diffs, "\n"))
			}
			st, err := migrations.ReadStatus(ctx, owner)
			if err != nil || st.Version != migrations.Latest() || st.Tern || !st.FunctionsCurrent || len(st.Unknown) > 0 {
				t.Errorf("status after Up: %+v, %v", st, err)
			}
			// Adopted, not re-run: the tern-era versions are recorded with no
			// checksum, the newer ones with theirs; the tern table is as it was.
			rows, err := owner.Query(ctx, "SELECT name, checksum IS NULL FROM pgid.schema_migrations WHERE version IS NOT NULL ORDER BY version")
			if err != nil {
				t.Fatal(err)
			}
			i := 0
			var name string
			var adopted bool
			if _, err := pgx.ForEachRow(rows, []any{&name, &adopted}, func() error {
				i++
				if wantAdopted := i <= len(last.files); adopted != wantAdopted {
					t.Errorf("%s recorded as adopted %v, want %v", name, adopted, wantAdopted)
				}
				return nil
			}); err != nil || i != migrations.Latest() {
				t.Errorf("%d versions recorded, %v; want %d", i, err, migrations.Latest())
			}
			var ternAfter []byte
			owner.QueryRow(ctx, "SELECT pg_catalog.array_agg(version)::text FROM public.pgid_schema_version").Scan(&ternAfter)
			if string(ternAfter) != string(ternBefore) {
				t.Errorf("tern's version table %s before Up, %s after", ternBefore, ternAfter)
			}
			// Up again has nothing to do, and Down leaves nothing behind.
			if err := migrations.Up(ctx, owner); err != nil {
				t.Fatal(err)
			}
			if _, err := owner.Exec(ctx, "DROP SCHEMA app CASCADE"); err != nil {
				t.Fatal(err)
			}
			if err := migrations.Down(ctx, owner); err != nil {
				t.Fatalf("Down: %v", err)
			}
			var left int
			if err := owner.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_namespace WHERE nspname = 'pgid')
				+ (SELECT count(*) FROM pg_class WHERE relname IN ('pgid_schema_version', 'schema_migrations'))`).Scan(&left); err != nil || left != 0 {
				t.Errorf("after Down: %d objects left, %v", left, err)
			}
		})
	}
}

// A tern-era database is adopted by the owner's Up: an application role
// reads its version but gets ErrNotOwner from Up until the owner has run
// it, and nil afterwards.
func TestUpgradeNeedsOwnerOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	shipped := loadShipped(t)
	head := shipped[len(shipped)-1]
	dsn := newDB(t, false)
	owner := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	ternUp(t, owner, head)
	app := connect(t, withUser(dsn, newRole(t, owner)), pgx.QueryExecModeCacheStatement)
	if st, err := migrations.ReadStatus(ctx, app); err != nil || !st.Tern || st.Version != len(head.files) {
		t.Fatalf("status of the tern-era database as the application: %+v, %v", st, err)
	}
	if err := migrations.Up(ctx, app); !errors.Is(err, migrations.ErrNotOwner) {
		t.Fatalf("application's Up before adoption: %v, want ErrNotOwner", err)
	}
	if err := migrations.Up(ctx, owner); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, app); err != nil {
		t.Fatalf("application's Up after adoption: %v", err)
	}
}
