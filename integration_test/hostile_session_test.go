package integration_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

// hostileSessions are session settings an application may run with. Each
// is sent in the startup packet, so it holds before the first call of a
// pgid function: plpgsql compiles a function under the settings of its
// first call and keeps it for the session.
var hostileSessions = []map[string]string{
	{
		"standard_conforming_strings": "off", "escape_string_warning": "off",
		"DateStyle": "SQL, DMY", "IntervalStyle": "sql_standard", "TimeZone": "Pacific/Kiritimati",
		"bytea_output": "escape", "extra_float_digits": "-15", "lc_messages": "C",
	},
	{
		"standard_conforming_strings": "off", "escape_string_warning": "on",
		"DateStyle": "German, DMY", "IntervalStyle": "iso_8601", "TimeZone": "America/St_Johns",
		"bytea_output": "escape", "extra_float_digits": "3", "lc_messages": "C.UTF-8",
	},
}

// sessionCall is one call of a pgid function: SQL whose {p} is replaced by
// the run's table prefix, and its arguments (bound in binary, so the
// session's input formats do not matter).
type sessionCall struct {
	sql  string
	args []any
}

// Every pgid function, listed from pg_proc, gives the same results and
// errors whatever the caller's session settings: in a session that starts
// with hostile settings, again after RESET ALL in that session, and after
// setting them again with SET, compared with a clean session. The
// functions that change tables (ensure_partitions, retire_partition,
// partition_ddl_lock) run on tables of their own in each run, made the same
// way.
func TestSessionIndependence(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := newDB(t, true)
	setup := connect(t, dsn, pgx.QueryExecModeCacheStatement)

	at := time.Date(2026, 11, 22, 13, 4, 5, 0, time.UTC)
	u := ulidtype.MustParse("01KAP6Z1ZE3W5Q7V2N8M4K9HXA")
	o := objectidtype.MustParse("4e7020cb7cac81af7136236b")
	mustExec(t, setup, `CREATE TABLE shared_u (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id);
		CREATE TABLE shared_o (id pgid.objectid PRIMARY KEY) PARTITION BY RANGE (id);
		SELECT pgid.ensure_partitions('shared_u', '1 day', 2, at => '2026-11-20Z');
		SELECT pgid.ensure_partitions('shared_o', '1 day', 2, at => '2026-11-20Z');
		CREATE TABLE shared_u_default PARTITION OF shared_u DEFAULT;
		INSERT INTO shared_u VALUES (pgid.ulid_min_at('2026-11-21 10:00Z')), (pgid.ulid_min_at('2026-12-01Z'));
		INSERT INTO shared_o VALUES (pgid.objectid_min_at('2026-11-21 10:00Z'));
		ANALYZE shared_u; ANALYZE shared_o;
		CREATE TABLE shared_tail_u (id pgid.ulid PRIMARY KEY);
		CREATE TABLE shared_tail_o (id pgid.objectid PRIMARY KEY);
		SELECT pgid.tail_enable('shared_tail_u', '2.5 s'), pgid.tail_enable('shared_tail_o', '1 s')`)

	// Tables of a run: ULID and ObjectId parents with a DEFAULT partition
	// holding a row, daily partitions from the 18th to the 22nd with a row
	// each, a tag (ON DELETE CASCADE) on the 18th and a note (NO ACTION) on
	// the 19th.
	makeTables := func(p string) {
		for _, k := range []struct{ suffix, typ, minAt string }{{"u", "pgid.ulid", "pgid.ulid_min_at"}, {"o", "pgid.objectid", "pgid.objectid_min_at"}} {
			mustExec(t, setup, strings.NewReplacer("{t}", p+k.suffix, "{typ}", k.typ, "{min}", k.minAt).Replace(`
				CREATE TABLE {t} (id {typ} PRIMARY KEY) PARTITION BY RANGE (id);
				CREATE TABLE {t}_default PARTITION OF {t} DEFAULT;
				SELECT pgid.ensure_partitions('{t}', '1 day', 4, at => '2026-11-18Z');
				INSERT INTO {t} SELECT {min}(d + interval '1 hour') FROM generate_series(timestamptz '2026-11-18Z', '2026-11-22Z', '1 day') d;
				INSERT INTO {t} VALUES ({min}('2026-12-24Z'));
				CREATE TABLE {t}_tags (id {typ} REFERENCES {t} ON DELETE CASCADE);
				CREATE TABLE {t}_notes (id {typ} REFERENCES {t});
				CREATE TABLE {t}_tail (id {typ} PRIMARY KEY);
				INSERT INTO {t}_tags VALUES ({min}('2026-11-18 01:00Z'));
				INSERT INTO {t}_notes VALUES ({min}('2026-11-19 01:00Z'))`))
		}
	}

	day := "1 day"
	calls := map[string][]sessionCall{
		"pgid._parse_error(text,text)": {{"SELECT pgid._parse_error('ulid', $1)", []any{"bad\n\"ULID\\\u00e9"}}, {"SELECT pgid._parse_error('short', $1)", []any{"x"}}},
		"pgid._crockford_pairs()":      {{"SELECT pgid._crockford_pairs()", nil}},
		"pgid._short_alphabet()":       {{"SELECT pgid._short_alphabet()", nil}},
		"pgid.ulid_time(uuid)":         {{"SELECT pgid.ulid_time($1)", []any{u}}},
		"pgid.ulid_to_text(uuid)":      {{"SELECT pgid.ulid_to_text($1)", []any{u}}},
		"pgid.ulid_from_text(text)": {{"SELECT pgid.ulid_from_text($1)", []any{u.String()}}, {"SELECT pgid.ulid_from_text($1)", []any{strings.ToLower(u.String())}},
			{"SELECT pgid.ulid_from_text($1)", []any{"01KAP6Z1ZE3W5Q7V2N8M4K9HXI"}}, {"SELECT pgid.ulid_from_text($1)", []any{`\x01`}}},
		"pgid.ulid_min_at(timestamp with time zone)": {{"SELECT pgid.ulid_min_at($1)", []any{at}}},
		"pgid.ulid_max_at(timestamp with time zone)": {{"SELECT pgid.ulid_max_at($1)", []any{at}}},
		"pgid.gen_ulid()": {{"SELECT pgid.ulid_time(g) BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '1 minute', " +
			"octet_length(uuid_send(g)) FROM pgid.gen_ulid() g", nil}},
		"pgid.objectid_time(bytea)":   {{"SELECT pgid.objectid_time($1)", []any{o}}},
		"pgid.objectid_to_hex(bytea)": {{"SELECT pgid.objectid_to_hex($1)", []any{o}}},
		"pgid.objectid_from_hex(text)": {{"SELECT pgid.objectid_from_hex($1)", []any{o.String()}}, {"SELECT pgid.objectid_from_hex($1)", []any{`\x4e7020cb7cac81af7136236b`}},
			{"SELECT pgid.objectid_from_hex($1)", []any{"4e7020cb7cac81af7136236g"}}},
		"pgid.objectid_to_short(bytea)":                  {{"SELECT pgid.objectid_to_short($1)", []any{o}}},
		"pgid.objectid_from_short(text)":                 {{"SELECT pgid.objectid_from_short($1)", []any{o.Short()}}, {"SELECT pgid.objectid_from_short($1)", []any{`jD0wOTOIwqZNdy\H`}}},
		"pgid.objectid_min_at(timestamp with time zone)": {{"SELECT pgid.objectid_min_at($1)", []any{at}}},
		"pgid.objectid_max_at(timestamp with time zone)": {{"SELECT pgid.objectid_max_at($1)", []any{at}}},
		"pgid.gen_objectid()": {{"SELECT pgid.objectid_time(g) BETWEEN date_trunc('second', now()) - interval '1 minute' AND clock_timestamp() + interval '1 minute', " +
			"octet_length(g) FROM pgid.gen_objectid() g", nil}},
		"pgid.objectid_reseed()": {{"SELECT octet_length(pgid.objectid_reseed())", nil}},
		"pgid.gen_ulid_v7()":     {{"SELECT pgid.ulid_is_v7(g), pgid.ulid_time(g) BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '1 minute' FROM pgid.gen_ulid_v7() g", nil}},
		"pgid.ulid_is_v7(uuid)":  {{"SELECT pgid.ulid_is_v7($1)", []any{u}}},
		"pgid.typeid_text(text,uuid)": {{"SELECT pgid.typeid_text('user', $1)", []any{u}}, {"SELECT pgid.typeid_text('', $1)", []any{u}},
			{"SELECT pgid.typeid_text('User', $1)", []any{u}}},
		"pgid.typeid_uuid(text,text)": {{"SELECT pgid.typeid_uuid($1, 'user')", []any{"user_01kap6z1ze3w5q7v2n8m4k9hxa"}},
			{"SELECT pgid.typeid_uuid($1, 'user')", []any{"user_01kap6z1ze3w5q7v2n8m4k9hx\n"}}, {"SELECT pgid.typeid_uuid($1, 'user')", []any{"us\u00e9r_01kap6z1ze3w5q7v2n8m4k9hxa"}}},
		"pgid._typeid_error(text,text)":    {{"SELECT pgid._typeid_error($1, 'user')", []any{"order_\"x\\"}}},
		"pgid._typeid_quote_byte(integer)": {{"SELECT pgid._typeid_quote_byte(10), pgid._typeid_quote_byte(39), pgid._typeid_quote_byte(92), pgid._typeid_quote_byte(200)", nil}},
		"pgid.partition_width(interval)": {{"SELECT * FROM pgid.partition_width($1::interval)", []any{"3 months"}}, {"SELECT * FROM pgid.partition_width($1::interval)", []any{"36 hours"}},
			{"SELECT * FROM pgid.partition_width($1::interval)", []any{"1 month 1 day"}}, {"SELECT * FROM pgid.partition_width($1::interval)", []any{"-2 days"}}},
		"pgid.partition_range(interval,timestamp with time zone)": {{"SELECT * FROM pgid.partition_range($1::interval, $2)", []any{"1 week", at}},
			{"SELECT * FROM pgid.partition_range($1::interval, $2)", []any{"1 month", at}}, {"SELECT * FROM pgid.partition_range($1::interval, $2)", []any{"90 seconds", at}}},
		"pgid.partition_name(text,interval,timestamp with time zone)": {{"SELECT pgid.partition_name('events', $1::interval, $2)", []any{"1 week", at}},
			{"SELECT pgid.partition_name('events', $1::interval, $2)", []any{"6 hours", at}}, {"SELECT pgid.partition_name($3, $1::interval, $2)", []any{day, at, strings.Repeat("é", 31)}}},
		"pgid.partition_lock_key(regclass)": {{"SELECT pgid.partition_lock_key('shared_u') = 'shared_u'::regclass::oid::int", nil}},
		"pgid.partition_key_kind(regclass)": {{"SELECT pgid.partition_key_kind('shared_u'), pgid.partition_key_kind('shared_o')", nil},
			{"SELECT pgid.partition_key_kind('pg_class')", nil}},
		"pgid.list_partitions(regclass)": {{"SELECT partition::text, is_default, lower, upper, from_bound, to_bound, row_estimate FROM pgid.list_partitions('shared_u')", nil},
			{"SELECT partition::text, is_default, lower, upper, from_bound, to_bound, row_estimate FROM pgid.list_partitions('shared_o')", nil}},
		"pgid.expired_partitions(regclass,interval,timestamp with time zone)": {{"SELECT partition::text, lower, upper FROM pgid.expired_partitions('shared_o', $1::interval, $2)", []any{day, at}},
			{"SELECT partition::text, lower, upper FROM pgid.expired_partitions('shared_u', $1::interval, $2)", []any{"1 day -1 month", at}}},
		"pgid.tail_config(regclass)": {{"SELECT * FROM pgid.tail_config('shared_tail_u')", nil}, {"SELECT * FROM pgid.tail_config('shared_tail_o')", nil},
			{"SELECT * FROM pgid.tail_config('pg_class')", nil}},
		"pgid.tail_disable(regclass)": {{"SELECT pgid.tail_disable('{p}o_tail')", nil}},
		"pgid.tail_enable(regclass,interval)": {{"SELECT pgid.tail_enable('{p}u_tail', $1::interval)", []any{"1.5 seconds"}},
			{"SELECT pgid.tail_enable('{p}o_tail', $1::interval)", []any{"2 days"}}, {"SELECT pgid.tail_enable('{p}o_tail', $1::interval)", []any{"0"}},
			{"SELECT pgid.tail_enable('pg_class', $1::interval)", []any{"1 s"}}, {"SELECT pgid.tail_enable('{p}u', $1::interval)", []any{"1 s"}}},
		"pgid.tail_guard_ulid()": {{"INSERT INTO shared_tail_u VALUES (pgid.gen_ulid_v7()) RETURNING pgid.ulid_time(id) > now() - interval '1 minute'", nil},
			{"INSERT INTO shared_tail_u VALUES ($1)", []any{u}}},
		"pgid.tail_guard_objectid()": {{"INSERT INTO shared_tail_o VALUES (pgid.gen_objectid()) RETURNING pgid.objectid_time(id) > now() - interval '1 minute'", nil},
			{"INSERT INTO shared_tail_o VALUES ($1)", []any{o}}},
		"pgid._tail_refuse(text,text,text,timestamp with time zone,text,boolean)": {{"SELECT pgid._tail_refuse('public', 'ev', 'X', $1, '2.5', true)", []any{at}},
			{"SELECT pgid._tail_refuse('public', 'ev', NULL, NULL, '1', false)", nil}},
		"pgid.tail_writers()": {{"SELECT observed_at <= clock_timestamp(), cardinality(xids) = cardinality(starts) FROM pgid.tail_writers()", nil}},
		"pgid.tail_poll(regclass)": {{"SELECT observed_at <= clock_timestamp(), cardinality(xids) = cardinality(starts), max_lead, names, attached, cardinality(triggers), busy FROM pgid.tail_poll('shared_tail_u')", nil},
			{"SELECT max_lead FROM pgid.tail_poll('shared_u')", nil}},
		"pgid.tail_below(regclass,regclass,anyelement,boolean)": {{"SELECT pgid.tail_below('shared_u', 'shared_u_default', $1::uuid, true), pgid.tail_below('shared_u', 'shared_u_default', $2::uuid, false)", []any{ulidtype.MaxAt(at.AddDate(0, 1, 0)), ulidtype.MinAt(at.AddDate(0, 0, 9))}}},
		"pgid._tail_check(regclass,oid,bytea)":                  {{"SELECT * FROM pgid._tail_check('shared_tail_u', 'pgid.tail_guard_objectid()'::regprocedure, $1)", []any{[]byte("1\x00")}}},
		"pgid._tail_applying()":                                 {{"SELECT pgid._tail_applying()", nil}},
		"pgid._tail_citus(regclass)":                            {{"SELECT pgid._tail_citus('shared_tail_u')", nil}},
		"pgid._tail_subscribed(regclass)":                       {{"SELECT count(*) FROM pgid._tail_subscribed('shared_tail_u')", nil}},
		"pgid._tail_raise(regclass,oid,bytea)": {{"SELECT pgid._tail_raise('shared_tail_u', 'pgid.tail_guard_ulid()'::regprocedure, $1)", []any{[]byte("2.5\x00")}},
			{"SELECT pgid._tail_raise('shared_tail_u', 'pgid.tail_guard_ulid()'::regprocedure, $1)", []any{[]byte("3\x00")}}},
		"pgid.partition_span(text,interval)": {{"SELECT * FROM pgid.partition_span('retention', $1::interval)", []any{"30 days"}},
			{"SELECT * FROM pgid.partition_span('retention', $1::interval)", []any{"1 year 2 months"}},
			{"SELECT * FROM pgid.partition_span('retention', $1::interval)", []any{"1 month 2 days"}},
			{"SELECT * FROM pgid.partition_span('width', $1::interval)", []any{"1001 years"}}},
		"pgid.default_partition_rows(regclass)": {{"SELECT partition::text, row_count, oldest, newest FROM pgid.default_partition_rows('shared_u')", nil}},
		"pgid.ensure_partitions(regclass,interval,integer,interval,text,timestamp with time zone)": {
			{"SELECT * FROM pgid.ensure_partitions('{p}u', $1::interval, 2, $2::interval, 'drop', $3)", []any{day, "3 days", time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)}},
			{"SELECT * FROM pgid.ensure_partitions('{p}o', $1::interval, 2, $2::interval, 'detach', $3)", []any{day, "3 days", time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)}},
			{"SELECT * FROM pgid.ensure_partitions('{p}u', $1::interval, 1, $2::interval, 'shred', $3)", []any{day, "3 days", at}},
		},
		"pgid.retire_partition(regclass,regclass,interval,text,timestamp with time zone,boolean,boolean)": {
			{"SELECT * FROM pgid.retire_partition('{p}u', 'public.{p}u_p20261120', $1::interval, 'drop', $2, true)", []any{day, time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)}},
			{"SELECT * FROM pgid.retire_partition('{p}u', 'public.{p}u_p20261119', $1::interval, 'drop', $2)", []any{day, time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)}},
		},
		"pgid.partition_ddl_lock(regclass,regclass)": {{"SELECT pgid.partition_ddl_lock('{p}o', 'public.{p}o_p20261122')", nil}},
		// The internal steps and helpers of the partition functions.
		"pgid._utc_text(timestamp with time zone)":             {{"SELECT pgid._utc_text($1)", []any{at}}},
		"pgid._partition_bound(text,timestamp with time zone)": {{"SELECT pgid._partition_bound('ulid', $1), pgid._partition_bound('objectid', $1)", []any{at}}},
		"pgid._partition_key(text,text)":                       {{"SELECT pgid._partition_key('ulid', pgid._partition_bound('ulid', $1)), pgid._partition_key('objectid', pgid._partition_bound('objectid', $1))", []any{at}}},
		"pgid._id_time(text,text)":                             {{"SELECT pgid._id_time('ulid', $1), pgid._id_time('objectid', $2)", []any{u.UUIDString(), `\x` + o.Hex()}}},
		"pgid._ensure_create(regclass,interval,integer,timestamp with time zone)": {{"SELECT * FROM pgid._ensure_create('{p}o', $1::interval, 0, $2)", []any{day, time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)}},
			{"SELECT * FROM pgid._ensure_create('{p}u', $1::interval, 0, $2)", []any{day, time.Date(2026, 12, 24, 1, 0, 0, 0, time.UTC)}}},
		"pgid._ensure_overlap(regclass,text,regclass[],text[],text[],bytea[],bytea[],text,text,timestamp with time zone,timestamp with time zone)": {
			{"SELECT pgid._ensure_overlap('shared_u', 'ulid', ARRAY['shared_u_default']::regclass[], ARRAY[pgid._partition_bound('ulid', $1)], ARRAY[NULL::text], " +
				"ARRAY[pgid._partition_key('ulid', pgid._partition_bound('ulid', $1))], ARRAY[NULL::bytea], pgid._partition_bound('ulid', $1), pgid._partition_bound('ulid', $2), $1, $2)", []any{at, at.AddDate(0, 0, 1)}},
			{"SELECT pgid._ensure_overlap('shared_u', 'ulid', '{}', '{}', '{}', '{}', '{}', pgid._partition_bound('ulid', $1), NULL, $1, $2)", []any{at, at.AddDate(0, 0, 1)}}},
		"pgid._ensure_default_free(regclass,regclass,name,text,text,text,timestamp with time zone,timestamp with time zone,text)": {
			{"SELECT pgid._ensure_default_free('shared_u', 'shared_u_default', 'id', 'uuid', pgid._partition_bound('ulid', $1), NULL, $1, $2, 'new')", []any{time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), at.AddDate(1, 0, 0)}},
			{"SELECT pgid._ensure_default_free('shared_u', 'shared_u_default', 'id', 'uuid', pgid._partition_bound('ulid', $1), pgid._partition_bound('ulid', $2), $1, $2, 'new')", []any{at, at.AddDate(0, 0, 1)}}},
		"pgid._ensure_retire(regclass,interval,text,timestamp with time zone)": {{"SELECT * FROM pgid._ensure_retire('{p}o', $1::interval, 'detach', $2)", []any{"3 days", time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC)}}},
		"pgid._ensure_default(regclass)":                                       {{"SELECT * FROM pgid._ensure_default('shared_u')", nil}},
		"pgid._retire_fk_cond(regclass,regclass,regclass,smallint[],smallint[],oid,integer,smallint,text,text,text)": {
			{"SELECT pgid._retire_fk_cond('shared_u', 'shared_u_default', 'shared_u', '{1}', '{1}', 'shared_u'::regclass, 0, 1::smallint, 'uuid', NULL, $1)", []any{u.UUIDString()}},
			{"SELECT pgid._retire_fk_cond('shared_u', 'shared_u_default', 'shared_u', '{1}', '{1}', 'shared_u'::regclass, 1, 1::smallint, 'uuid', NULL, $1)", []any{u.UUIDString()}}},
		"pgid._retire_walk(regclass,regclass,smallint,name,text,text,text,text)": {
			{"SELECT * FROM pgid._retire_walk('{p}u', 'public.{p}u_p20261119', 1::smallint, 'id', 'uuid', pgid._partition_bound('ulid', $1), pgid._partition_bound('ulid', $2), 'false')", []any{time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}}},
		"pgid._retire_verdict(regclass,timestamp with time zone,jsonb,text[],text[],boolean)": {
			{"SELECT * FROM pgid._retire_verdict('shared_u', $1, $2::jsonb, '{}', '{}', false)", []any{at, `[{"table": "t", "constraint": "c", "action": "CASCADE", "rows": 2, "retained": 1}, {"table": "t", "constraint": "c", "action": "CASCADE", "rows": 1, "retained": 0}]`}},
			{"SELECT * FROM pgid._retire_verdict('shared_u', $1, '[]', '{\"1 row of t references it\"}', '{c}', true)", []any{at}}},
		"pgid._retire_run(regclass,regclass,text,boolean,boolean,name,smallint,text,text,text,timestamp with time zone,text)": {
			{"SELECT * FROM pgid._retire_run('{p}u', 'public.{p}u_p20261118', 'drop', true, false, 'id', 1::smallint, 'uuid', pgid._partition_bound('ulid', $1), " +
				"pgid._partition_bound('ulid', $2), $3, pgid._partition_bound('ulid', $3))", []any{time.Date(2026, 11, 18, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 19, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)}}},
	}

	// Every function has calls, and only existing functions.
	rows, err := setup.Query(ctx, "SELECT p.oid::regprocedure::text FROM pg_proc p WHERE p.pronamespace = 'pgid'::regnamespace")
	if err != nil {
		t.Fatal(err)
	}
	fns, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(fns)
	if len(fns) != pgidAllFunctions || len(calls) != len(fns) {
		t.Fatalf("%d functions in schema pgid (want %d), %d with calls here", len(fns), pgidAllFunctions, len(calls))
	}
	for _, fn := range fns {
		if len(calls[fn]) == 0 {
			t.Fatalf("%s has no call in this test", fn)
		}
	}

	// run calls every function on conn, on tables made with prefix, and
	// returns each call's result (or error) as text, the prefix taken out.
	run := func(conn *pgx.Conn, prefix string) map[string]string {
		makeTables(prefix)
		out := map[string]string{}
		for _, fn := range fns {
			for i, c := range calls[fn] {
				sql := strings.ReplaceAll(c.sql, "{p}", prefix)
				var res string
				rows, err := conn.Query(ctx, sql, c.args...)
				if err == nil {
					var vals [][]any
					vals, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
					for _, v := range vals {
						res += fmt.Sprintf("%v\n", normalize(v))
					}
				}
				var pg *pgconn.PgError
				if errors.As(err, &pg) {
					res = fmt.Sprintf("ERROR %s: %s (detail %q, hint %q)", pg.Code, pg.Message, pg.Detail, pg.Hint)
				} else if err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
				out[fmt.Sprintf("%s #%d", fn, i)] = strings.ReplaceAll(res, prefix, "{p}")
			}
		}
		return out
	}
	compare := func(what string, got, want map[string]string) {
		t.Helper()
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: %s:\n got %s\nwant %s", what, k, got[k], w)
			}
		}
	}

	clean := run(connect(t, dsn, pgx.QueryExecModeCacheStatement), "c_")
	// The clean run's results are what they should be, in a few places.
	for k, want := range map[string]string{
		"pgid.ulid_to_text(uuid) #0": "[" + u.String() + "]\n",
		"pgid.tail_guard_ulid() #1": `ERROR PGI20: pgid: public.shared_tail_u: id ` + u.String() + ` (made ` + u.Timestamp().UTC().Format("2006-01-02T15:04:05.000Z") +
			`) is older than the database clock at INSERT minus the tail lead of 2.5 s (detail "A table set up for tailing (pgid.tail_enable) accepts only IDs made at most its lead before the database clock at INSERT; an older ID could commit behind a reader's cursor.", hint "Make the ID just before the INSERT, check the service clock against the database clock, or declare a larger lead with pgid.tail_enable (stop the table's readers while raising it).")`,
		"pgid.objectid_to_short(bytea) #0":         "[" + o.Short() + "]\n",
		"pgid.objectid_from_hex(text) #1":          `ERROR 22P02: invalid ObjectId "\\x4e7020cb7cac81af7136236b": length 26 bytes, want 24 hex digits (detail "", hint "")`,
		"pgid.default_partition_rows(regclass) #0": "[shared_u_default 1 2026-12-01 00:00:00 +0000 UTC 2026-12-01 00:00:00 +0000 UTC]\n",
	} {
		if clean[k] != want {
			t.Errorf("clean session: %s = %q, want %q", k, clean[k], want)
		}
	}
	ens := clean["pgid.ensure_partitions(regclass,interval,integer,interval,text,timestamp with time zone) #0"]
	for _, want := range []string{"[created public.{p}u_p20261125", "[dropped public.{p}u_p20261118", "[kept public.{p}u_p20261119", "[default public.{p}u_default"} {
		if !strings.Contains(ens, want) {
			t.Errorf("clean session: ensure_partitions lacks %q:\n%s", want, ens)
		}
	}
	t.Logf("clean session, ensure_partitions:\n%s", ens)

	for i, h := range hostileSessions {
		conn := connectWith(t, dsn, h)
		compare(fmt.Sprintf("hostile session %d, first calls", i), run(conn, fmt.Sprintf("h%d_", i)), clean)
		mustExec(t, conn, "RESET ALL")
		compare(fmt.Sprintf("hostile session %d after RESET ALL", i), run(conn, fmt.Sprintf("h%dr_", i)), clean)
		for k, v := range h {
			mustExec(t, conn, "SELECT set_config($1, $2, false)", k, v)
		}
		compare(fmt.Sprintf("hostile session %d, settings set again", i), run(conn, fmt.Sprintf("h%ds_", i)), clean)
		// The session is left as found.
		for k, v := range h {
			var got string
			if err := conn.QueryRow(ctx, "SELECT current_setting($1)", k).Scan(&got); err != nil || got != v {
				t.Errorf("hostile session %d: %s = %q after the calls, want %q (%v)", i, k, got, v, err)
			}
		}
	}
}

// normalize makes result values comparable across sessions: times in UTC.
func normalize(vals []any) []any {
	for i, v := range vals {
		if t, ok := v.(time.Time); ok {
			vals[i] = t.UTC()
		}
	}
	return vals
}
