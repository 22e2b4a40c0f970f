package partition

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/dbconn"
)

// DB is what [Ensure], [List] and [Expired] accept, the same constraint as
// migrations.DB and tail.DB: a *pgx.Conn, a *pgxpool.Pool (a connection is
// acquired for the call and released), or a *sql.DB or *sql.Conn whose
// driver is pgx's (github.com/jackc/pgx/v5/stdlib); a nil one, or another
// database/sql driver, is refused with [ErrConn] (which also matches
// [ErrPlan]). Inside a pgx transaction, pass tx.Conn(): the calls then run
// in that transaction.
type DB = dbconn.DB

// ErrConn: the connection cannot be used: a nil one, a database/sql driver
// other than pgx's, or, for a concurrent detach, a connection inside a
// transaction. Such errors also match [ErrPlan], as they did before ErrConn
// existed. It is the same error as migrations.ErrConn and tail.ErrConn.
var ErrConn = dbconn.ErrConn

// conns is the package's use of the connection layer.
var conns = dbconn.Caller{Name: "partition", Err: ErrPlan}

// LockKey is the first key of the advisory lock pair that serialises
// [Ensure] (and pgid.ensure_partitions) per parent: "pgid" in ASCII, the
// high half of migrations.LockKey too. The second key is the parent's OID
// as int4 (SQL: pgid.partition_lock_key). pg_locks shows the lock as
// classid 1885825380, objid = the parent's OID, objsubid 2.
const LockKey = dbconn.LockClass

// LockKey1 is the former name of [LockKey].
//
// Deprecated: use LockKey.
const LockKey1 = LockKey

// lockParent takes the advisory lock that serialises Ensure per parent, at
// transaction level (xact) or at session level; unlock gives the
// session-level one back (for xact it does nothing).
func lockParent(ctx context.Context, conn *pgx.Conn, parent string, xact bool) (unlock func(), err error) {
	fn := "pg_advisory_lock"
	if xact {
		fn = "pg_advisory_xact_lock"
	}
	if _, err := conn.Exec(ctx, "SELECT pg_catalog."+fn+"($1::pg_catalog.int4, pgid.partition_lock_key($2::pg_catalog.regclass))", LockKey, parent); err != nil {
		return nil, wrap("lock "+parent, err)
	}
	if xact {
		return func() {}, nil
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_, _ = conn.Exec(ctx, "SELECT pg_catalog.pg_advisory_unlock($1::pg_catalog.int4, pgid.partition_lock_key($2::pg_catalog.regclass))", LockKey, parent)
	}, nil
}
