package integration_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Many writers, one key space: writerProcs processes (cmd/idwriter, built
// here and run as separate programs, each with its own generator state and
// random draws), each on writerConns connections, insert IDs into one
// table as fast as they can for writerFor, starting together. For each way
// of making IDs (Go's ulidtype.Fill and objectidtype.Fill, SQL's
// pgid.gen_ulid_v7() and pgid.gen_objectid()):
//
//   - no collision: every insert succeeded (a duplicate would be a
//     primary-key error in a writer) and the table holds exactly the rows
//     the writers counted, all distinct;
//   - every ID's time field lies between the clock read just before and
//     just after it was made (ULIDs to the millisecond, ObjectIds to the
//     second), so that, in ID order across all processes, no row was made
//     more than one tick after a row that sorts behind it.
//
// The rates and the collision arithmetic are in the closing note of
// issue 30 and in docs/REPLICAS.md.
func TestManyWriters(t *testing.T) {
	const writerProcs, writerConns, writerFor = 4, 2, 3 * time.Second
	ctx := context.Background()
	bin := filepath.Join(t.TempDir(), "idwriter")
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go not on PATH: %v", err)
	}
	if out, err := exec.Command(goCmd, "build", "-o", bin, "./cmd/idwriter").CombinedOutput(); err != nil {
		t.Fatalf("build cmd/idwriter: %v\n%s", err, out)
	}
	dsn := newDB(t, true)
	conn := connect(t, dsn, pgx.QueryExecModeCacheStatement)
	for _, m := range []struct {
		mode, typ, tick, timeFn string
	}{
		{"ulid-go", "uuid", "milliseconds", "pgid.ulid_time"},
		{"ulid-sql", "uuid", "milliseconds", "pgid.ulid_time"},
		{"objectid-go", "bytea", "second", "pgid.objectid_time"},
		{"objectid-sql", "bytea", "second", "pgid.objectid_time"},
	} {
		table := "w_" + strings.ReplaceAll(m.mode, "-", "_")
		if _, err := conn.Exec(ctx, fmt.Sprintf(
			"CREATE TABLE %s (id %s PRIMARY KEY, proc int NOT NULL, made_after timestamptz NOT NULL, made_before timestamptz NOT NULL)",
			table, m.typ)); err != nil {
			t.Fatal(err)
		}
		startAt := time.Now().Add(time.Second) // after every writer has connected
		var wg sync.WaitGroup
		counts := make([]int64, writerProcs)
		errs := make([]error, writerProcs)
		for p := range writerProcs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(bin, "-dsn", dsn, "-table", table, "-mode", m.mode, "-proc", strconv.Itoa(p),
					"-conns", strconv.Itoa(writerConns), "-for", writerFor.String(),
					"-start", strconv.FormatInt(startAt.UnixMilli(), 10))
				cmd.Stderr = os.Stderr
				out, err := cmd.Output()
				if err == nil {
					counts[p], err = strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
				}
				errs[p] = err
			}()
		}
		wg.Wait()
		var total int64
		for p := range writerProcs {
			if errs[p] != nil {
				t.Fatalf("%s: writer %d: %v", m.mode, p, errs[p])
			}
			total += counts[p]
		}
		var rows, distinct, procs, offClock, outOfOrder, sharedTicks, maxPerTick int64
		if err := conn.QueryRow(ctx, fmt.Sprintf(`
			SELECT count(*), count(DISTINCT id), count(DISTINCT proc),
			       count(*) FILTER (WHERE %[2]s(id) < date_trunc('%[3]s', made_after) OR %[2]s(id) > made_before)
			  FROM %[1]s`, table, m.timeFn, m.tick)).Scan(&rows, &distinct, &procs, &offClock); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, fmt.Sprintf(`
			SELECT count(*) FILTER (WHERE prev_after > made_before + interval '1 %[2]s')
			  FROM (SELECT made_before, max(made_after) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_after
			          FROM %[1]s) s`, table, strings.TrimSuffix(m.tick, "s"))).Scan(&outOfOrder); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRow(ctx, fmt.Sprintf(`
			SELECT count(*) FILTER (WHERE procs > 1), max(n)
			  FROM (SELECT count(DISTINCT proc) AS procs, max(per) AS n
			          FROM (SELECT date_trunc('%[3]s', %[2]s(id)) AS tick, proc, count(*) AS per FROM %[1]s GROUP BY 1, 2) x
			         GROUP BY tick) y`, table, m.timeFn, m.tick)).Scan(&sharedTicks, &maxPerTick); err != nil {
			t.Fatal(err)
		}
		if rows != total || distinct != rows || procs != writerProcs || offClock != 0 || outOfOrder != 0 || sharedTicks == 0 {
			t.Errorf("%s: %d rows (writers counted %d), %d distinct, from %d processes; %d IDs off their clock readings, "+
				"%d out of order by more than a tick; %d ticks shared by several processes",
				m.mode, rows, total, distinct, procs, offClock, outOfOrder, sharedTicks)
		}
		t.Logf("%s: %d processes x %d connections, %v: %d rows, %.0f rows/s, all distinct, time fields within their clock readings; "+
			"%d %s ticks shared by several processes, at most %d IDs of one process in one tick",
			m.mode, writerProcs, writerConns, writerFor, rows, float64(rows)/writerFor.Seconds(), sharedTicks,
			strings.TrimSuffix(m.tick, "s"), maxPerTick)
	}
}
