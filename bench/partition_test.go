package bench

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/partition"
	"github.com/pgid/pgid/ulidtype"
)

// defaultPartitionRows is the number of rows BenchmarkPartition loads unless
// PGID_BENCH_ROWS says otherwise.
const defaultPartitionRows = 5_000_000

// partitionDays is how many daily partitions the rows are spread over.
const partitionDays = 30

// BenchmarkPartition compares a table partitioned by ID into 30 daily
// partitions (package partition) with the same rows in one table:
//
//   - window-1h: SELECT count(*), sum(payload) over a one-hour window of IDs
//     (ulidtype.Range bounds), 200 different hours per op;
//   - retire-day: removing the oldest day, by dropping its partition
//     (partition.Ensure with a retention) against DELETE … WHERE id < $1
//     followed by VACUUM.
//
// PGID_BENCH_ROWS rows (default 5,000,000) are spread evenly over 30 days
// with ULIDs from a generator with an injected clock, loaded with CopyFrom
// and analyzed before the timer starts. retire-day removes one more day per
// iteration: run it with -benchtime 1x (at most 29x):
//
//	cd bench && go test -run '^$' -bench Partition -benchtime 1x -timeout 60m .
//
// Server and database as BenchmarkDBLoad; migrations.Up prepares the
// database of the run.
func BenchmarkPartition(b *testing.B) {
	rows := defaultPartitionRows
	if s := os.Getenv("PGID_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < partitionDays*24 {
			b.Fatalf("PGID_BENCH_ROWS=%q: want an integer of at least %d", s, partitionDays*24)
		}
		rows = n
	}
	ctx := context.Background()
	conn := dbLoadDatabase(b)
	if err := migrations.Up(ctx, conn); err != nil {
		b.Fatalf("migrations: %v", err)
	}
	exec := func(sql string, args ...any) {
		b.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			b.Fatalf("%s: %v", sql, err)
		}
	}

	t0 := time.Now().UTC().Truncate(24*time.Hour).AddDate(0, 0, -partitionDays+1)
	span := time.Duration(partitionDays) * 24 * time.Hour
	exec(`CREATE TABLE ev_part (id pgid.ulid PRIMARY KEY, payload int NOT NULL) PARTITION BY RANGE (id);
		CREATE TABLE ev_flat (id pgid.ulid PRIMARY KEY, payload int NOT NULL) WITH (autovacuum_enabled = off)`)
	if _, err := partition.Ensure(ctx, conn, partition.Plan{Parent: "ev_part", Every: partition.Day,
		Ahead: partitionDays - 1, Now: t0}); err != nil {
		b.Fatal(err)
	}
	exec(`DO $$ DECLARE p regclass; BEGIN
		FOR p IN SELECT partition FROM pgid.list_partitions('ev_part') LOOP
			EXECUTE format('ALTER TABLE %s SET (autovacuum_enabled = off)', p);
		END LOOP; END $$`)

	var now time.Time
	g := ulidtype.NewGenerator(func() time.Time { return now }, nil)
	ids := make([]ulidtype.ULID, rows)
	for i := range ids {
		now = t0.Add(time.Duration(int64(span) / int64(rows) * int64(i)))
		ids[i] = g.New()
	}
	for _, table := range []string{"ev_part", "ev_flat"} {
		row := make([]any, 2)
		start := time.Now()
		n, err := conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "payload"},
			pgx.CopyFromSlice(rows, func(i int) ([]any, error) {
				row[0], row[1] = ids[i], int32(i)
				return row, nil
			}))
		if err != nil || n != int64(rows) {
			b.Fatalf("CopyFrom %s: %d rows, %v", table, n, err)
		}
		exec("VACUUM ANALYZE " + table)
		b.Logf("%s: %d rows loaded and analyzed in %s", table, rows, time.Since(start).Round(time.Millisecond))
	}

	// windowQueries one-hour windows make one op, so that -benchtime 1x
	// (which retire-day needs) still averages over many hours.
	const windowQueries = 200
	// ev_part-generic: the partitioned table with plan_cache_mode =
	// force_generic_plan, i.e. no planning per query and run-time pruning.
	for _, table := range []string{"ev_part", "ev_part-generic", "ev_flat"} {
		b.Run("window-1h/"+table, func(b *testing.B) {
			table, generic := strings.CutSuffix(table, "-generic")
			if generic {
				exec("SET plan_cache_mode = force_generic_plan")
				defer exec("RESET plan_cache_mode")
			}
			var got, queries int64
			for b.Loop() {
				for range windowQueries {
					// Hours spread over the 30 days, never the same one
					// twice in a row.
					h := (queries * 7919) % int64(partitionDays*24)
					queries++
					lo, hi := ulidtype.Range(t0.Add(time.Duration(h)*time.Hour), t0.Add(time.Duration(h+1)*time.Hour))
					var n, sum int64
					if err := conn.QueryRow(ctx, "SELECT count(*), coalesce(sum(payload), 0) FROM "+table+
						" WHERE id >= $1 AND id < $2", lo, hi).Scan(&n, &sum); err != nil {
						b.Fatal(err)
					}
					got += n
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(queries), "µs/query")
			b.ReportMetric(float64(got)/float64(queries), "rows/query")
		})
	}

	// Removing days: each iteration the next oldest.
	walBytes := func() int64 {
		var lsn int64
		if err := conn.QueryRow(ctx, "SELECT pg_current_wal_lsn() - '0/0'::pg_lsn").Scan(&lsn); err != nil {
			b.Fatal(err)
		}
		return lsn
	}
	// retire removes b.N more days with one, counting on from the days the
	// previous calls (the framework calls each benchmark first with b.N = 1)
	// removed, in *done.
	retire := func(b *testing.B, done *int, one func(day int)) {
		if *done+b.N > partitionDays-1 {
			b.Skipf("%d more days after %d; run retire-day with -benchtime Nx, N < %d", b.N, *done, partitionDays/2)
		}
		b.StopTimer()
		exec("CHECKPOINT")
		wal0 := walBytes()
		b.StartTimer()
		start := time.Now()
		for range b.N {
			*done++
			one(*done)
		}
		elapsed := time.Since(start)
		b.ReportMetric(elapsed.Seconds()*1000/float64(b.N), "ms/day")
		b.ReportMetric(float64(walBytes()-wal0)/(1<<20)/float64(b.N), "WAL-MiB/day")
	}
	var dropped, deleted int
	b.Run("retire-day/drop-partition", func(b *testing.B) {
		retire(b, &dropped, func(d int) {
			rep, err := partition.Ensure(ctx, conn, partition.Plan{Parent: "ev_part", Every: partition.Day,
				Ahead: 0, Retain: partition.Day, Now: t0.AddDate(0, 0, d+1)})
			if err != nil || len(rep.Dropped) != 1 {
				b.Fatalf("Ensure: dropped %v, %v; want one partition", rep.Dropped, err)
			}
		})
	})
	b.Run("retire-day/delete-vacuum", func(b *testing.B) {
		retire(b, &deleted, func(d int) {
			tag, err := conn.Exec(ctx, "DELETE FROM ev_flat WHERE id < $1", ulidtype.MinAt(t0.AddDate(0, 0, d)))
			if err != nil || tag.RowsAffected() == 0 {
				b.Fatalf("DELETE: %v, %v", tag, err)
			}
			exec("VACUUM ev_flat")
		})
	})
}
