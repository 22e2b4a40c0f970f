package integration_test

// Hot standby tests (issue 30): each starts its own primary and streaming
// hot standby with internal/pgserver (StartEmbedded, StartStandby), from the
// binaries the embedded server would use: $PGID_POSTGRES_BINARIES (CI's
// PostgreSQL 18 run, .ci/pg-matrix) or the PostgreSQL installed here
// (Debian's 15 in .ci/run's first run). They do not use the package's
// shared server.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/internal/pgserver"
	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/ulidtype"
)

// sbPair starts a primary (with primarySettings), runs the migrations on
// its postgres database, and starts a hot standby of it (with
// standbySettings); both are stopped and removed when t ends. It returns
// their DSNs.
func sbPair(t *testing.T, primarySettings, standbySettings []string) (primary, standby string) {
	t.Helper()
	pgtest.ServerDSN(t) // go test caches on the server choice: record it
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	began := time.Now()
	p, err := retryShared(ctx, t, func() (*pgserver.Server, error) {
		return pgserver.StartEmbedded(ctx, pgserver.EmbeddedOptions{Binaries: lrBinaries(t), RunAsUser: replicaUser(t), Settings: primarySettings})
	})
	if err != nil {
		t.Fatalf("start the primary: %v", err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("stop the primary: %v", err)
		}
	})
	conn, err := pgx.Connect(ctx, p.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatalf("migrations on the primary: %v", err)
	}
	s, err := retryShared(ctx, t, func() (*pgserver.Server, error) {
		return pgserver.StartStandby(ctx, p, pgserver.EmbeddedOptions{Binaries: lrBinaries(t), RunAsUser: replicaUser(t), Settings: standbySettings})
	})
	if err != nil {
		t.Fatalf("start the standby: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("stop the standby: %v", err)
		}
	})
	var version string
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version')").Scan(&version); err != nil {
		t.Fatal(err)
	}
	t.Logf("PostgreSQL %s: %s; %s; up in %v", version, p.Description, s.Description, time.Since(began).Round(time.Millisecond))
	return p.DSN, s.DSN
}

// sbConnect connects to dsn, closed when t ends.
func sbConnect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func sbExec(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// sbCatchUp flushes the primary's WAL (a synchronous commit) and waits until
// the standby has replayed it.
func sbCatchUp(t *testing.T, primary, standby *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	tx, err := primary.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var lsn string
	if err := tx.QueryRow(ctx, "SET LOCAL synchronous_commit = local; SELECT pg_current_xact_id()").Scan(new(any)); err != nil {
		// Not every mode runs two statements: do them one by one.
		tx.Rollback(ctx)
		tx, err = primary.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = local"); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "SELECT pg_current_xact_id()"); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&lsn); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var ok bool
		if err := standby.QueryRow(ctx, "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn", lsn).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby did not replay the primary's WAL up to %s in 60 s", lsn)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStandbyTimeWindows: on a hot standby, the time windows by ID bounds
// (ulidtype.Range and Since, objectidtype's, pgid.ulid_min_at and
// pgid.objectid_min_at in SQL) return exactly the primary's rows once the
// standby has replayed them, with a scan of the primary key index.
func TestStandbyTimeWindows(t *testing.T) {
	t.Parallel()
	pdsn, sdsn := sbPair(t, nil, nil)
	p, s := sbConnect(t, pdsn), sbConnect(t, sdsn)
	ctx := context.Background()
	sbExec(t, p, "CREATE TABLE ev (id uuid PRIMARY KEY, at timestamptz NOT NULL)")
	sbExec(t, p, "CREATE TABLE oev (id pgid.objectid PRIMARY KEY, at timestamptz NOT NULL)")
	// 20,000 rows over 20 days, IDs made in Go at their times.
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(30, 1))
	var ats []time.Time
	var uids []ulidtype.ULID
	var oids []objectidtype.ObjectID
	for range 20000 {
		at := base.Add(time.Duration(r.Int64N(int64(20 * 24 * time.Hour)))).Truncate(time.Microsecond)
		ats = append(ats, at)
		g := ulidtype.NewGenerator(func() time.Time { return at }, nil)
		uids = append(uids, g.New())
		oids = append(oids, objectidtype.NewGenerator(func() time.Time { return at }, nil).New())
	}
	if _, err := p.CopyFrom(ctx, pgx.Identifier{"ev"}, []string{"id", "at"}, pgx.CopyFromSlice(len(uids), func(i int) ([]any, error) {
		return []any{uids[i], ats[i]}, nil
	})); err != nil {
		t.Fatal(err)
	}
	if _, err := p.CopyFrom(ctx, pgx.Identifier{"oev"}, []string{"id", "at"}, pgx.CopyFromSlice(len(oids), func(i int) ([]any, error) {
		return []any{oids[i], ats[i]}, nil
	})); err != nil {
		t.Fatal(err)
	}
	sbExec(t, p, "ANALYZE ev")
	sbExec(t, p, "ANALYZE oev")
	sbCatchUp(t, p, s)

	type window struct{ from, to time.Time }
	windows := []window{
		{base.Add(36 * time.Hour), base.Add(37 * time.Hour)},
		{base.Add(5 * 24 * time.Hour), base.Add(5*24*time.Hour + 90*time.Minute)},
		{base.Add(19*24*time.Hour + 20*time.Hour), time.Time{}}, // Since: open at the top
	}
	ids := func(conn *pgx.Conn, sql string, args ...any) []string {
		t.Helper()
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		got, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	plan := func(sql string, args ...any) string {
		t.Helper()
		return strings.Join(ids(s, "EXPLAIN "+sql, args...), "\n")
	}
	for _, w := range windows {
		var want, wantO []string
		for i, at := range ats {
			if !at.Before(w.from.Truncate(time.Millisecond)) && (w.to.IsZero() || at.Before(w.to.Truncate(time.Millisecond))) {
				want = append(want, fmt.Sprintf("%x", uids[i][:]))
			}
			if !at.Before(w.from.Truncate(time.Second)) && (w.to.IsZero() || at.Before(w.to.Truncate(time.Second))) {
				wantO = append(wantO, fmt.Sprintf("%x", oids[i][:]))
			}
		}
		slices.Sort(want)
		slices.Sort(wantO)
		name := w.from.Format(time.DateTime)
		var cases []struct {
			what, sql string
			args      []any
			want      []string
		}
		add := func(what, sql string, want []string, args ...any) {
			cases = append(cases, struct {
				what, sql string
				args      []any
				want      []string
			}{what, sql, args, want})
		}
		if w.to.IsZero() {
			add("ulidtype.Since", "SELECT id::text FROM ev WHERE id >= $1 ORDER BY id", want, ulidtype.Since(w.from))
			add("pgid.ulid_min_at", "SELECT id::text FROM ev WHERE id >= pgid.ulid_min_at($1) ORDER BY id", want, w.from)
			add("objectidtype.Since", "SELECT encode(id, 'hex') FROM oev WHERE id >= $1 ORDER BY id", wantO, objectidtype.Since(w.from))
			add("pgid.objectid_min_at", "SELECT encode(id, 'hex') FROM oev WHERE id >= pgid.objectid_min_at($1) ORDER BY id", wantO, w.from)
		} else {
			lo, hi := ulidtype.Range(w.from, w.to)
			olo, ohi := objectidtype.Range(w.from, w.to)
			add("ulidtype.Range", "SELECT id::text FROM ev WHERE id >= $1 AND id < $2 ORDER BY id", want, lo, hi)
			add("pgid.ulid_min_at", "SELECT id::text FROM ev WHERE id >= pgid.ulid_min_at($1) AND id < pgid.ulid_min_at($2) ORDER BY id", want, w.from, w.to)
			add("objectidtype.Range", "SELECT encode(id, 'hex') FROM oev WHERE id >= $1 AND id < $2 ORDER BY id", wantO, olo, ohi)
			add("pgid.objectid_min_at", "SELECT encode(id, 'hex') FROM oev WHERE id >= pgid.objectid_min_at($1) AND id < pgid.objectid_min_at($2) ORDER BY id", wantO, w.from, w.to)
		}
		for _, c := range cases {
			onStandby, onPrimary := ids(s, c.sql, c.args...), ids(p, c.sql, c.args...)
			if len(c.want) == 0 {
				t.Fatalf("%s %s: no rows expected: a window that tests nothing", name, c.what)
			}
			if !slices.Equal(onStandby, onPrimary) {
				t.Errorf("%s %s: standby %d rows, primary %d rows, not the same", name, c.what, len(onStandby), len(onPrimary))
			}
			if !slices.Equal(hexOf(onStandby), c.want) {
				t.Errorf("%s %s: the standby returned %d rows, want the %d made in the window", name, c.what, len(onStandby), len(c.want))
			}
			pl := plan(c.sql, c.args...)
			if !strings.Contains(pl, "Index Scan using") && !strings.Contains(pl, "Index Only Scan using") && !strings.Contains(pl, "Bitmap Index Scan on") {
				t.Errorf("%s %s: the standby's plan does not scan the primary key index:\n%s", name, c.what, pl)
			}
			scan := pl
			for _, line := range strings.Split(pl, "\n") {
				if strings.Contains(line, "Index") {
					scan = strings.TrimLeft(strings.TrimSpace(line), "-> ")
					break
				}
			}
			t.Logf("%s %s: %d rows on the standby as on the primary; %s", name, c.what, len(onStandby), scan)
		}
	}
}

// TestStandbyFunctions: every pgid SQL function either works on a hot
// standby (nothing in it writes) or is one of those that change the
// database (set up tailing, create or retire partitions), which the
// standby refuses as it refuses any write. A function added to the
// migrations fails this test until it is listed here.
func TestStandbyFunctions(t *testing.T) {
	t.Parallel()
	pdsn, sdsn := sbPair(t, nil, nil)
	p, s := sbConnect(t, pdsn), sbConnect(t, sdsn)
	ctx := context.Background()
	sbExec(t, p, "CREATE TABLE ev (id uuid PRIMARY KEY DEFAULT pgid.gen_ulid_v7(), note text)")
	sbExec(t, p, "SELECT pgid.tail_enable('ev', '2 seconds')")
	sbExec(t, p, "CREATE TABLE pev (id uuid NOT NULL DEFAULT pgid.gen_ulid_v7(), note text) PARTITION BY RANGE (id)")
	sbExec(t, p, "SELECT * FROM pgid.ensure_partitions('pev', '1 day', 2, NULL, 'drop', '2026-03-01')")
	sbExec(t, p, "INSERT INTO ev (note) VALUES ('a')")
	sbCatchUp(t, p, s)
	const u = "'01890a5d-ac96-774b-bcce-b302099a8057'::uuid"
	const o = "'\\x507f1f77bcf86cd799439011'::bytea"
	const ts = "'2026-03-01 12:00:00+00'::timestamptz"
	reads := map[string]string{
		"_crockford_pairs":       "SELECT pgid._crockford_pairs()",
		"_short_alphabet":        "SELECT pgid._short_alphabet()",
		"_tail_applying":         "SELECT pgid._tail_applying()",
		"_tail_subscribed":       "SELECT * FROM pgid._tail_subscribed('ev')",
		"_tail_citus":            "SELECT pgid._tail_citus('ev')",
		"_utc_text":              "SELECT pgid._utc_text(" + ts + ")",
		"_partition_bound":       "SELECT pgid._partition_bound('objectid', " + ts + ")",
		"_partition_key":         "SELECT pgid._partition_key('ulid', pgid._partition_bound('ulid', " + ts + "))",
		"_id_time":               "SELECT pgid._id_time('ulid', " + u + "::text)",
		"_tail_check":            "SELECT c.* FROM pg_trigger t, pgid._tail_check('ev', t.tgfoid, t.tgargs) c WHERE t.tgrelid = 'ev'::regclass AND t.tgname = 'zzz_pgid_tail'",
		"_tail_raise":            "SELECT pgid._tail_raise('ev', t.tgfoid, t.tgargs) FROM pg_trigger t WHERE t.tgrelid = 'ev'::regclass AND t.tgname = 'zzz_pgid_tail'",
		"_typeid_quote_byte":     "SELECT pgid._typeid_quote_byte(65)",
		"default_partition_rows": "SELECT * FROM pgid.default_partition_rows('pev')",
		"expired_partitions":     "SELECT * FROM pgid.expired_partitions('pev', '1 day', " + ts + ")",
		"gen_ulid":               "SELECT pgid.gen_ulid()",
		"gen_ulid_v7":            "SELECT pgid.gen_ulid_v7()",
		"list_partitions":        "SELECT * FROM pgid.list_partitions('pev')",
		"objectid_from_hex":      "SELECT pgid.objectid_from_hex('507f1f77bcf86cd799439011')",
		"objectid_from_short":    "SELECT pgid.objectid_from_short(pgid.objectid_to_short(" + o + "))",
		"objectid_max_at":        "SELECT pgid.objectid_max_at(" + ts + ")",
		"objectid_min_at":        "SELECT pgid.objectid_min_at(" + ts + ")",
		"objectid_time":          "SELECT pgid.objectid_time(" + o + ")",
		"objectid_to_hex":        "SELECT pgid.objectid_to_hex(" + o + ")",
		"objectid_to_short":      "SELECT pgid.objectid_to_short(" + o + ")",
		"partition_key_kind":     "SELECT pgid.partition_key_kind('pev')",
		"partition_lock_key":     "SELECT pgid.partition_lock_key('pev')",
		"partition_name":         "SELECT pgid.partition_name('pev', '1 day', " + ts + ")",
		"partition_range":        "SELECT * FROM pgid.partition_range('1 day', " + ts + ")",
		"partition_span":         "SELECT * FROM pgid.partition_span('retain', '1 day')",
		"partition_width":        "SELECT * FROM pgid.partition_width('1 day')",
		"tail_below":             "SELECT pgid.tail_below('ev', 'ev', " + u + ", true)",
		"tail_config":            "SELECT * FROM pgid.tail_config('ev')",
		"tail_poll":              "SELECT * FROM pgid.tail_poll('ev')",
		"tail_writers":           "SELECT * FROM pgid.tail_writers()",
		"typeid_text":            "SELECT pgid.typeid_text('user', " + u + ")",
		"typeid_uuid":            "SELECT pgid.typeid_uuid(pgid.typeid_text('user', " + u + "), 'user')",
		"ulid_from_text":         "SELECT pgid.ulid_from_text(pgid.ulid_to_text(" + u + "))",
		"ulid_is_v7":             "SELECT pgid.ulid_is_v7(" + u + ")",
		"ulid_max_at":            "SELECT pgid.ulid_max_at(" + ts + ")",
		"ulid_min_at":            "SELECT pgid.ulid_min_at(" + ts + ")",
		"ulid_time":              "SELECT pgid.ulid_time(" + u + ")",
		"ulid_to_text":           "SELECT pgid.ulid_to_text(" + u + ")",
	}
	// These change the database: the standby refuses them.
	writes := map[string]string{
		"ensure_partitions":  "SELECT * FROM pgid.ensure_partitions('pev', '1 day', 2, NULL, 'drop', " + ts + " + interval '10 days')",
		"retire_partition":   "SELECT action, reason FROM pgid.retire_partition('pev', (SELECT partition FROM pgid.list_partitions('pev') WHERE NOT is_default ORDER BY lower LIMIT 1), '1 day', 'drop', " + ts + " + interval '30 days')",
		"tail_enable":        "SELECT pgid.tail_enable('ev', '3 seconds')",
		"tail_disable":       "SELECT pgid.tail_disable('ev')",
		"partition_ddl_lock": "BEGIN; SELECT pgid.partition_ddl_lock('pev'); COMMIT",
		// nextval and setval of pgid.objectid_counter write.
		"gen_objectid":    "SELECT pgid.gen_objectid()",
		"objectid_reseed": "SELECT pgid.objectid_reseed()",
		// These raise their error by design, on the standby as on the primary.
		"_tail_refuse":  "SELECT pgid._tail_refuse('public', 'ev', 'x', " + ts + ", '2', false)",
		"_parse_error":  "SELECT pgid._parse_error('ulid', 'x')",
		"_typeid_error": "SELECT pgid._typeid_error('user_x', 'user')",
	}
	// The steps of ensure_partitions and retire_partition run only inside
	// them (above, refused as writes).
	steps := map[string]bool{"_ensure_create": true, "_ensure_overlap": true, "_ensure_default_free": true,
		"_ensure_retire": true, "_ensure_default": true, "_retire_run": true, "_retire_walk": true,
		"_retire_fk_cond": true, "_retire_verdict": true}
	// Trigger functions are called by INSERTs and UPDATEs only.
	triggers := map[string]bool{"tail_guard_ulid": true, "tail_guard_objectid": true}
	rows, err := s.Query(ctx, "SELECT DISTINCT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'pgid' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		_, r := reads[n]
		_, w := writes[n]
		if !r && !w && !triggers[n] && !steps[n] {
			t.Errorf("pgid.%s is not covered by TestStandbyFunctions: add it to reads or writes", n)
		}
	}
	for n, sql := range reads {
		if _, err := s.Exec(ctx, sql); err != nil {
			t.Errorf("pgid.%s on the standby: %v", n, err)
		}
	}
	for n, sql := range writes {
		_, err := s.Exec(ctx, sql)
		var pe *pgconn.PgError
		switch {
		case strings.HasPrefix(n, "_"):
			if !errors.As(err, &pe) || (pe.Code != "22P02" && pe.Code != "PGI20") {
				t.Errorf("pgid.%s on the standby: %v, want the error it raises by design", n, err)
			}
		case n == "retire_partition" && err == nil:
			// It reports, as a row, that it does nothing on a standby.
			var action, reason *string
			if err := s.QueryRow(ctx, sql).Scan(&action, &reason); err != nil {
				t.Errorf("pgid.%s on the standby: %v", n, err)
			} else {
				t.Logf("pgid.%s on the standby: action %v, reason %v", n, sbDeref(action), sbDeref(reason))
			}
		case errors.As(err, &pe) && (pe.Code == "25006" || pe.Code == "55000" || strings.Contains(pe.Message, "recovery")):
			t.Logf("pgid.%s on the standby: refused (%s %s)", n, pe.Code, pe.Message)
		default:
			t.Errorf("pgid.%s on the standby: %v, want refused as a write (SQLSTATE 25006)", n, err)
		}
		s.Exec(ctx, "ROLLBACK")
	}
	t.Logf("%d functions work on the standby, %d writers refused, %d trigger functions", len(reads), len(writes), len(triggers))
}

// TestStandbyTailRefused: a Tailer whose horizon would come from a standby
// refuses to read, with tail.ErrStandby, and says what to pass instead.
func TestStandbyTailRefused(t *testing.T) {
	t.Parallel()
	pdsn, sdsn := sbPair(t, nil, nil)
	p, s := sbConnect(t, pdsn), sbConnect(t, sdsn)
	ctx := context.Background()
	sbExec(t, p, "CREATE TABLE ev (id uuid PRIMARY KEY DEFAULT pgid.gen_ulid_v7())")
	if err := tail.Enable(ctx, p, "ev", time.Second); err != nil {
		t.Fatal(err)
	}
	sbCatchUp(t, p, s)
	tl, err := tail.New(s, tail.Config[ulidtype.ULID]{Table: "ev"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tl.Next(ctx); !errors.Is(err, tail.ErrStandby) || !strings.Contains(err.Error(), "tail.NewStandby(standby, primary, cfg)") {
		t.Errorf("tail.New(standby).Next: %v, want tail.ErrStandby naming tail.NewStandby", err)
	} else {
		t.Logf("tail.New(standby): %v", err)
	}
	swapped, err := tail.NewStandby(p, s, tail.Config[ulidtype.ULID]{Table: "ev"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := swapped.Next(ctx); !errors.Is(err, tail.ErrStandby) {
		t.Errorf("tail.NewStandby(primary, standby).Next: %v, want tail.ErrStandby", err)
	}
	notStandby, err := tail.NewStandby(p, p, tail.Config[ulidtype.ULID]{Table: "ev"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := notStandby.Next(ctx); !errors.Is(err, tail.ErrConfig) || !strings.Contains(err.Error(), "not in recovery") {
		t.Errorf("tail.NewStandby(primary, primary).Next: %v, want tail.ErrConfig saying it is not in recovery", err)
	}
}

// TestStandbyTailStall: an open transaction whose WAL sits unflushed on the
// primary (asynchronous commit, a partly filled page) does not stall a
// standby Tailer: it forces a flush and delivers the rows committed before.
func TestStandbyTailStall(t *testing.T) {
	t.Parallel()
	pdsn, sdsn := sbPair(t, []string{"synchronous_commit=off"}, nil)
	p, s := sbConnect(t, pdsn), sbConnect(t, sdsn)
	ctx := context.Background()
	sbExec(t, p, "CREATE TABLE ev (id uuid PRIMARY KEY DEFAULT pgid.gen_ulid_v7())")
	sbExec(t, p, "CREATE TABLE other (n int)")
	const lead = time.Second
	if err := tail.Enable(ctx, p, "ev", lead); err != nil {
		t.Fatal(err)
	}
	reader := sbConnect(t, pdsn)
	tl, err := tail.NewStandby(s, reader, tail.Config[ulidtype.ULID]{Table: "ev"})
	if err != nil {
		t.Fatal(err)
	}
	open := sbConnect(t, pdsn)
	// Each round: a row commits; a lead later, another transaction writes
	// WAL (an INSERT into another table) and stays open, the last WAL on
	// the primary, unflushed. The row must come within 3 s (the primary's
	// own flush of such WAL, the running-xacts record the background
	// writer logs, comes every 15 s).
	for round := range 4 {
		var want ulidtype.ULID
		if err := p.QueryRow(ctx, "INSERT INTO ev DEFAULT VALUES RETURNING id").Scan(&want); err != nil {
			t.Fatal(err)
		}
		time.Sleep(lead + 300*time.Millisecond)
		tx, err := open.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO other VALUES (1)"); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		for {
			rows, err := tl.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) > 0 {
				if len(rows) != 1 || rows[0].ID != want {
					t.Fatalf("round %d: delivered %v, want the one row %v", round, rows, want)
				}
				break
			}
			if time.Since(began) > 3*time.Second {
				t.Fatalf("round %d: the row committed before the open transaction was not delivered in 3 s (lag %+v)", round, tl.StandbyLag())
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Logf("round %d: delivered after %v with a transaction open; lag %+v", round, time.Since(began).Round(time.Millisecond), tl.StandbyLag())
		if err := tx.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if tl.StandbyLag().Flushes == 0 {
		t.Error("no flush forced in 4 rounds: the open transactions' WAL did not hold the standby back; the test tests nothing")
	}
}

// sbLoad is the adversarial load of tail_test.go's runTail, on the primary
// of a pair, read on the standby.
type sbLoad struct {
	writers   int
	duration  time.Duration
	longTx    int
	longTxFor time.Duration
	late      int           // transactions that make their ID, wait lateBy, then insert and commit
	lateBy    time.Duration // within the lead
	skew      time.Duration // the skewed writers' clock runs this far behind
	lead      time.Duration
}

// TestStandbyTailAdversarial: a standby Tailer (tail.NewStandby) under the
// adversarial load on the primary, asynchronous commits, skewed clocks,
// long and late transactions, and a standby that applies commits 1 s late,
// delivers every committed row exactly once, in ID order, and nothing
// uncommitted; the plain id > cursor reader on the standby loses rows.
func TestStandbyTailAdversarial(t *testing.T) {
	t.Parallel()
	pdsn, sdsn := sbPair(t, []string{"synchronous_commit=off"}, []string{"recovery_min_apply_delay=1s", "hot_standby_feedback=on"})
	l := sbLoad{writers: 12, duration: 15 * time.Second, longTx: 2, longTxFor: 8 * time.Second,
		late: 2, lateBy: 2500 * time.Millisecond, skew: 2 * time.Second, lead: 3 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	owner := sbConnect(t, pdsn)
	sbExec(t, owner, "CREATE TABLE ev (id uuid PRIMARY KEY DEFAULT pgid.gen_ulid_v7(), writer int NOT NULL, note text)")
	if err := tail.Enable(ctx, owner, "ev", l.lead); err != nil {
		t.Fatal(err)
	}
	sbCatchUp(t, owner, sbConnect(t, sdsn)) // the naive reader below needs the table on the standby
	pool := func(dsn string, n int) *pgxpool.Pool {
		cfg, err := pgxpool.ParseConfig(dsn)
		if err != nil {
			t.Fatal(err)
		}
		cfg.MaxConns = int32(n)
		pl, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pl.Close)
		return pl
	}
	n := l.writers + l.longTx + l.late
	async := pool(pdsn, n)                                            // synchronous_commit=off, the server's setting
	syncPool := pool(pdsn+"&options=-c%20synchronous_commit%3Don", n) // every third writer commits synchronously

	var mu sync.Mutex
	committed := map[ulidtype.ULID]time.Time{}
	kinds := map[string]int{}
	attempts, refused := 0, 0
	skewed := ulidtype.NewGenerator(func() time.Time { return time.Now().Add(-l.skew) }, nil)
	nap := func(r *rand.Rand) { time.Sleep(time.Duration(r.Int64N(int64(200 * time.Millisecond)))) }
	write := func(r *rand.Rand, w int, kind string, hold, late time.Duration) error {
		db := async
		if w%3 == 0 {
			db = syncPool
		}
		byDefault := kind == "plain" && r.IntN(5) == 0
		var id ulidtype.ULID
		switch {
		case byDefault:
		case kind == "skewed":
			id = skewed.New()
		default:
			id = ulidtype.New()
		}
		mu.Lock()
		attempts++
		mu.Unlock()
		if late > 0 {
			time.Sleep(late)
		} else if hold == 0 {
			nap(r)
		}
		tx, err := db.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		if hold == 0 && late == 0 {
			nap(r)
		}
		if byDefault {
			err = tx.QueryRow(ctx, "INSERT INTO ev (writer, note) VALUES ($1, 'default') RETURNING id", w).Scan(&id)
		} else {
			_, err = tx.Exec(ctx, "INSERT INTO ev (id, writer, note) VALUES ($1, $2, $3)", id, w, kind)
		}
		if tail.IsTooOld(err) {
			mu.Lock()
			refused++
			mu.Unlock()
			return nil
		}
		if err != nil {
			return err
		}
		if hold > 0 {
			time.Sleep(hold)
		} else {
			nap(r)
		}
		if kind == "plain" && r.IntN(10) == 0 {
			return tx.Rollback(ctx)
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		mu.Lock()
		committed[id] = time.Now()
		kinds[kind]++
		mu.Unlock()
		return nil
	}
	errs := make(chan error, n+2)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range l.writers {
		kind := "plain"
		if w%4 == 1 {
			kind = "skewed"
		}
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano())))
			for time.Since(start) < l.duration {
				if err := write(r, w, kind, 0, 0); err != nil {
					errs <- fmt.Errorf("writer %d: %w", w, err)
					return
				}
			}
		})
	}
	for i := range l.longTx {
		wg.Go(func() {
			time.Sleep(time.Duration(i+1) * l.duration / time.Duration(2*(l.longTx+1)))
			if err := write(rand.New(rand.NewPCG(1000, uint64(i))), 1000+i, "long", l.longTxFor, 0); err != nil {
				errs <- fmt.Errorf("long transaction %d: %w", i, err)
			}
		})
	}
	for i := range l.late {
		wg.Go(func() {
			time.Sleep(time.Duration(i+1) * l.duration / time.Duration(l.late+1))
			if err := write(rand.New(rand.NewPCG(2000, uint64(i))), 2000+i, "late", 0, l.lateBy); err != nil {
				errs <- fmt.Errorf("late transaction %d: %w", i, err)
			}
		})
	}
	writesDone := make(chan struct{})
	go func() { wg.Wait(); close(writesDone) }()

	primary, standby := sbConnect(t, pdsn), sbConnect(t, sdsn)
	tl, err := tail.NewStandby(standby, primary, tail.Config[ulidtype.ULID]{Table: "ev", Batch: 100})
	if err != nil {
		t.Fatal(err)
	}
	var delivered []ulidtype.ULID
	var lags []time.Duration
	var maxLag tail.StandbyLag
	naive := sbConnect(t, sdsn)
	var naiveGot []ulidtype.ULID
	var cursor ulidtype.ULID
	deadline := time.Now().Add(2 * time.Minute)
	ended := false
	for {
		rows, err := tl.Next(ctx)
		if err != nil {
			t.Fatalf("standby Tailer: %v", err)
		}
		now := time.Now()
		mu.Lock()
		for _, r := range rows {
			delivered = append(delivered, r.ID)
			if c, ok := committed[r.ID]; ok {
				lags = append(lags, now.Sub(c))
			}
		}
		mu.Unlock()
		lag := tl.StandbyLag()
		maxLag.Horizon = max(maxLag.Horizon, lag.Horizon)
		maxLag.WALBytes = max(maxLag.WALBytes, lag.WALBytes)
		maxLag.Waited = max(maxLag.Waited, lag.Waited)
		maxLag.Flushes = lag.Flushes
		nr, err := naive.Query(ctx, "SELECT id FROM ev WHERE id > $1 ORDER BY id LIMIT 100", cursor)
		if err != nil {
			t.Fatal(err)
		}
		got, err := pgx.CollectRows(nr, pgx.RowTo[ulidtype.ULID])
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > 0 {
			cursor = got[len(got)-1]
			naiveGot = append(naiveGot, got...)
		}
		if ended && len(rows) < 100 && !tl.Horizon().IsZero() {
			hi := ulidtype.MinAt(tl.Horizon())
			done := true
			mu.Lock()
			for id := range committed {
				if id.Compare(hi) >= 0 {
					done = false
				}
			}
			mu.Unlock()
			if done {
				break
			}
		}
		select {
		case <-writesDone:
			ended = true
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby Tailer did not catch up within 2 minutes (horizon %v, lag %+v)", tl.Horizon(), tl.StandbyLag())
		}
		time.Sleep(100 * time.Millisecond)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	// Exactly once, in order, nothing uncommitted.
	for i := 1; i < len(delivered); i++ {
		if delivered[i-1].Compare(delivered[i]) >= 0 {
			t.Fatalf("delivered out of order or twice: #%d %v then #%d %v", i-1, delivered[i-1], i, delivered[i])
		}
	}
	seen := map[ulidtype.ULID]bool{}
	for _, id := range delivered {
		seen[id] = true
		if _, ok := committed[id]; !ok {
			t.Errorf("delivered %v, which was never committed", id)
		}
	}
	missed := map[string]int{}
	lost := 0
	for id := range committed {
		if !seen[id] {
			lost++
		}
	}
	naiveSeen := map[ulidtype.ULID]bool{}
	for _, id := range naiveGot {
		naiveSeen[id] = true
	}
	naiveLost := 0
	for id := range committed {
		if !naiveSeen[id] {
			naiveLost++
			missed["naive"]++
		}
	}
	if lost > 0 {
		t.Errorf("the standby Tailer skipped %d of %d committed rows", lost, len(committed))
	}
	if kinds["long"] != l.longTx || kinds["late"] != l.late || kinds["skewed"] == 0 {
		t.Errorf("committed by kind %v: want %d long, %d late and some skewed", kinds, l.longTx, l.late)
	}
	t.Logf("committed %d rows (%v) of %d transactions, %d refused as too old; the standby Tailer delivered %d, exactly once, in order; "+
		"lag commit to delivery p50 %v p99 %v max %v; standby lag at most: horizon %v, %d WAL bytes, waited %v; %d flushes forced on the primary; "+
		"the plain id > cursor reader on the standby lost %d (%.0f %%)",
		len(committed), kinds, attempts, refused, len(delivered),
		sbPercentile(lags, 0.5), sbPercentile(lags, 0.99), sbPercentile(lags, 1), maxLag.Horizon.Round(time.Millisecond), maxLag.WALBytes, maxLag.Waited.Round(time.Millisecond), maxLag.Flushes,
		naiveLost, 100*float64(naiveLost)/float64(len(committed)))
	if naiveLost == 0 {
		t.Errorf("the plain reader lost nothing: the load does not test what it should")
	}
}

func sbDeref(p *string) string {
	if p == nil {
		return "NULL"
	}
	return *p
}

// hexOf is ids (uuid text or hex) as lower-case hex without dashes.
func hexOf(ids []string) []string {
	out := make([]string, len(ids))
	for i, x := range ids {
		out[i] = strings.ToLower(strings.ReplaceAll(x, "-", ""))
	}
	return out
}

func sbPercentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))].Round(time.Millisecond)
}
