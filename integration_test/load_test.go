package integration_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/pgidpgx"
	"github.com/pgid/pgid/ulidtype"
)

// 16 connections insert 20,000 rows each, concurrently, with keys from
// ulidtype.New and objectidtype.New: 320,000 individual INSERT statements,
// sent as pipelined batches of 500 (each batch one implicit transaction).
// No statement fails, no key repeats (in Go and under the PRIMARY KEY and
// UNIQUE constraints), and the count is exact.
func TestConcurrentInserts(t *testing.T) {
	t.Parallel()
	const conns, perConn, batchSize = 16, 20_000, 500
	ctx := context.Background()
	dsn := newDB(t, true)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = conns
	cfg.AfterConnect = pgidpgx.AfterConnect
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE TABLE load (
		id pgid.ulid PRIMARY KEY, oid pgid.objectid NOT NULL UNIQUE, worker int NOT NULL)`); err != nil {
		t.Fatal(err)
	}

	// Hold all 16 connections before starting, so the inserts really run on
	// 16 backends at once.
	held := make([]*pgxpool.Conn, conns)
	for i := range held {
		if held[i], err = pool.Acquire(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ulids := make([][]ulidtype.ULID, conns)
	oids := make([][]objectidtype.ObjectID, conns)
	errs := make([]error, conns)
	var wg sync.WaitGroup
	for w := range conns {
		wg.Go(func() {
			defer held[w].Release()
			conn := held[w].Conn()
			for done := 0; done < perConn && errs[w] == nil; done += batchSize {
				b := &pgx.Batch{}
				for range batchSize {
					u, o := ulidtype.New(), objectidtype.New()
					ulids[w] = append(ulids[w], u)
					oids[w] = append(oids[w], o)
					b.Queue("INSERT INTO load (id, oid, worker) VALUES ($1, $2, $3)", u, o, w)
				}
				errs[w] = conn.SendBatch(ctx, b).Close()
			}
		})
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			t.Fatalf("worker %d: %v", w, err)
		}
	}

	seenU := make(map[ulidtype.ULID]struct{}, conns*perConn)
	seenO := make(map[objectidtype.ObjectID]struct{}, conns*perConn)
	for w := range conns {
		for i, u := range ulids[w] {
			// Within one worker, New is strictly increasing.
			if i > 0 && u.Compare(ulids[w][i-1]) <= 0 {
				t.Fatalf("worker %d: ULID %d not after the previous", w, i)
			}
			if i > 0 && oids[w][i].Compare(oids[w][i-1]) <= 0 {
				t.Fatalf("worker %d: ObjectId %d not after the previous", w, i)
			}
			seenU[u] = struct{}{}
			seenO[oids[w][i]] = struct{}{}
		}
	}
	if len(seenU) != conns*perConn || len(seenO) != conns*perConn {
		t.Fatalf("distinct in Go: %d ULIDs, %d ObjectIds; want %d", len(seenU), len(seenO), conns*perConn)
	}
	var rows, distinctU, distinctO, workers int
	if err := pool.QueryRow(ctx, "SELECT count(*), count(DISTINCT id), count(DISTINCT oid), count(DISTINCT worker) FROM load").
		Scan(&rows, &distinctU, &distinctO, &workers); err != nil {
		t.Fatal(err)
	}
	if rows != conns*perConn || distinctU != rows || distinctO != rows || workers != conns {
		t.Fatalf("stored %d rows, %d distinct ULIDs, %d distinct ObjectIds, %d workers; want %d, %d", rows, distinctU, distinctO, workers, conns*perConn, conns)
	}
}
