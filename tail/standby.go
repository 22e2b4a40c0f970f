package tail

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/dbconn"
)

// ErrStandby: the database a Tailer reads its horizon from is a hot
// standby (pg_is_in_recovery() is true). A standby's pg_stat_activity
// lists its own sessions, not the primary's writers, and an xid shows there
// only once WAL of it is replayed, so a horizon taken there can pass rows
// that are committed on the primary but not replayed yet, or not
// committed: they would be skipped for good. Tail the primary with [New],
// or read the standby with [NewStandby], which takes the horizon on the
// primary.
var ErrStandby = errors.New("tail: a hot standby cannot be tailed on its own")

// standbyError is ErrStandby for the table rel; asPrimary: the database
// passed to NewStandby as the primary is the standby.
func standbyError(rel string, asPrimary bool) error {
	if asPrimary {
		return fmt.Errorf("%w: %s: the database given to NewStandby as the primary is in recovery (pg_is_in_recovery()); pass the primary the standby replicates from", ErrStandby, rel)
	}
	return fmt.Errorf("%w: %s: this database is in recovery (pg_is_in_recovery()), and a horizon taken here would let rows committed on the primary "+
		"but not yet replayed, or not yet committed, be skipped; use tail.NewStandby(standby, primary, cfg), which takes the horizon on the primary "+
		"and reads the rows here once replayed, or tail.New(primary, cfg)", ErrStandby, rel)
}

// Bounds of a standby read's wait for replay (see [NewStandby]).
const (
	// StandbyWait is the longest a read of a standby Tailer waits for the
	// standby to replay the WAL of the horizon it has just taken on the
	// primary, before it reads below an older horizon the standby has
	// replayed (or returns nothing).
	StandbyWait = 500 * time.Millisecond
	// StandbyFlushAfter is how long a horizon's WAL may stay unflushed on
	// the primary before a read forces a flush there (a transaction that
	// takes an xid and commits with synchronous_commit = local).
	StandbyFlushAfter = 300 * time.Millisecond
)

// standby is what a Tailer made by NewStandby keeps besides a Tailer's
// state: the horizons taken on the primary that the standby has not
// replayed yet, and the lag.
type standby struct {
	primary  func(ctx context.Context, f func(*pgx.Conn) error) error
	marks    []mark   // horizons not yet read under, oldest first
	rels     []uint32 // the relations of the horizon in use
	lsn      int64    // the WAL position the standby must have replayed to read under t.safe
	flushed  int64    // the primary's WAL is flushed to here at least
	newest   time.Time
	lag      StandbyLag
	wait     time.Duration
	flushAft time.Duration
}

// mark is one horizon taken on the primary: safe, the relations checked
// with it, and lsn, the primary's WAL insert position read after it.
type mark struct {
	safe  time.Time
	rels  []uint32
	lsn   int64
	taken time.Time
}

// maxMarks bounds the horizons kept while the standby lags: every other
// one of the older half is dropped beyond it (any may be, at the cost of
// reading in coarser steps).
const maxMarks = 256

// StandbyLag is how far a standby Tailer's reads trail the primary, as of
// its last read ([Tailer.StandbyLag]).
type StandbyLag struct {
	// Horizon is how much older the horizon the last read used is than
	// the newest one taken on the primary: zero when the standby had
	// replayed the newest.
	Horizon time.Duration
	// WALBytes is how many bytes of the primary's WAL, up to the newest
	// horizon's insert position, the standby had not replayed.
	WALBytes int64
	// Waited is how long the last read waited for replay.
	Waited time.Duration
	// Flushes counts the WAL flushes the Tailer forced on the primary.
	Flushes int
}

// NewStandby returns a Tailer that reads the rows of cfg.Table from
// standby, a hot standby streaming from primary, with the guarantee of
// [New]: every row that commits on the primary, exactly once, in ID order,
// none that does not commit. A standby alone cannot give it ([ErrStandby]).
//
// Each read takes the horizon and the WAL insert position on the primary,
// then reads on the standby the rows below the newest horizon whose position
// it has replayed, waiting up to [StandbyWait]; a standby that lags delays
// rows, never skips them. After [StandbyFlushAfter] a read forces a WAL flush
// on the primary with an empty transaction of its own. [Tailer.StandbyLag]
// reports the lag.
//
// Neither standby nor primary may be inside a transaction; the primary's
// role needs SELECT on the table. A standby that is not in recovery fails
// reads with [ErrConfig], a primary that is with [ErrStandby]. A read the
// standby cancels for a recovery conflict returns that error and the next
// read retries. See docs/TAIL.md, "Replicas".
func NewStandby[K ID, S DB, P DB](standby S, primary P, cfg Config[K]) (*Tailer[K], error) {
	t, err := New(standby, cfg)
	if err != nil {
		return nil, err
	}
	if err := dbconn.Check(conns, primary); err != nil {
		return nil, fmt.Errorf("%w (the primary)", err)
	}
	t.sb = newStandby(func(ctx context.Context, f func(*pgx.Conn) error) error { return dbconn.Run(ctx, conns, primary, f) })
	return t, nil
}

func newStandby(primary func(ctx context.Context, f func(*pgx.Conn) error) error) *standby {
	return &standby{primary: primary, wait: StandbyWait, flushAft: StandbyFlushAfter}
}

// StandbyLag reports how far the reads of a Tailer made by [NewStandby]
// trail the primary, as of the last read; the zero StandbyLag for others.
func (t *Tailer[K]) StandbyLag() StandbyLag {
	if t.sb == nil {
		return StandbyLag{}
	}
	return t.sb.lag
}

// lsnSQL is a pg_lsn expression as int8 bytes from 0/0.
func lsnSQL(expr string) string {
	return "(" + expr + " OPERATOR(pg_catalog.-) '0/0'::pg_catalog.pg_lsn)::pg_catalog.int8"
}

// readStandby is [Tailer.read] of a standby Tailer: a horizon and WAL
// position on the primary, then, on one connection of the standby, the
// wait for replay and the rows below the newest horizon replayed.
func (t *Tailer[K]) readStandby(ctx context.Context, cols string, each func(pgx.Rows) (K, error)) error {
	if t.err != nil {
		return t.err
	}
	sb := t.sb
	if !t.full || t.safe.IsZero() || compare(t.cursor, minAt[K](t.safe)) >= 0 {
		err := sb.primary(ctx, func(c *pgx.Conn) error {
			if err := t.begin(ctx, c); err != nil {
				return err
			}
			safe, ok, err := t.poll(ctx, c)
			if err != nil || !ok {
				return err
			}
			m := mark{safe: safe, rels: t.rels, taken: time.Now()}
			if err := c.QueryRow(ctx, "SELECT "+lsnSQL("pg_catalog.pg_current_wal_insert_lsn()")+", "+lsnSQL("pg_catalog.pg_current_wal_flush_lsn()")).
				Scan(&m.lsn, &sb.flushed); err != nil {
				return fmt.Errorf("tail: %s: primary WAL position: %w", t.rel, err)
			}
			sb.add(m)
			return nil
		})
		if err != nil {
			t.full = false
			return err
		}
	}
	return t.conn(ctx, func(c *pgx.Conn) error {
		if c.PgConn().TxStatus() != 'I' {
			return fmt.Errorf("%w: the standby connection is inside a transaction; a Tailer needs a fresh snapshot for each statement", ErrConfig)
		}
		replay, err := sb.replayed(ctx, c, t.rel)
		if err != nil {
			return err
		}
		began := time.Now()
		for len(sb.marks) > 0 && replay < sb.marks[len(sb.marks)-1].lsn && time.Since(began) < sb.wait {
			if err := sb.flush(ctx); err != nil {
				return fmt.Errorf("tail: %s: flush the primary's WAL: %w", t.rel, err)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
			if replay, err = sb.replayed(ctx, c, t.rel); err != nil {
				return err
			}
		}
		sb.lag.Waited = time.Since(began)
		sb.adopt(replay, &t.safe)
		if t.safe.IsZero() || replay < sb.lsn {
			// A pool of several standbys: this one has not replayed what
			// the horizon in use needs.
			t.full = false
			return nil
		}
		hi := minAt[K](t.safe)
		if compare(t.cursor, hi) >= 0 {
			t.full = false
			return nil
		}
		return t.rows(ctx, c, cols, each, hi, sb.rels)
	})
}

// add keeps m, thinning the older horizons beyond maxMarks.
func (sb *standby) add(m mark) {
	sb.marks = append(sb.marks, m)
	if m.safe.After(sb.newest) {
		sb.newest = m.safe
	}
	if len(sb.marks) > maxMarks {
		kept := sb.marks[:0]
		for i, m := range sb.marks {
			if i >= maxMarks/2 || i%2 == 0 {
				kept = append(kept, m)
			}
		}
		sb.marks = kept
	}
}

// replayed returns the standby's replay position on c, and an error if c's
// database is not in recovery.
func (sb *standby) replayed(ctx context.Context, c *pgx.Conn, rel string) (int64, error) {
	var recovery bool
	var replay *int64
	if err := c.QueryRow(ctx, "SELECT pg_catalog.pg_is_in_recovery(), "+lsnSQL("pg_catalog.pg_last_wal_replay_lsn()")).Scan(&recovery, &replay); err != nil {
		return 0, fmt.Errorf("tail: %s: standby replay position: %w", rel, err)
	}
	if !recovery || replay == nil {
		return 0, fmt.Errorf("%w: %s: the database given to NewStandby as the standby is not in recovery (promoted, or not a standby): "+
			"its rows need not be the primary's; tail it with tail.New, or pass a hot standby of the primary", ErrConfig, rel)
	}
	return *replay, nil
}

// flush forces the primary to flush its WAL when the oldest horizon still
// waiting has waited StandbyFlushAfter and its WAL position is beyond what
// the primary has flushed: a transaction that takes an xid and commits
// with synchronous_commit = local flushes the WAL up to its commit record,
// and so everything inserted before it.
func (sb *standby) flush(ctx context.Context) error {
	var wait *mark
	for i := range sb.marks {
		if sb.marks[i].lsn > sb.flushed {
			wait = &sb.marks[i]
			break
		}
	}
	if wait == nil || time.Since(wait.taken) < sb.flushAft {
		return nil
	}
	return sb.primary(ctx, func(c *pgx.Conn) error {
		if err := c.QueryRow(ctx, "SELECT "+lsnSQL("pg_catalog.pg_current_wal_flush_lsn()")).Scan(&sb.flushed); err != nil {
			return err
		}
		if wait.lsn <= sb.flushed {
			return nil // the WAL writer did it
		}
		tx, err := c.Begin(ctx)
		if err != nil {
			return err
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = local"); err != nil {
			return err
		}
		var lsn int64
		if err := tx.QueryRow(ctx, "SELECT "+lsnSQL("pg_catalog.pg_current_wal_insert_lsn()")+" FROM pg_catalog.pg_current_xact_id()").Scan(&lsn); err != nil {
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		sb.flushed = max(sb.flushed, lsn)
		sb.lag.Flushes++
		return nil
	})
}

// adopt moves the horizon in use (*safe, sb.rels, sb.lsn) to the newest
// mark the standby has replayed (at replay), drops the marks up to it, and
// updates the lag.
func (sb *standby) adopt(replay int64, safe *time.Time) {
	n := 0
	for i, m := range sb.marks {
		if m.lsn > replay {
			break
		}
		n = i + 1
	}
	if n > 0 {
		m := sb.marks[n-1]
		if m.safe.After(*safe) {
			*safe = m.safe
		}
		sb.rels, sb.lsn = m.rels, m.lsn
		sb.marks = append(sb.marks[:0], sb.marks[n:]...)
	}
	sb.lag.Horizon, sb.lag.WALBytes = 0, 0
	if !safe.IsZero() && sb.newest.After(*safe) {
		sb.lag.Horizon = sb.newest.Sub(*safe)
	}
	if k := len(sb.marks); k > 0 {
		sb.lag.WALBytes = max(0, sb.marks[k-1].lsn-replay)
	}
}
