package integration_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// objectIDTail returns bytes 4 to 11 of an ObjectId: the value of
// pgid.objectid_counter that pgid.gen_objectid() wrote.
func objectIDTail(o objectidtype.ObjectID) uint64 { return binary.BigEndian.Uint64(o[4:]) }

// pgid.gen_objectid() from two sessions taking turns, as an application
// role with nothing granted but what Up grants: within a second the IDs
// strictly increase in the order they were made, and bytes 4 to 11 are
// one counter across both sessions (each ID's is the previous one's plus
// one), so its first 5 bytes are the database's and no two IDs are equal.
// Another database installed by its own Up has another 5 bytes.
func TestSQLObjectIDOrderAcrossSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, false)
	owner := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if err := migrations.Up(ctx, owner); err != nil {
		t.Fatal(err)
	}
	role := newRole(t, owner)
	a := connect(t, withUser(dsn, role), pgx.QueryExecModeCacheStatement)
	b := connect(t, withUser(dsn, role), pgx.QueryExecModeCacheStatement)
	const n = 400
	ids := make([]objectidtype.ObjectID, n)
	for i := range ids {
		c := a
		if i%2 == 1 {
			c = b
		}
		if err := c.QueryRow(ctx, "SELECT pgid.gen_objectid()").Scan(&ids[i]); err != nil {
			t.Fatalf("gen_objectid as role %s: %v", role, err)
		}
	}
	sameSecond, decreased := 0, 0
	for i := 1; i < n; i++ {
		if got, want := objectIDTail(ids[i]), objectIDTail(ids[i-1])+1; got != want {
			t.Errorf("ID %d %s: bytes 4-11 %016x, want the previous ID's plus one, %016x", i, ids[i], got, want)
		}
		if ids[i].Unix() == ids[i-1].Unix() {
			sameSecond++
			if ids[i].Compare(ids[i-1]) <= 0 {
				decreased++
				t.Errorf("ID %d %s is not above the ID made before it in the same second, %s", i, ids[i], ids[i-1])
			}
		}
		if ids[i].Unix() < ids[i-1].Unix() {
			t.Errorf("ID %d %s: its second is before that of the ID made before it, %s", i, ids[i], ids[i-1])
		}
	}
	t.Logf("%d IDs from 2 sessions taking turns: %d consecutive pairs in the same second, %d decreased; database value %x",
		n, sameSecond, decreased, ids[0][4:9])

	// An application table's DEFAULT works for the role too.
	mustExec(t, owner, "CREATE TABLE gen_o (id pgid.objectid PRIMARY KEY DEFAULT pgid.gen_objectid(), n int)")
	mustExec(t, owner, "GRANT INSERT, SELECT ON gen_o TO "+role)
	var last objectidtype.ObjectID
	if err := a.QueryRow(ctx, "INSERT INTO gen_o (n) VALUES (1) RETURNING id").Scan(&last); err != nil {
		t.Fatalf("INSERT with DEFAULT pgid.gen_objectid() as role %s: %v", role, err)
	}
	if objectIDTail(last) != objectIDTail(ids[n-1])+1 {
		t.Errorf("the table's ID %s does not follow the last generated, %s", last, ids[n-1])
	}

	other := connect(t, newDB(t, false), pgx.QueryExecModeCacheStatement)
	if err := migrations.Up(ctx, other); err != nil {
		t.Fatal(err)
	}
	var o objectidtype.ObjectID
	if err := other.QueryRow(ctx, "SELECT pgid.gen_objectid()").Scan(&o); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(o[4:9], ids[0][4:9]) {
		t.Errorf("two databases, each installed by Up, share the value %x", o[4:9])
	}
}

// pgid.objectid_reseed() draws a new value for the database: every
// session's next ID has it. Only the sequence's owner may call it: an
// application role gets SQLSTATE 42501 and the value stays.
func TestSQLObjectIDReseed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	owner := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	role := newRole(t, owner)
	app := connect(t, withUser(dsn, role), pgx.QueryExecModeCacheStatement)
	gen := func(c *pgx.Conn) objectidtype.ObjectID {
		t.Helper()
		var o objectidtype.ObjectID
		if err := c.QueryRow(ctx, "SELECT pgid.gen_objectid()").Scan(&o); err != nil {
			t.Fatal(err)
		}
		return o
	}
	before := gen(app)
	if _, err := app.Exec(ctx, "SELECT pgid.objectid_reseed()"); sqlState(err) != "42501" {
		t.Errorf("objectid_reseed as an application role: %v, want SQLSTATE 42501", err)
	}
	if o := gen(app); objectIDTail(o) != objectIDTail(before)+1 {
		t.Errorf("after a refused reseed: %s, want the value after %s", o, before)
	}
	var drawn []byte
	if err := owner.QueryRow(ctx, "SELECT pgid.objectid_reseed()").Scan(&drawn); err != nil {
		t.Fatal(err)
	}
	after := gen(app)
	if len(drawn) != 5 || !bytes.Equal(after[4:9], drawn) || bytes.Equal(after[4:9], before[4:9]) {
		t.Errorf("reseed returned %x; the next ID %s (before %s)", drawn, after, before)
	}
}

// Past 2^24 IDs the counter carries into the database's 5 bytes, as a
// 64-bit counter: the IDs keep increasing. At the end of the sequence's
// positive range it cycles on to its negative values, which still sort
// above (bytes 0x7f... then 0x80...). The one step down is from -1 to 0
// (0xff... to 0x00...), once in 2^64 IDs: the counter wraps there.
func TestSQLObjectIDCarry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	for _, start := range []string{"'x0123456789fffffe'::bit(64)::int8", "9223372036854775806", "-2"} {
		mustExec(t, conn, "SELECT setval('pgid.objectid_counter', "+start+", false)")
		rows, err := conn.Query(ctx, "SELECT pgid.gen_objectid() FROM generate_series(1, 4)")
		if err != nil {
			t.Fatal(err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[objectidtype.ObjectID])
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(ids); i++ {
			// From -1 to 0 the tail goes from ff... to 00...: the one step down.
			wrap := objectIDTail(ids[i-1]) == 1<<64-1
			if objectIDTail(ids[i]) != objectIDTail(ids[i-1])+1 ||
				(ids[i].Unix() == ids[i-1].Unix() && (ids[i].Compare(ids[i-1]) <= 0) != wrap) {
				t.Errorf("from %s: %s after %s", start, ids[i], ids[i-1])
			}
		}
		if i := len(ids) - 1; start[0] == '\'' && (ids[0][8]+1 != ids[i][8] || ids[i][9] != 0 || ids[i][10] != 0 || ids[i][11] != 1) {
			t.Errorf("from %s: %s, want the counter to carry into byte 8", start, fmt.Sprint(ids))
		}
		t.Logf("from %s: %s", start, fmt.Sprint(ids))
	}
}

// pgid.gen_ulid_v7() is a valid UUIDv7 that ulidtype parses, with the
// time of its making, and within a backend it increases as the clock
// moves: its first 8 bytes (milliseconds, version, 12-bit sub-millisecond
// fraction) never go down, and a value below the one before shares those
// 8 bytes with it (made in the same microsecond; on PostgreSQL 18, whose
// uuidv7() it returns, not even then). Values made one statement apart
// strictly increase.
func TestSQLULIDv7Order(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
	v := serverVersion(t, conn)
	const n = 20_000
	var prev ulidtype.ULID
	sameHead, down := 0, 0
	i := 0
	rows, err := conn.Query(ctx, `
		WITH g AS MATERIALIZED (SELECT i, pgid.gen_ulid_v7() AS u FROM generate_series(1, $1) i)
		SELECT u::text, pgid.ulid_time(u) BETWEEN date_trunc('milliseconds', statement_timestamp()) AND clock_timestamp(),
		       pgid.ulid_time(u)
		FROM g ORDER BY i`, n)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		var inTime bool
		var at time.Time
		if err := rows.Scan(&s, &inTime, &at); err != nil {
			t.Fatal(err)
		}
		u, err := ulidtype.Parse(s)
		if err != nil || !u.IsV7() || !inTime || !u.Timestamp().Equal(at) {
			t.Fatalf("value %d %s: %v, IsV7 %v, made in the statement %v, Timestamp %v, ulid_time %v",
				i, s, err, u.IsV7(), inTime, u.Timestamp(), at)
		}
		if i > 0 {
			head, prevHead := binary.BigEndian.Uint64(u[:8]), binary.BigEndian.Uint64(prev[:8])
			switch {
			case head < prevHead:
				t.Fatalf("value %d %s: milliseconds and fraction below those of the value before, %s", i, u.UUIDString(), prev.UUIDString())
			case head == prevHead:
				sameHead++
				if u.Compare(prev) <= 0 {
					down++
				}
			}
		}
		prev = u
		i++
	}
	if rows.Err() != nil || i != n {
		t.Fatalf("%d values, %v", i, rows.Err())
	}
	if v >= versionUUIDv7 && down > 0 {
		t.Errorf("PostgreSQL 18: %d of %d values in one statement below the value before", down, n)
	}
	t.Logf("server_version_num %d: %d values in one statement, %d pairs in the same microsecond, %d of them going down",
		v, n, sameHead, down)

	prev = ulidtype.ULID{}
	for i := range 300 {
		var u ulidtype.ULID
		if err := conn.QueryRow(ctx, "SELECT pgid.gen_ulid_v7()").Scan(&u); err != nil {
			t.Fatal(err)
		}
		if u.Compare(prev) <= 0 {
			t.Fatalf("statement %d: %s, not above the value of the statement before, %s", i, u.UUIDString(), prev.UUIDString())
		}
		prev = u
	}
	var body string
	if err := conn.QueryRow(ctx, "SELECT pg_get_function_sqlbody('pgid.gen_ulid_v7()'::regprocedure)").Scan(&body); err != nil {
		t.Fatal(err)
	}
	if calls := bytes.Contains([]byte(body), []byte("uuidv7()")); calls != (v >= versionUUIDv7) {
		t.Errorf("server_version_num %d: body %q", v, body)
	}
}
