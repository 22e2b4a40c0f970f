// Command idwriter is one of the writer processes of integration_test's
// TestManyWriters: it inserts IDs into one table, on several connections
// at once, as fast as it can for a fixed time, and prints how many rows it
// inserted. Each row records the process, and the clock just before and
// just after its ID was made (the writer's clock for IDs made in Go, the
// database's clock_timestamp() for IDs made in SQL), so that the test can
// check the IDs' time fields against them.
//
//	idwriter -dsn DSN -table T -mode MODE -proc N [-conns 2] [-for 3s] [-batch 100]
//
// Modes: ulid-go (ulidtype.Fill), ulid-sql (pgid.gen_ulid_v7()),
// objectid-go (objectidtype.Fill), objectid-sql (pgid.gen_objectid()).
// The table has columns (id, proc int, made_after timestamptz, made_before
// timestamptz), id uuid or bytea.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
)

func main() {
	dsn := flag.String("dsn", "", "the database")
	table := flag.String("table", "", "the table")
	mode := flag.String("mode", "", "ulid-go, ulid-sql, objectid-go or objectid-sql")
	proc := flag.Int("proc", 0, "this process's number, stored in each row")
	conns := flag.Int("conns", 2, "connections")
	dur := flag.Duration("for", 3*time.Second, "how long to insert")
	batch := flag.Int("batch", 100, "IDs per INSERT")
	start := flag.Int64("start", 0, "Unix ms to start at (all writers together)")
	flag.Parse()
	n, err := run(*dsn, *table, *mode, *proc, *conns, *batch, *dur, time.UnixMilli(*start))
	if err != nil {
		fmt.Fprintln(os.Stderr, "idwriter:", err)
		os.Exit(1)
	}
	fmt.Println(n)
}

// run inserts on conns connections until dur has passed since startAt and
// returns the rows inserted.
func run(dsn, table, mode string, proc, conns, batch int, dur time.Duration, startAt time.Time) (int64, error) {
	ctx := context.Background()
	insert, err := inserter(table, mode, proc, batch)
	if err != nil {
		return 0, err
	}
	cs := make([]*pgx.Conn, conns)
	for i := range cs {
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return 0, err
		}
		defer c.Close(ctx)
		cs[i] = c
	}
	time.Sleep(time.Until(startAt))
	end := time.Now().Add(dur)
	var total atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				if err := insert(ctx, c); err != nil {
					errs <- err
					return
				}
				total.Add(int64(batch))
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return total.Load(), err
	}
	return total.Load(), nil
}

// inserter returns the statement of mode: one INSERT of batch rows.
func inserter(table, mode string, proc, batch int) (func(context.Context, *pgx.Conn) error, error) {
	tbl := pgx.Identifier{table}.Sanitize()
	switch mode {
	case "ulid-go", "objectid-go":
		q := "INSERT INTO " + tbl + " (id, proc, made_after, made_before) SELECT unnest($1::" +
			map[string]string{"ulid-go": "uuid", "objectid-go": "bytea"}[mode] + "[]), $2, $3, $4"
		return func(ctx context.Context, c *pgx.Conn) error {
			var ids any
			before := time.Now()
			if mode == "ulid-go" {
				u := make([]ulidtype.ULID, batch)
				ulidtype.Fill(u)
				ids = u
			} else {
				o := make([]objectidtype.ObjectID, batch)
				objectidtype.Fill(o)
				ids = o
			}
			after := time.Now()
			_, err := c.Exec(ctx, q, ids, proc, before, after)
			return err
		}, nil
	case "ulid-sql", "objectid-sql":
		// The target list is evaluated left to right for each row: the
		// clock, the ID (which reads the clock itself), the clock again.
		fn := map[string]string{"ulid-sql": "pgid.gen_ulid_v7()", "objectid-sql": "pgid.gen_objectid()"}[mode]
		q := "INSERT INTO " + tbl + " (made_after, id, made_before, proc) SELECT clock_timestamp(), " + fn +
			", clock_timestamp(), $1 FROM generate_series(1, $2)"
		return func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, q, proc, batch)
			return err
		}, nil
	}
	return nil, fmt.Errorf("mode %q is not ulid-go, ulid-sql, objectid-go or objectid-sql", mode)
}
