package integration_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

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
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
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
	worked := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
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
			conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
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
	conn := connect(t, newDB(t, true), pgx.QueryExecModeCacheStatement)
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
