package bench

import (
	"context"
	crand "crypto/rand"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// defaultDBLoadRows is the number of rows per load unless PGID_BENCH_ROWS
// says otherwise.
const defaultDBLoadRows = 1_000_000

// rowsPerMilli is the insert rate at which keys random within their
// millisecond were once reported to fill the index's leaves to 62.8 %; this
// benchmark did not reproduce that figure (it measures about 77 %, see
// docs/BENCHMARKS.md).
const rowsPerMilli = 255

// A dbLoadKind is one kind of primary key: its column type and a generator
// of n keys in generation order, already in the form pgx encodes.
type dbLoadKind struct {
	name    string
	colType string
	gen     func(n int) []any
}

var dbLoadKinds = []dbLoadKind{
	// pgid's ULID from the package generator, in batches: strictly
	// increasing.
	{"ulid", "uuid", func(n int) []any {
		ids := make([]ulidtype.ULID, n)
		for i := 0; i < n; i += 1000 {
			ulidtype.Fill(ids[i:min(i+1000, n)])
		}
		return boxAll(ids)
	}},
	// Random UUIDv4, passed as pgtype.UUID so that pgx encodes it binary
	// (uuid.UUID alone would go through its driver.Valuer, as text).
	{"uuidv4", "uuid", func(n int) []any {
		keys := make([]any, n)
		for i := range keys {
			keys[i] = pgtype.UUID{Bytes: uuid.New(), Valid: true}
		}
		return keys
	}},
	// google/uuid's UUIDv7, the peer time-ordered UUID.
	{"uuidv7", "uuid", func(n int) []any {
		keys := make([]any, n)
		for i := range keys {
			keys[i] = pgtype.UUID{Bytes: uuid.Must(uuid.NewV7()), Valid: true}
		}
		return keys
	}},
	// The control for the next kind: a monotonic ULID generator whose clock
	// advances one millisecond every rowsPerMilli rows.
	{"ulid-mono-255perms", "uuid", func(n int) []any {
		t0 := time.Now().UnixMilli()
		var ms int64
		g := ulidtype.NewGenerator(func() time.Time { return time.UnixMilli(t0 + ms) }, nil)
		ids := make([]ulidtype.ULID, n)
		for i := 0; i < n; i += rowsPerMilli {
			ms = int64(i / rowsPerMilli)
			g.Fill(ids[i:min(i+rowsPerMilli, n)])
		}
		return boxAll(ids)
	}},
	// The same timestamps, rowsPerMilli rows per millisecond, but 80 random
	// bits after them: time-ordered across milliseconds, random within one.
	{"ulid-rand-in-ms-255perms", "uuid", func(n int) []any {
		t0 := time.Now().UnixMilli()
		entropy := make([]byte, 10*n)
		crand.Read(entropy)
		ids := make([]ulidtype.ULID, n)
		for i := range ids {
			ids[i] = ulidtype.MinAt(time.UnixMilli(t0 + int64(i/rowsPerMilli)))
			copy(ids[i][6:], entropy[10*i:])
		}
		return boxAll(ids)
	}},
	// pgid's ObjectID, 12 bytes in a bytea column.
	{"objectid", "bytea", func(n int) []any {
		keys := make([]any, n)
		for i := range keys {
			keys[i] = objectidtype.New()
		}
		return keys
	}},
	// The MongoDB driver's ObjectID, as its 12 raw bytes.
	{"bson-objectid", "bytea", func(n int) []any {
		ids := make([]bson.ObjectID, n)
		keys := make([]any, n)
		for i := range ids {
			ids[i] = bson.NewObjectID()
			keys[i] = ids[i][:]
		}
		return keys
	}},
}

func boxAll[T any](ids []T) []any {
	keys := make([]any, len(ids))
	for i, id := range ids {
		keys[i] = id
	}
	return keys
}

// BenchmarkDBLoad loads PGID_BENCH_ROWS rows (default 1,000,000) with one
// CopyFrom into a fresh table (id <type> PRIMARY KEY, payload int) per key
// kind and reports how long the copy took and how large and how well filled
// the primary key index is (pgstatindex). One iteration is one load, so run
// it with -benchtime 1x:
//
//	cd bench && go test -run '^$' -bench DBLoad -benchtime 1x -timeout 30m .
//
// The server is the one every test of the repository finds
// (internal/pgserver/pgtest: DATABASE_URL, the docker-compose DSN, else an
// embedded PostgreSQL); without one the benchmark fails. Each run works in a
// database of its own, created here and dropped at the end; the role needs
// CREATEDB, and the server the pgstattuple extension (postgresql-contrib).
//
// Keys are generated, in generation order, before the timer starts; ns/op is
// the CopyFrom alone, gen-ms/op the key generation, total-ms/op both.
func BenchmarkDBLoad(b *testing.B) {
	rows := defaultDBLoadRows
	if s := os.Getenv("PGID_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("PGID_BENCH_ROWS=%q: want a positive integer", s)
		}
		rows = n
	}
	conn := dbLoadDatabase(b)
	fmt.Printf("pgid-bench: DBLoad rows %d\n", rows)
	for _, kind := range dbLoadKinds {
		b.Run(kind.name, func(b *testing.B) { dbLoad(b, conn, kind, rows) })
	}
}

func dbLoad(b *testing.B, conn *pgx.Conn, kind dbLoadKind, rows int) {
	ctx := context.Background()
	table := "load_" + strings.ReplaceAll(kind.name, "-", "_")
	ident := pgx.Identifier{table}.Sanitize()
	exec := func(sql string, args ...any) {
		b.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			b.Fatalf("%s: %v", sql, err)
		}
	}
	b.Cleanup(func() { conn.Exec(ctx, "DROP TABLE IF EXISTS "+ident) })

	var gen, cp time.Duration
	var loads int
	var indexBytes, tableBytes, leafPages int64
	var leafDensity float64
	for b.Loop() {
		b.StopTimer()
		exec("DROP TABLE IF EXISTS " + ident)
		// No autovacuum on the table, so that none runs during the next
		// load; CHECKPOINT, so that this load does not pay for the last.
		exec("CREATE TABLE " + ident + " (id " + kind.colType +
			" PRIMARY KEY, payload int) WITH (autovacuum_enabled = off)")
		exec("CHECKPOINT")

		start := time.Now()
		keys := kind.gen(rows)
		gen += time.Since(start)

		row := make([]any, 2) // CopyFrom encodes each row before the next
		src := pgx.CopyFromSlice(rows, func(i int) ([]any, error) {
			row[0], row[1] = keys[i], int32(i)
			return row, nil
		})
		b.StartTimer()
		start = time.Now()
		n, err := conn.CopyFrom(ctx, pgx.Identifier{table}, []string{"id", "payload"}, src)
		cp += time.Since(start)
		b.StopTimer()
		if err != nil {
			b.Fatalf("CopyFrom: %v", err)
		}
		if n != int64(rows) {
			b.Fatalf("CopyFrom: %d rows, want %d", n, rows)
		}
		loads++

		err = conn.QueryRow(ctx, `SELECT pg_relation_size($1::regclass), pg_relation_size($2::regclass),
			s.leaf_pages, s.avg_leaf_density FROM pgstatindex($2::regclass) s`,
			ident, pgx.Identifier{table + "_pkey"}.Sanitize()).
			Scan(&tableBytes, &indexBytes, &leafPages, &leafDensity)
		if err != nil {
			b.Fatalf("sizes: %v", err)
		}
		b.StartTimer()
	}

	const mib = 1 << 20
	perLoad := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(loads) }
	b.ReportMetric(perLoad(gen), "gen-ms/op")
	b.ReportMetric(perLoad(gen+cp), "total-ms/op")
	b.ReportMetric(float64(rows*loads)/cp.Seconds(), "rows/s")
	b.ReportMetric(float64(indexBytes)/mib, "index-MiB")
	b.ReportMetric(float64(tableBytes)/mib, "table-MiB")
	b.ReportMetric(leafDensity, "leaf-fill-%")
	b.ReportMetric(float64(leafPages), "leaf-pages")
}

// dbLoadDatabase connects to the server, creates a database of its own with
// pgstattuple in it, drops it again when b ends, and returns a connection to
// it.
func dbLoadDatabase(b *testing.B) *pgx.Conn {
	b.Helper()
	dsn := pgtest.EmptyDB(b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatalf("connect to the benchmark's database: %v", err)
	}
	// Registered after EmptyDB's: runs before the database is dropped.
	b.Cleanup(func() { conn.Close(context.Background()) })
	name := conn.Config().Database
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pgstattuple"); err != nil {
		b.Fatalf("BenchmarkDBLoad needs the pgstattuple extension (in Debian's postgresql-contrib, "+
			"created by a superuser) for leaf fill and leaf pages: %v", err)
	}
	var version string
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&version); err == nil {
		b.Logf("server: %s; database %s", version, name)
		// Printed as well, for the report (bench/report): a benchmark's
		// log shows only when it fails or with -v.
		fmt.Println("pgid-bench: server", version)
	}
	return conn
}
