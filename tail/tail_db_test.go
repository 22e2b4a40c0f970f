package tail_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pgid/pgid/internal/pgserver/pgtest"
	"github.com/pgid/pgid/objectidtype"
	"github.com/pgid/pgid/tail"
	"github.com/pgid/pgid/ulidtype"
)

// tailLoad is the adversarial workload of issue 22, scaled by its fields.
type tailLoad struct {
	writers   int           // concurrent writers
	duration  time.Duration // how long they start new transactions
	longTx    int           // transactions that stay open longTxFor after their INSERT
	longTxFor time.Duration
	skew      time.Duration // the service clock runs this far behind the database's
	lead      time.Duration // the table's declared maximum lead
	poll      time.Duration // the readers' pause between reads
	readerDSN string        // the Tailer connects here (default: the owner's DSN)

	create string // the statements that create table ev (default: a plain table keyed by ddlType)
	// during, if set, runs once the Tailer has delivered a row, as the
	// table's owner, while the writers go on: the DDL under test.
	during func(ctx context.Context, owner *pgx.Conn, h *tailHook) error
	// stopOn, if set, accepts a Tailer error: the Tailer stops (the run
	// goes on), and the error is tailResult.stopped.
	stopOn func(error) bool
	// cols and vals, if set, add columns to every INSERT: vals gives one
	// row's values for cols (recorded in tailResult.inserted).
	cols []string
	vals func(r *rand.Rand, w int) []any
	// read, if set, is a func(context.Context, *tail.Tailer[K]) ([]K,
	// error) that reads the Tailer's next batch instead of Tailer.Next and
	// returns the IDs it delivered.
	read any
}

// tailHook is what tailLoad.during may do besides its DDL.
type tailHook struct {
	committed func(id any)                                // record a row it committed
	delivered func(ctx context.Context, ids ...any) error // wait until the Tailer has delivered these
}

// tailResult is what one run of a tailLoad saw.
type tailResult[K tail.ID] struct {
	committed map[K]time.Time // committed rows and when their COMMIT returned
	attempts  int             // transactions begun
	refused   int             // INSERTs the trigger refused
	delivered []K             // what the Tailer delivered, in order
	lag       []time.Duration // delivery time minus commit time, per delivered row
	naive     []K             // what the naive id > cursor reader delivered, in order
	stopped   error           // the Tailer error tailLoad.stopOn accepted
	inserted  map[K][]any     // tailLoad.vals of each committed row
}

// reserveTail reserves, with pgtest.Conns, the connections a test running
// a tailLoad of writers and longTx holds at once: runTail's (one per
// writer and long transaction, the Tailer's, the naive reader's) and own,
// the others the test keeps open meanwhile, the DDL's of tailLoad.during
// among them. A test calls it first: it may wait, and must not have taken
// the times its load depends on before.
func reserveTail(t *testing.T, writers, longTx, own int) { pgtest.Conns(t, writers+longTx+2+own) }

// runTail creates table (id kind K) in the database at dsn, sets it up for
// tailing with l.lead, and runs l: writers that each take an ID from a
// generator whose clock is l.skew behind, sleep 0-200 ms, BEGIN, sleep,
// INSERT (one in five with the server's DEFAULT instead of the Go ID),
// sleep, and COMMIT (ROLLBACK one in ten); l.longTx transactions that stay
// open l.longTxFor after their INSERT. Meanwhile a Tailer and a naive reader
// (id > cursor ORDER BY id LIMIT 100) read batches of 100 every l.poll,
// until both have read past the end of the writes.
func runTail[K tail.ID](t *testing.T, dsn string, l tailLoad, newID func() K, minAt func(time.Time) K, cmp func(a, b K) int, ddlType, ddlDefault string) tailResult[K] {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), l.duration+l.longTxFor+2*time.Minute)
	defer cancel()
	owner := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	if l.create == "" {
		l.create = fmt.Sprintf("CREATE TABLE ev (id %s PRIMARY KEY DEFAULT %s, writer int NOT NULL, note text)", ddlType, ddlDefault)
	}
	mustExec(t, owner, l.create)
	if err := tail.Enable(ctx, owner, "ev", l.lead); err != nil {
		t.Fatal(err)
	}
	// Its slot is for the Tailer and the naive reader (reserveTail).
	owner.Close(ctx)
	if l.readerDSN == "" {
		l.readerDSN = dsn
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = int32(l.writers + l.longTx) // what reserveTail counts
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	res := tailResult[K]{committed: map[K]time.Time{}, inserted: map[K][]any{}}
	var extraCols string
	for _, c := range l.cols {
		extraCols += ", " + c
	}
	var mu sync.Mutex
	errs := make(chan error, l.writers+l.longTx+3) // each writer, long transaction, the DDL, both readers
	nap := func(r *rand.Rand) { time.Sleep(time.Duration(r.Int64N(int64(200 * time.Millisecond)))) }

	// One transaction: ID, sleep, BEGIN, sleep, INSERT, sleep (or hold),
	// COMMIT or ROLLBACK.
	write := func(r *rand.Rand, w int, hold time.Duration) error {
		byDefault := hold == 0 && r.IntN(5) == 0
		var id K
		if !byDefault {
			id = newID()
		}
		var extra []any
		var params string
		if l.vals != nil {
			extra = l.vals(r, w)
		}
		for i := range extra {
			params += fmt.Sprintf(", $%d", i+3)
		}
		mu.Lock()
		res.attempts++
		mu.Unlock()
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
			err = tx.QueryRow(ctx, "INSERT INTO ev (writer, note"+extraCols+") VALUES ($1, $2"+params+") RETURNING id",
				append([]any{w, "default"}, extra...)...).Scan(&id)
		} else {
			_, err = tx.Exec(ctx, "INSERT INTO ev (id, writer"+extraCols+") VALUES ($1, $2"+params+")", append([]any{id, w}, extra...)...)
		}
		if tail.IsTooOld(err) {
			mu.Lock()
			res.refused++
			mu.Unlock()
			return nil
		}
		if err != nil {
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
		res.committed[id] = time.Now()
		res.inserted[id] = extra
		mu.Unlock()
		return nil
	}

	start := time.Now()
	var wg sync.WaitGroup
	for w := range l.writers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), uint64(start.UnixNano())))
			for time.Since(start) < l.duration {
				if err := write(r, w, 0); err != nil {
					errs <- fmt.Errorf("writer %d: %w", w, err)
					return
				}
			}
		})
	}
	for i := range l.longTx {
		wg.Go(func() {
			// Spread over the first half of the run.
			time.Sleep(time.Duration(i+1) * l.duration / time.Duration(2*(l.longTx+1)))
			if err := write(rand.New(rand.NewPCG(1000, uint64(i))), 1000+i, l.longTxFor); err != nil {
				errs <- fmt.Errorf("long transaction %d: %w", i, err)
			}
		})
	}
	firstRow := make(chan struct{})
	var firstOnce sync.Once
	if l.during != nil {
		hook := &tailHook{
			committed: func(id any) {
				mu.Lock()
				res.committed[id.(K)] = time.Now()
				mu.Unlock()
			},
			delivered: func(ctx context.Context, ids ...any) error {
				for {
					mu.Lock()
					n := 0
					for _, d := range res.delivered {
						for _, id := range ids {
							if d == id.(K) {
								n++
							}
						}
					}
					stopped := res.stopped
					mu.Unlock()
					if n == len(ids) {
						return nil
					}
					if stopped != nil {
						return fmt.Errorf("the Tailer stopped before delivering the rows: %w", stopped)
					}
					select {
					case <-ctx.Done():
						return ctx.Err()
					case <-time.After(l.poll):
					}
				}
			},
		}
		wg.Go(func() {
			select {
			case <-firstRow:
			case <-ctx.Done():
				errs <- fmt.Errorf("DDL: the Tailer delivered no row: %w", ctx.Err())
				return
			}
			if err := l.during(ctx, pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement), hook); err != nil {
				errs <- fmt.Errorf("DDL: %w", err)
			}
		})
	}
	writesDone := make(chan struct{})
	go func() { wg.Wait(); close(writesDone) }()

	// The readers: each reads until the writes are done and, after that,
	// a read returned less than a full batch and (for the Tailer) its
	// horizon is past every committed ID.
	var rwg sync.WaitGroup
	reader := func(name string, read func() (n int, caughtUp func() bool, err error)) {
		rwg.Go(func() {
			ended := false
			for {
				n, caughtUp, err := read()
				if err != nil {
					if name == "tailer" && l.stopOn != nil && l.stopOn(err) {
						mu.Lock()
						res.stopped = err
						mu.Unlock()
						return
					}
					errs <- fmt.Errorf("%s: %w", name, err)
					return
				}
				if !ended {
					select {
					case <-writesDone:
						ended = true
					default:
					}
				} else if n < 100 && caughtUp() {
					return
				}
				time.Sleep(l.poll)
			}
		})
	}

	tconn := pgtest.Connect(t, l.readerDSN, pgx.QueryExecModeCacheStatement)
	tl, err := tail.New(tconn, tail.Config[K]{Table: "ev", Batch: 100})
	if err != nil {
		t.Fatal(err)
	}
	next := func(ctx context.Context, tl *tail.Tailer[K]) ([]K, error) {
		rows, err := tl.Next(ctx)
		ids := make([]K, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		return ids, err
	}
	if l.read != nil {
		f, ok := l.read.(func(context.Context, *tail.Tailer[K]) ([]K, error))
		if !ok {
			t.Fatalf("tailLoad.read is a %T, not a func(context.Context, *tail.Tailer[%T]) ([]%[2]T, error)", l.read, *new(K))
		}
		next = f
	}
	reader("tailer", func() (int, func() bool, error) {
		rows, err := next(ctx, tl)
		now := time.Now()
		mu.Lock()
		for _, id := range rows {
			res.delivered = append(res.delivered, id)
			if c, ok := res.committed[id]; ok {
				res.lag = append(res.lag, now.Sub(c))
			}
		}
		mu.Unlock()
		if len(rows) > 0 {
			firstOnce.Do(func() { close(firstRow) })
		}
		caughtUp := func() bool {
			// Called once the writes are done: committed is complete.
			if tl.Horizon().IsZero() {
				return false
			}
			hi := minAt(tl.Horizon())
			mu.Lock()
			defer mu.Unlock()
			for id := range res.committed {
				if cmp(id, hi) >= 0 {
					return false
				}
			}
			return true
		}
		return len(rows), caughtUp, err
	})
	nconn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	var cursor K
	always := func() bool { return true }
	reader("naive reader", func() (int, func() bool, error) {
		rows, err := nconn.Query(ctx, "SELECT id FROM ev WHERE id > $1 ORDER BY id LIMIT 100", cursor)
		if err != nil {
			return 0, nil, err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[K])
		if len(ids) > 0 {
			cursor = ids[len(ids)-1]
		}
		mu.Lock()
		res.naive = append(res.naive, ids...)
		mu.Unlock()
		return len(ids), always, err
	})
	rwg.Wait()
	<-writesDone
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	return res
}

// checkExactlyOnce fails t unless delivered is strictly increasing and holds
// exactly the committed rows.
func checkExactlyOnce[K tail.ID](t *testing.T, res tailResult[K], compare func(a, b K) int) {
	t.Helper()
	for i := 1; i < len(res.delivered); i++ {
		if compare(res.delivered[i-1], res.delivered[i]) >= 0 {
			t.Fatalf("delivered out of cursor order or twice: #%d %v then #%d %v", i-1, res.delivered[i-1], i, res.delivered[i])
		}
	}
	seen := make(map[K]bool, len(res.delivered))
	for _, id := range res.delivered {
		seen[id] = true
		if _, ok := res.committed[id]; !ok {
			t.Errorf("delivered %v, which was never committed", id)
		}
	}
	var missed []K
	for id := range res.committed {
		if !seen[id] {
			missed = append(missed, id)
		}
	}
	if len(missed) > 0 {
		t.Errorf("the Tailer skipped %d of %d committed rows, e.g. %v", len(missed), len(res.committed), missed[0])
	}
}

// naiveLost counts the committed rows the naive reader never returned.
func naiveLost[K tail.ID](res tailResult[K]) int {
	seen := make(map[K]bool, len(res.naive))
	for _, id := range res.naive {
		seen[id] = true
	}
	lost := 0
	for id := range res.committed {
		if !seen[id] {
			lost++
		}
	}
	return lost
}

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

// The test of issue 22: 16 writers for 20 s with random pauses, 10 %
// rollbacks, one row in five by the server's DEFAULT, 2 transactions open
// for 10 s, a service clock 2 s behind the database. The Tailer delivers
// each committed row exactly once, in ID order; the naive id > cursor
// reader, on the same load at the same time, loses rows.
func TestTailAdversarial(t *testing.T) {
	// The package's longest test reserves before t.Parallel (pgtest.Conns):
	// the shorter ones fill the rest of the budget around it.
	reserveTail(t, 16, 2, 0)
	t.Parallel()
	dsn := pgtest.DB(t)
	gen := ulidtype.NewGenerator(func() time.Time { return time.Now().Add(-2 * time.Second) }, nil)
	res := runTail(t, dsn, tailLoad{
		writers: 16, duration: 20 * time.Second, longTx: 2, longTxFor: 10 * time.Second,
		skew: 2 * time.Second, lead: 3 * time.Second, poll: 50 * time.Millisecond,
	}, gen.New, ulidtype.MinAt, ulidtype.ULID.Compare, "pgid.ulid", "pgid.gen_ulid_v7()")
	checkExactlyOnce(t, res, ulidtype.ULID.Compare)
	if len(res.committed) < 200 {
		t.Errorf("only %d rows committed of %d transactions (%d refused): the load did not happen", len(res.committed), res.attempts, res.refused)
	}
	lost := naiveLost(res)
	if lost == 0 {
		t.Errorf("the naive reader lost no row of %d: the load does not test what it should", len(res.committed))
	}
	t.Logf("%d transactions, %d committed, %d refused by the trigger; Tailer delivered %d, lag p50 %v p99 %v max %v; naive reader lost %d",
		res.attempts, len(res.committed), res.refused, len(res.delivered),
		percentile(res.lag, 0.5).Round(time.Millisecond), percentile(res.lag, 0.99).Round(time.Millisecond),
		percentile(res.lag, 1).Round(time.Millisecond), lost)
}

// ObjectIds (one-second resolution) under a smaller load of the same kind.
func TestTailObjectID(t *testing.T) {
	t.Parallel()
	reserveTail(t, 4, 1, 0)
	dsn := pgtest.DB(t)
	gen := objectidtype.NewGenerator(func() time.Time { return time.Now().Add(-time.Second) }, nil)
	res := runTail(t, dsn, tailLoad{
		writers: 4, duration: 3 * time.Second, longTx: 1, longTxFor: 2 * time.Second,
		skew: time.Second, lead: 2 * time.Second, poll: 50 * time.Millisecond,
	}, gen.New, objectidtype.MinAt, objectidtype.ObjectID.Compare, "pgid.objectid", "pgid.gen_objectid()")
	checkExactlyOnce(t, res, objectidtype.ObjectID.Compare)
	if len(res.committed) < 10 {
		t.Errorf("only %d rows committed", len(res.committed))
	}
	t.Logf("%d committed, %d refused, delivered %d, lag p50 %v p99 %v; naive lost %d",
		len(res.committed), res.refused, len(res.delivered),
		percentile(res.lag, 0.5).Round(time.Millisecond), percentile(res.lag, 0.99).Round(time.Millisecond), naiveLost(res))
}

// A least-privilege reader (SELECT on the table, nothing else) tails rows
// written by another role, whose xact_start it may not see, while a
// transaction of that role that began before the reader's first read is
// still open.
func TestTailLeastPrivilege(t *testing.T) {
	t.Parallel()
	reserveTail(t, 4, 1, 3) // owner, blocker, watch
	ctx := context.Background()
	dsn := pgtest.DB(t)
	owner := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	role := pgtest.NewRole(t, owner)
	// The grant needs the table; runTail creates it, so grant on the
	// schema's future tables instead.
	mustExec(t, owner, "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO "+role)
	// Another role's transaction holding an xid from before the reader
	// starts: the Tailer cannot see its start, so it must wait for it.
	blocker := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	tx, err := blocker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "CREATE TEMP TABLE hold_xid (x int)"); err != nil {
		t.Fatal(err)
	}
	// The commit happens before the blocker's connection is closed (the
	// cleanup connect registered): the test waits for it. It waits for the
	// reader's first statement (a session of role), and holds the xid for
	// at least 2 s while the writers commit rows behind it.
	watch := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	committed := make(chan error, 1)
	go func() {
		hold := time.After(2 * time.Second)
		readerSeen := func() bool {
			var seen bool
			err := watch.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_catalog.pg_stat_activity WHERE usename = $1 AND query <> '')", role).Scan(&seen)
			return err == nil && seen
		}
		for deadline := time.Now().Add(time.Minute); !readerSeen() && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		<-hold
		committed <- tx.Commit(ctx)
	}()
	t.Cleanup(func() {
		if err := <-committed; err != nil {
			t.Errorf("commit of the blocking transaction: %v", err)
		}
	})
	res := runTail(t, dsn, tailLoad{
		writers: 4, duration: 4 * time.Second, longTx: 1, longTxFor: 2 * time.Second,
		lead: time.Second, poll: 50 * time.Millisecond, readerDSN: pgtest.WithUser(dsn, role),
	}, ulidtype.New, ulidtype.MinAt, ulidtype.ULID.Compare, "pgid.ulid", "pgid.gen_ulid_v7()")
	checkExactlyOnce(t, res, ulidtype.ULID.Compare)
	if len(res.committed) < 10 {
		t.Errorf("only %d rows committed", len(res.committed))
	}
	// The reader really was least-privileged: another role's xact_start
	// is hidden from it.
	app := pgtest.Connect(t, pgtest.WithUser(dsn, role), pgx.QueryExecModeCacheStatement)
	var hidden bool
	if err := app.QueryRow(ctx, "SELECT NOT r.rolsuper AND NOT pg_catalog.pg_has_role('pg_read_all_stats', 'USAGE') FROM pg_catalog.pg_roles r WHERE r.rolname = current_user").Scan(&hidden); err != nil || !hidden {
		t.Errorf("the reader role may read others' statistics (%v, %v)", hidden, err)
	}
}

// A row that breaks the invariant is refused with SQLSTATE PGI20 and a
// message that names the table, the ID, both times and the lead; through
// the package, errors.Is(err, tail.ErrTooOld). Also when the id is changed
// by UPDATE, and with triggers in replica mode.
func TestTailRefusesOldIDs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DB(t)
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	mustExec(t, conn, "CREATE TABLE u (id pgid.ulid PRIMARY KEY, n int); CREATE TABLE o (id bytea PRIMARY KEY, n int)")
	for _, tbl := range []string{"u", "o"} {
		if err := tail.Enable(ctx, conn, tbl, 2*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	// One clock reading for each kind's IDs and text: text must be old's
	// (two readings can fall in different milliseconds).
	now := time.Now()
	oldU, oldO := ulidtype.MinAt(now.Add(-5*time.Second)), objectidtype.MinAt(now.Add(-5*time.Second))
	cases := []struct {
		table string
		old   any // an ID 5 s old
		fresh any // an ID 1 s old, within the lead
		text  string
	}{
		{"u", oldU, ulidtype.MinAt(now.Add(-time.Second)), oldU.String()},
		{"o", oldO, objectidtype.MinAt(now.Add(-time.Second)), oldO.String()},
	}
	for _, c := range cases {
		_, err := conn.Exec(ctx, "INSERT INTO "+c.table+" (id, n) VALUES ($1, 1)", c.old)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tail.CodeTooOld || !tail.IsTooOld(err) {
			t.Fatalf("%s: old ID: err %v, want SQLSTATE %s", c.table, err, tail.CodeTooOld)
		}
		for _, want := range []string{"public." + c.table, c.text, "older than the database clock at INSERT minus the tail lead of 2 s"} {
			if !strings.Contains(pe.Message, want) {
				t.Errorf("%s: message %q does not name %q", c.table, pe.Message, want)
			}
		}
		if pe.Hint == "" || pe.Detail == "" {
			t.Errorf("%s: no hint or detail: %+v", c.table, pe)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO "+c.table+" (id, n) VALUES ($1, 1)", c.fresh); err != nil {
			t.Fatalf("%s: fresh ID refused: %v", c.table, err)
		}
		// UPDATE of other columns, or SET id = id, is not a new ID.
		if _, err := conn.Exec(ctx, "UPDATE "+c.table+" SET n = n + 1, id = id"); err != nil {
			t.Errorf("%s: update without a new id: %v", c.table, err)
		}
		if _, err := conn.Exec(ctx, "UPDATE "+c.table+" SET id = $1", c.old); !tail.IsTooOld(err) {
			t.Errorf("%s: update to an old id: %v, want PGI20", c.table, err)
		}
		// ENABLE ALWAYS: logical replication and pg_restore run with
		// session_replication_role = replica, where ordinary triggers
		// do not fire.
		tx, err := conn.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mustExec(t, tx.Conn(), "SET LOCAL session_replication_role = replica")
		if _, err := tx.Exec(ctx, "INSERT INTO "+c.table+" (id, n) VALUES ($1, 1)", c.old); !tail.IsTooOld(err) {
			t.Errorf("%s: replica mode: %v, want PGI20", c.table, err)
		}
		tx.Rollback(ctx)
	}
	// Through the package: the sentinels.
	mustExec(t, conn, "CREATE TABLE plain (id uuid PRIMARY KEY); CREATE TABLE noid (k uuid); CREATE TABLE wrong (id bigint)")
	if err := tail.Enable(ctx, conn, "noid", time.Second); !errors.Is(err, tail.ErrSetup) {
		t.Errorf("Enable on a table without id: %v, want ErrSetup", err)
	}
	if err := tail.Enable(ctx, conn, "wrong", time.Second); !errors.Is(err, tail.ErrSetup) || !strings.Contains(err.Error(), "bigint") {
		t.Errorf("Enable on a bigint id: %v, want ErrSetup naming bigint", err)
	}
	if err := tail.Enable(ctx, conn, "plain", 0); !errors.Is(err, tail.ErrConfig) {
		t.Errorf("Enable with lead 0: %v, want ErrConfig", err)
	}
	tl, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	_, notEnabled := tl.Next(ctx)
	if !errors.Is(notEnabled, tail.ErrNotEnabled) {
		t.Errorf("Next on a table not set up: %v, want ErrNotEnabled", notEnabled)
	}
	// A mapped error says "tail:" once (the server's message names the
	// table); another error gets what was being done.
	mustExec(t, conn, "CREATE TABLE off (id uuid PRIMARY KEY)")
	mustExec(t, conn, "SELECT pgid.tail_enable('off', '1 s'); ALTER TABLE off DISABLE TRIGGER zzz_pgid_tail")
	tlu, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: "off"})
	if err != nil {
		t.Fatal(err)
	}
	_, unsafe := tlu.Next(ctx)
	for _, c := range []struct {
		err  error
		want string
	}{
		{notEnabled, "tail: table not set up for tailing: pgid: public.plain is not set up for tailing"},
		{tail.Enable(ctx, conn, "noid", time.Second), "tail: cannot set the table up for tailing: pgid: public.noid has no column id"},
		{unsafe, "tail: the table's setup no longer checks every row: pgid: trigger zzz_pgid_tail on public.off is disabled"},
		{tail.Enable(ctx, conn, "nosuch", time.Second), `tail: enable nosuch: ERROR: relation "nosuch" does not exist`},
	} {
		if c.err == nil || !strings.HasPrefix(c.err.Error(), c.want) || len(regexp.MustCompile(`\btail:`).FindAllString(c.err.Error(), -1)) != 1 {
			t.Errorf("error %v, want it to start %q and say \"tail:\" once", c.err, c.want)
		}
	}
	tlo, err := tail.New(conn, tail.Config[objectidtype.ObjectID]{Table: "u"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tlo.Next(ctx); !errors.Is(err, tail.ErrKind) {
		t.Errorf("ObjectID Tailer on a ULID table: %v, want ErrKind", err)
	}
	if err := tail.Disable(ctx, conn, "u"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO u (id, n) VALUES ($1, 1)", cases[0].old); err != nil {
		t.Errorf("after Disable: %v", err)
	}
}

// The tail functions of functions/06_tail.sql: each documented, none SECURITY DEFINER (the
// reader's privileges are its own), the trigger functions without a SET
// clause (a SET costs a GUC save and restore per row; they qualify every
// name instead). A partitioned table is set up with its partitions, those
// made later included, ENABLE ALWAYS everywhere.
func TestTailFunctionsAndPartitions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn := pgtest.Connect(t, pgtest.DB(t), pgx.QueryExecModeCacheStatement)
	rows, err := conn.Query(ctx, `SELECT p.proname, p.prosecdef, p.proconfig IS NOT NULL, coalesce(obj_description(p.oid, 'pg_proc'), '')
		FROM pg_proc p WHERE p.pronamespace = 'pgid'::regnamespace AND p.proname LIKE '%tail%' ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	type fn struct {
		Name           string
		SecDef, HasSet bool
		Comment        string
	}
	fns, err := pgx.CollectRows(rows, pgx.RowToStructByPos[fn])
	if err != nil {
		t.Fatal(err)
	}
	if len(fns) != 14 {
		t.Errorf("%d tail functions, want 14: %v", len(fns), fns)
	}
	for _, f := range fns {
		if f.SecDef || f.Comment == "" || (strings.HasPrefix(f.Name, "tail_guard_") && f.HasSet) || (!strings.HasPrefix(f.Name, "tail_guard_") && !f.HasSet) {
			t.Errorf("%+v", f)
		}
	}

	mustExec(t, conn, `CREATE TABLE pt (id pgid.ulid PRIMARY KEY, n int) PARTITION BY RANGE (id);
		CREATE TABLE pt_old PARTITION OF pt FOR VALUES FROM (pgid.ulid_min_at('2020-01-01Z')) TO (pgid.ulid_min_at('2026-01-01Z'))`)
	if err := tail.Enable(ctx, conn, "pt", time.Second); err != nil {
		t.Fatal(err)
	}
	mustExec(t, conn, `CREATE TABLE pt_new PARTITION OF pt FOR VALUES FROM (pgid.ulid_min_at('2026-01-01Z')) TO (pgid.ulid_min_at('2100-01-01Z'))`)
	var enabled []string
	rows, err = conn.Query(ctx, "SELECT tgrelid::regclass::text || ' ' || tgname || ' ' || tgenabled::text FROM pg_trigger WHERE tgname LIKE 'zzz_pgid_tail%' ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	if enabled, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	want := []string{"pt zzz_pgid_tail A", "pt zzz_pgid_tail_update A", "pt_new zzz_pgid_tail A", "pt_new zzz_pgid_tail_update A",
		"pt_old zzz_pgid_tail A", "pt_old zzz_pgid_tail_update A"}
	if !slices.Equal(enabled, want) {
		t.Errorf("triggers %q, want %q", enabled, want)
	}
	old := ulidtype.MinAt(time.Now().Add(-time.Minute))
	if _, err := conn.Exec(ctx, "INSERT INTO pt VALUES ($1, 1)", old); !tail.IsTooOld(err) {
		t.Errorf("old ID into a partition made after Enable: %v", err)
	}
	if _, err := conn.Exec(ctx, "INSERT INTO pt VALUES ($1, 1)", ulidtype.New()); err != nil {
		t.Fatal(err)
	}
	tl, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: "pt"})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var got []tail.Row[ulidtype.ULID]
	for len(got) == 0 && time.Now().Before(deadline) {
		if got, err = tl.Next(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(got) != 1 || !strings.Contains(string(got[0].JSON), `"n":1`) {
		t.Errorf("tailing the partitioned table: %v", got)
	}
}

// Prepared transactions (two-phase commit) hold the horizon like running
// ones: a Tailer that saw the xid appear bounds it and does not deliver
// later rows before it is resolved; a Tailer that starts while one is
// prepared waits for it to end. Needs max_prepared_transactions > 0
// (.ci/pg-matrix starts its servers so; PostgreSQL's default is 0).
func TestTailPreparedTransactions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsn := pgtest.DB(t)
	conn := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
	var maxPrepared int
	if err := conn.QueryRow(ctx, "SELECT current_setting('max_prepared_transactions')::int").Scan(&maxPrepared); err != nil {
		t.Fatal(err)
	}
	if maxPrepared == 0 {
		t.Skip("max_prepared_transactions = 0 on this server: no two-phase commit to test (.ci/pg-matrix runs it)")
	}
	mustExec(t, conn, "CREATE TABLE ev (id pgid.ulid PRIMARY KEY, n int)")
	if err := tail.Enable(ctx, conn, "ev", 500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	gid := "pgid_tail_" + pgtest.RandomHex(6)
	prepare := func(id ulidtype.ULID, gid string) {
		c := pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement)
		mustExec(t, c, "BEGIN")
		mustExec(t, c, "INSERT INTO ev VALUES ($1, 1)", id)
		mustExec(t, c, "PREPARE TRANSACTION '"+gid+"'")
		t.Cleanup(func() { (pgtest.Admin{}).Exec(context.Background(), "ROLLBACK PREPARED '"+gid+"'") })
	}
	read := func(tl *tail.Tailer[ulidtype.ULID], d time.Duration) []ulidtype.ULID {
		var ids []ulidtype.ULID
		for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			rows, err := tl.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				ids = append(ids, r.ID)
			}
		}
		return ids
	}
	// readN reads until tl has delivered n rows, or d has passed.
	readN := func(tl *tail.Tailer[ulidtype.ULID], n int, d time.Duration) []ulidtype.ULID {
		var ids []ulidtype.ULID
		for end := time.Now().Add(d); len(ids) < n && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			rows, err := tl.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				ids = append(ids, r.ID)
			}
		}
		return ids
	}
	t1, err := tail.New(conn, tail.Config[ulidtype.ULID]{Table: "ev"})
	if err != nil {
		t.Fatal(err)
	}
	read(t1, 100*time.Millisecond) // t1 has seen the database without writers
	x1 := ulidtype.New()
	prepare(x1, gid)
	x2 := ulidtype.New()
	mustExec(t, conn, "INSERT INTO ev VALUES ($1, 2)", x2)
	if got := read(t1, 1500*time.Millisecond); len(got) != 0 {
		t.Fatalf("delivered %v while the transaction of %v was prepared", got, x1)
	}
	// Another Tailer starting now cannot bound the prepared xid.
	t2, err := tail.New(pgtest.Connect(t, dsn, pgx.QueryExecModeCacheStatement), tail.Config[ulidtype.ULID]{Table: "ev"})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t2, time.Second); len(got) != 0 {
		t.Fatalf("a new Tailer delivered %v while a transaction was prepared", got)
	}
	mustExec(t, conn, "COMMIT PREPARED '"+gid+"'")
	if got := readN(t1, 2, 30*time.Second); !slices.Equal(got, []ulidtype.ULID{x1, x2}) {
		t.Errorf("after COMMIT PREPARED: %v, want %v", got, []ulidtype.ULID{x1, x2})
	}
	if got := readN(t2, 2, 30*time.Second); !slices.Equal(got, []ulidtype.ULID{x1, x2}) {
		t.Errorf("the new Tailer after COMMIT PREPARED: %v, want %v", got, []ulidtype.ULID{x1, x2})
	}
}
