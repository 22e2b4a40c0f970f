package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgid/pgid/migrations"
	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/ulidtype"
)

// BenchmarkTail measures package tail (issue 22), one iteration each (run
// it with -benchtime 1x); the scale follows PGID_BENCH_ROWS (default
// 1,000,000; CI sets 50,000):
//
//   - insert: 8 connections each running 100-row INSERT … VALUES statements
//     of Go ULIDs into (id pgid.ulid PRIMARY KEY, payload int), once into a
//     plain table and once into a table set up with tail.Enable (its
//     trigger checks every row), in four interleaved rounds (plain first,
//     then tail first, ...) of a quarter of the time each (PGID_BENCH_INSERT_SECONDS per table, default 10 s scaled by
//     rows/1M, at least 0.5 s); ins-rows/s of each and tail/plain, their
//     ratio;
//   - backlog: PGID_BENCH_ROWS rows made over an hour, loaded with
//     CopyFrom before tail.Enable, then read by a Tailer from the zero ID to
//     the end in batches of 100 and of 1,000; tail-rows/s (the rows as
//     row_to_json, Tailer.Next) and, at 1,000, typed-rows/s (the rows as
//     structs of typed columns, tail.Collect with pgx.RowToStructByName)
//     and typed/json, their ratio, from two interleaved rounds of each;
//   - lag: the adversarial load of integration_test's TestTailAdversarial
//     (16 writers, random 0-200 ms pauses, 10 % rollbacks, one row in five
//     by DEFAULT pgid.gen_ulid_v7(), the service clock 2 s behind, lead
//     3 s) for 20 s scaled by rows/1M (at least 2 s), with 2 transactions
//     open for half that time (adversarial) or none (steady); a Tailer reads
//     batches of 100 every 50 ms; lag-p50-ms and lag-p99-ms from COMMIT
//     returning to the row's delivery, both measured in this process.
//
// Server and database as BenchmarkDBLoad; migrations.Up prepares the
// database of the run.
func BenchmarkTail(b *testing.B) {
	rows := benchRows(b)
	scale := float64(rows) / 1e6
	insertFor := max(time.Duration(float64(10*time.Second)*scale), 500*time.Millisecond)
	if s := os.Getenv("PGID_BENCH_INSERT_SECONDS"); s != "" {
		var f float64
		if _, err := fmt.Sscan(s, &f); err != nil || f <= 0 {
			b.Fatalf("PGID_BENCH_INSERT_SECONDS=%q: want a positive number", s)
		}
		insertFor = time.Duration(f * float64(time.Second))
	}
	conn := dbLoadDatabase(b)
	tailMigrate(b, conn)
	fmt.Printf("pgid-bench: Tail rows %d insert-seconds %g\n", rows, insertFor.Seconds())

	b.Run("insert", func(b *testing.B) {
		for range b.N {
			tailInsert(b, conn, insertFor)
		}
	})
	b.Run("backlog", func(b *testing.B) {
		for range b.N {
			tailBacklog(b, conn, rows)
		}
	})
	loadFor := max(time.Duration(float64(20*time.Second)*scale), 2*time.Second)
	for _, long := range []int{2, 0} {
		name := map[int]string{2: "lag-adversarial", 0: "lag-steady"}[long]
		b.Run(name, func(b *testing.B) {
			for range b.N {
				tailLag(b, conn, loadFor, long)
			}
		})
	}
}

// tailMigrate brings the database of the run to pgid's schema.
func tailMigrate(b *testing.B, conn *pgx.Conn) {
	if err := migrations.Up(context.Background(), conn); err != nil {
		b.Fatalf("migrations: %v", err)
	}
}

// tailInsert compares concurrent inserts into a plain table and a table
// with tail's trigger.
func tailInsert(b *testing.B, conn *pgx.Conn, d time.Duration) {
	ctx := context.Background()
	for _, t := range []string{"ins_plain", "ins_tail"} {
		if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS "+t+"; CREATE TABLE "+t+" (id pgid.ulid PRIMARY KEY, payload int NOT NULL)"); err != nil {
			b.Fatal(err)
		}
	}
	if err := tail.Enable(ctx, conn, "ins_tail", 2*time.Second); err != nil {
		b.Fatal(err)
	}
	var stmt strings.Builder
	stmt.WriteString("INSERT INTO %s (id, payload) VALUES ")
	for i := range insertBatch {
		if i > 0 {
			stmt.WriteByte(',')
		}
		fmt.Fprintf(&stmt, "($%d,$%d)", 2*i+1, 2*i+2)
	}
	conns := make([]*pgx.Conn, insertClients)
	for i := range conns {
		c, err := pgx.ConnectConfig(ctx, conn.Config())
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close(ctx)
		conns[i] = c
	}
	rowsOf := map[string]int64{}
	timeOf := map[string]time.Duration{}
	const rounds = 4
	for round := range rounds {
		order := []string{"ins_plain", "ins_tail"}
		if round%2 == 1 {
			order = []string{"ins_tail", "ins_plain"}
		}
		for _, t := range order {
			sql := fmt.Sprintf(stmt.String(), t)
			var wg sync.WaitGroup
			errs := make([]error, len(conns))
			counts := make([]int64, len(conns))
			start := time.Now()
			deadline := start.Add(d / rounds)
			for w, c := range conns {
				wg.Go(func() {
					args := make([]any, 2*insertBatch)
					ids := make([]ulidtype.ULID, insertBatch)
					for time.Now().Before(deadline) {
						ulidtype.Fill(ids)
						for i := range insertBatch {
							args[2*i], args[2*i+1] = ids[i], int32(w)
						}
						if _, err := c.Exec(ctx, sql, args...); err != nil {
							errs[w] = err
							return
						}
						counts[w] += insertBatch
					}
				})
			}
			wg.Wait()
			timeOf[t] += time.Since(start)
			for w := range conns {
				if errs[w] != nil {
					b.Fatalf("%s: %v", t, errs[w])
				}
				rowsOf[t] += counts[w]
			}
		}
	}
	plain := float64(rowsOf["ins_plain"]) / timeOf["ins_plain"].Seconds()
	withTail := float64(rowsOf["ins_tail"]) / timeOf["ins_tail"].Seconds()
	b.ReportMetric(plain, "plain-ins-rows/s")
	b.ReportMetric(withTail, "tail-ins-rows/s")
	b.ReportMetric(withTail/plain, "tail/plain")
}

// tailBacklog reads a backlog of rows with a Tailer.
func tailBacklog(b *testing.B, conn *pgx.Conn, rows int) {
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS backlog; CREATE TABLE backlog (id pgid.ulid PRIMARY KEY, payload int NOT NULL, note text NOT NULL)"); err != nil {
		b.Fatal(err)
	}
	t0 := time.Now().Add(-2 * time.Hour) // an hour of rows, ending an hour ago
	step := time.Hour / time.Duration(rows)
	g := ulidtype.NewGenerator(func() time.Time { t0 = t0.Add(step); return t0 }, nil)
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"backlog"}, []string{"id", "payload", "note"},
		pgx.CopyFromFunc(func() ([]any, error) {
			if rows == 0 {
				return nil, nil
			}
			rows--
			return []any{g.New(), int32(rows), "event"}, nil
		}))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE backlog"); err != nil {
		b.Fatal(err)
	}
	if err := tail.Enable(ctx, conn, "backlog", 2*time.Second); err != nil {
		b.Fatal(err)
	}
	// drain reads the whole backlog with a new Tailer at batch, through
	// Next (the rows as JSON) or tail.Collect (as structs), and returns the
	// time it took.
	type backlogRow struct {
		ID      ulidtype.ULID
		Payload int32
		Note    string
	}
	drain := func(batch int, typed bool) time.Duration {
		tl, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: "backlog", Batch: batch})
		if err != nil {
			b.Fatal(err)
		}
		var got int64
		start := time.Now()
		for got < n {
			var k int
			if typed {
				r, err := tail.Collect(ctx, tl, pgx.RowToStructByName[backlogRow])
				if err != nil {
					b.Fatal(err)
				}
				k = len(r)
			} else {
				r, err := tl.Next(ctx)
				if err != nil {
					b.Fatal(err)
				}
				k = len(r)
			}
			if k == 0 {
				b.Fatalf("batch %d (typed %v): no rows after %d of %d", batch, typed, got, n)
			}
			got += int64(k)
		}
		return time.Since(start)
	}
	rate := func(d time.Duration, passes int) float64 { return float64(n) * float64(passes) / d.Seconds() }
	b.ReportMetric(rate(drain(100, false), 1), "tail-rows/s-batch100")
	// At batch 1,000, the JSON rows of Next and the structs of tail.Collect
	// in two interleaved rounds each (JSON first, then typed first).
	var asJSON, typed time.Duration
	for round := range 2 {
		if round == 0 {
			asJSON += drain(1000, false)
			typed += drain(1000, true)
		} else {
			typed += drain(1000, true)
			asJSON += drain(1000, false)
		}
	}
	b.ReportMetric(rate(asJSON, 2), "tail-rows/s-batch1000")
	b.ReportMetric(rate(typed, 2), "typed-rows/s-batch1000")
	b.ReportMetric(rate(typed, 2)/rate(asJSON, 2), "typed/json")
}

// tailLag runs the adversarial load for d with long transactions open
// d/2 and reports the lag from commit to delivery.
func tailLag(b *testing.B, conn *pgx.Conn, d time.Duration, long int) {
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "DROP TABLE IF EXISTS lag; CREATE TABLE lag (id pgid.ulid PRIMARY KEY DEFAULT pgid.gen_ulid_v7(), writer int NOT NULL)"); err != nil {
		b.Fatal(err)
	}
	if err := tail.Enable(ctx, conn, "lag", 3*time.Second); err != nil {
		b.Fatal(err)
	}
	cfg := conn.Config().Copy()
	pcfg, err := pgxpool.ParseConfig(cfg.ConnString())
	if err != nil {
		b.Fatal(err)
	}
	pcfg.ConnConfig = cfg
	pcfg.MaxConns = 20
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	gen := ulidtype.NewGenerator(func() time.Time { return time.Now().Add(-2 * time.Second) }, nil)
	var mu sync.Mutex
	committed := map[ulidtype.ULID]time.Time{}
	var failed error
	nap := func(r *rand.Rand) { time.Sleep(time.Duration(r.Int64N(int64(200 * time.Millisecond)))) }
	write := func(r *rand.Rand, w int, hold time.Duration) error {
		byDefault := hold == 0 && r.IntN(5) == 0
		var id ulidtype.ULID
		if !byDefault {
			id = gen.New()
		}
		if hold == 0 {
			nap(r)
		}
		tx, err := pool.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		if hold == 0 {
			nap(r)
		}
		if byDefault {
			err = tx.QueryRow(ctx, "INSERT INTO lag (writer) VALUES ($1) RETURNING id", w).Scan(&id)
		} else {
			_, err = tx.Exec(ctx, "INSERT INTO lag (id, writer) VALUES ($1, $2)", id, w)
		}
		if err != nil {
			if tail.IsTooOld(err) {
				return nil
			}
			return err
		}
		if hold > 0 {
			time.Sleep(hold)
		} else {
			nap(r)
		}
		if hold == 0 && r.IntN(10) == 0 {
			return tx.Rollback(ctx)
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		mu.Lock()
		committed[id] = time.Now()
		mu.Unlock()
		return nil
	}
	fail := func(err error) {
		mu.Lock()
		if failed == nil {
			failed = err
		}
		mu.Unlock()
	}
	start := time.Now()
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano())))
			for time.Since(start) < d {
				if err := write(r, w, 0); err != nil {
					fail(err)
					return
				}
			}
		})
	}
	for i := range long {
		wg.Go(func() {
			time.Sleep(time.Duration(i+1) * d / time.Duration(2*(long+1)))
			if err := write(rand.New(rand.NewPCG(99, uint64(i))), 100+i, d/2); err != nil {
				fail(err)
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	tconn, err := pgx.ConnectConfig(ctx, conn.Config())
	if err != nil {
		b.Fatal(err)
	}
	defer tconn.Close(ctx)
	tl, err := tail.New(tconn, tail.Config[ulidtype.ULID]{Table: "lag", Batch: 100})
	if err != nil {
		b.Fatal(err)
	}
	var lags []time.Duration
	delivered := 0
	var end time.Time
	for {
		rows, err := tl.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		mu.Lock()
		for _, r := range rows {
			if c, ok := committed[r.ID]; ok {
				lags = append(lags, now.Sub(c))
			}
		}
		mu.Unlock()
		delivered += len(rows)
		if end.IsZero() {
			select {
			case <-done:
				end = time.Now()
			default:
			}
		} else if len(rows) < 100 && tl.Horizon().After(end) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if failed != nil {
		b.Fatal(failed)
	}
	if delivered != len(committed) || len(lags) != delivered {
		b.Fatalf("delivered %d rows (%d with a commit time), committed %d", delivered, len(lags), len(committed))
	}
	slices.Sort(lags)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(float64(len(committed)), "rows")
	b.ReportMetric(ms(lags[len(lags)/2]), "lag-p50-ms")
	b.ReportMetric(ms(lags[min(len(lags)*99/100, len(lags)-1)]), "lag-p99-ms")
}
