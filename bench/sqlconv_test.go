package bench

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/pgid/pgid/migrations"
)

// defaultSQLConvRows is the number of rows each conversion runs over unless
// PGID_BENCH_ROWS says otherwise.
const defaultSQLConvRows = 100_000

// sqlConv pairs a pgid conversion with what PostgreSQL does in C for the
// same job, over the same column.
type sqlConv struct {
	name      string
	pgid      string // an expression over the columns of sqlconv
	reference string
}

// sqlConvs are the conversions BenchmarkSQLConversions times. The short form
// is compared with base64, PostgreSQL's own 6-bit encoding.
var sqlConvs = []sqlConv{
	{"ulid_to_text", "pgid.ulid_to_text(u)", "u::text"},
	{"ulid_from_text", "pgid.ulid_from_text(ut)", "us::uuid"},
	{"ulid_time", "pgid.ulid_time(u)", "to_timestamp(n)"},
	{"objectid_to_hex", "pgid.objectid_to_hex(o)", "encode(o, 'hex')"},
	{"objectid_from_hex", "pgid.objectid_from_hex(oh)", "decode(oh, 'hex')"},
	{"objectid_to_short", "pgid.objectid_to_short(o)", "encode(o, 'base64')"},
	{"objectid_from_short", "pgid.objectid_from_short(os)", "decode(ob, 'base64')"},
	{"objectid_time", "pgid.objectid_time(o)", "to_timestamp(n)"},
}

// BenchmarkSQLConversions times each pgid SQL conversion against the
// built-in C function that does the same job for PostgreSQL's own types
// (uuid::text, text::uuid, encode/decode hex and base64), over the same
// PGID_BENCH_ROWS rows (default 100,000) of a table in the same database.
// Each iteration runs both queries, one after the other, so that both see
// the same machine; the metrics are nanoseconds per row of each and their
// ratio, the figure docs/MIGRATIONS.md gives:
//
//	cd bench && go test -run '^$' -bench SQLConversions -benchtime 5x .
//
// A query is SELECT count(expr) FROM sqlconv, so the per-row cost of expr is
// what differs; parallel workers are off (max_parallel_workers_per_gather
// = 0 with SET LOCAL) so that the times are CPU per row. Server and
// database as BenchmarkDBLoad.
func BenchmarkSQLConversions(b *testing.B) {
	rows := defaultSQLConvRows
	if s := os.Getenv("PGID_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("PGID_BENCH_ROWS=%q: want a positive integer", s)
		}
		rows = min(n, defaultSQLConvRows)
	}
	ctx := context.Background()
	conn := dbLoadDatabase(b)
	if err := migrations.Up(ctx, conn); err != nil {
		b.Fatalf("migrations: %v", err)
	}
	// Random IDs made in SQL, and their text forms: the text forms are
	// columns, so parsing them is all the parsing queries do.
	if _, err := conn.Exec(ctx, `
		CREATE TABLE sqlconv AS
		SELECT u, pgid.ulid_to_text(u) AS ut, u::text AS us,
		       o, pgid.objectid_to_hex(o) AS oh, pgid.objectid_to_short(o) AS os, encode(o, 'base64') AS ob,
		       extract(epoch FROM now())::float8 AS n
		FROM (SELECT pgid.gen_ulid() AS u, pgid.gen_objectid() AS o FROM generate_series(1, $1)) g`, rows); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "VACUUM ANALYZE sqlconv"); err != nil {
		b.Fatal(err)
	}
	// Warm the cache and the backend's compiled plpgsql once.
	for _, c := range sqlConvs {
		for _, e := range []string{c.pgid, c.reference} {
			if _, err := conn.Exec(ctx, "SELECT count("+e+") FROM sqlconv"); err != nil {
				b.Fatalf("%s: %v", e, err)
			}
		}
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
		if err := tx.QueryRow(ctx, "SELECT count("+expr+") FROM sqlconv").Scan(&n); err != nil || n != rows {
			b.Fatalf("%s: %d rows, %v", expr, n, err)
		}
		return time.Since(start)
	}
	for _, c := range sqlConvs {
		b.Run(c.name, func(b *testing.B) {
			var pgid, ref time.Duration
			for b.Loop() {
				pgid += timeQuery(c.pgid)
				ref += timeQuery(c.reference)
			}
			perRow := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) / float64(rows) }
			b.ReportMetric(perRow(pgid), "pgid-ns/row")
			b.ReportMetric(perRow(ref), "builtin-ns/row")
			b.ReportMetric(float64(pgid)/float64(ref), "ratio")
		})
	}
}
