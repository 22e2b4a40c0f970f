package bench

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/pgid/pgid/migrations"
)

// defaultSQLGenRows is the number of values each generator makes per query.
const defaultSQLGenRows = 200_000

// sqlGen is a way to make IDs in SQL.
type sqlGen struct {
	name      string
	expr      string
	minServer int // server_version_num it needs (0: any)
}

// sqlGens are the generators BenchmarkSQLGenerators times. The "-0.x"
// ones are the bodies pgid shipped before issue 35, kept here as
// expressions so that one run compares them with today's.
var sqlGens = []sqlGen{
	{name: "gen_random_uuid", expr: "gen_random_uuid()"},
	{name: "uuidv7", expr: "uuidv7()", minServer: 180000},
	{name: "pgid.gen_ulid_v7", expr: "pgid.gen_ulid_v7()"},
	{name: "gen_ulid_v7-0.x", expr: `(lpad(to_hex(floor(extract(epoch FROM timezone('UTC', clock_timestamp())) * 1000)::int8), 12, '0')
		|| '7' || substr(replace(gen_random_uuid()::text, '-', ''), 14, 3)
		|| substr(replace(gen_random_uuid()::text, '-', ''), 17, 16))::uuid`},
	{name: "pgid.gen_objectid", expr: "pgid.gen_objectid()"},
	{name: "gen_objectid-0.x", expr: `decode(lpad(to_hex(floor(extract(epoch FROM timezone('UTC', clock_timestamp())))::int8), 8, '0')
		|| substr(replace(gen_random_uuid()::text, '-', ''), 18, 15)
		|| substr(replace(gen_random_uuid()::text, '-', ''), 1, 1), 'hex')`},
}

// BenchmarkSQLGenerators times pgid's SQL generators against
// gen_random_uuid() (and uuidv7() on PostgreSQL 18) in the same database:
// each iteration runs SELECT count(expr) FROM generate_series(1, rows) for
// every generator in turn, rows PGID_BENCH_ROWS (default 200,000), one
// backend, no parallel workers. The metrics are nanoseconds per value,
// values per second and the ratio to gen_random_uuid() of the same
// iterations:
//
//	cd bench && go test -run '^$' -bench SQLGenerators -benchtime 5x .
func BenchmarkSQLGenerators(b *testing.B) {
	rows := defaultSQLGenRows
	if s := os.Getenv("PGID_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("PGID_BENCH_ROWS=%q: want a positive integer", s)
		}
		rows = n
	}
	ctx := context.Background()
	conn := dbLoadDatabase(b)
	if err := migrations.Up(ctx, conn); err != nil {
		b.Fatalf("migrations: %v", err)
	}
	var server int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&server); err != nil {
		b.Fatal(err)
	}
	timeQuery := func(expr string) time.Duration {
		tx, err := conn.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "SET LOCAL max_parallel_workers_per_gather = 0"); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		var n int
		if err := tx.QueryRow(ctx, "SELECT count("+expr+") FROM generate_series(1, $1)", rows).Scan(&n); err != nil || n != rows {
			b.Fatalf("%s: %d rows, %v", expr, n, err)
		}
		return time.Since(start)
	}
	var gens []sqlGen
	for _, g := range sqlGens {
		if server >= g.minServer {
			gens = append(gens, g)
			timeQuery(g.expr) // warm up
		} else {
			b.Logf("%s: skipped, needs server_version_num %d (have %d)", g.name, g.minServer, server)
		}
	}
	b.Run("all", func(b *testing.B) {
		total := make([]time.Duration, len(gens))
		for b.Loop() {
			for i, g := range gens {
				total[i] += timeQuery(g.expr)
			}
		}
		for i, g := range gens {
			perValue := float64(total[i].Nanoseconds()) / float64(b.N) / float64(rows)
			b.ReportMetric(perValue, g.name+"-ns/value")
			b.ReportMetric(float64(total[i])/float64(total[0]), g.name+"-ratio")
		}
	})
}
