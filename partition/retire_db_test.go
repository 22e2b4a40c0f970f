package partition_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/partition"
	"github.com/pgid/pgid/ulidtype"
)

// Issue 26, item 6: a table whose rows reference other rows of the same
// table ON DELETE CASCADE (a reply pointing at its parent). Retiring the
// partition of 1 November would cascade into replies younger than the
// cut. By default that partition is kept, reported like a NO ACTION
// reference, and every row younger than the cut stays.
func TestPartitionRetireSelfCascadeKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, `CREATE TABLE ev (id pgid.ulid PRIMARY KEY, parent_id pgid.ulid REFERENCES ev (id) ON DELETE CASCADE)
		PARTITION BY RANGE (id);
		SELECT pgid.ensure_partitions('ev', '1 day', 6, at => '2026-11-01Z')`)
	// Ten roots on the 1st; a reply to each on the 2nd (expired too), on
	// the 5th and the 6th (younger than the cut of the 4th), and a reply
	// to each reply of the 5th on the 6th.
	for i := 0; i < 10; i++ {
		root := ulidtype.MinAt(day(1, time.Duration(i)*time.Minute))
		r2 := ulidtype.MinAt(day(2, time.Duration(i)*time.Minute))
		r5 := ulidtype.MinAt(day(5, time.Duration(i)*time.Minute))
		r6 := ulidtype.MinAt(day(6, time.Duration(i)*time.Minute))
		r66 := ulidtype.MinAt(day(6, time.Hour+time.Duration(i)*time.Minute))
		mustExec(t, conn, "INSERT INTO ev VALUES ($1, NULL), ($2, $1), ($3, $1), ($4, $1), ($5, $3)", root, r2, r5, r6, r66)
	}
	young := func() int {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM ev WHERE id >= pgid.ulid_min_at('2026-11-04Z')").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := young(); n != 30 {
		t.Fatalf("setup: %d rows younger than the cut, want 30", n)
	}
	plan := partition.Plan{Parent: "ev", Every: partition.Day, Ahead: 1, Now: day(6, 0),
		Retain: partition.Span{Duration: 2 * 24 * time.Hour}, DryRun: true}
	for _, dry := range []bool{true, false} {
		plan.DryRun = dry
		rep, err := partition.Ensure(ctx, conn, plan)
		if !errors.Is(err, partition.ErrKept) {
			t.Errorf("dry run %v: error %v, want ErrKept", dry, err)
		}
		if strings.Contains(names(rep.Dropped), "ev_p20261101") || len(rep.Kept) != 1 || rep.Kept[0].Name != "public.ev_p20261101" ||
			!strings.Contains(rep.Kept[0].Reason, "30 rows of public.ev younger than the cut") ||
			rep.Kept[0].Constraint != "ev_parent_id_fkey" {
			t.Errorf("dry run %v: dropped %s, kept %+v; want public.ev_p20261101 kept for 30 younger rows through ev_parent_id_fkey",
				dry, names(rep.Dropped), rep.Kept)
		}
		if n := young(); n != 30 {
			t.Errorf("dry run %v: %d rows younger than the cut left, want 30", dry, n)
		}
		// Every foreign-key action, before anything happens: 10 replies
		// on the 2nd, 20 on the 5th and 6th, 10 replies to replies.
		if got, want := fmt.Sprint(rep.FKActions), "[40 rows of public.ev deleted through ev_parent_id_fkey (ON DELETE CASCADE), 30 of them younger than the cut (or in the DEFAULT partition)]"; got != want {
			t.Errorf("dry run %v: FKActions %s, want %s", dry, got, want)
		}
	}
	// Opted in, the foreign key acts: the partition goes with every reply.
	plan.CascadeIntoRetained = true
	rep := ensure(t, conn, plan)
	if names(rep.Dropped) != "public.ev_p20261101" || len(rep.FKActions) != 1 || rep.FKActions[0].Retained != 30 {
		t.Errorf("cascade into retained: dropped %s, FKActions %+v", names(rep.Dropped), rep.FKActions)
	}
	if n := young(); n != 0 {
		t.Errorf("cascade into retained: %d rows younger than the cut left, want 0", n)
	}
}

// The same through a chain: ev rows reference threads ON DELETE CASCADE,
// threads reference their first event ON DELETE CASCADE; a SET NULL from
// the parent to itself changes younger rows; tags of other tables still
// go with their events (CASCADE), in the report and in the database.
func TestPartitionRetireChains(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, `CREATE TABLE ch (id pgid.ulid PRIMARY KEY, thread int, prev pgid.ulid REFERENCES ch ON DELETE SET NULL)
			PARTITION BY RANGE (id);
		SELECT pgid.ensure_partitions('ch', '1 day', 6, at => '2026-11-01Z');
		CREATE TABLE ch_threads (id int PRIMARY KEY, first pgid.ulid NOT NULL REFERENCES ch ON DELETE CASCADE);
		ALTER TABLE ch ADD FOREIGN KEY (thread) REFERENCES ch_threads ON DELETE CASCADE;
		CREATE TABLE ch_tags (id pgid.ulid REFERENCES ch ON DELETE CASCADE, tag text)`)
	u := func(d int, m int) string { return ulidtype.MinAt(day(d, time.Duration(m)*time.Minute)).UUIDString() }
	// Thread 1 starts on the 1st and goes on on the 5th; thread 2 lives on
	// the 2nd only. An event of the 5th points (SET NULL) at one of the 3rd.
	mustExec(t, conn, `INSERT INTO ch VALUES ('`+u(1, 0)+`', NULL, NULL), ('`+u(2, 0)+`', NULL, NULL), ('`+u(3, 0)+`', NULL, NULL);
		INSERT INTO ch_threads VALUES (1, '`+u(1, 0)+`'), (2, '`+u(2, 0)+`');
		UPDATE ch SET thread = 1 WHERE id = '`+u(1, 0)+`';
		INSERT INTO ch VALUES ('`+u(5, 0)+`', 1, NULL), ('`+u(5, 1)+`', 1, NULL), ('`+u(5, 2)+`', NULL, '`+u(3, 0)+`'), ('`+u(2, 1)+`', 2, NULL);
		INSERT INTO ch_tags SELECT id, 't' FROM ch`)
	state := func() string {
		var s string
		if err := conn.QueryRow(ctx, `SELECT format('%s partitions; %s rows, %s younger; %s tags; %s threads; %s prev',
			(SELECT count(*) FROM pg_inherits WHERE inhparent = 'ch'::regclass), (SELECT count(*) FROM ch),
			(SELECT count(*) FROM ch WHERE id >= pgid.ulid_min_at('2026-11-04Z')),
			(SELECT count(*) FROM ch_tags), (SELECT count(*) FROM ch_threads), (SELECT count(prev) FROM ch))`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := state()
	if before != "7 partitions; 7 rows, 3 younger; 7 tags; 2 threads; 1 prev" {
		t.Fatalf("setup: %s", before)
	}
	plan := partition.Plan{Parent: "ch", Every: partition.Day, Ahead: 1, Now: day(6, 0),
		Retain: partition.Span{Duration: 2 * 24 * time.Hour}, DryRun: true}
	rep, err := partition.Ensure(ctx, conn, plan)
	if !errors.Is(err, partition.ErrKept) || state() != before {
		t.Fatalf("dry run: %v, %s", err, state())
	}
	got := map[string]string{}
	for _, a := range rep.FKActions {
		got[a.Partition] += a.String() + "; "
	}
	want := map[string]string{
		// The 1st: its thread goes, and with it the two events of the 5th.
		// One entry a constraint: 1 tag on the 1st, 2 of the 5th.
		"public.ch_p20261101": "3 rows of public.ch_tags deleted through ch_tags_id_fkey (ON DELETE CASCADE); " +
			"1 rows of public.ch_threads deleted through ch_threads_first_fkey (ON DELETE CASCADE); " +
			"2 rows of public.ch deleted through ch_thread_fkey (ON DELETE CASCADE), 2 of them younger than the cut (or in the DEFAULT partition); ",
		// The 2nd: thread 2 and its other event, also of the 2nd.
		"public.ch_p20261102": "2 rows of public.ch_tags deleted through ch_tags_id_fkey (ON DELETE CASCADE); " +
			"1 rows of public.ch_threads deleted through ch_threads_first_fkey (ON DELETE CASCADE); ",
		// The 3rd: an event of the 5th points at it, SET NULL.
		"public.ch_p20261103": "1 rows of public.ch changed through ch_prev_fkey (ON DELETE SET NULL), 1 of them younger than the cut (or in the DEFAULT partition); " +
			"1 rows of public.ch_tags deleted through ch_tags_id_fkey (ON DELETE CASCADE); ",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("FKActions of %s:\n got %s\nwant %s", k, got[k], w)
		}
	}
	if names(rep.Dropped) != "public.ch_p20261102" || len(rep.Kept) != 2 || rep.Kept[0].Constraint != "ch_thread_fkey" || rep.Kept[1].Constraint != "ch_prev_fkey" {
		t.Errorf("dry run: dropped %s, kept %+v", names(rep.Dropped), rep.Kept)
	}
	plan.DryRun = false
	if _, err := partition.Ensure(ctx, conn, plan); !errors.Is(err, partition.ErrKept) {
		t.Errorf("run: %v, want ErrKept", err)
	}
	// The 2nd went with its tags and thread 2; the younger rows stayed.
	if got, want := state(), "6 partitions; 5 rows, 3 younger; 5 tags; 1 threads; 1 prev"; got != want {
		t.Errorf("after the run: %s, want %s", got, want)
	}
	plan.CascadeIntoRetained = true
	rep = ensure(t, conn, plan)
	if names(rep.Dropped) != "public.ch_p20261101,public.ch_p20261103" {
		t.Errorf("cascade into retained: dropped %s", names(rep.Dropped))
	}
	if got, want := state(), "4 partitions; 1 rows, 1 younger; 1 tags; 0 threads; 0 prev"; got != want {
		t.Errorf("cascade into retained: %s, want %s", got, want)
	}
}

// docSQL returns the ```sql blocks of docs/PARTITIONING.md, in order.
func docSQL(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../docs/PARTITIONING.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```sql":
			in, cur = true, nil
		case in && strings.TrimSpace(line) == "```":
			in = false
			blocks = append(blocks, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, line)
		}
	}
	if in || len(blocks) == 0 {
		t.Fatalf("docs/PARTITIONING.md: %d sql blocks, one unterminated: %v", len(blocks), in)
	}
	return blocks
}

// execDoc runs a documentation block verbatim (simple protocol, several
// statements) and returns the rows of each statement as text.
func execDoc(t *testing.T, conn *pgx.Conn, block string) [][][]string {
	t.Helper()
	results, err := conn.PgConn().Exec(context.Background(), block).ReadAll()
	if err != nil {
		t.Fatalf("docs/PARTITIONING.md block\n%s\nfailed: %v", block, err)
	}
	out := make([][][]string, len(results))
	for i, r := range results {
		for _, row := range r.Rows {
			cells := make([]string, len(row))
			for j, c := range row {
				cells[j] = string(c)
			}
			out[i] = append(out[i], cells)
		}
	}
	return out
}

// Issue 26, item 7: every SQL recipe of docs/PARTITIONING.md runs
// verbatim and does what the text around it says. The recipe that retires
// on the real clock after a change of width used to return no row (the
// unqualified partition name was looked up under the function's own
// search_path) and leave every partition expired. Blocks that need an
// extension CI does not have (pg_cron, pg_partman) are recognised and left
// out; any other block must have a case here.
func TestPartitioningDocSQLRecipes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	blocks := docSQL(t)
	schema := ""
	for _, b := range blocks {
		if strings.Contains(b, "CREATE TABLE events (") {
			schema = b
		}
	}
	if schema == "" {
		t.Fatal("docs/PARTITIONING.md: no schema block")
	}
	expired := func(conn *pgx.Conn) int {
		var n int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM pgid.expired_partitions('events', '30 days')").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	// One database for the worked example; its past 45 days have a
	// partition and an event with a tag each.
	worked := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	execDoc(t, worked, schema)
	mustExec(t, worked, `SELECT pgid.ensure_partitions('events', '1 day', 45, at => now() - interval '45 days');
		INSERT INTO events (id, kind) SELECT pgid.ulid_min_at(now() - d * interval '1 day'), 'x' FROM generate_series(1, 45) d;
		INSERT INTO event_tags SELECT id, 't' FROM events`)
	for i, b := range blocks {
		switch {
		case b == schema:
		case strings.Contains(b, "cron.schedule"), strings.Contains(b, "partman."):
			// Needs pg_cron / pg_partman (.ci/pg-cron-demo runs the cron line).
		case strings.Contains(b, "pgid.ensure_partitions('events', '1 day', 3, '30 days')") && !strings.Contains(b, "\n"):
			before := expired(worked)
			res := execDoc(t, worked, b)
			dropped := 0
			for _, row := range res[0] {
				if row[0] == "dropped" {
					dropped++
				}
			}
			if before < 14 || dropped != before || expired(worked) != 0 {
				t.Errorf("block %d: %d expired before, %d dropped, %d expired after", i, before, dropped, expired(worked))
			}
		case strings.HasPrefix(b, "SELECT * FROM pgid.list_partitions('events');"):
			if res := execDoc(t, worked, b); len(res[0]) < 5 {
				t.Errorf("block %d: %d partitions listed", i, len(res[0]))
			}
		case strings.Contains(b, "ATTACH PARTITION events_default DEFAULT"):
			// A row whose partition was missing: the last one ahead is
			// dropped, the row lands in the DEFAULT partition.
			mustExec(t, worked, `DO $$ DECLARE p regclass := (SELECT partition FROM pgid.list_partitions('events')
				WHERE NOT is_default ORDER BY lower DESC LIMIT 1);
				BEGIN EXECUTE format('ALTER TABLE events DETACH PARTITION %s; DROP TABLE %1$s', p); END $$;
				INSERT INTO events (id, kind) VALUES (pgid.ulid_min_at(date_trunc('day', now(), 'UTC') + interval '3 days 1 hour'), 'late')`)
			var inDefault int
			count := func() {
				if err := worked.QueryRow(ctx, "SELECT count(*) FROM events_default").Scan(&inDefault); err != nil {
					t.Fatal(err)
				}
			}
			if count(); inDefault != 1 {
				t.Fatalf("block %d setup: %d rows in events_default", i, inDefault)
			}
			execDoc(t, worked, b)
			var where string
			if err := worked.QueryRow(ctx, "SELECT tableoid::regclass::text FROM events WHERE kind = 'late'").Scan(&where); err != nil {
				t.Fatal(err)
			}
			if count(); inDefault != 0 || where == "events_default" {
				t.Errorf("block %d: %d rows left in events_default, the late row in %s", i, inDefault, where)
			}
		case strings.Contains(b, "LATERAL pgid.retire_partition"):
			// Its own database: daily partitions for 45 days up to the
			// month the recipe starts, an event and a tag in each.
			conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
			execDoc(t, conn, schema)
			mustExec(t, conn, `SELECT pgid.ensure_partitions('events', '1 day',
					(date_trunc('month', greatest(now(), '2026-12-01Z'), 'UTC')::date - (now() - interval '45 days')::date - 1)::int,
					at => now() - interval '45 days');
				INSERT INTO events (id, kind) SELECT pgid.ulid_min_at(l.lower), 'x' FROM pgid.list_partitions('events') l WHERE NOT l.is_default;
				INSERT INTO event_tags SELECT id, 't' FROM events`)
			before := expired(conn)
			res := execDoc(t, conn, b)
			var actions []string
			for _, row := range res[len(res)-1] {
				actions = append(actions, row[0])
			}
			if before < 14 || len(actions) != before || strings.Count(strings.Join(actions, ","), "dropped") != before || expired(conn) != 0 {
				t.Errorf("block %d: %d partitions expired before, retired %v, %d expired after; want every one dropped", i, before, actions, expired(conn))
			}
			var monthly int
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM pgid.list_partitions('events') l
				WHERE l.upper - l.lower > interval '27 days'`).Scan(&monthly); err != nil || monthly != 3 {
				t.Errorf("block %d: %d monthly partitions (want 3), %v", i, monthly, err)
			}
		default:
			t.Errorf("docs/PARTITIONING.md has an SQL block this test does not run; add a case:\n%s", b)
		}
	}
}

// Issue 26, item 7: pgid.retire_partition resolves the partition as the
// caller names it (a regclass, or text read with the caller's
// search_path), and a name that is not a partition of the parent is an
// error naming it, never an empty result.
func TestPartitionRetireNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, `CREATE SCHEMA app;
		CREATE TABLE app.rn (id pgid.ulid PRIMARY KEY) PARTITION BY RANGE (id);
		CREATE TABLE app.other (id int);
		SELECT pgid.ensure_partitions('app.rn', '1 day', 6, at => '2026-11-01Z');
		SET search_path = app, public`)
	retire := func(part string) (string, error) {
		var action string
		err := conn.QueryRow(ctx, "SELECT action FROM pgid.retire_partition('rn', "+part+", '1 day', 'drop', '2026-11-06Z', true)").Scan(&action)
		return action, err
	}
	for _, part := range []string{"'rn_p20261101'", "'app.rn_p20261101'", "'rn_p20261101'::regclass", "'rn_p20261101'::text",
		"(SELECT partition FROM pgid.expired_partitions('rn', '1 day', '2026-11-06Z') ORDER BY lower LIMIT 1)"} {
		if action, err := retire(part); err != nil || action != "dropped" {
			t.Errorf("retire_partition(rn, %s): %q, %v; want dropped", part, action, err)
		}
	}
	for _, c := range []struct{ part, code, msg string }{
		{"'rn_p20991101'", "42P01", `"rn_p20991101" does not exist`},
		{"'other'", "PGI06", "app.other is not a partition of app.rn"},
		{"'rn'", "PGI06", "app.rn is not a partition of app.rn"},
	} {
		_, err := retire(c.part)
		var pg *pgconn.PgError
		if !errors.As(err, &pg) || pg.Code != c.code || !strings.Contains(pg.Message, c.msg) {
			t.Errorf("retire_partition(rn, %s): %v; want SQLSTATE %s and %q", c.part, err, c.code, c.msg)
		}
	}
	// Not expired yet: nothing to do, no row.
	if _, err := retire("'rn_p20261106'"); !errors.Is(err, pgx.ErrNoRows) {
		t.Errorf("retire_partition of a partition not expired: %v, want no row", err)
	}
}

// The foreign keys are followed again under the locks retiring takes: a
// reply to an expired row, younger than the cut, that commits between the
// first look (no lock) and the locks keeps the partition and stays. (The
// expired row has a tag, ON DELETE CASCADE: without the second look it
// would be deleted first, and the reply with it.)
func TestPartitionRetireRechecksUnderLocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DB(t)
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	other := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, `CREATE TABLE rl (id pgid.ulid PRIMARY KEY, parent pgid.ulid REFERENCES rl ON DELETE CASCADE)
			PARTITION BY RANGE (id);
		SELECT pgid.ensure_partitions('rl', '1 day', 6, at => '2026-11-01Z');
		INSERT INTO rl VALUES (pgid.ulid_min_at('2026-11-01 10:00Z'), NULL);
		CREATE TABLE rl_tags (id pgid.ulid REFERENCES rl ON DELETE CASCADE);
		INSERT INTO rl_tags VALUES (pgid.ulid_min_at('2026-11-01 10:00Z'))`)
	// The other session holds SHARE on rl: reads go on, the ACCESS
	// EXCLUSIVE of the retirement waits.
	mustExec(t, other, "BEGIN; LOCK TABLE rl IN SHARE MODE")
	done := make(chan error, 1)
	var rep partition.Report
	go func() {
		var err error
		rep, err = partition.Ensure(ctx, conn, partition.Plan{Parent: "rl", Every: partition.Day, Ahead: 1, Now: day(6, 0),
			Retain: partition.Span{Duration: 2 * 24 * time.Hour}})
		done <- err
	}()
	// Wait until the retirement waits for its locks (a lock wait, or the
	// pause between two tries), then add a younger reply and let it go.
	pid := conn.PgConn().PID()
	for {
		var waiting bool
		if err := other.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity WHERE pid = $1
			AND (wait_event_type = 'Lock' OR wait_event = 'PgSleep'))`, pid).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Ensure returned before waiting for its locks: %v, %+v", err, rep)
		case <-time.After(5 * time.Millisecond): // poll again
		}
	}
	mustExec(t, other, "INSERT INTO rl VALUES (pgid.ulid_min_at('2026-11-05 10:00Z'), pgid.ulid_min_at('2026-11-01 10:00Z')); COMMIT")
	err := <-done
	if !errors.Is(err, partition.ErrKept) || len(rep.Kept) != 1 || rep.Kept[0].Name != "public.rl_p20261101" ||
		!strings.Contains(rep.Kept[0].Reason, "1 rows of public.rl younger than the cut") {
		t.Errorf("Ensure: %v, kept %+v; want public.rl_p20261101 kept for its younger reply", err, rep.Kept)
	}
	var n int
	if err := other.QueryRow(ctx, "SELECT count(*) FROM rl").Scan(&n); err != nil || n != 2 {
		t.Errorf("%d rows left (want 2), %v", n, err)
	}
}
