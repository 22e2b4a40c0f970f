package bench

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/ulidtype"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A pgKind is one way to make a primary key: in the client (keys, keysAt)
// or in the server (idDefault, idAt). Adding a kind is adding one entry to
// pgKinds.
type pgKind struct {
	name    string // sub-benchmark name
	colType string // the id column's type
	// idDefault, for server-side kinds, follows the column type in the
	// CREATE TABLE: the identity clause or the DEFAULT.
	idDefault string
	// minServer is the lowest server_version_num that has idDefault; 0 for
	// any.
	minServer int
	// keys returns n keys made now, in generation order, in the form pgx
	// encodes in binary; nil for server-side kinds.
	keys func(n int) []any
	// keysAt returns one key made at each of the times ts, for the
	// time-window table; nil for server-side kinds.
	keysAt func(ts []time.Time) []any
	// idAt, for server-side kinds whose keys carry a time, is the SQL
	// expression a trigger sets NEW.id to for a row with NEW.created_at;
	// other server-side kinds take idDefault in the window table too.
	idAt string
	// bound returns the smallest key of instant t, for WHERE id >= lo AND
	// id < hi; nil when the keys carry no time.
	bound func(t time.Time) any
}

// pgKinds are the keys a team would choose among. The window table spreads
// its rows over windowSpan, so the time-ordered client kinds are generated
// from a clock that steps along with created_at.
var pgKinds = []pgKind{
	{name: "bigint-identity", colType: "bigint", idDefault: "GENERATED ALWAYS AS IDENTITY"},
	{name: "gen_random_uuid", colType: "uuid", idDefault: "DEFAULT gen_random_uuid()"},
	{
		name: "uuidv7-pg18", colType: "uuid", idDefault: "DEFAULT uuidv7()", minServer: 180000,
		// uuidv7(shift) takes the clock plus shift, so the id's time is
		// created_at (to the millisecond it takes to run the trigger).
		idAt:  "uuidv7(NEW.created_at - clock_timestamp())",
		bound: uuidV7Bound,
	},
	{
		name: "google-uuidv7", colType: "uuid",
		keys: func(n int) []any {
			keys := make([]any, n)
			for i := range keys {
				keys[i] = pgtype.UUID{Bytes: uuid.Must(uuid.NewV7()), Valid: true}
			}
			return keys
		},
		keysAt: func(ts []time.Time) []any {
			keys := make([]any, len(ts))
			for i, t := range ts {
				u := uuid.Must(uuid.NewV7())
				putMilli(u[:], t)
				keys[i] = pgtype.UUID{Bytes: u, Valid: true}
			}
			return keys
		},
		bound: uuidV7Bound,
	},
	ulidKind("pgid-ulid", ulidtype.LayoutULID),
	ulidKind("pgid-ulid-v7", ulidtype.LayoutV7),
	{
		name: "pgid-objectid", colType: "bytea",
		keys: func(n int) []any {
			ids := make([]objectidtype.ObjectID, n)
			for i := 0; i < n; i += 1000 {
				objectidtype.Fill(ids[i:min(i+1000, n)])
			}
			return boxAll(ids)
		},
		keysAt: func(ts []time.Time) []any {
			var now time.Time
			g := objectidtype.NewGenerator(func() time.Time { return now }, nil)
			keys := make([]any, len(ts))
			for i, t := range ts {
				now = t
				keys[i] = g.New()
			}
			return keys
		},
		bound: func(t time.Time) any { return objectidtype.MinAt(t) },
	},
	{
		name: "bson-objectid", colType: "bytea",
		keys: func(n int) []any {
			keys := make([]any, n)
			for i := range keys {
				id := bson.NewObjectID()
				keys[i] = id[:]
			}
			return keys
		},
		keysAt: func(ts []time.Time) []any {
			keys := make([]any, len(ts))
			for i, t := range ts {
				id := bson.NewObjectID()
				binary.BigEndian.PutUint32(id[:4], uint32(t.Unix()))
				keys[i] = id[:]
			}
			return keys
		},
		bound: func(t time.Time) any {
			var id [12]byte
			binary.BigEndian.PutUint32(id[:4], uint32(t.Unix()))
			return id[:]
		},
	},
}

// ulidKind is pgid's ULID in layout l: from a Generator of its own in that
// layout, in batches of up to 1,000 (Fill), and with a clock stepping
// along created_at for the window table.
func ulidKind(name string, l ulidtype.Layout) pgKind {
	g := ulidtype.NewGenerator(nil, nil)
	g.SetLayout(l)
	return pgKind{
		name: name, colType: "uuid",
		keys: func(n int) []any {
			ids := make([]ulidtype.ULID, n)
			for i := 0; i < n; i += 1000 {
				g.Fill(ids[i:min(i+1000, n)])
			}
			return boxAll(ids)
		},
		keysAt: func(ts []time.Time) []any {
			var now time.Time
			g := ulidtype.NewGenerator(func() time.Time { return now }, nil)
			g.SetLayout(l)
			keys := make([]any, len(ts))
			for i, t := range ts {
				now = t
				keys[i] = g.New()
			}
			return keys
		},
		bound: func(t time.Time) any { return ulidtype.MinAt(t) },
	}
}

// putMilli writes t's Unix milliseconds into the first 6 bytes of a UUIDv7.
func putMilli(b []byte, t time.Time) {
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(t.UnixMilli()))
	copy(b[:6], ms[2:])
}

// uuidV7Bound is the smallest UUIDv7 of t's millisecond.
func uuidV7Bound(t time.Time) any {
	var u [16]byte
	putMilli(u[:], t)
	return pgtype.UUID{Bytes: u, Valid: true}
}

// Sizes of the workload. Rows scale with PGID_BENCH_ROWS; the rest follow
// unless set on their own.
const (
	// windowSpan is the time the window table's rows are spread over.
	windowSpan = 7 * 24 * time.Hour
	// window is the width of the time-window query.
	window = time.Hour
	// windowQueries is how many windows are timed, at random offsets, the
	// same ones for both predicates.
	windowQueries = 20
	// insertClients is the number of concurrent inserting connections.
	insertClients = 8
	// insertBatch is the number of rows per INSERT statement.
	insertBatch = 100
)

// BenchmarkPGKeys compares the primary keys of pgKinds inside PostgreSQL.
// For each kind, one iteration (run it with -benchtime 1x):
//
//   - load: creates (id, payload int) with the key as primary key and loads
//     PGID_BENCH_ROWS rows (default 1,000,000) with one CopyFrom; ns/op and
//     load-rows/s are the CopyFrom alone;
//   - size: table and primary-key index size, leaf pages and average leaf
//     fill (pgstatindex);
//   - WAL: CHECKPOINT, then a CopyFrom of a tenth as many more rows
//     (100,000 by default); wal-MiB is the WAL written, wal-fpi its
//     full-page images (pg_stat_wal, so the server should be idle otherwise);
//   - concurrent inserts: 8 connections each running 100-row INSERT … VALUES
//     statements for PGID_BENCH_INSERT_SECONDS (default 10 s scaled by
//     rows/1M, at least 0.5 s) into the same table; ins-rows/s and the p50
//     and p99 statement latency;
//   - time window: a second table (id, created_at timestamptz, payload) with
//     an index on created_at, the same number of rows spread over 7 days and
//     keys made at their created_at; 20 one-hour windows selected by id
//     bounds on the primary key (win-id-*) and by created_at (win-ts-*):
//     median latency measured in the client, and the median shared buffers
//     touched (hit + read) and execution time from EXPLAIN (ANALYZE,
//     BUFFERS); createdat-MiB is what the column and its index add (total
//     relation size of the second table minus the first's, before the WAL
//     step).
//
// Kinds whose keys carry no time have no win-id-* metrics. A kind the
// server lacks (uuidv7() before PostgreSQL 18) is skipped with a message
// saying so. The server is DATABASE_URL, as for BenchmarkDBLoad.
func BenchmarkPGKeys(b *testing.B) {
	rows := benchRows(b)
	insertFor := time.Duration(float64(10*time.Second) * float64(rows) / 1e6)
	insertFor = max(insertFor, 500*time.Millisecond)
	if s := os.Getenv("PGID_BENCH_INSERT_SECONDS"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f <= 0 {
			b.Fatalf("PGID_BENCH_INSERT_SECONDS=%q: want a positive number", s)
		}
		insertFor = time.Duration(f * float64(time.Second))
	}
	conn := dbLoadDatabase(b)
	fmt.Printf("pgid-bench: PGKeys rows %d insert-seconds %g\n", rows, insertFor.Seconds())
	var serverNum int
	if err := conn.QueryRow(context.Background(), "SELECT current_setting('server_version_num')::int").Scan(&serverNum); err != nil {
		b.Fatal(err)
	}
	for _, kind := range pgKinds {
		b.Run(kind.name, func(b *testing.B) {
			if serverNum < kind.minServer {
				// Printed, not only logged: go test shows no skip message
				// of a benchmark without -v, and the report reads this line.
				msg := fmt.Sprintf("kind %s not available: %s needs server_version_num >= %d, this server is %d; not measured",
					kind.name, kind.idDefault, kind.minServer, serverNum)
				fmt.Println("pgid-bench:", msg)
				b.Skip(msg)
			}
			pgKeys(b, conn, kind, rows, insertFor)
		})
	}
}

// benchRows is PGID_BENCH_ROWS or defaultDBLoadRows.
func benchRows(b *testing.B) int {
	if s := os.Getenv("PGID_BENCH_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("PGID_BENCH_ROWS=%q: want a positive integer", s)
		}
		return n
	}
	return defaultDBLoadRows
}

func pgKeys(b *testing.B, conn *pgx.Conn, kind pgKind, rows int, insertFor time.Duration) {
	ctx := context.Background()
	name := strings.ReplaceAll(kind.name, "-", "_")
	tbl, win := "keys_"+name, "win_"+name
	ident, winIdent := pgx.Identifier{tbl}.Sanitize(), pgx.Identifier{win}.Sanitize()
	exec := func(sql string, args ...any) {
		b.Helper()
		if _, err := conn.Exec(ctx, sql, args...); err != nil {
			b.Fatalf("%s: %v", sql, err)
		}
	}
	b.Cleanup(func() { conn.Exec(ctx, "DROP TABLE IF EXISTS "+ident+", "+winIdent) })
	idCol := "id " + kind.colType + " " + kind.idDefault + " PRIMARY KEY"

	// copyRows loads n rows into table, keys from kind.keys (or the
	// server), payloads from first on.
	copyRows := func(table string, n, first int) time.Duration {
		b.Helper()
		var keys []any
		cols := []string{"payload"}
		if kind.keys != nil {
			keys = kind.keys(n)
			cols = []string{"id", "payload"}
		}
		row := make([]any, len(cols))
		src := pgx.CopyFromSlice(n, func(i int) ([]any, error) {
			if keys != nil {
				row[0] = keys[i]
			}
			row[len(row)-1] = int32(first + i)
			return row, nil
		})
		start := time.Now()
		got, err := conn.CopyFrom(ctx, pgx.Identifier{table}, cols, src)
		d := time.Since(start)
		if err != nil || got != int64(n) {
			b.Fatalf("CopyFrom %s: %d rows, %v", table, got, err)
		}
		return d
	}

	var m pgKeysResult
	for b.Loop() {
		b.StopTimer()
		exec("DROP TABLE IF EXISTS " + ident + ", " + winIdent)
		exec("CREATE TABLE " + ident + " (" + idCol + ", payload int) WITH (autovacuum_enabled = off)")
		exec("CHECKPOINT")
		b.StartTimer()
		m.load = copyRows(tbl, rows, 0)
		b.StopTimer()

		err := conn.QueryRow(ctx, `SELECT pg_relation_size($1::regclass), pg_relation_size($2::regclass),
			pg_total_relation_size($1::regclass), s.leaf_pages, s.avg_leaf_density
			FROM pgstatindex($2::regclass) s`, ident, pgx.Identifier{tbl + "_pkey"}.Sanitize()).
			Scan(&m.tableBytes, &m.indexBytes, &m.totalBytes, &m.leafPages, &m.leafFill)
		if err != nil {
			b.Fatalf("sizes: %v", err)
		}

		m.windowTable(b, conn, kind, win, idCol, rows)

		// WAL for a tenth more rows right after a checkpoint: the first
		// change to each page after it writes the whole page.
		exec("CHECKPOINT")
		var lsn0, lsn1 string
		var fpi0, fpi1 int64
		conn.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text, wal_fpi FROM pg_stat_wal").Scan(&lsn0, &fpi0)
		copyRows(tbl, max(rows/10, 1), rows)
		exec("SELECT pg_stat_force_next_flush()")
		conn.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::text::pg_lsn)::bigint", lsn0).Scan(&m.walBytes)
		time.Sleep(100 * time.Millisecond) // let the stats flush land
		conn.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text, wal_fpi FROM pg_stat_wal").Scan(&lsn1, &fpi1)
		m.walFPI = fpi1 - fpi0

		m.concurrentInserts(b, conn, kind, tbl, insertFor)
		b.StartTimer()
	}
	m.report(b, rows)
}

// pgKeysResult holds one iteration's measurements.
type pgKeysResult struct {
	load                             time.Duration
	tableBytes, indexBytes           int64
	totalBytes, leafPages            int64
	leafFill                         float64
	walBytes, walFPI                 int64
	insRows                          int64
	insTime                          time.Duration
	insP50, insP99                   time.Duration
	createdAtBytes                   int64
	idLat, tsLat                     time.Duration
	idBufs, tsBufs                   float64
	idExec, tsExec                   float64
	tsRows                           int64
	hasIDWindow                      bool
	winIndexBytes, winCreatedAtBytes int64
}

func (m *pgKeysResult) report(b *testing.B, rows int) {
	const mib = 1 << 20
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(float64(rows)/m.load.Seconds(), "load-rows/s")
	b.ReportMetric(float64(m.tableBytes)/mib, "table-MiB")
	b.ReportMetric(float64(m.indexBytes)/mib, "index-MiB")
	b.ReportMetric(m.leafFill, "leaf-fill-%")
	b.ReportMetric(float64(m.leafPages), "leaf-pages")
	b.ReportMetric(float64(m.walBytes)/mib, "wal-MiB")
	b.ReportMetric(float64(m.walFPI), "wal-fpi")
	b.ReportMetric(float64(m.insRows)/m.insTime.Seconds(), "ins-rows/s")
	b.ReportMetric(ms(m.insP50), "ins-p50-ms")
	b.ReportMetric(ms(m.insP99), "ins-p99-ms")
	b.ReportMetric(float64(m.createdAtBytes)/mib, "createdat-MiB")
	b.ReportMetric(float64(m.winCreatedAtBytes)/mib, "createdat-index-MiB")
	b.ReportMetric(ms(m.tsLat), "win-ts-ms")
	b.ReportMetric(m.tsBufs, "win-ts-buffers")
	b.ReportMetric(m.tsExec, "win-ts-exec-ms")
	b.ReportMetric(float64(m.tsRows), "win-rows")
	if m.hasIDWindow {
		b.ReportMetric(ms(m.idLat), "win-id-ms")
		b.ReportMetric(m.idBufs, "win-id-buffers")
		b.ReportMetric(m.idExec, "win-id-exec-ms")
	}
}

// windowTable builds the time-window table and times the window queries.
func (m *pgKeysResult) windowTable(b *testing.B, conn *pgx.Conn, kind pgKind, win, idCol string, rows int) {
	ctx := context.Background()
	ident := pgx.Identifier{win}.Sanitize()
	exec := func(sql string) {
		b.Helper()
		if _, err := conn.Exec(ctx, sql); err != nil {
			b.Fatalf("%s: %v", sql, err)
		}
	}
	exec("CREATE TABLE " + ident + " (" + idCol + ", created_at timestamptz NOT NULL, payload int) WITH (autovacuum_enabled = off)")
	exec("CREATE INDEX ON " + ident + " (created_at)")
	if kind.idAt != "" {
		fn := pgx.Identifier{win + "_id"}.Sanitize()
		exec("CREATE OR REPLACE FUNCTION " + fn + "() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN NEW.id := " +
			kind.idAt + "; RETURN NEW; END$$")
		exec("CREATE TRIGGER id_at BEFORE INSERT ON " + ident + " FOR EACH ROW EXECUTE FUNCTION " + fn + "()")
	}
	// Row i is created at t0 + i*step, to the microsecond.
	t0 := time.Now().Add(-windowSpan).Truncate(time.Hour)
	step := windowSpan / time.Duration(rows)
	ts := make([]time.Time, rows)
	for i := range ts {
		ts[i] = t0.Add(time.Duration(i) * step).Truncate(time.Microsecond)
	}
	var keys []any
	cols := []string{"created_at", "payload"}
	if kind.keysAt != nil {
		keys = kind.keysAt(ts)
		cols = []string{"id", "created_at", "payload"}
	}
	row := make([]any, len(cols))
	src := pgx.CopyFromSlice(rows, func(i int) ([]any, error) {
		if keys != nil {
			row[0] = keys[i]
		}
		row[len(row)-2], row[len(row)-1] = ts[i], int32(i)
		return row, nil
	})
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{win}, cols, src); err != nil {
		b.Fatalf("CopyFrom %s: %v", win, err)
	}
	exec("VACUUM ANALYZE " + ident)
	var total int64
	err := conn.QueryRow(ctx, "SELECT pg_total_relation_size($1::regclass), pg_relation_size($2::regclass)",
		ident, pgx.Identifier{win + "_created_at_idx"}.Sanitize()).Scan(&total, &m.winCreatedAtBytes)
	if err != nil {
		b.Fatalf("sizes of %s: %v", win, err)
	}
	m.createdAtBytes = total - m.totalBytes

	r := rand.New(rand.NewPCG(1, 2)) // the same windows for every kind
	var idLat, tsLat []time.Duration
	var idBufs, tsBufs, idExec, tsExec []float64
	byID := "SELECT id, payload FROM " + ident + " WHERE id >= $1 AND id < $2"
	byTS := "SELECT id, payload FROM " + ident + " WHERE created_at >= $1 AND created_at < $2"
	for range windowQueries {
		from := t0.Add(time.Duration(r.Int64N(int64(windowSpan - window))))
		from = from.Truncate(time.Second) // ObjectIds have 1 s granularity
		to := from.Add(window)
		d, n := timeQuery(b, conn, byTS, from, to)
		tsLat = append(tsLat, d)
		m.tsRows = n
		bufs, ex := explain(b, conn, byTS, from, to)
		tsBufs, tsExec = append(tsBufs, bufs), append(tsExec, ex)
		if kind.bound != nil {
			m.hasIDWindow = true
			d, n := timeQuery(b, conn, byID, kind.bound(from), kind.bound(to))
			if n != m.tsRows {
				b.Errorf("window %v: %d rows by id, %d by created_at", from, n, m.tsRows)
			}
			idLat = append(idLat, d)
			bufs, ex := explain(b, conn, byID, kind.bound(from), kind.bound(to))
			idBufs, idExec = append(idBufs, bufs), append(idExec, ex)
		}
	}
	m.tsLat, m.tsBufs, m.tsExec = median(tsLat), median(tsBufs), median(tsExec)
	if m.hasIDWindow {
		m.idLat, m.idBufs, m.idExec = median(idLat), median(idBufs), median(idExec)
	}
}

// timeQuery runs sql, reads every row and returns the time and the row
// count.
func timeQuery(b *testing.B, conn *pgx.Conn, sql string, args ...any) (time.Duration, int64) {
	b.Helper()
	start := time.Now()
	rows, err := conn.Query(context.Background(), sql, args...)
	if err != nil {
		b.Fatalf("%s: %v", sql, err)
	}
	var n int64
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		b.Fatalf("%s: %v", sql, err)
	}
	return time.Since(start), n
}

// explain returns the shared buffers (hit + read) and the execution time in
// ms of EXPLAIN (ANALYZE, BUFFERS) for sql.
func explain(b *testing.B, conn *pgx.Conn, sql string, args ...any) (float64, float64) {
	b.Helper()
	var out []byte
	err := conn.QueryRow(context.Background(), "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) "+sql, args...).Scan(&out)
	if err != nil {
		b.Fatalf("EXPLAIN %s: %v", sql, err)
	}
	var plans []struct {
		Plan struct {
			NodeType string  `json:"Node Type"`
			Hit      float64 `json:"Shared Hit Blocks"`
			Read     float64 `json:"Shared Read Blocks"`
		}
		ExecutionTime float64 `json:"Execution Time"`
	}
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		b.Fatalf("EXPLAIN %s: %v in %s", sql, err, out)
	}
	p := plans[0]
	if !strings.Contains(p.Plan.NodeType, "Index") && p.Plan.NodeType != "Bitmap Heap Scan" {
		b.Logf("%s: plan is %s", sql, p.Plan.NodeType)
	}
	return p.Plan.Hit + p.Plan.Read, p.ExecutionTime
}

// concurrentInserts runs insertClients connections of insertBatch-row
// INSERTs into table for d.
func (m *pgKeysResult) concurrentInserts(b *testing.B, conn *pgx.Conn, kind pgKind, table string, d time.Duration) {
	ctx := context.Background()
	var sql strings.Builder
	sql.WriteString("INSERT INTO " + pgx.Identifier{table}.Sanitize())
	per := 1
	if kind.keys != nil {
		per = 2
		sql.WriteString(" (id, payload) VALUES ")
	} else {
		sql.WriteString(" (payload) VALUES ")
	}
	for i := range insertBatch {
		if i > 0 {
			sql.WriteByte(',')
		}
		if per == 2 {
			fmt.Fprintf(&sql, "($%d,$%d)", 2*i+1, 2*i+2)
		} else {
			fmt.Fprintf(&sql, "($%d)", i+1)
		}
	}
	stmt := sql.String()

	conns := make([]*pgx.Conn, insertClients)
	for i := range conns {
		c, err := pgx.ConnectConfig(ctx, conn.Config())
		if err != nil {
			b.Fatalf("connect: %v", err)
		}
		defer c.Close(ctx)
		if _, err := c.Prepare(ctx, "ins", stmt); err != nil {
			b.Fatalf("prepare: %v", err)
		}
		conns[i] = c
	}
	lats := make([][]time.Duration, insertClients)
	errs := make([]error, insertClients)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for w, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := make([]any, per*insertBatch)
			payload := int32(w << 24)
			for time.Now().Before(deadline) {
				var keys []any
				if kind.keys != nil {
					keys = kind.keys(insertBatch)
				}
				for i := range insertBatch {
					if keys != nil {
						args[2*i], args[2*i+1] = keys[i], payload
					} else {
						args[i] = payload
					}
					payload++
				}
				t := time.Now()
				if _, err := c.Exec(ctx, "ins", args...); err != nil {
					errs[w] = err
					return
				}
				lats[w] = append(lats[w], time.Since(t))
			}
		}()
	}
	wg.Wait()
	m.insTime = time.Since(start)
	for _, err := range errs {
		if err != nil {
			b.Fatalf("concurrent INSERT: %v", err)
		}
	}
	all := slices.Concat(lats...)
	slices.Sort(all)
	m.insRows = int64(len(all) * insertBatch)
	if len(all) > 0 {
		m.insP50 = all[len(all)/2]
		m.insP99 = all[min(len(all)*99/100, len(all)-1)]
	}
}

// median returns the middle of v (the upper one for an even count).
func median[T int64 | float64 | time.Duration](v []T) T {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
