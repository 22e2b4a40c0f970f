package integration_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

func randInt(n int64) int64 {
	v, err := rand.Int(rand.Reader, big.NewInt(n))
	if err != nil {
		panic(err)
	}
	return v.Int64()
}

// explain returns the text plan of query.
func explain(t *testing.T, conn *pgx.Conn, query string, args ...any) string {
	t.Helper()
	rows, err := conn.Query(context.Background(), "EXPLAIN (COSTS OFF) "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "\n")
}

// requireIndexScan fails unless plan scans index with an Index Scan or an
// Index Only Scan (no Seq Scan, no Bitmap Heap Scan).
func requireIndexScan(t *testing.T, plan, index string) {
	t.Helper()
	if !(strings.Contains(plan, "Index Only Scan using "+index) || strings.Contains(plan, "Index Scan using "+index)) ||
		strings.Contains(plan, "Seq Scan") || strings.Contains(plan, "Bitmap") {
		t.Errorf("want an index scan on %s, got:\n%s", index, plan)
	}
}

// rangeCase is one [from, to) query and the number of rows it must count.
type rangeCase struct {
	from, to time.Time
	want     int
}

// checkRanges counts rows through Go bounds and SQL bounds, with custom and
// generic plans, and checks the plans use the primary key.
func checkRanges(t *testing.T, conn *pgx.Conn, table, minAt string, cases []rangeCase,
	goRange func(from, to time.Time) (lo, hi any), idType string) {
	ctx := context.Background()
	pkey := table + "_pkey"
	goQuery := "SELECT count(*) FROM " + table + " WHERE id >= $1 AND id < $2"
	sqlQuery := "SELECT count(*) FROM " + table + " WHERE id >= pgid." + minAt + "($1) AND id < pgid." + minAt + "($2)"
	for _, c := range cases {
		lo, hi := goRange(c.from, c.to)
		var n int
		if err := conn.QueryRow(ctx, goQuery, lo, hi).Scan(&n); err != nil || n != c.want {
			t.Fatalf("[%v, %v) with Go bounds: %d rows, %v; want %d", c.from, c.to, n, err, c.want)
		}
		if err := conn.QueryRow(ctx, sqlQuery, c.from, c.to).Scan(&n); err != nil || n != c.want {
			t.Fatalf("[%v, %v) with SQL bounds: %d rows, %v; want %d", c.from, c.to, n, err, c.want)
		}
	}
	c := cases[0]
	lo, hi := goRange(c.from, c.to)
	requireIndexScan(t, explain(t, conn, goQuery, lo, hi), pkey)
	requireIndexScan(t, explain(t, conn, sqlQuery, c.from, c.to), pkey)

	// Generic plans: the bounds are parameters at planning time.
	if _, err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "RESET plan_cache_mode")
	if _, err := conn.Exec(ctx, fmt.Sprintf(`
		PREPARE go_bounds_%[1]s(%[2]s, %[2]s) AS %[3]s;
		PREPARE sql_bounds_%[1]s(timestamptz, timestamptz) AS %[4]s`, table, idType, goQuery, sqlQuery)); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		lo, hi := goRange(c.from, c.to)
		goExec := fmt.Sprintf("EXECUTE go_bounds_%s(%s, %s)", table, literal(lo), literal(hi))
		sqlExec := fmt.Sprintf("EXECUTE sql_bounds_%s(%s, %s)", table, literal(c.from), literal(c.to))
		for _, q := range []string{goExec, sqlExec} {
			var n int
			if err := conn.QueryRow(ctx, q).Scan(&n); err != nil || n != c.want {
				t.Fatalf("generic plan: %s: %d rows, %v; want %d", q, n, err, c.want)
			}
		}
		// pgx's own prepared statements get generic plans too now.
		var n int
		if err := conn.QueryRow(ctx, goQuery, lo, hi).Scan(&n); err != nil || n != c.want {
			t.Fatalf("generic plan, pgx prepared [%v, %v): %d rows, %v; want %d", c.from, c.to, n, err, c.want)
		}
		if c.from == cases[0].from {
			for _, q := range []string{goExec, sqlExec} {
				plan := explain(t, conn, q)
				if !strings.Contains(plan, "$1") {
					t.Errorf("%s: not a generic plan:\n%s", q, plan)
				}
				requireIndexScan(t, plan, pkey)
			}
		}
	}
}

// literal writes v as an SQL literal for EXECUTE.
func literal(v any) string {
	switch v := v.(type) {
	case ulidtype.ULID:
		return "'" + v.UUIDString() + "'"
	case objectidtype.ObjectID:
		return `'\x` + v.Hex() + "'"
	case time.Time:
		return "'" + v.Format(time.RFC3339Nano) + "'"
	}
	panic(fmt.Sprintf("literal: %T", v))
}

// ULIDs at known milliseconds, counted exactly through Range and through
// pgid.ulid_min_at, with the primary key index.
func TestULIDRangeQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, "CREATE TABLE r_ulid (id pgid.ulid PRIMARY KEY, n int NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	// 200,000 rows, 4 per millisecond, over 50 seconds.
	const perMs, ms = 4, 50_000
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	rows := make([][]any, 0, perMs*ms)
	for i := range perMs * ms {
		id := ulidtype.MinAt(t0.Add(time.Duration(i/perMs) * time.Millisecond))
		rand.Read(id[6:])
		rows = append(rows, []any{id, i})
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"r_ulid"}, []string{"id", "n"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE r_ulid"); err != nil {
		t.Fatal(err)
	}
	// want counts the rows in whole milliseconds [floor(from), floor(to)).
	want := func(from, to time.Time) int {
		a := min(max(from.Sub(t0).Milliseconds(), 0), ms)
		b := min(max(to.Sub(t0).Milliseconds(), 0), ms)
		if from.Before(t0) && from.Sub(t0)%time.Millisecond != 0 {
			a = 0
		}
		return int(max(b-a, 0)) * perMs
	}
	cases := []rangeCase{
		// Edges: whole milliseconds, sub-millisecond parts (truncated),
		// before and after the data, empty and reversed ranges.
		{t0.Add(10 * time.Second), t0.Add(10*time.Second + 400*time.Millisecond), 1600},
		{t0.Add(999 * time.Microsecond), t0.Add(2*time.Millisecond + 1*time.Microsecond), 8},
		{t0.Add(-time.Hour), t0.Add(3 * time.Millisecond), 12},
		{t0.Add(49_999 * time.Millisecond), t0.Add(time.Hour), 4},
		{t0.Add(time.Second), t0.Add(time.Second), 0},
		{t0.Add(2 * time.Second), t0.Add(time.Second), 0},
	}
	for range 20 {
		from := t0.Add(time.Duration(randInt(int64(ms-500)*1000)) * time.Microsecond)
		to := from.Add(time.Duration(randInt(500_000)) * time.Microsecond)
		cases = append(cases, rangeCase{from, to, want(from, to)})
	}
	for _, c := range cases[:6] {
		if w := want(c.from, c.to); w != c.want {
			t.Fatalf("test bug: want(%v, %v) = %d, listed %d", c.from, c.to, w, c.want)
		}
	}
	checkRanges(t, conn, "r_ulid", "ulid_min_at", cases, func(from, to time.Time) (any, any) {
		return ulidtype.Range(from, to)
	}, "uuid")

	// The reason the bounds are IMMUTABLE: the same bound from a VOLATILE
	// function is re-evaluated per row, so the planner scans the table.
	if _, err := conn.Exec(ctx, `CREATE FUNCTION volatile_min_at(t timestamptz) RETURNS uuid
		LANGUAGE plpgsql VOLATILE AS $$ BEGIN RETURN pgid.ulid_min_at(t); END $$`); err != nil {
		t.Fatal(err)
	}
	plan := explain(t, conn, "SELECT count(*) FROM r_ulid WHERE id >= volatile_min_at($1) AND id < volatile_min_at($2)", cases[0].from, cases[0].to)
	if !strings.Contains(plan, "Seq Scan") {
		t.Errorf("a VOLATILE bound: want a Seq Scan, got:\n%s", plan)
	}
}

// ObjectIds at known seconds, counted exactly through Range and through
// pgid.objectid_min_at, with the primary key index.
func TestObjectIDRangeQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, "CREATE TABLE r_oid (id pgid.objectid PRIMARY KEY, n int NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	// 100,000 rows, 10 per second, over 10,000 seconds.
	const perSec, secs = 10, 10_000
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	rows := make([][]any, 0, perSec*secs)
	for i := range perSec * secs {
		id := objectidtype.MinAt(t0.Add(time.Duration(i/perSec) * time.Second))
		rand.Read(id[4:])
		rows = append(rows, []any{id, i})
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"r_oid"}, []string{"id", "n"}, pgx.CopyFromRows(rows)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE r_oid"); err != nil {
		t.Fatal(err)
	}
	// Whole seconds [floor(from), floor(to)); times here are after t0.
	want := func(from, to time.Time) int {
		a := min(max(from.Unix()-t0.Unix(), 0), secs)
		b := min(max(to.Unix()-t0.Unix(), 0), secs)
		return int(max(b-a, 0)) * perSec
	}
	cases := []rangeCase{
		// 10:00:00.9 .. 10:00:05.5 holds seconds 0..4 (Go's Range doc).
		{t0.Add(900 * time.Millisecond), t0.Add(5500 * time.Millisecond), 50},
		{t0.Add(100 * time.Second), t0.Add(150 * time.Second), 500},
		{t0.Add(-time.Hour), t0.Add(2 * time.Second), 20},
		{t0.Add((secs - 1) * time.Second), t0.Add(100 * time.Hour), 10},
		{t0.Add(3 * time.Second), t0.Add(3*time.Second + 999*time.Millisecond), 0},
	}
	for range 20 {
		from := t0.Add(time.Duration(randInt(int64(secs-100)*1000)) * time.Millisecond)
		to := from.Add(time.Duration(randInt(100_000)) * time.Millisecond)
		cases = append(cases, rangeCase{from, to, want(from, to)})
	}
	checkRanges(t, conn, "r_oid", "objectid_min_at", cases, func(from, to time.Time) (any, any) {
		return objectidtype.Range(from, to)
	}, "bytea")
}
