package integration_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/testclock"
	"github.com/pgid/pgid/ulidtype"
)

// What differs by version, for the tests below:
//   - uuid_extract_timestamp(uuid) and uuid_extract_version(uuid) exist from
//     PostgreSQL 17 on, but on 17 uuid_extract_timestamp reads version 1
//     only: it is NULL for every UUIDv7;
//   - uuidv7() exists from PostgreSQL 18 on, and uuid_extract_timestamp
//     reads version 7 from 18 on.
//
// Below those versions the tests assert that the function is missing
// (SQLSTATE 42883, undefined_function) or NULL, and check what pgid offers
// instead (pgid.ulid_time, pgid.ulid_is_v7, pgid.gen_ulid_v7).
const (
	versionExtract = 170000 // uuid_extract_timestamp (v1 only) and uuid_extract_version
	versionUUIDv7  = 180000 // uuidv7(); uuid_extract_timestamp reads v7
)

// serverVersion returns the server's server_version_num.
func serverVersion(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	var v int
	if err := conn.QueryRow(context.Background(), "SELECT current_setting('server_version_num')::int").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// requireMissing fails unless sql fails with 42883 (undefined_function).
func requireMissing(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	_, err := conn.Exec(context.Background(), sql, args...)
	if sqlState(err) != "42883" {
		t.Fatalf("%s: %v, want SQLSTATE 42883 (undefined_function) on server_version_num %d", sql, err, serverVersion(t, conn))
	}
	t.Logf("as expected on server_version_num %d: %v", serverVersion(t, conn), err)
}

// v7IDs returns n ULIDs of LayoutV7: from a generator whose clock reads
// random times from the epoch to the year 10889 (clamped to those from
// beyond), and the last 100 from the
// package's New, several in one millisecond.
func v7IDs(n int) []ulidtype.ULID {
	times := randomTimes(n)
	ids := make([]ulidtype.ULID, n)
	for j := range ids {
		// A generator each: one keeps its last time when the clock goes back.
		g := ulidtype.NewGenerator(func() time.Time { return times[j] }, nil)
		g.SetLayout(ulidtype.LayoutV7)
		ids[j] = g.New()
	}
	ulidtype.Fill(ids[n-100:])
	return ids
}

// TestUUIDv7GoULIDs: for ULIDs of ulidtype.LayoutV7, over the whole time
// range, uuid_extract_timestamp(id) = pgid.ulid_time(id) = Go's Time() on
// PostgreSQL 18 (NULL on 17), uuid_extract_version(id) = 7 from 17 on, and
// pgid.ulid_is_v7(id) is true on every version.
func TestUUIDv7GoULIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	ids := v7IDs(5000)
	if ulidtype.DefaultLayout() != ulidtype.LayoutV7 {
		t.Fatalf("default layout %d, want LayoutV7", ulidtype.DefaultLayout())
	}
	extract := "NULL::timestamptz, NULL::int"
	v := serverVersion(t, conn)
	if v >= versionExtract {
		extract = "uuid_extract_timestamp(id), uuid_extract_version(id)"
	} else {
		requireMissing(t, conn, "SELECT uuid_extract_timestamp($1::uuid)", ids[0])
		requireMissing(t, conn, "SELECT uuid_extract_version($1::uuid)", ids[0])
	}
	rows, err := conn.Query(ctx, `SELECT id, pgid.ulid_time(id), pgid.ulid_is_v7(id), `+extract+`
		FROM unnest($1::uuid[]) WITH ORDINALITY AS x(id, i) ORDER BY i`, ids)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var id ulidtype.ULID
		var ulidTime time.Time
		var isV7 bool
		var extracted *time.Time
		var version *int
		if err := rows.Scan(&id, &ulidTime, &isV7, &extracted, &version); err != nil {
			t.Fatal(err)
		}
		if id != ids[n] || !id.IsV7() || !isV7 || !ulidTime.Equal(id.Timestamp()) {
			t.Fatalf("%s (%s): ulid_is_v7 %v, ulid_time %v, Go %v", id, id.UUIDString(), isV7, ulidTime, id.Timestamp())
		}
		switch {
		case v < versionExtract: // both NULL::
		case version == nil || *version != 7:
			t.Fatalf("%s: uuid_extract_version %v, want 7", id.UUIDString(), version)
		case v < versionUUIDv7 && extracted != nil:
			t.Fatalf("%s: uuid_extract_timestamp %v on 17, which reads version 1 only", id.UUIDString(), *extracted)
		case v >= versionUUIDv7 && (extracted == nil || !extracted.Equal(id.Timestamp())):
			t.Fatalf("%s: uuid_extract_timestamp %v, Go Time %v", id.UUIDString(), extracted, id.Timestamp())
		}
		n++
	}
	if rows.Err() != nil || n != len(ids) {
		t.Fatalf("%d rows: %v", n, rows.Err())
	}
}

// TestUUIDv7ServerValues: on PostgreSQL 18 ulidtype reads uuidv7() values:
// IsV7, and Time agrees with uuid_extract_timestamp and pgid.ulid_time,
// also for uuidv7(shift) far from now. Before 18 uuidv7() is missing, and
// pgid.gen_ulid_v7() is checked the same way.
func TestUUIDv7ServerValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	v := serverVersion(t, conn)
	exprs := []string{"pgid.gen_ulid_v7()"}
	if v >= versionUUIDv7 {
		exprs = append(exprs, "uuidv7()", "uuidv7(interval '-50 years')", "uuidv7(interval '3000 years 7 ms')")
	} else {
		requireMissing(t, conn, "SELECT uuidv7()")
	}
	extract := "pgid.ulid_time(u)" // the same column twice below 18
	if v >= versionUUIDv7 {
		extract = "uuid_extract_timestamp(u)"
	} else if v >= versionExtract {
		var ts *time.Time
		if err := conn.QueryRow(ctx, "SELECT uuid_extract_timestamp(pgid.gen_ulid_v7())").Scan(&ts); err != nil || ts != nil {
			t.Fatalf("uuid_extract_timestamp of a UUIDv7 on 17: %v, %v; want NULL", ts, err)
		}
	}
	for _, expr := range exprs {
		rows, err := conn.Query(ctx, `
			WITH g AS MATERIALIZED (SELECT `+expr+` AS u FROM generate_series(1, 2000))
			SELECT u, pgid.ulid_time(u), `+extract+`, pgid.ulid_is_v7(u) FROM g`)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[ulidtype.ULID]bool{}
		for rows.Next() {
			var u ulidtype.ULID
			var ulidTime, extracted time.Time
			var isV7 bool
			if err := rows.Scan(&u, &ulidTime, &extracted, &isV7); err != nil {
				t.Fatal(err)
			}
			if !u.IsV7() || !isV7 || !u.Timestamp().Equal(extracted) || !u.Timestamp().Equal(ulidTime) {
				t.Fatalf("%s: %s: IsV7 %v, ulid_is_v7 %v, Time %v, %s %v, pgid.ulid_time %v",
					expr, u.UUIDString(), u.IsV7(), isV7, u.Timestamp(), extract, extracted, ulidTime)
			}
			seen[u] = true
		}
		if rows.Err() != nil || len(seen) != 2000 {
			t.Fatalf("%s: %d distinct values, %v", expr, len(seen), rows.Err())
		}
	}
}

// TestUUIDv7ExtractOnPlainULIDs measures what uuid_extract_timestamp makes
// of ULIDs without a version (ulidtype.LayoutULID, pgid.gen_ulid()): NULL
// unless the variant is 10, the millisecond for version 7 (by chance right),
// a Gregorian time for version 1 (wrong); PostgreSQL 17 reads version 1
// only. The share of each is logged; every value is checked against what its
// bits say. Needs PostgreSQL 17 or later.
func TestUUIDv7ExtractOnPlainULIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	v := serverVersion(t, conn)
	if v < versionExtract {
		requireMissing(t, conn, "SELECT uuid_extract_timestamp(gen_random_uuid())")
		return
	}
	readsV7 := v >= versionUUIDv7
	const n = 64_000
	// Go: each the first ULID of its millisecond, as most ULIDs are.
	clk := testclock.New(time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC))
	g := ulidtype.NewGenerator(clk.Now, nil)
	g.SetLayout(ulidtype.LayoutULID)
	goIDs := make([]ulidtype.ULID, n)
	for i := range goIDs {
		clk.Add(time.Millisecond)
		goIDs[i] = g.New()
	}
	for _, src := range []struct {
		name, sql string
		arg       any
	}{
		{"Go LayoutULID", "SELECT id FROM unnest($1::uuid[]) AS x(id)", goIDs},
		{"pgid.gen_ulid()", "SELECT pgid.gen_ulid() FROM generate_series(1, $1)", n},
	} {
		rows, err := conn.Query(ctx, `SELECT id, uuid_extract_timestamp(id) FROM (`+src.sql+`) AS s(id)`, src.arg)
		if err != nil {
			t.Fatal(err)
		}
		var null, right, wrong int
		for rows.Next() {
			var id ulidtype.ULID
			var ts *time.Time
			if err := rows.Scan(&id, &ts); err != nil {
				t.Fatal(err)
			}
			variant10, version := id[8]>>6 == 2, id[6]>>4
			switch {
			case ts == nil && !(variant10 && (version == 1 || version == 7 && readsV7)):
				null++
			case ts != nil && variant10 && version == 7 && ts.Equal(id.Timestamp()):
				right++
			case ts != nil && variant10 && version == 1 && !ts.Equal(id.Timestamp()):
				wrong++
			default:
				t.Fatalf("%s: %s (version %d, variant 10: %v): uuid_extract_timestamp %v, Time %v",
					src.name, id.UUIDString(), version, variant10, ts, id.Timestamp())
			}
		}
		if rows.Err() != nil || null+right+wrong != n {
			t.Fatalf("%s: %d rows, %v", src.name, null+right+wrong, rows.Err())
		}
		t.Logf("server_version_num %d, %s, %d values: uuid_extract_timestamp NULL %.2f%%, right %.2f%% (1 in %.0f), wrong %.2f%% (1 in %.0f)",
			v, src.name, n, 100*float64(null)/n, 100*float64(right)/n, float64(n)/float64(right),
			100*float64(wrong)/n, float64(n)/float64(wrong))
	}
}

// TestUUIDv7MixedColumn fills one pgid.ulid column from its DEFAULT,
// uuidv7() on PostgreSQL 18 (pgid.gen_ulid_v7() before, where uuidv7() is
// missing), and from Go's New() in LayoutV7, one row at a time in turn over
// many milliseconds, then checks:
//   - ORDER BY id is the order of creation, millisecond by millisecond (the
//     rows of an earlier millisecond come first; within one millisecond the
//     two kinds are not in creation order). Server and test share the host's
//     clock here, as in every setup the tests use;
//   - Range bounds from Go and from pgid.ulid_min_at select exactly the rows
//     of each window, of both kinds;
//   - the primary key index answers those range queries.
func TestUUIDv7MixedColumn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	def := "pgid.gen_ulid_v7()"
	if serverVersion(t, conn) >= versionUUIDv7 {
		def = "uuidv7()"
	} else {
		requireMissing(t, conn, "CREATE TABLE nope (id uuid DEFAULT uuidv7())")
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE mixed (
		id pgid.ulid PRIMARY KEY DEFAULT `+def+`,
		n int NOT NULL,     -- creation order
		go bool NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	// Rows outside the windows, so that the planner has a table to choose
	// an index for: Go IDs of the hour before and server IDs of now.
	t0 := time.Now()
	g := ulidtype.NewGenerator(func() time.Time { return t0.Add(-time.Duration(rand.Int64N(int64(time.Hour)))) }, nil)
	filler := make([][]any, 50_000)
	for i := range filler {
		filler[i] = []any{g.New(), -1, true}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"mixed"}, []string{"id", "n", "go"}, pgx.CopyFromRows(filler)); err != nil {
		t.Fatal(err)
	}

	// The interleaved rows, each made when it is inserted.
	const rows = 3000
	start := time.Now()
	for i := range rows {
		var err error
		if i%2 == 0 {
			_, err = conn.Exec(ctx, "INSERT INTO mixed (n, go) VALUES ($1, false)", i)
		} else {
			_, err = conn.Exec(ctx, "INSERT INTO mixed (id, n, go) VALUES ($1, $2, true)", ulidtype.New(), i)
		}
		if err != nil {
			t.Fatal(err)
		}
		if i%300 == 299 {
			time.Sleep(3 * time.Millisecond) // gaps between runs of milliseconds
		}
	}
	end := time.Now()
	if _, err := conn.Exec(ctx, "INSERT INTO mixed (n, go) SELECT -1, false FROM generate_series(1, 50000)"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE mixed"); err != nil {
		t.Fatal(err)
	}

	type row struct {
		id  ulidtype.ULID
		n   int
		go_ bool
	}
	got, err := conn.Query(ctx, "SELECT id, n, go FROM mixed WHERE n >= 0 ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var byID []row
	for got.Next() {
		var r row
		if err := got.Scan(&r.id, &r.n, &r.go_); err != nil {
			t.Fatal(err)
		}
		byID = append(byID, r)
	}
	if got.Err() != nil || len(byID) != rows {
		t.Fatalf("%d rows, %v", len(byID), got.Err())
	}
	// Millisecond by millisecond: every row of an earlier millisecond was
	// made before every row of a later one.
	msOf := func(r row) int64 { return r.id.Timestamp().UnixMilli() }
	maxBefore := -1 // the largest n of all earlier milliseconds
	mixedMs, outOfOrder, millis := 0, 0, 0
	for i := 0; i < len(byID); {
		j := i
		minN, maxN, kinds := byID[i].n, byID[i].n, map[bool]bool{}
		for ; j < len(byID) && msOf(byID[j]) == msOf(byID[i]); j++ {
			minN, maxN = min(minN, byID[j].n), max(maxN, byID[j].n)
			kinds[byID[j].go_] = true
			if !byID[j].id.IsV7() {
				t.Fatalf("row %d: %s is not a UUIDv7", byID[j].n, byID[j].id.UUIDString())
			}
			if j > i && byID[j].n < byID[j-1].n {
				outOfOrder++
			}
		}
		if minN < maxBefore {
			t.Fatalf("millisecond %d holds row %d, made before row %d of an earlier millisecond", msOf(byID[i]), minN, maxBefore)
		}
		if len(kinds) == 2 {
			mixedMs++
		}
		maxBefore = max(maxBefore, maxN)
		millis++
		i = j
	}
	t.Logf("%d rows (%s and Go LayoutV7) in %d ms over %v; %d ms hold both kinds; %d neighbours within a ms not in creation order",
		rows, def, millis, end.Sub(start).Round(time.Millisecond), mixedMs, outOfOrder)
	if mixedMs < 20 || millis < 50 {
		t.Fatalf("only %d of %d milliseconds hold both kinds: the test did not interleave", mixedMs, millis)
	}

	// Windows: every millisecond of a sample, and longer random ones.
	first, last := byID[0].id.Timestamp(), byID[len(byID)-1].id.Timestamp()
	span := last.Sub(first)
	type window struct{ from, to time.Time }
	var windows []window
	for i := 0; i < len(byID); i += 97 {
		at := byID[i].id.Timestamp()
		windows = append(windows, window{at, at.Add(time.Millisecond)})
	}
	for range 30 {
		from := first.Add(time.Duration(rand.Int64N(int64(span))))
		windows = append(windows, window{from, from.Add(time.Duration(rand.Int64N(int64(20 * time.Millisecond))))})
	}
	windows = append(windows, window{first, last.Add(time.Millisecond)})
	for _, w := range windows {
		want := map[[2]int]bool{} // by kind and n
		var wantGo, wantServer int
		for _, r := range byID {
			if ms := msOf(r); ms >= w.from.UnixMilli() && ms < w.to.UnixMilli() {
				want[[2]int{boolInt(r.go_), r.n}] = true
				if r.go_ {
					wantGo++
				} else {
					wantServer++
				}
			}
		}
		lo, hi := ulidtype.Range(w.from, w.to)
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{"SELECT n, go FROM mixed WHERE id >= $1 AND id < $2 AND n >= 0", []any{lo, hi}},
			{"SELECT n, go FROM mixed WHERE id >= pgid.ulid_min_at($1) AND id < pgid.ulid_min_at($2) AND n >= 0", []any{w.from, w.to}},
		} {
			rs, err := conn.Query(ctx, q.sql, q.args...)
			if err != nil {
				t.Fatal(err)
			}
			gotSet := map[[2]int]bool{}
			var gotGo, gotServer int
			for rs.Next() {
				var n int
				var isGo bool
				if err := rs.Scan(&n, &isGo); err != nil {
					t.Fatal(err)
				}
				gotSet[[2]int{boolInt(isGo), n}] = true
				if isGo {
					gotGo++
				} else {
					gotServer++
				}
			}
			if rs.Err() != nil || len(gotSet) != len(want) || gotGo != wantGo || gotServer != wantServer {
				t.Fatalf("window [%v, %v): %s: %d Go and %d server rows, want %d and %d (%v)",
					w.from, w.to, q.sql, gotGo, gotServer, wantGo, wantServer, rs.Err())
			}
			for k := range want {
				if !gotSet[k] {
					t.Fatalf("window [%v, %v): %s misses row %v", w.from, w.to, q.sql, k)
				}
			}
		}
	}
	w := windows[0]
	lo, hi := ulidtype.Range(w.from, w.to)
	requireIndexScan(t, explain(t, conn, "SELECT n, go FROM mixed WHERE id >= $1 AND id < $2", lo, hi), "mixed_pkey")
	requireIndexScan(t, explain(t, conn, "SELECT n, go FROM mixed WHERE id >= pgid.ulid_min_at($1) AND id < pgid.ulid_min_at($2)", w.from, w.to), "mixed_pkey")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
