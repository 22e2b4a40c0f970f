package integration_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/ulidtype"
)

// hijackFuncs are built-in functions an attacker overloads with the same
// signature (or, like numeric_larger(numeric, integer), a better match than
// the built-in for a call with those argument types).
var hijackFuncs = []string{
	"get_byte(bytea, integer) integer", "substr(text, integer, integer) text",
	"substr(bytea, integer, integer) bytea", "encode(bytea, text) text", "decode(text, text) bytea",
	"uuid_send(uuid) bytea", "convert_to(text, name) bytea", "convert_from(bytea, name) text",
	"octet_length(bytea) integer", "octet_length(text) integer", "int8send(bigint) bytea",
	"int4send(integer) bytea", "lpad(text, integer, text) text", "to_hex(bigint) text",
	"to_hex(integer) text", "timezone(text, timestamptz) timestamp", "timezone(text, timestamp) timestamptz",
	"to_timestamp(double precision) timestamptz", "floor(numeric) numeric",
	"numeric_larger(numeric, integer) numeric", "numeric_larger(numeric, numeric) numeric",
	"numeric_smaller(numeric, bigint) numeric", "numeric_smaller(numeric, numeric) numeric",
	"left(text, integer) text", "replace(text, text, text) text", "gen_random_uuid() uuid",
	"clock_timestamp() timestamptz", "strpos(text, text) integer", "chr(integer) text",
	"ascii(text) integer", "upper(text) text", "translate(text, text, text) text",
}

// hijackOps are operators an attacker defines with the same operand types
// as the built-ins (or better matches, like bigint * interval).
var hijackOps = []string{
	"|| (text, text) text", "|| (bytea, bytea) bytea", "= (integer, integer) boolean",
	"< (integer, integer) boolean", "<> (integer, integer) boolean", "<< (bigint, integer) bigint",
	"<< (integer, integer) integer", ">> (bigint, integer) bigint", ">> (integer, integer) integer",
	"| (integer, integer) integer", "| (bigint, bigint) bigint", "& (integer, integer) integer",
	"& (bigint, bigint) bigint", "+ (integer, integer) integer", "* (integer, integer) integer",
	"* (numeric, integer) numeric", "* (bigint, interval) interval", "* (double precision, interval) interval",
	"+ (timestamp, interval) timestamp", "/ (bigint, integer) bigint", "% (bigint, integer) bigint",
	"- (integer, integer) integer",
}

// installAttacker creates role attacker's overloads of hijackFuncs and
// hijackOps in schema, each logging to public.audit before returning what
// the built-in returns, and (in a schema of its own) domains named like
// built-in types.
func installAttacker(t *testing.T, conn *pgx.Conn, attacker, schema string, shadowTypes bool) {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	fmt.Fprintf(&b, "SET ROLE %s;\n", attacker)
	for i, f := range hijackFuncs {
		name, rest, _ := strings.Cut(f, "(")
		args, ret, _ := strings.Cut(rest, ") ")
		var params, call []string
		if args != "" {
			for j, a := range strings.Split(args, ", ") {
				params = append(params, fmt.Sprintf("a%d %s", j, a))
				call = append(call, fmt.Sprintf("a%d", j))
			}
		}
		fmt.Fprintf(&b, `CREATE FUNCTION %[1]s.%[2]s(%[3]s) RETURNS %[4]s LANGUAGE plpgsql AS $f%[7]d$
BEGIN INSERT INTO public.audit VALUES ('%[1]s.%[2]s(%[6]s) ran as ' || current_user); RETURN pg_catalog.%[2]s(%[5]s); END $f%[7]d$;
`, schema, name, strings.Join(params, ", "), ret, strings.Join(call, ", "), args, i)
	}
	for i, o := range hijackOps {
		op, rest, _ := strings.Cut(o, " (")
		args, ret, _ := strings.Cut(rest, ") ")
		l, r, _ := strings.Cut(args, ", ")
		fmt.Fprintf(&b, `CREATE FUNCTION %[1]s.op%[2]d(a %[3]s, b %[4]s) RETURNS %[5]s LANGUAGE plpgsql AS $f$
BEGIN INSERT INTO public.audit VALUES ('%[1]s.%[6]s(%[3]s, %[4]s) ran as ' || current_user); RETURN a OPERATOR(pg_catalog.%[6]s) b; END $f$;
CREATE OPERATOR %[1]s.%[6]s (LEFTARG = %[3]s, RIGHTARG = %[4]s, FUNCTION = %[1]s.op%[2]d);
`, schema, i, l, r, ret, op)
	}
	if shadowTypes {
		for _, typ := range []string{"text", "bytea", "uuid", "int8", "int4", "name", "timestamptz"} {
			fmt.Fprintf(&b, "CREATE DOMAIN %s.%s AS pg_catalog.%s;\n", schema, typ, typ)
		}
	}
	b.WriteString("RESET ROLE;\n")
	if _, err := conn.Exec(ctx, b.String()); err != nil {
		t.Fatalf("installing the attacker's overloads in %s: %v", schema, err)
	}
}

// No pgid function runs code of a role that may create objects in a schema
// on the caller's search_path, and every one gives the right answer: with
// the attacker's overloads in public (the default search_path, pg_catalog
// implicitly first; public is writable by everyone up to PostgreSQL 14) and
// in a schema put before pg_catalog ("evil, pg_catalog"), with functions,
// operators and domains named like built-in types. The migrations are
// applied after the attacker moved in, by a connection whose search_path
// is the hostile one.
func TestSearchPathHijack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := connect(t, newDB(t, false), pgx.QueryExecModeCacheStatement)
	attacker := "pgid_mallory_" + randomHex(4)
	if _, err := conn.Exec(ctx, "CREATE ROLE "+attacker); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+attacker); err != nil {
			t.Errorf("drop role %s: %v", attacker, err)
		}
	})
	if _, err := conn.Exec(ctx, fmt.Sprintf(`
		CREATE TABLE public.audit (what text);
		GRANT INSERT ON public.audit TO PUBLIC;
		GRANT CREATE ON SCHEMA public TO %[1]s;
		CREATE SCHEMA evil AUTHORIZATION %[1]s;`, attacker)); err != nil {
		t.Fatal(err)
	}
	// The database is dropped with everything the attacker owns in it, but
	// the role can only go once nothing in the cluster refers to it.
	t.Cleanup(func() {
		if _, err := conn.Exec(context.Background(), "RESET search_path; DROP OWNED BY "+attacker); err != nil {
			var pgErr *pgconn.PgError
			errors.As(err, &pgErr)
			t.Errorf("drop owned by %s: %v: %s", attacker, err, pgErr.Detail)
		}
	})
	installAttacker(t, conn, attacker, "public", false)
	installAttacker(t, conn, attacker, "evil", true)

	if _, err := conn.Exec(ctx, "SET search_path = evil, pg_catalog"); err != nil {
		t.Fatal(err)
	}
	if err := migrations.Up(ctx, conn); err != nil {
		t.Fatalf("Up under search_path evil, pg_catalog: %v", err)
	}
	// The version table's types are qualified: its column is not the
	// attacker's evil.int4 (which would also keep the attacker's role from
	// being dropped).
	var versionType string
	if err := conn.QueryRow(ctx, `SELECT atttypid::pg_catalog.regtype::pg_catalog.text FROM pg_catalog.pg_attribute
		WHERE attrelid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass AND attname OPERATOR(pg_catalog.=) 'version'`,
		migrations.VersionTable).Scan(&versionType); err != nil || versionType != "integer" {
		t.Errorf("%s.version has type %q (%v), want integer (pg_catalog.int4)", migrations.VersionTable, versionType, err)
	}
	var path string
	if err := conn.QueryRow(ctx, "SHOW search_path").Scan(&path); err != nil || path != "evil, pg_catalog" {
		t.Errorf("search_path after Up: %q, %v; want the caller's evil, pg_catalog", path, err)
	}

	covered := map[string]bool{}
	for _, path := range []string{`"$user", public`, "evil, pg_catalog", "evil, public, pg_catalog, pg_temp"} {
		if _, err := conn.Exec(ctx, "SET search_path = "+path); err != nil {
			t.Fatal(err)
		}
		// Plans cached under another search_path are not reused.
		conn.DeallocateAll(ctx)
		checkAllFunctions(t, conn, path, covered)
		var ran []string
		rows, err := conn.Query(ctx, "SELECT what FROM public.audit")
		if err != nil {
			t.Fatal(err)
		}
		ran, err = pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		if len(ran) > 0 {
			n := min(len(ran), 10)
			t.Errorf("search_path %s: the attacker's code ran %d times: %s", path, len(ran), strings.Join(ran[:n], "; "))
			conn.Exec(ctx, "DELETE FROM public.audit")
		}
	}

	// Every function in schema pgid was called above.
	rows, err := conn.Query(ctx, "SELECT proname::pg_catalog.text FROM pg_catalog.pg_proc WHERE pronamespace OPERATOR(pg_catalog.=) 'pgid'::pg_catalog.regnamespace")
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !covered[n] {
			t.Errorf("pgid.%s is not covered by TestSearchPathHijack", n)
		}
	}
	if len(names) != pgidAllFunctions {
		t.Errorf("%d functions in schema pgid, want %d", len(names), pgidAllFunctions)
	}
}

// checkAllFunctions calls every pgid function on random IDs, times, vectors
// and bad input, compares with Go, and records the names it called.
// Its own SQL names only pg_catalog types and no operators, so that the
// attacker's objects can only be reached through pgid's functions.
func checkAllFunctions(t *testing.T, conn *pgx.Conn, path string, covered map[string]bool) {
	t.Helper()
	ctx := context.Background()
	call := func(names ...string) {
		for _, n := range names {
			covered[n] = true
		}
	}

	ids := randomULIDs(300)
	oids := randomObjectIDs(300)
	ts := randomTimes(300)
	texts, hexes, shorts := make([]string, 300), make([]string, 300), make([]string, 300)
	for i := range ids {
		texts[i], hexes[i], shorts[i] = ids[i].String(), oids[i].Hex(), oids[i].Short()
	}
	rows, err := conn.Query(ctx, `
		SELECT pgid.ulid_to_text(u), pgid.ulid_from_text(s), pgid.ulid_from_text(pg_catalog.lower(s)), pgid.ulid_time(u),
		       pgid.ulid_min_at(t), pgid.ulid_max_at(t),
		       pgid.objectid_to_hex(o), pgid.objectid_to_short(o), pgid.objectid_from_hex(h),
		       pgid.objectid_from_hex(pg_catalog.upper(h)), pgid.objectid_from_short(sh), pgid.objectid_time(o),
		       pgid.objectid_min_at(t), pgid.objectid_max_at(t), pgid.ulid_is_v7(u)
		FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.uuid[]), pg_catalog.unnest($2::pg_catalog.text[]),
		                pg_catalog.unnest($3::pg_catalog.bytea[]), pg_catalog.unnest($4::pg_catalog.text[]),
		                pg_catalog.unnest($5::pg_catalog.text[]), pg_catalog.unnest($6::pg_catalog.timestamptz[]))
		     WITH ORDINALITY AS x(u, s, o, h, sh, t, i)
		ORDER BY i`, ids, texts, oids, hexes, shorts, ts)
	if err != nil {
		t.Fatalf("search_path %s: %v", path, err)
	}
	i := 0
	for rows.Next() {
		var text, hex, short string
		var fromText, fromLower, uMin, uMax ulidtype.ULID
		var fromHex, fromUpper, fromShort, oMin, oMax objectidtype.ObjectID
		var uTime, oTime time.Time
		var isV7 bool
		if err := rows.Scan(&text, &fromText, &fromLower, &uTime, &uMin, &uMax,
			&hex, &short, &fromHex, &fromUpper, &fromShort, &oTime, &oMin, &oMax, &isV7); err != nil {
			t.Fatal(err)
		}
		u, o, at := ids[i], oids[i], ts[i]
		if text != u.String() || fromText != u || fromLower != u || !uTime.Equal(u.Timestamp()) ||
			uMin != ulidtype.MinAt(at) || uMax != ulidtype.MaxAt(at) || isV7 != u.IsV7() {
			t.Errorf("search_path %s: ULID %s, time %v: SQL %s %s %s %v %s %s", path, u, at, text, fromText, fromLower, uTime, uMin, uMax)
		}
		if hex != o.Hex() || short != o.Short() || fromHex != o || fromUpper != o || fromShort != o ||
			!oTime.Equal(o.Timestamp()) || oMin != objectidtype.MinAt(at) || oMax != objectidtype.MaxAt(at) {
			t.Errorf("search_path %s: ObjectId %s, time %v: SQL %s %s %s %s %s %v %s %s", path, o, at, hex, short, fromHex, fromUpper, fromShort, oTime, oMin, oMax)
		}
		i++
	}
	if err := rows.Err(); err != nil || i != len(ids) {
		t.Fatalf("search_path %s: %d rows, %v", path, i, err)
	}
	call("ulid_to_text", "ulid_from_text", "ulid_time", "ulid_min_at", "ulid_max_at", "ulid_is_v7",
		"objectid_to_hex", "objectid_to_short", "objectid_from_hex", "objectid_from_short", "objectid_time",
		"objectid_min_at", "objectid_max_at")

	// The generators: a new ID of about now, both read back by Go.
	var u ulidtype.ULID
	var o objectidtype.ObjectID
	var now time.Time
	if err := conn.QueryRow(ctx, "SELECT pgid.gen_ulid(), pgid.gen_objectid(), pg_catalog.statement_timestamp()").Scan(&u, &o, &now); err != nil {
		t.Fatal(err)
	}
	if d := u.Timestamp().Sub(now); d < -time.Millisecond || d > time.Minute {
		t.Errorf("search_path %s: gen_ulid %s at %v, statement at %v", path, u, u.Timestamp(), now)
	}
	if d := o.Timestamp().Sub(now.Truncate(time.Second)); d < 0 || d > time.Minute {
		t.Errorf("search_path %s: gen_objectid %s at %v, statement at %v", path, o, o.Timestamp(), now)
	}
	call("gen_ulid", "gen_objectid")
	// A new value for the database, which the next ID carries.
	var drawn []byte
	var next objectidtype.ObjectID
	if err := conn.QueryRow(ctx, "SELECT pgid.objectid_reseed()").Scan(&drawn); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, "SELECT pgid.gen_objectid()").Scan(&next); err != nil || string(next[4:9]) != string(drawn) {
		t.Errorf("search_path %s: objectid_reseed %x, then gen_objectid %s, %v", path, drawn, next, err)
	}
	call("objectid_reseed")
	var v7 ulidtype.ULID
	var v7ok bool
	if err := conn.QueryRow(ctx, "SELECT g, pgid.ulid_is_v7(g) FROM (SELECT pgid.gen_ulid_v7()) AS x(g)").Scan(&v7, &v7ok); err != nil {
		t.Fatal(err)
	}
	if d := v7.Timestamp().Sub(now); !v7.IsV7() || !v7ok || d < -time.Millisecond || d > time.Minute {
		t.Errorf("search_path %s: gen_ulid_v7 %s (%s) at %v, IsV7 %v, ulid_is_v7 %v", path, v7, v7.UUIDString(), v7.Timestamp(), v7.IsV7(), v7ok)
	}
	call("gen_ulid_v7")

	// The pair table ulid_to_text reads.
	var pairs []byte
	if err := conn.QueryRow(ctx, "SELECT pgid._crockford_pairs()").Scan(&pairs); err != nil {
		t.Error(err)
	}
	const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	var want []byte
	for v := range 1024 {
		want = append(want, crockford[v>>5], crockford[v&31])
	}
	if string(pairs) != string(want) {
		t.Errorf("search_path %s: pgid._crockford_pairs() differs from the Crockford pairs", path)
	}
	call("_crockford_pairs")

	// The alphabet objectid_to_short reads.
	var alphabet []byte
	if err := conn.QueryRow(ctx, "SELECT pgid._short_alphabet()").Scan(&alphabet); err != nil {
		t.Error(err)
	}
	if string(alphabet) != objectidtype.ShortAlphabet {
		t.Errorf("search_path %s: pgid._short_alphabet() %q, want %q", path, alphabet, objectidtype.ShortAlphabet)
	}
	call("_short_alphabet")

	// The error path: pgid._parse_error, through each parser.
	for _, c := range []struct{ fn, in, want string }{
		{"ulid_from_text", "01ARZ3NDEKTSV4RRFFQ69G5FAU", `invalid ULID "01ARZ3NDEKTSV4RRFFQ69G5FAU": invalid character 'U' at position 25`},
		{"ulid_from_text", "8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "overflows 128 bits"},
		{"objectid_from_hex", "4e7020cb7cac81af7136236", "length 23 bytes"},
		{"objectid_from_short", "jD0w.TOIwqZNdydH", "invalid character '.' at position 4"},
	} {
		var out any
		err := conn.QueryRow(ctx, "SELECT pgid."+c.fn+"($1)", c.in).Scan(&out)
		if sqlState(err) != "22P02" || !strings.Contains(err.Error(), c.want) {
			t.Errorf("search_path %s: %s(%q): %v, want 22P02 saying %q", path, c.fn, c.in, err, c.want)
		}
	}
	call("_parse_error")

	checkTypeIDFunctions(t, conn, path)
	call("typeid_text", "typeid_uuid", "_typeid_error", "_typeid_quote_byte")

	checkPartitionFunctions(t, conn, path)
	call("partition_width", "partition_range", "partition_name", "partition_lock_key", "partition_key_kind",
		"ensure_partitions", "list_partitions", "expired_partitions",
		"retire_partition", "partition_span", "partition_ddl_lock", "default_partition_rows",
		"_utc_text", "_partition_bound", "_partition_key", "_id_time", "_retire_fk_cond", "_retire_walk", "_retire_verdict",
		"_retire_run", "_ensure_create", "_ensure_overlap", "_ensure_default_free", "_ensure_retire", "_ensure_default")

	checkTailFunctions(t, conn, path)
	call("tail_enable", "tail_disable", "tail_config", "tail_writers", "tail_guard_ulid", "tail_guard_objectid", "_tail_refuse",
		"_tail_check", "_tail_raise", "tail_poll", "tail_below", "_tail_applying", "_tail_subscribed", "_tail_citus")
}

// checkTailFunctions sets up a ULID and an ObjectId table for tailing,
// inserts a fresh and a refused ID into each, tails the fresh one with a
// Tailer, and removes the set-up again: 008's functions and triggers.
func checkTailFunctions(t *testing.T, conn *pgx.Conn, path string) {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `DROP TABLE IF EXISTS public.hijack_tail_u, public.hijack_tail_o;
		CREATE TABLE public.hijack_tail_u (id pgid.ulid PRIMARY KEY, n pg_catalog.int4);
		CREATE TABLE public.hijack_tail_o (id pgid.objectid PRIMARY KEY, n pg_catalog.int4)`); err != nil {
		t.Fatalf("search_path %s: %v", path, err)
	}
	old := time.Now().Add(-time.Minute)
	for _, c := range []struct {
		table      string
		fresh, old any
	}{
		{"public.hijack_tail_u", ulidtype.New(), ulidtype.MinAt(old)},
		{"public.hijack_tail_o", objectidtype.New(), objectidtype.MinAt(old)},
	} {
		if err := tail.Enable(ctx, conn, c.table, time.Second); err != nil {
			t.Fatalf("search_path %s: %v", path, err)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO "+c.table+" (id, n) VALUES ($1, 1)", c.fresh); err != nil {
			t.Errorf("search_path %s: %s: fresh ID: %v", path, c.table, err)
		}
		_, err := conn.Exec(ctx, "INSERT INTO "+c.table+" (id, n) VALUES ($1, 2)", c.old)
		if !tail.IsTooOld(err) || !strings.Contains(err.Error(), "is older than the database clock at INSERT minus the tail lead of 1 s") {
			t.Errorf("search_path %s: %s: old ID: %v, want PGI20", path, c.table, err)
		}
	}
	tl, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: "public.hijack_tail_u"})
	if err != nil {
		t.Fatal(err)
	}
	var rows []tail.Row[ulidtype.ULID]
	for deadline := time.Now().Add(10 * time.Second); len(rows) == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if rows, err = tl.Next(ctx); err != nil {
			t.Fatalf("search_path %s: Tailer: %v", path, err)
		}
	}
	if len(rows) != 1 || !strings.Contains(string(rows[0].JSON), `"n":1`) {
		t.Errorf("search_path %s: Tailer read %v", path, rows)
	}
	// What a Tailer asks each poll, and what it asks of a partition attached
	// while it reads, called directly: the setup check finds nothing wrong,
	// the poll reports the table and its lead, and the probe of a partition
	// sees a row equal to the cursor only when asked for "or equal".
	var problems int
	if err := conn.QueryRow(ctx, `SELECT pg_catalog.count(*) FROM pgid._tail_check('public.hijack_tail_u'::pg_catalog.regclass,
		'pgid.tail_guard_ulid()'::pg_catalog.regprocedure, $1::pg_catalog.bytea)`, []byte("1\x00")).Scan(&problems); err != nil || problems != 0 {
		t.Errorf("search_path %s: _tail_check: %d problems, %v; want none", path, problems, err)
	}
	if _, err := conn.Exec(ctx, `SELECT pgid._tail_raise('public.hijack_tail_u'::pg_catalog.regclass,
		'pgid.tail_guard_ulid()'::pg_catalog.regprocedure, $1::pg_catalog.bytea)`, []byte("1\x00")); err != nil {
		t.Errorf("search_path %s: _tail_raise on a sound setup: %v", path, err)
	}
	// Not a logical replication worker (TestLogicalReplication has one),
	// also with session_replication_role = replica set by the session.
	var applying bool
	if err := conn.QueryRow(ctx, "SELECT pgid._tail_applying()").Scan(&applying); err != nil || applying {
		t.Errorf("search_path %s: _tail_applying() = %v, %v; want false", path, applying, err)
	}
	var lead time.Duration
	var names []string
	var busy bool
	if err := conn.QueryRow(ctx, "SELECT max_lead, names, busy FROM pgid.tail_poll('public.hijack_tail_u'::pg_catalog.regclass)").
		Scan(&lead, &names, &busy); err != nil || lead != time.Second || len(names) != 1 || busy {
		t.Errorf("search_path %s: tail_poll: lead %v, names %v, busy %v, %v; want 1s, the table, not busy", path, lead, names, busy, err)
	}
	at := ulidtype.MinAt(time.Now())
	if _, err := conn.Exec(ctx, `DROP TABLE IF EXISTS public.hijack_tail_p;
		CREATE TABLE public.hijack_tail_p (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id);
		CREATE TABLE public.hijack_tail_p_all PARTITION OF public.hijack_tail_p DEFAULT`); err != nil {
		t.Fatalf("search_path %s: %v", path, err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO public.hijack_tail_p (id) VALUES ($1)", at); err != nil {
		t.Fatalf("search_path %s: %v", path, err)
	}
	var orEqual, below bool
	if err := conn.QueryRow(ctx, `SELECT pgid.tail_below('public.hijack_tail_p'::pg_catalog.regclass, 'public.hijack_tail_p_all'::pg_catalog.regclass, $1::pg_catalog.uuid, true),
		pgid.tail_below('public.hijack_tail_p'::pg_catalog.regclass, 'public.hijack_tail_p_all'::pg_catalog.regclass, $1::pg_catalog.uuid, false)`, at).
		Scan(&orEqual, &below); err != nil || !orEqual || below {
		t.Errorf("search_path %s: tail_below at the row's id: or equal %v, below %v, %v; want true, false", path, orEqual, below, err)
	}
	if _, err := conn.Exec(ctx, "DROP TABLE public.hijack_tail_p"); err != nil {
		t.Errorf("search_path %s: %v", path, err)
	}
	for _, table := range []string{"public.hijack_tail_u", "public.hijack_tail_o"} {
		if err := tail.Disable(ctx, conn, table); err != nil {
			t.Errorf("search_path %s: %v", path, err)
		}
	}
}

// checkPartitionFunctions runs 004's functions on a table partitioned by
// ULID and checks their results against Go's bounds.
func checkPartitionFunctions(t *testing.T, conn *pgx.Conn, path string) {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.Exec(ctx, `DROP TABLE IF EXISTS public.hijack_parts;
		CREATE TABLE public.hijack_parts (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id)`); err != nil {
		t.Fatalf("search_path %s: %v", path, err)
	}
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	at := day.Add(13 * time.Hour)
	rows, err := conn.Query(ctx, `SELECT action, partition, lower, upper FROM pgid.ensure_partitions(
		'public.hijack_parts'::pg_catalog.regclass, '1 day'::pg_catalog.interval, 1, NULL, 'drop', $1::pg_catalog.timestamptz)`, at)
	if err != nil {
		t.Fatalf("search_path %s: ensure_partitions: %v", path, err)
	}
	type step struct {
		Action, Partition string
		Lower, Upper      time.Time
	}
	steps, err := pgx.CollectRows(rows, pgx.RowToStructByPos[step])
	if err != nil {
		t.Fatalf("search_path %s: ensure_partitions: %v", path, err)
	}
	if len(steps) != 2 || steps[0].Partition != "public.hijack_parts_p20260301" || steps[1].Partition != "public.hijack_parts_p20260302" ||
		!steps[0].Lower.Equal(day) || !steps[1].Upper.Equal(day.Add(48*time.Hour)) {
		t.Errorf("search_path %s: ensure_partitions made %+v", path, steps)
	}
	var from, to string
	var n int64
	if err := conn.QueryRow(ctx, `SELECT from_bound, to_bound, pg_catalog.count(*) OVER ()
		FROM pgid.list_partitions('public.hijack_parts'::pg_catalog.regclass) LIMIT 1`).Scan(&from, &to, &n); err != nil {
		t.Fatalf("search_path %s: list_partitions: %v", path, err)
	}
	if n != 2 || from != ulidtype.MinAt(day).UUIDString() || to != ulidtype.MinAt(day.Add(24*time.Hour)).UUIDString() {
		t.Errorf("search_path %s: list_partitions: %d partitions, first [%s, %s)", path, n, from, to)
	}
	if err := conn.QueryRow(ctx, `SELECT pg_catalog.count(*) FROM pgid.expired_partitions(
		'public.hijack_parts'::pg_catalog.regclass, '1 day'::pg_catalog.interval, $1::pg_catalog.timestamptz)`, day.Add(72*time.Hour)).Scan(&n); err != nil || n != 2 {
		t.Errorf("search_path %s: expired_partitions: %d, %v; want 2", path, n, err)
	}
	var months int32
	var seconds int64
	var lower, upper time.Time
	var name, kind string
	var key, oid int64
	if err := conn.QueryRow(ctx, `SELECT w.months, w.seconds, r.lower, r.upper,
			pgid.partition_name('hijack_parts', '1 day'::pg_catalog.interval, $1::pg_catalog.timestamptz),
			pgid.partition_key_kind('public.hijack_parts'::pg_catalog.regclass),
			pgid.partition_lock_key('public.hijack_parts'::pg_catalog.regclass),
			'public.hijack_parts'::pg_catalog.regclass::pg_catalog.oid::pg_catalog.int8
		FROM pgid.partition_width('1 week'::pg_catalog.interval) w,
		     pgid.partition_range('1 month'::pg_catalog.interval, $1::pg_catalog.timestamptz) r`, at).
		Scan(&months, &seconds, &lower, &upper, &name, &kind, &key, &oid); err != nil {
		t.Fatalf("search_path %s: partition helpers: %v", path, err)
	}
	if months != 0 || seconds != 7*24*3600 || !lower.Equal(day) || !upper.Equal(day.AddDate(0, 1, 0)) ||
		name != "hijack_parts_p20260301" || kind != "ulid" || uint32(key) != uint32(oid) {
		t.Errorf("search_path %s: partition helpers: width %d months %d s, range [%v, %v), name %q, kind %q, lock key %d for OID %d",
			path, months, seconds, lower, upper, name, kind, key, oid)
	}

	// 006: a tag (ON DELETE CASCADE) on the 1st, the 1st retired with it;
	// a row in a DEFAULT partition; the span rules; the DDL locks.
	if _, err := conn.Exec(ctx, `CREATE TABLE public.hijack_tags (id pgid.ulid REFERENCES public.hijack_parts ON DELETE CASCADE);
		CREATE TABLE public.hijack_parts_default PARTITION OF public.hijack_parts DEFAULT`); err != nil {
		t.Fatalf("search_path %s: %v", path, err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO public.hijack_parts VALUES ($1::pg_catalog.uuid), ($2::pg_catalog.uuid)`,
		ulidtype.MinAt(at), ulidtype.MinAt(day.AddDate(0, 1, 0))); err != nil {
		t.Fatalf("search_path %s: %v", path, err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO public.hijack_tags VALUES ($1::pg_catalog.uuid)`, ulidtype.MinAt(at)); err != nil {
		t.Fatalf("search_path %s: %v", path, err)
	}
	var action, retired string
	var tags, inDefault int64
	if err := conn.QueryRow(ctx, `SELECT r.action, r.partition, (SELECT d.row_count FROM pgid.default_partition_rows('public.hijack_parts'::pg_catalog.regclass) d),
			s.months, s.seconds
		FROM pgid.retire_partition('public.hijack_parts'::pg_catalog.regclass, 'public.hijack_parts_p20260301',
		                           '1 day'::pg_catalog.interval, 'drop', $1::pg_catalog.timestamptz) r,
		     pgid.partition_span('retention', '2 years'::pg_catalog.interval) s`, day.Add(72*time.Hour)).
		Scan(&action, &retired, &inDefault, &months, &seconds); err != nil {
		t.Fatalf("search_path %s: retire_partition: %v", path, err)
	}
	if err := conn.QueryRow(ctx, "SELECT pg_catalog.count(*) FROM public.hijack_tags").Scan(&tags); err != nil {
		t.Fatal(err)
	}
	if action != "dropped" || retired != "public.hijack_parts_p20260301" || tags != 0 || inDefault != 1 || months != 24 || seconds != 0 {
		t.Errorf("search_path %s: retire_partition %s %s, %d tags left, %d rows in default, span %d months %d s", path, action, retired, tags, inDefault, months, seconds)
	}
	if _, err := conn.Exec(ctx, "SELECT pgid.partition_ddl_lock('public.hijack_parts'::pg_catalog.regclass)"); err != nil {
		t.Errorf("search_path %s: partition_ddl_lock: %v", path, err)
	}
	// ensure_partitions through all its steps: the 4th made, the 2nd (expired,
	// unreferenced) dropped, the row in the DEFAULT partition reported.
	rows, err = conn.Query(ctx, `SELECT action, partition, lower, upper FROM pgid.ensure_partitions(
		'public.hijack_parts'::pg_catalog.regclass, '1 day'::pg_catalog.interval, 0, '1 day'::pg_catalog.interval, 'drop',
		$1::pg_catalog.timestamptz)`, day.Add(72*time.Hour))
	if err != nil {
		t.Fatalf("search_path %s: ensure_partitions: %v", path, err)
	}
	if steps, err = pgx.CollectRows(rows, pgx.RowToStructByPos[step]); err != nil {
		t.Fatalf("search_path %s: ensure_partitions: %v", path, err)
	}
	month := day.AddDate(0, 1, 0)
	if len(steps) != 3 || steps[0].Action != "created" || steps[0].Partition != "public.hijack_parts_p20260304" ||
		!steps[0].Lower.Equal(day.Add(72*time.Hour)) || !steps[0].Upper.Equal(day.Add(96*time.Hour)) ||
		steps[1].Action != "dropped" || steps[1].Partition != "public.hijack_parts_p20260302" ||
		steps[2].Action != "default" || steps[2].Partition != "public.hijack_parts_default" || !steps[2].Lower.Equal(month) || !steps[2].Upper.Equal(month) {
		t.Errorf("search_path %s: ensure_partitions with retention: %+v", path, steps)
	}
	if _, err := conn.Exec(ctx, "DROP TABLE public.hijack_tags, public.hijack_parts"); err != nil {
		t.Fatal(err)
	}
}
