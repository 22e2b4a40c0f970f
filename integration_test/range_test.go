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

// rangeTable describes a table of IDs for the range tests: every unit (a
// millisecond for ULID, a second for ObjectId) of [t0, t0+units*unit) holds
// the exact bounds MinAt and MaxAt of that unit plus random IDs between them,
// so a bound that is off by one ID changes a count.
type rangeTable struct {
	name   string // table; its primary key index is name_pkey
	minAt  string // SQL bound function: ulid_min_at or objectid_min_at
	idType string // base type of the id column
	t0     time.Time
	unit   time.Duration
	units  int
	// Go's Range, MinAt and MaxAt of the ID type.
	goRange      func(from, to time.Time) (lo, hi any)
	goMin, goMax func(time.Time) any
}

// checkRanges counts rows through Go bounds and SQL bounds, with custom and
// generic plans, checks the plans use the primary key, and checks which of
// the IDs at the range ends the bounds let in.
func checkRanges(t *testing.T, conn *pgx.Conn, rt rangeTable, cases []rangeCase) {
	ctx := context.Background()
	table := rt.name
	pkey := table + "_pkey"
	goQuery := "SELECT count(*) FROM " + table + " WHERE id >= $1 AND id < $2"
	sqlQuery := "SELECT count(*) FROM " + table + " WHERE id >= pgid." + rt.minAt + "($1) AND id < pgid." + rt.minAt + "($2)"
	for _, c := range cases {
		lo, hi := rt.goRange(c.from, c.to)
		var n int
		if err := conn.QueryRow(ctx, goQuery, lo, hi).Scan(&n); err != nil || n != c.want {
			t.Fatalf("[%v, %v) with Go bounds: %d rows, %v; want %d", c.from, c.to, n, err, c.want)
		}
		if err := conn.QueryRow(ctx, sqlQuery, c.from, c.to).Scan(&n); err != nil || n != c.want {
			t.Fatalf("[%v, %v) with SQL bounds: %d rows, %v; want %d", c.from, c.to, n, err, c.want)
		}
	}
	checkRangeEdges(t, conn, rt, cases)
	c := cases[0]
	lo, hi := rt.goRange(c.from, c.to)
	requireIndexScan(t, explain(t, conn, goQuery, lo, hi), pkey)
	requireIndexScan(t, explain(t, conn, sqlQuery, c.from, c.to), pkey)

	// Generic plans: the bounds are parameters at planning time.
	if _, err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "RESET plan_cache_mode")
	if _, err := conn.Exec(ctx, fmt.Sprintf(`
		PREPARE go_bounds_%[1]s(%[2]s, %[2]s) AS %[3]s;
		PREPARE sql_bounds_%[1]s(timestamptz, timestamptz) AS %[4]s`, table, rt.idType, goQuery, sqlQuery)); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		lo, hi := rt.goRange(c.from, c.to)
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

// checkRangeEdges checks, for every case whose ends lie inside the data, the
// four IDs that decide a half-open range: the first ID of from's unit (lo)
// and the last ID of the unit before to's (MaxAt(to - 1 unit)) are counted;
// the first ID of to's unit (hi) and the last ID of the unit before from's
// (MaxAt(from - 1 unit)) are not. Both with Go's bounds and with the SQL
// bound functions. The table holds all four IDs, so this is a count of rows
// the range query really returns.
func checkRangeEdges(t *testing.T, conn *pgx.Conn, rt rangeTable, cases []rangeCase) {
	t.Helper()
	ctx := context.Background()
	inData := func(x time.Time) bool {
		return !x.Before(rt.t0) && x.Before(rt.t0.Add(time.Duration(rt.units)*rt.unit))
	}
	edges := " count(*) FILTER (WHERE id = $3), count(*) FILTER (WHERE id = $4)," +
		" count(*) FILTER (WHERE id = $5), count(*) FILTER (WHERE id = $6) FROM " + rt.name
	queries := map[string]string{
		"Go bounds":  "SELECT" + edges + " WHERE id >= $1 AND id < $2",
		"SQL bounds": "SELECT" + edges + " WHERE id >= pgid." + rt.minAt + "($1) AND id < pgid." + rt.minAt + "($2)",
	}
	exist := "SELECT count(*) FROM " + rt.name + " WHERE id IN ($1, $2, $3, $4)"
	checked := 0
	for _, c := range cases {
		if !inData(c.from.Add(-rt.unit)) || !inData(c.to) {
			continue
		}
		checked++
		lo, hi := rt.goRange(c.from, c.to)
		last, before := rt.goMax(c.to.Add(-rt.unit)), rt.goMax(c.from.Add(-rt.unit))
		if lo != rt.goMin(c.from) || hi != rt.goMin(c.to) {
			t.Fatalf("[%v, %v): Range = %v, %v; want MinAt(from), MinAt(to) = %v, %v", c.from, c.to, lo, hi, rt.goMin(c.from), rt.goMin(c.to))
		}
		distinct := map[any]bool{lo: true, last: true, hi: true, before: true}
		var n int
		if err := conn.QueryRow(ctx, exist, lo, last, hi, before).Scan(&n); err != nil || n != len(distinct) {
			t.Fatalf("[%v, %v): %d of the %d edge IDs in %s, %v; test bug", c.from, c.to, n, len(distinct), rt.name, err)
		}
		// Whole units [floor(from), floor(to)): empty unless floor(from) < floor(to).
		want := [4]int{1, 1, 0, 0}
		if !c.from.Truncate(rt.unit).Before(c.to.Truncate(rt.unit)) {
			want = [4]int{}
		}
		for name, q := range queries {
			args := []any{lo, hi}
			if name == "SQL bounds" {
				args = []any{c.from, c.to}
			}
			var got [4]int
			if err := conn.QueryRow(ctx, q, append(args, lo, last, hi, before)...).Scan(&got[0], &got[1], &got[2], &got[3]); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("[%v, %v) with %s: rows counted at lo %s, MaxAt(to - %v) %s, hi %s, MaxAt(from - %v) %s: %v; want %v",
					c.from, c.to, name, lo, rt.unit, last, hi, rt.unit, before, got, want)
			}
		}
	}
	if checked < len(cases)/2 {
		t.Errorf("only %d of %d cases have both ends inside the data; add cases", checked, len(cases))
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

// ULIDs at known milliseconds, among them each millisecond's MinAt and
// MaxAt, counted exactly through Range and through pgid.ulid_min_at, with the
// primary key index; the IDs at both ends of each range are in or out as a
// half-open range says.
func TestULIDRangeQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, "CREATE TABLE r_ulid (id pgid.ulid PRIMARY KEY, n int NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	// 200,000 rows, 4 per millisecond, over 50 seconds: the millisecond's
	// MinAt, two random ULIDs, its MaxAt.
	const perMs, ms = 4, 50_000
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	rows := make([][]any, 0, perMs*ms)
	for i := range perMs * ms {
		at := t0.Add(time.Duration(i/perMs) * time.Millisecond)
		var id ulidtype.ULID
		switch i % perMs {
		case 0:
			id = ulidtype.MinAt(at)
		case perMs - 1:
			id = ulidtype.MaxAt(at)
		default:
			id = ulidtype.MinAt(at)
			rand.Read(id[6:])
		}
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
		{t0.Add(time.Millisecond), t0.Add(2 * time.Millisecond), 4},
		{t0.Add(5*time.Millisecond + 999*time.Microsecond), t0.Add(6*time.Millisecond + 999*time.Microsecond), 4},
		{t0.Add(7*time.Millisecond + 1*time.Microsecond), t0.Add(7*time.Millisecond + 999*time.Microsecond), 0},
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
	for _, c := range cases[:9] {
		if w := want(c.from, c.to); w != c.want {
			t.Fatalf("test bug: want(%v, %v) = %d, listed %d", c.from, c.to, w, c.want)
		}
	}
	checkRanges(t, conn, rangeTable{
		name: "r_ulid", minAt: "ulid_min_at", idType: "uuid",
		t0: t0, unit: time.Millisecond, units: ms,
		goRange: func(from, to time.Time) (any, any) { return ulidtype.Range(from, to) },
		goMin:   func(t time.Time) any { return ulidtype.MinAt(t) },
		goMax:   func(t time.Time) any { return ulidtype.MaxAt(t) },
	}, cases)

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

// ObjectIds at known seconds, among them each second's MinAt and MaxAt,
// counted exactly through Range and through pgid.objectid_min_at, with the
// primary key index; the IDs at both ends of each range are in or out as a
// half-open range of whole seconds says.
func TestObjectIDRangeQueries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, "CREATE TABLE r_oid (id pgid.objectid PRIMARY KEY, n int NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	// 100,000 rows, 10 per second, over 10,000 seconds: the second's MinAt,
	// eight random ObjectIds, its MaxAt.
	const perSec, secs = 10, 10_000
	t0 := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	rows := make([][]any, 0, perSec*secs)
	for i := range perSec * secs {
		at := t0.Add(time.Duration(i/perSec) * time.Second)
		var id objectidtype.ObjectID
		switch i % perSec {
		case 0:
			id = objectidtype.MinAt(at)
		case perSec - 1:
			id = objectidtype.MaxAt(at)
		default:
			id = objectidtype.MinAt(at)
			rand.Read(id[4:])
		}
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
		{t0.Add(7 * time.Second), t0.Add(8 * time.Second), 10},
		{t0.Add(7*time.Second + 999*time.Millisecond), t0.Add(8*time.Second + 999_999*time.Microsecond), 10},
		{t0.Add(20 * time.Second), t0.Add(19 * time.Second), 0},
	}
	for range 20 {
		from := t0.Add(time.Duration(randInt(int64(secs-100)*1000)) * time.Millisecond)
		to := from.Add(time.Duration(randInt(100_000)) * time.Millisecond)
		cases = append(cases, rangeCase{from, to, want(from, to)})
	}
	for _, c := range cases {
		if w := want(c.from, c.to); w != c.want {
			t.Fatalf("test bug: want(%v, %v) = %d, listed %d", c.from, c.to, w, c.want)
		}
	}
	checkRanges(t, conn, rangeTable{
		name: "r_oid", minAt: "objectid_min_at", idType: "bytea",
		t0: t0, unit: time.Second, units: secs,
		goRange: func(from, to time.Time) (any, any) { return objectidtype.Range(from, to) },
		goMin:   func(t time.Time) any { return objectidtype.MinAt(t) },
		goMax:   func(t time.Time) any { return objectidtype.MaxAt(t) },
	}, cases)
}
