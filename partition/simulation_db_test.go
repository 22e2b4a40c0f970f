package partition_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/partition"
	"github.com/pgid/pgid/ulidtype"
)

// The worked example of docs/PARTITIONING.md, run for 120 days: a
// partitioned events table with a DEFAULT partition, referenced by
// event_tags (ON DELETE CASCADE) and event_notes (NO ACTION), two writers
// inserting each day's events while the daily maintenance runs with at
// stepping a day at a time, 30 days of retention, and one event_notes row
// kept alive on day 5.
//
// Every insert succeeds; every expired partition is dropped with its tags;
// day 5's partition is kept and reported on every run from the day it
// expires, and dropped on the first run after its note is deleted; the
// DEFAULT partition stays empty; the rows of every day not older than the
// cut are the same after each run as before it.
func TestPartitionSimulation120Days(t *testing.T) {
	t.Parallel()
	for _, kind := range []partition.Kind{partition.KindULID, partition.KindObjectID} {
		t.Run(kind.String(), func(t *testing.T) { t.Parallel(); simulate(t, kind) })
	}
}

// simulation constants: the worked example's plan.
const (
	simDays       = 120
	simRetainDays = 30
	simAhead      = 3
	simPerWriter  = 12 // events per writer per day
	simHeldDay    = 5  // the day whose partition a NO ACTION reference holds
)

func simulate(t *testing.T, kind partition.Kind) {
	ctx := context.Background()
	dsn := pgtest.DB(t)
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, workedExample(t, kind))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	dayOf := func(d int) time.Time { return start.AddDate(0, 0, d) }
	plan := partition.Plan{Parent: "events", Kind: kind, Every: partition.Day, Ahead: simAhead,
		Retain: partition.Span{Duration: simRetainDays * 24 * time.Hour}}

	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 3
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	// rowsByDay counts the events of each day (days since start).
	rowsByDay := func() map[int]int {
		fn := "pgid.ulid_time(id)"
		if kind == partition.KindObjectID {
			fn = "pgid.objectid_time(id)"
		}
		rows, err := conn.Query(ctx, fmt.Sprintf(`SELECT floor(extract(epoch FROM %s - $1::timestamptz) / 86400)::int, count(*)::int
			FROM events GROUP BY 1`, fn), start)
		if err != nil {
			t.Fatal(err)
		}
		m := map[int]int{}
		var d, n int
		if _, err := pgx.ForEachRow(rows, []any{&d, &n}, func() error { m[d] = n; return nil }); err != nil {
			t.Fatal(err)
		}
		return m
	}
	count := func(sql string, args ...any) int {
		var n int
		if err := conn.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}

	var (
		inserted, failedInserts, created, dropped, keptReports, runs int
		heldName                                                     string
	)
	// The first run, the day before day 0.
	plan.Now = dayOf(-1)
	rep, err := partition.Ensure(ctx, pool, plan)
	if err != nil || len(rep.Created) != simAhead+1 {
		t.Fatalf("day -1: created %s, %v", names(rep.Created), err)
	}
	created += len(rep.Created)
	runs++

	// Nothing writes between one day's checks and the next day's writers:
	// the rows after day d's run are those before day d+1's.
	before := rowsByDay()
	for d := 0; d < simDays; d++ {
		// Two writers insert the day's events (each with a tag) while the
		// day's maintenance runs.
		var wg sync.WaitGroup
		var mu sync.Mutex
		var errs []error
		for w := range 2 {
			wg.Go(func() {
				i := 0
				clock := func() time.Time {
					return dayOf(d).Add(time.Duration(w*simPerWriter+i) * time.Hour).Add(time.Duration(i*37) * time.Second)
				}
				ug, og := ulidtype.NewGenerator(clock, nil), objectidtype.NewGenerator(clock, nil)
				for i = range simPerWriter {
					var id any = ug.New()
					if kind == partition.KindObjectID {
						id = og.New()
					}
					_, err := pool.Exec(ctx, `WITH e AS (INSERT INTO events (id, kind) VALUES ($1, 'sim') RETURNING id)
						INSERT INTO event_tags SELECT id, 'tag' FROM e`, id)
					mu.Lock()
					if err != nil {
						errs = append(errs, fmt.Errorf("day %d, writer %d: %w", d, w, err))
					} else {
						inserted++
					}
					if d == simHeldDay && w == 0 && i == 0 && err == nil {
						_, err = pool.Exec(ctx, "INSERT INTO event_notes VALUES ($1, 'keep me')", id)
						if err != nil {
							errs = append(errs, err)
						}
					}
					mu.Unlock()
				}
			})
		}
		// The daily run, an hour into the day.
		plan.Now = dayOf(d).Add(time.Hour)
		rep, err := partition.Ensure(ctx, pool, plan)
		wg.Wait()
		runs++
		failedInserts += len(errs)
		for _, e := range errs {
			t.Errorf("insert: %v", e)
		}
		created += len(rep.Created)
		dropped += len(rep.Dropped)

		// Day d's partition [d, d+1) ends at the cut (d + 1h - 30 days)
		// only when d+1 <= d - 30 + 1h: the days up to d - 31 are expired.
		lastExpired := d - simRetainDays - 1
		heldExpired := simHeldDay <= lastExpired
		if heldExpired {
			if len(rep.Kept) != 1 || err == nil || !strings.Contains(err.Error(), "event_notes_event_id_fkey") {
				t.Fatalf("day %d: kept %v, err %v; want day %d's partition kept, reported in Report.Kept and the error", d, rep.Kept, err, simHeldDay)
			}
			k := rep.Kept[0]
			heldName = k.Name
			if !k.Lower.Equal(dayOf(simHeldDay)) || k.Constraint != "event_notes_event_id_fkey" ||
				!strings.Contains(k.Reason, "1 rows of public.event_notes reference it through event_notes_event_id_fkey (ON DELETE NO ACTION)") {
				t.Fatalf("day %d: kept %+v", d, k)
			}
			keptReports++
		} else if err != nil || len(rep.Kept) != 0 {
			t.Fatalf("day %d: Ensure: %v, kept %v", d, err, rep.Kept)
		}
		if rep.Default.Name != "public.events_default" || rep.Default.Rows != 0 {
			t.Fatalf("day %d: default partition %+v, want public.events_default with no rows", d, rep.Default)
		}
		// Created: the partition 3 days ahead (day -1 created -1..2).
		if len(rep.Created) != 1 || !rep.Created[0].Lower.Equal(dayOf(d+simAhead)) {
			t.Fatalf("day %d: created %s, want day %d", d, names(rep.Created), d+simAhead)
		}
		// Dropped: day d-31's partition, once there is one.
		wantDropped := lastExpired >= -1 && lastExpired != simHeldDay
		if wantDropped != (len(rep.Dropped) == 1) || (wantDropped && !rep.Dropped[0].Lower.Equal(dayOf(lastExpired))) || len(rep.Dropped) > 1 {
			t.Fatalf("day %d: dropped %s, want day %d", d, names(rep.Dropped), lastExpired)
		}

		after := rowsByDay()
		for day, n := range before {
			switch {
			case day > lastExpired || (day == simHeldDay && heldExpired):
				if after[day] != n {
					t.Fatalf("day %d: day %d had %d rows before the run and %d after", d, day, n, after[day])
				}
			case after[day] != 0:
				t.Fatalf("day %d: expired day %d still has %d rows", d, day, after[day])
			}
		}
		if n := after[d]; n != 2*simPerWriter {
			t.Fatalf("day %d: %d rows of the day, want %d", d, n, 2*simPerWriter)
		}
		if tags, events := count("SELECT count(*) FROM event_tags"), count("SELECT count(*) FROM events"); tags != events {
			t.Fatalf("day %d: %d tags for %d events: the cascade missed some", d, tags, events)
		}
		if n := count("SELECT count(*) FROM events_default"); n != 0 {
			t.Fatalf("day %d: %d rows in the DEFAULT partition", d, n)
		}
		before = after
	}

	// Release the note: the next run drops the held partition with its tags.
	mustExec(t, conn, "DELETE FROM event_notes")
	plan.Now = dayOf(simDays - 1).Add(2 * time.Hour)
	rep, err = partition.Ensure(ctx, pool, plan)
	runs++
	if err != nil || len(rep.Kept) != 0 || names(rep.Dropped) != heldName {
		t.Fatalf("after deleting the note: dropped %s, kept %v, %v; want %s", names(rep.Dropped), rep.Kept, err, heldName)
	}
	dropped += len(rep.Dropped)

	final := rowsByDay()
	events := count("SELECT count(*) FROM events")
	parts, err := partition.List(ctx, pool, "events")
	if err != nil {
		t.Fatal(err)
	}
	firstKept := simDays - 1 - simRetainDays
	for day := range simDays {
		want := 0
		if day >= firstKept {
			want = 2 * simPerWriter
		}
		if final[day] != want {
			t.Errorf("at the end: day %d has %d rows, want %d", day, final[day], want)
		}
	}
	// 31 days kept (d-30 .. d), 3 ahead, the DEFAULT partition; day -1's
	// partition was dropped on day 30.
	if len(parts) != simRetainDays+1+simAhead+1 {
		t.Errorf("at the end: %d partitions, want %d", len(parts), simRetainDays+1+simAhead+1)
	}
	t.Logf("%s: %d runs over %d days; %d events inserted (%d failed), %d partitions created, %d dropped; "+
		"the NO ACTION-held partition %s kept and reported on %d runs, dropped on the run after its note went; "+
		"at the end %d events (and as many tags) in %d partitions, 0 in the DEFAULT partition",
		kind, runs, simDays, inserted, failedInserts, created, dropped, heldName, keptReports, events, len(parts))
	if keptReports != simDays-(simHeldDay+simRetainDays+1) {
		t.Errorf("kept reports: %d, want %d", keptReports, simDays-(simHeldDay+simRetainDays+1))
	}
}

// workedExample returns the worked example's schema from
// docs/PARTITIONING.md, for ObjectId keys with pgid.objectid and
// pgid.gen_objectid(), and checks that the documented call is the plan the
// simulation runs.
func workedExample(t *testing.T, kind partition.Kind) string {
	t.Helper()
	b, err := os.ReadFile("../docs/PARTITIONING.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, rest, ok1 := strings.Cut(doc, "<!-- simulation:schema -->\n```sql\n")
	schema, _, ok2 := strings.Cut(rest, "```\n<!-- end simulation:schema -->")
	if !ok1 || !ok2 {
		t.Fatal("docs/PARTITIONING.md: no simulation:schema block")
	}
	call := fmt.Sprintf("SELECT * FROM pgid.ensure_partitions('events', '1 day', %d, '%d days');", simAhead, simRetainDays)
	if !strings.Contains(doc, call) {
		t.Fatalf("docs/PARTITIONING.md does not run the simulation's plan: %s", call)
	}
	if kind == partition.KindObjectID {
		schema = strings.NewReplacer("pgid.gen_ulid()", "pgid.gen_objectid()", "pgid.ulid", "pgid.objectid").Replace(schema)
	}
	return schema
}
