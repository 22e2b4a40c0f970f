package migrations

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/dbconn"
)

// LockKey is the key of the session-level advisory lock that serialises
// [Up] and [Down]: pg_advisory_lock(8099558334902396786), "pgidmigr" in
// ASCII. pg_locks shows it as classid 1885825380 ("pgid", the first key of
// package partition's locks too, partition.LockKey), objid 1835624306
// ("migr") and objsubid 1 (partition's two-key locks have objsubid 2).
const LockKey int64 = dbconn.LockClass<<32 | 0x6d69_6772

// ternLockKey is the advisory lock of every tern migrator. Adopting a
// tern-era database takes it too, so that an older pgid (or any tern) does
// not migrate the same database at the same moment.
const ternLockKey int64 = 9628173550095224

// DefaultLockWait is how long [Up] and [Down] wait for [LockKey] by default.
const DefaultLockWait = 30 * time.Second

// ErrLocked is returned (wrapped, naming the session holding the lock) when
// another session held [LockKey] for the whole lock wait.
var ErrLocked = errors.New("pgid migrations: the migration lock is held by another session")

// unlock releases the session-level advisory lock key. A context that ended
// interrupted a statement; pgx closes the connection then, which releases
// the lock too.
func unlock(ctx context.Context, c *pgx.Conn, key int64) {
	if !c.IsClosed() {
		_, _ = c.Exec(context.WithoutCancel(ctx), "SELECT pg_catalog.pg_advisory_unlock($1)", key)
	}
}

// lock takes the advisory lock key for this session, trying every 100 ms for
// at most wait (and until ctx ends). Polling with pg_try_advisory_lock,
// instead of a blocking pg_advisory_lock, keeps the connection usable when
// ctx ends.
func lock(ctx context.Context, conn *pgx.Conn, key int64, wait time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	deadline := time.Now().Add(wait)
	for {
		// The try does not wait for the lock, so ctx does not interrupt it
		// (pgx would close the connection): ctx is checked between tries,
		// and the try has a timeout of its own for a server that hangs.
		qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		var ok bool
		err := conn.QueryRow(qctx, "SELECT pg_catalog.pg_try_advisory_lock($1)", key).Scan(&ok)
		cancel()
		if err != nil {
			return fmt.Errorf("lock: %w", err)
		}
		if ok {
			return nil
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w: waited %v for pg_advisory_lock(%d), held by %s", ErrLocked, wait, key, lockHolder(ctx, conn, key))
		}
		t := time.NewTimer(min(100*time.Millisecond, time.Until(deadline)))
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%w: gave up waiting for pg_advisory_lock(%d), held by %s: %w",
				ErrLocked, key, lockHolder(context.WithoutCancel(ctx), conn, key), ctx.Err())
		case <-t.C:
		}
	}
}

// lockHolder describes the session holding the advisory lock key, as far as
// pg_locks and pg_stat_activity show it to this role.
func lockHolder(ctx context.Context, conn *pgx.Conn, key int64) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var pid int32
	var app, state string
	err := conn.QueryRow(ctx, `
		SELECT l.pid, coalesce(a.application_name, ''), coalesce(a.state, '')
		FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid OPERATOR(pg_catalog.=) l.pid
		WHERE l.locktype OPERATOR(pg_catalog.=) 'advisory' AND l.granted AND l.objsubid OPERATOR(pg_catalog.=) 1
		  AND l.database OPERATOR(pg_catalog.=) (SELECT oid FROM pg_catalog.pg_database
		                   WHERE datname OPERATOR(pg_catalog.=) pg_catalog.current_database())
		  AND l.classid::pg_catalog.int8 OPERATOR(pg_catalog.=) $1
		  AND l.objid::pg_catalog.int8 OPERATOR(pg_catalog.=) $2
		LIMIT 1`, key>>32, key&0xFFFFFFFF).Scan(&pid, &app, &state)
	if err != nil {
		return "another session"
	}
	return fmt.Sprintf("pid %d (application_name %q, state %q)", pid, app, state)
}
