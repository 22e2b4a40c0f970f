package partition_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/internal/sqlfunc"
	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/partition"
	"github.com/pgid/pgid/ulidtype"
)

// day returns 2026-11-dd 00:00 UTC plus extra.
func day(dd int, extra time.Duration) time.Time {
	return time.Date(2026, 11, dd, 0, 0, 0, 0, time.UTC).Add(extra)
}

func mustExec(t testing.TB, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	if _, err := conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func ensure(t testing.TB, conn *pgx.Conn, p partition.Plan) partition.Report {
	t.Helper()
	rep, err := partition.Ensure(context.Background(), conn, p)
	if err != nil {
		t.Fatalf("Ensure(%+v): %v", p, err)
	}
	return rep
}

func names(ps []partition.Partition) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Name
	}
	return strings.Join(s, ",")
}

// parseUTC reads "2006-01-02", "2006-01-02 15:04" or "2006-01-02 15:04:05" as UTC.
func parseUTC(s string) time.Time {
	for _, layout := range []string{"2006-01-02", "2006-01-02 15:04", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	panic(s)
}

// The partition arithmetic of functions/05_partitions.sql: ranges in UTC for months,
// ISO weeks, days and shorter widths, at exact edges, over leap days and year
// ends; names; 63-byte names; invalid widths.
func TestPartitionArithmetic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	// A session time zone with DST must change nothing.
	mustExec(t, conn, "SET TimeZone = 'America/New_York'")
	for _, c := range []struct {
		every, at, lower, upper, name string
	}{
		{"1 day", "2026-11-22 13:00Z", "2026-11-22", "2026-11-23", "events_p20261122"},
		{"1 day", "2026-11-22 00:00Z", "2026-11-22", "2026-11-23", "events_p20261122"},
		{"1 day", "2026-11-21 23:59:59.999999Z", "2026-11-21", "2026-11-22", "events_p20261121"},
		{"24 hours", "2026-11-22 13:00Z", "2026-11-22", "2026-11-23", "events_p20261122"},
		{"1 day", "2024-02-29 12:00Z", "2024-02-29", "2024-03-01", "events_p20240229"},
		{"1 day", "2026-03-08 07:30Z", "2026-03-08", "2026-03-09", "events_p20260308"}, // US DST starts
		{"1 week", "2026-11-22 23:59Z", "2026-11-16", "2026-11-23", "events_p2026w47"}, // a Sunday
		{"1 week", "2026-11-23 00:00Z", "2026-11-23", "2026-11-30", "events_p2026w48"}, // a Monday
		{"7 days", "2026-11-23 00:00Z", "2026-11-23", "2026-11-30", "events_p2026w48"},
		{"1 week", "2027-01-01 00:00Z", "2026-12-28", "2027-01-04", "events_p2026w53"}, // ISO year 2026 has 53 weeks
		{"1 week", "2025-12-31 00:00Z", "2025-12-29", "2026-01-05", "events_p2026w01"},
		{"2 weeks", "2026-11-23 00:00Z", "2026-11-23", "2026-12-07", "events_p2026w48"}, // fortnights from Monday 1970-01-05
		{"1 month", "2026-11-30 23:59:59Z", "2026-11-01", "2026-12-01", "events_p202611"},
		{"1 month", "2026-12-31 23:59:59Z", "2026-12-01", "2027-01-01", "events_p202612"},
		{"1 month", "2024-02-29 23:59:59.999Z", "2024-02-01", "2024-03-01", "events_p202402"},
		{"1 month", "2023-02-28 23:59:59.999Z", "2023-02-01", "2023-03-01", "events_p202302"},
		{"1 mon", "2024-03-01 00:00Z", "2024-03-01", "2024-04-01", "events_p202403"},
		{"3 months", "2026-11-22Z", "2026-10-01", "2027-01-01", "events_p202610"},
		{"1 year", "2026-11-22Z", "2026-01-01", "2027-01-01", "events_p202601"},
		{"6 hours", "2026-11-22 13:00Z", "2026-11-22 12:00", "2026-11-22 18:00", "events_p20261122t1200"},
		{"6 hours", "2026-11-22 18:00Z", "2026-11-22 18:00", "2026-11-23 00:00", "events_p20261122t1800"},
		{"1 hour", "2026-03-29 01:30Z", "2026-03-29 01:00", "2026-03-29 02:00", "events_p20260329t0100"}, // EU DST starts
		{"90 seconds", "1970-01-01 00:01:31Z", "1970-01-01 00:01:30", "1970-01-01 00:03:00", "events_p19700101t000130"},
	} {
		var lower, upper time.Time
		var name string
		err := conn.QueryRow(ctx, `SELECT r.lower, r.upper, pgid.partition_name('events', $1::interval, r.lower)
			FROM pgid.partition_range($1::interval, $2::timestamptz) r`, c.every, c.at).Scan(&lower, &upper, &name)
		if err != nil {
			t.Fatalf("%s at %s: %v", c.every, c.at, err)
		}
		wl, wu := parseUTC(c.lower), parseUTC(c.upper)
		if !lower.Equal(wl) || !upper.Equal(wu) || name != c.name {
			t.Errorf("%s at %s: [%s, %s) %s; want [%s, %s) %s", c.every, c.at,
				lower.UTC().Format(time.RFC3339), upper.UTC().Format(time.RFC3339), name, wl.Format(time.RFC3339), wu.Format(time.RFC3339), c.name)
		}
	}

	// Long names: 63 bytes at most, deterministic, distinct for parents
	// that share a prefix, cut on a character boundary.
	// 62 bytes: a valid table name, whose partition names need cutting.
	long1 := strings.Repeat("a", 58) + "_one"
	long2 := strings.Repeat("a", 58) + "_two"
	multi := strings.Repeat("é", 31) // 62 bytes
	var n1, n1again, n2, nm string
	q := "SELECT pgid.partition_name($1, '1 day', '2026-11-22Z')"
	for _, x := range []struct {
		in  string
		out *string
	}{{long1, &n1}, {long1, &n1again}, {long2, &n2}, {multi, &nm}} {
		if err := conn.QueryRow(ctx, q, x.in).Scan(x.out); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{n1, n2, nm} {
		if len(n) > 63 || !strings.HasSuffix(n, "_p20261122") {
			t.Errorf("long name %q: %d bytes", n, len(n))
		}
	}
	if n1 != n1again || n1 == n2 {
		t.Errorf("long names: %q, %q, %q", n1, n1again, n2)
	}
	if !strings.HasPrefix(nm, "ééé") || !strings.Contains(nm, "_p2026") || strings.ContainsRune(nm, '\uFFFD') {
		t.Errorf("multibyte long name %q", nm)
	}
	// A real table with that name.
	mustExec(t, conn, fmt.Sprintf(`CREATE TABLE %s (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id)`, pgx.Identifier{long1}.Sanitize()))
	rep := ensure(t, conn, partition.Plan{Parent: pgx.Identifier{long1}.Sanitize(), Every: partition.Day, Now: day(22, 0)})
	if len(rep.Created) != 1 || rep.Created[0].Name != "public."+n1 {
		t.Errorf("long parent: created %s, want public.%s", names(rep.Created), n1)
	}

	for _, bad := range []string{"1 month 1 day", "0", "-1 day", "1.5 seconds", "1 day -1 month"} {
		_, err := conn.Exec(ctx, "SELECT pgid.partition_range($1::interval, now())", bad)
		if pgtest.SQLState(err) != "PGI06" {
			t.Errorf("width %q: %v, want SQLSTATE PGI06", bad, err)
		}
	}
}

// The partition functions (every function functions/05_partitions.sql
// defines, internal steps and helpers included, read from the file as the
// SQL generator reads it) exist with the volatility the file declares, are
// SECURITY INVOKER and documented; the plpgsql ones pin their search_path
// and, through the DO block whose list go generate ./migrations writes, the
// settings their text depends on; the SQL ones pin nothing (PostgreSQL
// inlines them).
func TestPartitionFunctionAttributes(t *testing.T) {
	t.Parallel()
	src, err := fs.ReadFile(migrations.FS, "functions/05_partitions.sql")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]sqlfunc.Func{}
	names := []string{}
	for _, f := range sqlfunc.Parse(src) {
		want[f.Name] = f
		names = append(names, f.Name)
	}
	if len(want) < 20 {
		t.Fatalf("functions/05_partitions.sql defines %d functions: %v", len(want), names)
	}
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	rows, err := conn.Query(context.Background(), `
		SELECT p.proname, p.provolatile::text, p.prosecdef, l.lanname,
		       coalesce(array_to_string(p.proconfig, ','), ''), coalesce(obj_description(p.oid, 'pg_proc'), '')
		FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
		WHERE p.pronamespace = 'pgid'::regnamespace AND p.proname = ANY($1) ORDER BY 1`, names)
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		Name, Volatile string
		SecDef         bool
		Lang, Config   string
		Comment        string
	}
	fns, err := pgx.CollectRows(rows, pgx.RowToStructByPos[fn])
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) != len(want) {
		t.Fatalf("%d partition functions, want %d: %+v", len(fns), len(want), fns)
	}
	pinned := []string{"search_path=pg_catalog, pg_temp", "standard_conforming_strings=on", "DateStyle=ISO, YMD",
		"IntervalStyle=postgres", "TimeZone=UTC", "bytea_output=hex"}
	for _, f := range fns {
		w := want[f.Name]
		if f.SecDef {
			t.Errorf("%s: SECURITY DEFINER", f.Name)
		}
		if f.Comment == "" {
			t.Errorf("%s: no COMMENT", f.Name)
		}
		if f.Volatile != w.Volatility || f.Lang != w.Language {
			t.Errorf("%s: %s, volatility %s; the file declares %s, %s", f.Name, f.Lang, f.Volatile, w.Language, w.Volatility)
		}
		switch f.Lang {
		case "plpgsql":
			for _, p := range pinned {
				if !strings.Contains(f.Config, p) {
					t.Errorf("%s: config %q, want %s", f.Name, f.Config, p)
				}
			}
		default:
			if f.Config != "" {
				t.Errorf("%s: %s function with config %q: PostgreSQL does not inline it", f.Name, f.Lang, f.Config)
			}
		}
	}
}

// placement checks that every row of parent is in the partition whose time
// range holds its ID's time, and returns the row count.
func placement(t *testing.T, conn *pgx.Conn, parent string, kind partition.Kind) int {
	t.Helper()
	ctx := context.Background()
	parts, err := partition.List(ctx, conn, parent)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, "SELECT tableoid::regclass::text, id FROM "+parent)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var part string
		var ts time.Time
		var id string
		if kind == partition.KindULID {
			var u ulidtype.ULID
			if err := rows.Scan(&part, &u); err != nil {
				t.Fatal(err)
			}
			ts, id = u.Timestamp(), u.String()
		} else {
			var o objectidtype.ObjectID
			if err := rows.Scan(&part, &o); err != nil {
				t.Fatal(err)
			}
			ts, id = o.Timestamp(), o.String()
		}
		want := "(none)"
		for _, p := range parts {
			if !p.Default && !ts.Before(p.Lower) && ts.Before(p.Upper) {
				want = p.Name
			}
		}
		if "public."+part != want && part != want {
			t.Errorf("%s made at %s is in %s, want %s", id, ts.Format(time.RFC3339Nano), part, want)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}

// IDs from New, Fill, a generator with a historical clock (at exact
// partition edges) and DEFAULT pgid.gen_*() land in the partition of their
// time; PRIMARY KEY (id) holds across partitions; a foreign key to the
// parent works.
func TestPartitionPlacement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, `
		CREATE TABLE ev_u (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid(), v int) PARTITION BY RANGE (id);
		CREATE TABLE ev_o (id pgid.objectid PRIMARY KEY DEFAULT pgid.gen_objectid(), v int) PARTITION BY RANGE (id);
		CREATE TABLE ref_u (k int PRIMARY KEY, ev pgid.ulid NOT NULL REFERENCES ev_u (id));
		CREATE TABLE ref_o (k int PRIMARY KEY, ev pgid.objectid NOT NULL REFERENCES ev_o (id))`)

	// Historical partitions for the backfill (20 to 24 November, daily),
	// and today's and tomorrow's for New, Fill and the defaults.
	for _, parent := range []string{"ev_u", "ev_o"} {
		rep := ensure(t, conn, partition.Plan{Parent: parent, Every: partition.Day, Ahead: 4, Now: day(20, 0)})
		if len(rep.Created) != 5 {
			t.Fatalf("%s: created %s", parent, names(rep.Created))
		}
		ensure(t, conn, partition.Plan{Parent: parent, Every: partition.Day, Ahead: 1})
	}

	// Backfill with a historical clock: the last and first instants of
	// each day, and noon.
	var clockTimes []time.Time
	for d := 20; d <= 24; d++ {
		clockTimes = append(clockTimes, day(d, 0), day(d, 12*time.Hour), day(d+1, -time.Second), day(d+1, -time.Millisecond))
	}
	i := 0
	clock := func() time.Time { return clockTimes[i] }
	ug := ulidtype.NewGenerator(clock, nil)
	og := objectidtype.NewGenerator(clock, nil)
	for i = range clockTimes {
		mustExec(t, conn, "INSERT INTO ev_u (id, v) VALUES ($1, 1)", ug.New())
		mustExec(t, conn, "INSERT INTO ev_o (id, v) VALUES ($1, 1)", og.New())
	}
	// New, Fill, DEFAULT.
	us := make([]ulidtype.ULID, 100)
	ulidtype.Fill(us)
	os := make([]objectidtype.ObjectID, 100)
	objectidtype.Fill(os)
	mustExec(t, conn, "INSERT INTO ev_u (id, v) SELECT unnest($1::uuid[]), 2", us)
	mustExec(t, conn, "INSERT INTO ev_o (id, v) SELECT unnest($1::bytea[]), 2", os)
	mustExec(t, conn, "INSERT INTO ev_u (id, v) VALUES ($1, 3)", ulidtype.New())
	mustExec(t, conn, "INSERT INTO ev_o (id, v) VALUES ($1, 3)", objectidtype.New())
	mustExec(t, conn, "INSERT INTO ev_u (v) SELECT 4 FROM generate_series(1, 100)")
	mustExec(t, conn, "INSERT INTO ev_o (v) SELECT 4 FROM generate_series(1, 100)")

	want := len(clockTimes) + 100 + 1 + 100
	if n := placement(t, conn, "ev_u", partition.KindULID); n != want {
		t.Errorf("ev_u: %d rows, want %d", n, want)
	}
	if n := placement(t, conn, "ev_o", partition.KindObjectID); n != want {
		t.Errorf("ev_o: %d rows, want %d", n, want)
	}
	// The edges by name: the last millisecond (ULID) / second (ObjectId)
	// of the 20th is in _p20261120, the first of the 21st in _p20261121.
	for _, c := range []struct {
		table string
		from  any // the first row at or after this ID was made at an edge
		want  string
	}{
		{"ev_u", ulidtype.MinAt(day(21, -time.Millisecond)), "ev_u_p20261120"},
		{"ev_u", ulidtype.MinAt(day(21, 0)), "ev_u_p20261121"},
		{"ev_o", objectidtype.MinAt(day(21, -time.Second)), "ev_o_p20261120"},
		{"ev_o", objectidtype.MinAt(day(21, 0)), "ev_o_p20261121"},
	} {
		var got string
		sql := "SELECT tableoid::regclass::text FROM " + c.table + " WHERE id >= $1 ORDER BY id LIMIT 1"
		if err := conn.QueryRow(ctx, sql, c.from).Scan(&got); err != nil || got != c.want {
			t.Errorf("%s (%v): %s, %v; want %s", sql, c.from, got, err, c.want)
		}
	}

	// PRIMARY KEY (id) across partitions.
	dup := us[0]
	if _, err := conn.Exec(ctx, "INSERT INTO ev_u (id, v) VALUES ($1, 9)", dup); pgtest.SQLState(err) != "23505" {
		t.Errorf("duplicate ULID: %v, want 23505", err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO ev_o (id, v) VALUES ($1, 9)", os[0]); pgtest.SQLState(err) != "23505" {
		t.Errorf("duplicate ObjectID: %v, want 23505", err)
	}
	// A foreign key to the partitioned parent.
	mustExec(t, conn, "INSERT INTO ref_u VALUES (1, $1)", us[1])
	mustExec(t, conn, "INSERT INTO ref_o VALUES (1, $1)", os[1])
	if _, err := conn.Exec(ctx, "INSERT INTO ref_u VALUES (2, $1)", ulidtype.New()); pgtest.SQLState(err) != "23503" {
		t.Errorf("dangling ULID reference: %v, want 23503", err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO ref_o VALUES (2, $1)", objectidtype.New()); pgtest.SQLState(err) != "23503" {
		t.Errorf("dangling ObjectID reference: %v, want 23503", err)
	}
	if _, err := conn.Exec(ctx, "DELETE FROM ev_u WHERE id = $1", us[1]); pgtest.SQLState(err) != "23503" {
		t.Errorf("deleting a referenced row: %v, want 23503", err)
	}
}

// explainRaw returns the plan lines of sql, an EXPLAIN statement.
func explainRaw(t *testing.T, conn *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	rows, err := conn.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// A Range query scans only the partitions of its window: with constants
// (plan-time pruning) and with a generic plan (run-time pruning, "Subplans
// Removed").
func TestPartitionPruning(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeSimpleProtocol)
	mustExec(t, conn, `
		CREATE TABLE pr_u (id pgid.ulid PRIMARY KEY, v int) PARTITION BY RANGE (id);
		CREATE TABLE pr_o (id pgid.objectid PRIMARY KEY, v int) PARTITION BY RANGE (id)`)
	for _, parent := range []string{"pr_u", "pr_o"} {
		ensure(t, conn, partition.Plan{Parent: parent, Every: partition.Day, Ahead: 6, Now: day(16, 0)})
	}
	mustExec(t, conn, `
		INSERT INTO pr_u SELECT pgid.ulid_min_at(t) , 1 FROM generate_series(timestamptz '2026-11-16Z', '2026-11-22 23:00Z', '1 hour') t;
		INSERT INTO pr_o SELECT pgid.objectid_min_at(t), 1 FROM generate_series(timestamptz '2026-11-16Z', '2026-11-22 23:00Z', '1 hour') t;
		ANALYZE pr_u; ANALYZE pr_o`)

	scanned := func(plan, parent string) []string {
		var out []string
		for _, line := range strings.Split(plan, "\n") {
			if i := strings.Index(line, " on "+parent+"_p"); i >= 0 {
				name := strings.Fields(line[i+4:])[0]
				if !strings.HasSuffix(name, "_pkey") && (len(out) == 0 || out[len(out)-1] != name) {
					out = append(out, name)
				}
			}
		}
		return out
	}
	// One hour on the 19th: one partition. 23:30 on the 19th to 00:30 on
	// the 20th: two.
	for _, c := range []struct {
		parent, lo, hi string
		want           []string
	}{
		{"pr_u", "2026-11-19 10:00Z", "2026-11-19 11:00Z", []string{"pr_u_p20261119"}},
		{"pr_u", "2026-11-19 23:30Z", "2026-11-20 00:30Z", []string{"pr_u_p20261119", "pr_u_p20261120"}},
		{"pr_o", "2026-11-19 10:00Z", "2026-11-19 11:00Z", []string{"pr_o_p20261119"}},
		{"pr_o", "2026-11-19 23:30Z", "2026-11-20 00:30Z", []string{"pr_o_p20261119", "pr_o_p20261120"}},
	} {
		fn := map[string]string{"pr_u": "pgid.ulid_min_at", "pr_o": "pgid.objectid_min_at"}[c.parent]
		lo, _ := time.Parse("2006-01-02 15:04Z", c.lo)
		hi, _ := time.Parse("2006-01-02 15:04Z", c.hi)
		var loID, hiID any
		if c.parent == "pr_u" {
			loID, hiID = ulidtype.Range(lo, hi)
		} else {
			loID, hiID = objectidtype.Range(lo, hi)
		}

		// Constants, from Go bounds (simple protocol inlines them).
		plan := explainRaw(t, conn, "EXPLAIN (COSTS OFF) SELECT count(*) FROM "+c.parent+" WHERE id >= $1 AND id < $2", loID, hiID)
		if got := scanned(plan, c.parent); strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("constants %s [%s, %s): scans %v, want %v\n%s", c.parent, c.lo, c.hi, got, c.want, plan)
		}
		t.Logf("constants, %s [%s, %s):\n%s", c.parent, c.lo, c.hi, plan)

		// Constants through the SQL bound functions (folded at plan time).
		plan = explainRaw(t, conn, fmt.Sprintf("EXPLAIN (COSTS OFF) SELECT count(*) FROM %s WHERE id >= %s('%s') AND id < %s('%s')",
			c.parent, fn, c.lo, fn, c.hi))
		if got := scanned(plan, c.parent); strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("SQL bounds %s: scans %v, want %v\n%s", c.parent, got, c.want, plan)
		}

		// A generic plan: pruning at executor start-up.
		typ := map[string]string{"pr_u": "uuid", "pr_o": "bytea"}[c.parent]
		mustExec(t, conn, "SET plan_cache_mode = force_generic_plan")
		mustExec(t, conn, "DEALLOCATE ALL")
		mustExec(t, conn, fmt.Sprintf("PREPARE q(%s, %s) AS SELECT count(*) FROM %s WHERE id >= $1 AND id < $2", typ, typ, c.parent))
		mustExec(t, conn, fmt.Sprintf("PREPARE qt(timestamptz, timestamptz) AS SELECT count(*) FROM %s WHERE id >= %s($1) AND id < %s($2)", c.parent, fn, fn))
		for _, exec := range []string{
			fmt.Sprintf("EXECUTE q(%s, %s)", idLiteral(loID), idLiteral(hiID)),
			fmt.Sprintf("EXECUTE qt('%s', '%s')", c.lo, c.hi),
		} {
			plan = explainRaw(t, conn, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) "+exec)
			removed := fmt.Sprintf("Subplans Removed: %d", 7-len(c.want))
			if !strings.Contains(plan, removed) {
				t.Errorf("generic %s %s: no %q\n%s", c.parent, exec, removed, plan)
			}
			if got := scanned(plan, c.parent); strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("generic %s %s: scans %v, want %v\n%s", c.parent, exec, got, c.want, plan)
			}
			t.Logf("generic plan, %s:\n%s", exec, plan)
		}
		mustExec(t, conn, "RESET plan_cache_mode")
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+c.parent+" WHERE id >= $1 AND id < $2", loID, hiID).Scan(&n); err != nil || n != 1 {
			t.Errorf("rows in the window: %d, %v; want 1", n, err)
		}
	}
}

// idLiteral writes a ULID or ObjectID as an SQL literal.
func idLiteral(id any) string {
	switch v := id.(type) {
	case ulidtype.ULID:
		return "'" + v.UUIDString() + "'"
	case objectidtype.ObjectID:
		return `'\x` + v.String() + `'`
	}
	panic(id)
}

// Retention retires a partition only when its whole range is older than the
// cut, with rows at the exact edges; drop, detach and the concurrent forms.
func TestPartitionRetention(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	retain := partition.Span{Duration: 2 * 24 * time.Hour}
	for _, c := range []struct {
		kind   partition.Kind
		typ    string
		last   any // the last ID of the 20th
		first  any // the first ID of the 21st
		unit   time.Duration
		retire partition.Retire
	}{
		{partition.KindULID, "pgid.ulid", ulidtype.MaxAt(day(21, -time.Millisecond)), ulidtype.MinAt(day(21, 0)), time.Millisecond, partition.Drop},
		{partition.KindObjectID, "pgid.objectid", objectidtype.MaxAt(day(21, -time.Second)), objectidtype.MinAt(day(21, 0)), time.Second, partition.Drop},
		{partition.KindULID, "pgid.ulid", ulidtype.MaxAt(day(21, -time.Millisecond)), ulidtype.MinAt(day(21, 0)), time.Millisecond, partition.Detach},
		{partition.KindULID, "pgid.ulid", ulidtype.MaxAt(day(21, -time.Millisecond)), ulidtype.MinAt(day(21, 0)), time.Millisecond, partition.DetachConcurrently},
		{partition.KindObjectID, "pgid.objectid", objectidtype.MaxAt(day(21, -time.Second)), objectidtype.MinAt(day(21, 0)), time.Second, partition.DetachConcurrentlyThenDrop},
	} {
		name := fmt.Sprintf("%s_%s", c.kind, strings.ReplaceAll(c.retire.String(), "-", "_"))
		t.Run(name, func(t *testing.T) {
			parent := "ret_" + name
			mustExec(t, conn, fmt.Sprintf("CREATE TABLE %s (id %s PRIMARY KEY) PARTITION BY RANGE (id)", parent, c.typ))
			ensure(t, conn, partition.Plan{Parent: parent, Every: partition.Day, Ahead: 3, Now: day(19, 0)})
			mustExec(t, conn, "INSERT INTO "+parent+" VALUES ($1), ($2)", c.last, c.first)

			// At the 23rd - one unit the cut is the 21st - one unit: the
			// 20th's partition [20th, 21st) may hold IDs of its last unit,
			// which are not older than the cut, so it stays (and it does
			// hold one); the 19th's goes.
			plan := partition.Plan{Parent: parent, Kind: c.kind, Every: partition.Day, Ahead: 0,
				Retain: retain, Retire: c.retire, Now: day(23, -c.unit)}
			rep := ensure(t, conn, plan)
			gone := rep.Detached
			if c.retire != partition.Detach && c.retire != partition.DetachConcurrently {
				gone = rep.Dropped
			}
			if len(gone) != 1 || !strings.HasSuffix(gone[0].Name, "_p20261119") {
				t.Fatalf("at cut 21st - %s: dropped %s, detached %s; want only the 19th", c.unit, names(rep.Dropped), names(rep.Detached))
			}
			var n int
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+parent).Scan(&n); err != nil || n != 2 {
				t.Fatalf("rows after the first retention: %d, %v", n, err)
			}
			// At exactly 21st + 2 days the 20th goes, with its last ID; the
			// 21st's first ID stays.
			plan.Now = day(23, 0)
			rep = ensure(t, conn, plan)
			gone = rep.Detached
			if c.retire != partition.Detach && c.retire != partition.DetachConcurrently {
				gone = rep.Dropped
			}
			if len(gone) != 1 || !strings.HasSuffix(gone[0].Name, "_p20261120") {
				t.Fatalf("at cut 21st: dropped %s, detached %s; want the 20th", names(rep.Dropped), names(rep.Detached))
			}
			if gone[0].Lower != day(20, 0) || gone[0].Upper != day(21, 0) {
				t.Errorf("retired range [%s, %s)", gone[0].Lower, gone[0].Upper)
			}
			var first bool
			if err := conn.QueryRow(ctx, "SELECT count(*), bool_and(id = $1) FROM "+parent, c.first).Scan(&n, &first); err != nil || n != 1 || !first {
				t.Fatalf("rows after the second retention: %d (first ID kept: %v), %v", n, first, err)
			}
			// What happened to the tables.
			var exists, attached bool
			err := conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL,
				EXISTS (SELECT FROM pg_inherits WHERE inhrelid = to_regclass($1))`, parent+"_p20261120").Scan(&exists, &attached)
			if err != nil {
				t.Fatal(err)
			}
			keep := c.retire == partition.Detach || c.retire == partition.DetachConcurrently
			if exists != keep || attached {
				t.Errorf("%s: table exists %v (want %v), attached %v", c.retire, exists, keep, attached)
			}
			if keep {
				if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+parent+"_p20261120").Scan(&n); err != nil || n != 1 {
					t.Errorf("detached table: %d rows, %v; want the 20th's last ID", n, err)
				}
			}
			// Idempotent: nothing more to do.
			if rep := ensure(t, conn, plan); !rep.Empty() {
				t.Errorf("third run did something: %+v", rep)
			}
			// No advisory lock left behind.
			var locks int
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()").Scan(&locks); err != nil || locks != 0 {
				t.Errorf("advisory locks held after Ensure: %d, %v", locks, err)
			}
		})
	}
}

// Partitions made by hand count by their bounds: one with ensure_partitions's
// bounds is not made again, and one FROM (MINVALUE) is retired once its upper
// bound is older than the cut.
func TestPartitionHandMade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, `CREATE TABLE hm (id pgid.objectid PRIMARY KEY) PARTITION BY RANGE (id);
		CREATE TABLE hm_old PARTITION OF hm FOR VALUES FROM (MINVALUE) TO (pgid.objectid_min_at('2026-11-20Z'));
		CREATE TABLE hm_mine PARTITION OF hm FOR VALUES FROM (pgid.objectid_min_at('2026-11-20Z')) TO (pgid.objectid_min_at('2026-11-21Z'))`)
	mustExec(t, conn, "INSERT INTO hm VALUES ($1), ($2)", objectidtype.MinAt(day(1, 0)), objectidtype.MinAt(day(20, time.Hour)))
	rep := ensure(t, conn, partition.Plan{Parent: "hm", Every: partition.Day, Ahead: 1, Now: day(20, 0)})
	if names(rep.Created) != "public.hm_p20261121" {
		t.Errorf("created %s, want only public.hm_p20261121", names(rep.Created))
	}
	parts, err := partition.List(ctx, conn, "hm")
	if err != nil || len(parts) != 3 || !parts[0].Lower.IsZero() || parts[0].Upper != day(20, 0) || parts[0].From != "" {
		t.Fatalf("List: %+v, %v", parts, err)
	}
	rep = ensure(t, conn, partition.Plan{Parent: "hm", Every: partition.Day, Ahead: 0, Now: day(21, 0), Retain: partition.Day})
	if names(rep.Dropped) != "public.hm_old" || !rep.Dropped[0].Lower.IsZero() || rep.Dropped[0].Upper != day(20, 0) {
		t.Errorf("dropped %+v, want public.hm_old [MINVALUE, the 20th)", rep.Dropped)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM hm").Scan(&n); err != nil || n != 1 {
		t.Errorf("rows left: %d, %v; want the 20th's", n, err)
	}
}

// Concurrent Ensure calls from many connections make each partition once,
// without errors.
func TestPartitionConcurrentEnsure(t *testing.T) {
	t.Parallel()
	pgtest.Conns(t, 10) // the workers' and the setup's
	dsn := pgtest.DB(t)
	setup := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, setup, "CREATE TABLE cc (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id)")
	const workers = 8
	conns := make([]*pgx.Conn, workers)
	for i := range conns {
		conns[i] = pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	}
	for round, retire := range []partition.Retire{partition.Drop, partition.DetachConcurrentlyThenDrop} {
		var wg sync.WaitGroup
		reps := make([]partition.Report, workers)
		errs := make([]error, workers)
		start := make(chan struct{})
		for i := range conns {
			wg.Go(func() {
				<-start
				reps[i], errs[i] = partition.Ensure(context.Background(), conns[i], partition.Plan{
					Parent: "cc", Every: partition.Hour, Ahead: 23, Now: day(20+round, 0),
					Retain: partition.Span{Duration: 12 * time.Hour}, Retire: retire})
			})
		}
		close(start)
		wg.Wait()
		created, retired := 0, map[string]int{}
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, Ensure #%d: %v", round, i, err)
			}
			created += len(reps[i].Created)
			for _, p := range reps[i].Dropped {
				retired[p.Name]++
			}
		}
		if created != 24 {
			t.Errorf("round %d: %d partitions created in all, want 24", round, created)
		}
		for name, n := range retired {
			if n != 1 {
				t.Errorf("round %d: %s dropped %d times", round, name, n)
			}
		}
		if round == 1 && len(retired) != 12 {
			t.Errorf("round 1: dropped %d partitions, want 12 (the 20th before 12:00)", len(retired))
		}
	}
	parts, err := partition.List(context.Background(), setup, "cc")
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 36 || parts[0].Lower != day(20, 12*time.Hour) || parts[35].Upper != day(22, 0) {
		t.Errorf("%d partitions from %s to %s; want 36 from the 20th 12:00 to the 22nd", len(parts), parts[0].Lower, parts[len(parts)-1].Upper)
	}
}

// Every error: not partitioned, not by RANGE on one column, a key that is
// not an ID, the wrong kind, no such table, rows in the DEFAULT partition
// (and the documented way out), an overlap, an invalid plan; the SQL
// function raises the same SQLSTATEs.
func TestPartitionErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, `
		CREATE TABLE plain (id pgid.ulid PRIMARY KEY);
		CREATE TABLE by_list (id uuid) PARTITION BY LIST (id);
		CREATE TABLE by_hash (id uuid) PARTITION BY HASH (id);
		CREATE TABLE by_two (id uuid, v int) PARTITION BY RANGE (id, v);
		CREATE TABLE by_expr (id uuid) PARTITION BY RANGE ((id::text));
		CREATE TABLE by_int (id bigint) PARTITION BY RANGE (id);
		CREATE TABLE by_time (id uuid, at timestamptz) PARTITION BY RANGE (at);
		CREATE TABLE plain_uuid (id uuid PRIMARY KEY) PARTITION BY RANGE (id);
		CREATE TABLE plain_bytea (id bytea PRIMARY KEY) PARTITION BY RANGE (id);
		CREATE VIEW a_view AS SELECT 1 AS id`)
	for _, c := range []struct {
		parent string
		kind   partition.Kind
		want   error
		code   string
		msg    string
	}{
		{"plain", 0, partition.ErrNotPartitioned, "PGI01", "plain is not a partitioned table"},
		{"a_view", 0, partition.ErrNotPartitioned, "PGI01", "a_view is not a partitioned table"},
		{"by_list", 0, partition.ErrNotRangeByID, "PGI02", "by_list is partitioned by LIST, not by RANGE (id)"},
		{"by_hash", 0, partition.ErrNotRangeByID, "PGI02", "by_hash is partitioned by HASH"},
		{"by_two", 0, partition.ErrNotRangeByID, "PGI02", "RANGE (id, v), not on one ID column"},
		{"by_expr", 0, partition.ErrNotRangeByID, "PGI02", "not on one ID column"},
		{"by_int", 0, partition.ErrKind, "PGI03", "partition key id of public.by_int is bigint"},
		{"by_time", 0, partition.ErrKind, "PGI03", "partition key at of public.by_time is timestamp with time zone"},
		{"plain_uuid", partition.KindObjectID, partition.ErrKind, "", "plain_uuid is partitioned on a ulid column, the plan says objectid"},
		{"plain_bytea", partition.KindULID, partition.ErrKind, "", "partitioned on a objectid column"},
		{"no_such_table", 0, partition.ErrNoTable, "42P01", "no_such_table"},
	} {
		_, err := partition.Ensure(ctx, conn, partition.Plan{Parent: c.parent, Kind: c.kind, Every: partition.Day})
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Ensure(%s): %v; want %v with %q", c.parent, err, c.want, c.msg)
		}
		if c.code != "" {
			var pg *pgconn.PgError
			if !errors.As(err, &pg) || pg.Code != c.code {
				t.Errorf("Ensure(%s): %v; want SQLSTATE %s", c.parent, err, c.code)
			}
			_, err = conn.Exec(ctx, "SELECT pgid.ensure_partitions($1::regclass, '1 day')", c.parent)
			if pgtest.SQLState(err) != c.code {
				t.Errorf("pgid.ensure_partitions(%s): %v; want SQLSTATE %s", c.parent, err, c.code)
			}
			if _, err := partition.List(ctx, conn, c.parent); !errors.Is(err, c.want) {
				t.Errorf("List(%s): %v; want %v", c.parent, err, c.want)
			}
		}
	}
	// Plain uuid and bytea keys work.
	ensure(t, conn, partition.Plan{Parent: "plain_uuid", Kind: partition.KindULID, Every: partition.Day})
	ensure(t, conn, partition.Plan{Parent: "plain_bytea", Kind: partition.KindObjectID, Every: partition.Day})

	// Invalid plans, in Go and in SQL.
	for _, p := range []partition.Plan{
		{Parent: "plain_uuid"},
		{Parent: "plain_uuid", Every: partition.Span{Months: 1, Duration: time.Hour}},
		{Parent: "plain_uuid", Every: partition.Day, Ahead: -1},
	} {
		if _, err := partition.Ensure(ctx, conn, p); !errors.Is(err, partition.ErrPlan) {
			t.Errorf("Ensure(%+v): %v, want ErrPlan", p, err)
		}
	}
	for _, sql := range []string{
		"SELECT pgid.ensure_partitions('plain_uuid', '1 month 2 days')",
		"SELECT pgid.ensure_partitions('plain_uuid', '1 day', -1)",
		"SELECT pgid.ensure_partitions('plain_uuid', '1 day', 1, '-1 day')",
		"SELECT pgid.ensure_partitions('plain_uuid', '1 day', 1, '1 day', 'truncate')",
		"SELECT pgid.ensure_partitions('plain_uuid', NULL)",
	} {
		if _, err := conn.Exec(ctx, sql); pgtest.SQLState(err) != "PGI06" {
			t.Errorf("%s: %v, want PGI06", sql, err)
		}
	}
	// DetachConcurrently inside a transaction.
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = partition.Ensure(ctx, conn, partition.Plan{Parent: "plain_uuid", Every: partition.Day,
		Retain: partition.Day, Retire: partition.DetachConcurrently})
	if !errors.Is(err, partition.ErrPlan) || !strings.Contains(err.Error(), "transaction") {
		t.Errorf("DetachConcurrently in a transaction: %v", err)
	}
	_ = tx.Rollback(ctx)

	// Overlap: daily partitions, then weekly ones over them.
	mustExec(t, conn, "CREATE TABLE ov (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id)")
	ensure(t, conn, partition.Plan{Parent: "ov", Every: partition.Day, Now: day(18, 0)})
	_, err = partition.Ensure(ctx, conn, partition.Plan{Parent: "ov", Every: partition.Week, Now: day(18, 0)})
	if !errors.Is(err, partition.ErrOverlap) || !strings.Contains(err.Error(), "[2026-11-16T00:00:00Z, 2026-11-23T00:00:00Z) of public.ov overlaps partition public.ov_p20261118") {
		t.Errorf("overlap: %v", err)
	}

	// The DEFAULT partition with rows in a range about to be created.
	for _, c := range []struct{ typ, parent string }{{"pgid.ulid", "dflt_u"}, {"pgid.objectid", "dflt_o"}} {
		mustExec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s (id %[2]s PRIMARY KEY, v int) PARTITION BY RANGE (id);
			CREATE TABLE %[1]s_default PARTITION OF %[1]s DEFAULT`, c.parent, c.typ))
		var early, late any = ulidtype.MinAt(day(25, time.Hour)), ulidtype.MinAt(day(26, time.Hour))
		if c.parent == "dflt_o" {
			early, late = objectidtype.MinAt(day(25, time.Hour)), objectidtype.MinAt(day(26, time.Hour))
		}
		mustExec(t, conn, "INSERT INTO "+c.parent+" VALUES ($1, 1), ($2, 2)", early, late)
		// The 24th has no rows in the default partition: fine.
		ensure(t, conn, partition.Plan{Parent: c.parent, Every: partition.Day, Now: day(24, 0)})
		plan := partition.Plan{Parent: c.parent, Every: partition.Day, Ahead: 2, Now: day(24, 0)}
		_, err := partition.Ensure(ctx, conn, plan)
		want := fmt.Sprintf("default partition public.%[1]s_default of public.%[1]s holds rows in [2026-11-25T00:00:00Z, 2026-11-26T00:00:00Z), the range of new partition %[1]s_p20261125", c.parent)
		if !errors.Is(err, partition.ErrDefaultHasRows) || !strings.Contains(err.Error(), want) {
			t.Errorf("default partition with rows: %v\nwant %s", err, want)
		}
		// Nothing changed, nothing moved.
		parts, err := partition.List(ctx, conn, c.parent)
		if err != nil || len(parts) != 2 {
			t.Fatalf("after the refusal: %d partitions (%v), want 2", len(parts), err)
		}
		var inDefault int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+c.parent+"_default").Scan(&inDefault); err != nil || inDefault != 2 {
			t.Fatalf("default partition: %d rows, %v; want 2", inDefault, err)
		}

		// The way out (docs/PARTITIONING.md): in one transaction, detach the
		// default partition, create the partitions, move the rows back
		// through the parent, reattach the emptied default.
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, sql := range []string{
			fmt.Sprintf("ALTER TABLE %[1]s DETACH PARTITION %[1]s_default", c.parent),
			fmt.Sprintf("SELECT pgid.ensure_partitions('%s', '1 day', 2, at => '2026-11-24Z')", c.parent),
			fmt.Sprintf("WITH moved AS (DELETE FROM %[1]s_default RETURNING *) INSERT INTO %[1]s SELECT * FROM moved", c.parent),
			fmt.Sprintf("ALTER TABLE %[1]s ATTACH PARTITION %[1]s_default DEFAULT", c.parent),
		} {
			if _, err := tx.Exec(ctx, sql); err != nil {
				t.Fatalf("way out, %s: %v", sql, err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		kind := partition.KindULID
		if c.parent == "dflt_o" {
			kind = partition.KindObjectID
		}
		if n := placement(t, conn, c.parent, kind); n != 2 {
			t.Errorf("after the way out: %d rows, want 2", n)
		}
		var where string
		if err := conn.QueryRow(ctx, "SELECT string_agg(tableoid::regclass::text, ',' ORDER BY id) FROM "+c.parent).Scan(&where); err != nil ||
			where != c.parent+"_p20261125,"+c.parent+"_p20261126" {
			t.Errorf("after the way out the rows are in %s, %v", where, err)
		}
	}
}

// A least-privilege role that owns the table (and may create in its schema)
// can run everything; the session's search_path is left as it was, and no
// advisory lock outlives the call.
func TestPartitionLeastPrivilege(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	role := "pgid_owner_" + pgtest.RandomHex(4)
	if _, err := (pgtest.Admin{}).Exec(ctx, fmt.Sprintf("CREATE ROLE %s LOGIN PASSWORD 'pw' NOSUPERUSER NOCREATEDB NOCREATEROLE", role)); err != nil {
		t.Fatal(err)
	}
	pgtest.DropRole(t, role)
	dsn := pgtest.DB(t)
	su := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, su, fmt.Sprintf(`CREATE SCHEMA "App" AUTHORIZATION %[1]s;
		GRANT USAGE ON SCHEMA pgid TO %[1]s;
		REVOKE CREATE ON SCHEMA public FROM PUBLIC`, role))

	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Password = role, "pw"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	// A hostile search_path: a schema of the caller's first, pg_catalog
	// not named; a mixed-case schema and table, which need quoting.
	mustExec(t, conn, `CREATE TABLE "App"."Events" (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid()) PARTITION BY RANGE (id);
		SET search_path = "App", public`)
	for _, retire := range []partition.Retire{partition.Drop, partition.DetachConcurrentlyThenDrop} {
		rep := ensure(t, conn, partition.Plan{Parent: `"Events"`, Every: partition.Day, Ahead: 2,
			Retain: partition.Day, Retire: retire, Now: day(20+int(retire), 0)})
		if len(rep.Created) == 0 || rep.Created[0].Name != fmt.Sprintf(`"App"."Events_p202611%d"`, 20+int(retire)) {
			t.Errorf("created %s", names(rep.Created))
		}
	}
	mustExec(t, conn, `INSERT INTO "Events" (id) VALUES ($1)`, ulidtype.MinAt(day(23, time.Hour)))
	parts, err := partition.List(ctx, conn, `"Events"`)
	if err != nil || len(parts) != 4 {
		t.Fatalf("List: %d partitions, %v", len(parts), err)
	}
	var sp string
	var locks int
	if err := conn.QueryRow(ctx, "SELECT current_setting('search_path'), (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid())").Scan(&sp, &locks); err != nil {
		t.Fatal(err)
	}
	if sp != `"App", public` || locks != 0 {
		t.Errorf("after Ensure: search_path %q, %d advisory locks", sp, locks)
	}
}

// Partitions are made and dropped while 8 writers insert for 10 seconds:
// no insert fails, no row is lost, the count is exact. Each writer pauses
// 2-6 ms between inserts (some 1,500 rows a second in all, so inserts wait
// behind every Ensure's ACCESS EXCLUSIVE lock), not as fast as it can: a
// saturated server tested nothing more and slowed every other test.
func TestPartitionEnsureUnderLoad(t *testing.T) {
	t.Parallel()
	pgtest.Conns(t, 10) // the writers' pool and Ensure's
	ctx := context.Background()
	dsn := pgtest.DB(t)
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, "CREATE TABLE load (id pgid.ulid PRIMARY KEY, w int NOT NULL) PARTITION BY RANGE (id)")
	// Partitions of an hour: the last 48 hours (old ones to retire), now
	// and the next hour.
	ensure(t, conn, partition.Plan{Parent: "load", Every: partition.Hour, Ahead: 49, Now: time.Now().Add(-48 * time.Hour)})

	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	const writers = 8
	duration := 10 * time.Second
	deadline := time.Now().Add(duration)
	var ok, failed, slow atomic.Int64
	var firstErr atomic.Value
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				var err error
				began := time.Now()
				if w%2 == 0 {
					_, err = pool.Exec(ctx, "INSERT INTO load (id, w) VALUES ($1, $2)", ulidtype.New(), w)
				} else {
					_, err = pool.Exec(ctx, "INSERT INTO load (id, w) SELECT pgid.gen_ulid(), $1", w)
				}
				if time.Since(began) > 5*time.Millisecond {
					slow.Add(1)
				}
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err)
				} else {
					ok.Add(1)
				}
				time.Sleep(time.Duration(2+rand.IntN(5)) * time.Millisecond)
			}
		})
	}
	// Ensure over and over: each call makes one more partition ahead and
	// drops one more of the old ones, taking ACCESS EXCLUSIVE on the
	// parent each time.
	runs, created, dropped := 0, 0, 0
	for i := 0; time.Now().Before(deadline); i++ {
		rep, err := partition.Ensure(ctx, conn, partition.Plan{Parent: "load", Every: partition.Hour, Ahead: 2 + i,
			Retain: partition.Span{Duration: time.Duration(47-i%40) * time.Hour}})
		if err != nil {
			t.Fatalf("Ensure #%d under load: %v", i, err)
		}
		runs++
		created += len(rep.Created)
		dropped += len(rep.Dropped)
		time.Sleep(100 * time.Millisecond)
	}
	wg.Wait()
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM load").Scan(&n); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d Ensure runs (%d partitions created, %d dropped); %d inserts (%d took over 5 ms), %d failed; %d rows",
		runs, created, dropped, ok.Load(), slow.Load(), failed.Load(), n)
	if failed.Load() != 0 {
		t.Errorf("%d inserts failed; first: %v", failed.Load(), firstErr.Load())
	}
	if n != ok.Load() || n == 0 {
		t.Errorf("%d rows, %d successful inserts", n, ok.Load())
	}
	if created < 3 || dropped < 3 {
		t.Errorf("Ensure created %d and dropped %d partitions; the test wants partitions made and dropped under load", created, dropped)
	}
	placement(t, conn, "load", partition.KindULID)
}

// TestEnsureWithoutMigrations: without schema pgid, or without its
// partition functions, the error says how to install them and names the
// file that defines them.
func TestEnsureWithoutMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.EmptyDB(t), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, "CREATE TABLE ev (id uuid PRIMARY KEY) PARTITION BY RANGE (id)"); err != nil {
		t.Fatal(err)
	}
	every, _ := partition.ParseSpan("1d")
	for _, setup := range []string{"", "CREATE SCHEMA pgid"} {
		if setup != "" {
			if _, err := conn.Exec(ctx, setup); err != nil {
				t.Fatal(err)
			}
		}
		_, err := partition.Ensure(ctx, conn, partition.Plan{Parent: "ev", Every: every, Ahead: 1})
		if err == nil || !strings.Contains(err.Error(), "migrations.Up or pgid migrate up installs the partition functions, migrations/functions/05_partitions.sql") {
			t.Errorf("Ensure (%q first): %v, want the way out", setup, err)
		}
	}
}
