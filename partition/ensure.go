package partition

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Querier is what [List] and [Expired] need: *pgx.Conn, *pgxpool.Pool and
// pgx.Tx all have it.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// LockKey1 is the first key of the advisory lock pair that serialises
// [Ensure] (and pgid.ensure_partitions) per parent: "pgid" in ASCII. The
// second key is the parent's OID as int4 (SQL: pgid.partition_lock_key).
// pg_locks shows the lock as classid 1885825380, objid = the parent's OID,
// objsubid 2.
const LockKey1 = 1885825380

// Ensure makes the partitions of p.Parent for the period holding p.Now (or
// the server's now()) and the p.Ahead periods after it, then retires the
// partitions older than p.Retain, and reports what it did. It is idempotent:
// with everything in place it changes nothing and returns an empty Report.
//
// It calls pgid.ensure_partitions in one statement: in autocommit that is
// one short transaction; inside the caller's transaction the ACCESS
// EXCLUSIVE lock on the parent (taken to create, drop or plainly detach a
// partition) lasts until that transaction ends. With p.Retire
// DetachConcurrently or DetachConcurrentlyThenDrop the detaches are separate
// statements outside any transaction: conn must not be in one, and a
// session-level advisory lock (same key as pgid.ensure_partitions's) keeps
// concurrent Ensure calls apart until the last detach; it is released before
// Ensure returns, also on error.
//
// With a pgxpool, acquire a connection (pool.AcquireFunc) and pass its Conn.
func Ensure(ctx context.Context, conn *pgx.Conn, p Plan) (Report, error) {
	var rep Report
	if err := p.check(); err != nil {
		return rep, err
	}
	if p.Kind != AnyKind {
		var kind string
		if err := conn.QueryRow(ctx, "SELECT pgid.partition_key_kind($1::regclass)", p.Parent).Scan(&kind); err != nil {
			return rep, wrap("ensure "+p.Parent, err)
		}
		if kind != p.Kind.String() {
			return rep, fmt.Errorf("%w: %s is partitioned on a %s column, the plan says %s", ErrKeyType, p.Parent, kind, p.Kind)
		}
	}
	var now *time.Time
	if !p.Now.IsZero() {
		now = &p.Now
	}
	var retain any
	if !p.Retain.IsZero() {
		retain = p.Retain.interval()
	}
	retire := "drop"
	switch {
	case p.Retire == Detach:
		retire = "detach"
	case p.Retire.concurrent():
		retire = "none"
		if conn.PgConn().TxStatus() != 'I' {
			return rep, fmt.Errorf("%w: %s cannot run inside a transaction block", ErrPlan, p.Retire)
		}
		// The session-level lock nests with the function's transaction-level
		// one (same session, same key) and outlives its transaction.
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1, pgid.partition_lock_key($2::regclass))", LockKey1, p.Parent); err != nil {
			return rep, wrap("lock "+p.Parent, err)
		}
		defer func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			_, _ = conn.Exec(ctx, "SELECT pg_advisory_unlock($1, pgid.partition_lock_key($2::regclass))", LockKey1, p.Parent)
		}()
	}

	rows, err := conn.Query(ctx, `SELECT action, partition, lower, upper
		FROM pgid.ensure_partitions($1::regclass, $2::interval, $3::integer, $4::interval, $5::text, coalesce($6::timestamptz, now()))`,
		p.Parent, p.Every.interval(), p.Ahead, retain, retire, now)
	if err != nil {
		return rep, wrap("ensure "+p.Parent, err)
	}
	var action, name string
	var lo, hi *time.Time // NULL for MINVALUE (a retired partition made by hand)
	_, err = pgx.ForEachRow(rows, []any{&action, &name, &lo, &hi}, func() error {
		part := Partition{Name: name, RowEstimate: -1}
		if lo != nil {
			part.Lower = lo.UTC()
		}
		if hi != nil {
			part.Upper = hi.UTC()
		}
		switch action {
		case "created":
			rep.Created = append(rep.Created, part)
		case "detached":
			rep.Detached = append(rep.Detached, part)
		case "dropped":
			rep.Dropped = append(rep.Dropped, part)
		}
		return nil
	})
	if err != nil {
		return rep, wrap("ensure "+p.Parent, err)
	}
	if p.Retain.IsZero() || !p.Retire.concurrent() {
		return rep, nil
	}

	expired, err := Expired(ctx, conn, p.Parent, p.Retain, p.Now)
	if err != nil {
		return rep, err
	}
	var parent string
	if err := conn.QueryRow(ctx, "SELECT $1::regclass::text", p.Parent).Scan(&parent); err != nil {
		return rep, wrap("ensure "+p.Parent, err)
	}
	for _, e := range expired {
		var pending bool
		if err := conn.QueryRow(ctx, "SELECT inhdetachpending FROM pg_catalog.pg_inherits WHERE inhrelid = $1::regclass",
			e.Name).Scan(&pending); err != nil {
			return rep, wrap("detach "+e.Name, err)
		}
		how := "CONCURRENTLY"
		if pending {
			how = "FINALIZE"
		}
		if _, err := conn.Exec(ctx, fmt.Sprintf("ALTER TABLE %s DETACH PARTITION %s %s", parent, e.Name, how)); err != nil {
			return rep, wrap("detach "+e.Name, err)
		}
		rep.Detached = append(rep.Detached, e)
		if p.Retire == DetachConcurrentlyThenDrop {
			if _, err := conn.Exec(ctx, "DROP TABLE "+e.Name); err != nil {
				return rep, wrap("drop "+e.Name, err)
			}
			rep.Dropped = append(rep.Dropped, e)
		}
	}
	return rep, nil
}

// List returns the partitions of parent in key order, the DEFAULT partition
// (if any) last, with their time ranges and row estimates (pg_class.reltuples,
// -1 before the first VACUUM or ANALYZE). It checks parent as [Ensure] does.
func List(ctx context.Context, q Querier, parent string) ([]Partition, error) {
	rows, err := q.Query(ctx, `SELECT format('%I.%I', n.nspname, c.relname), l.is_default, l.lower, l.upper,
		coalesce(l.from_bound, ''), coalesce(l.to_bound, ''), coalesce(l.row_estimate, -1)
		FROM pgid.list_partitions($1::regclass) l
		JOIN pg_catalog.pg_class c ON c.oid = l.partition
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace`, parent)
	if err != nil {
		return nil, wrap("list "+parent, err)
	}
	parts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Partition, error) {
		var p Partition
		var lo, hi *time.Time
		err := row.Scan(&p.Name, &p.Default, &lo, &hi, &p.From, &p.To, &p.RowEstimate)
		if lo != nil {
			p.Lower = lo.UTC()
		}
		if hi != nil {
			p.Upper = hi.UTC()
		}
		return p, err
	})
	if err != nil {
		return nil, wrap("list "+parent, err)
	}
	return parts, nil
}

// Expired returns the partitions of parent whose whole range is older than
// now - retain (now zero: the server's now()), oldest first: those [Ensure]
// would retire. Their RowEstimate is -1.
func Expired(ctx context.Context, q Querier, parent string, retain Span, now time.Time) ([]Partition, error) {
	if err := retain.check("retention"); err != nil {
		return nil, err
	}
	var at *time.Time
	if !now.IsZero() {
		at = &now
	}
	rows, err := q.Query(ctx, `SELECT format('%I.%I', n.nspname, c.relname), e.lower, e.upper
		FROM pgid.expired_partitions($1::regclass, $2::interval, coalesce($3::timestamptz, now())) e
		JOIN pg_catalog.pg_class c ON c.oid = e.partition
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace`,
		parent, retain.interval(), at)
	if err != nil {
		return nil, wrap("expired "+parent, err)
	}
	parts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Partition, error) {
		p := Partition{RowEstimate: -1}
		var lo *time.Time
		err := row.Scan(&p.Name, &lo, &p.Upper)
		if lo != nil {
			p.Lower = lo.UTC()
		}
		p.Upper = p.Upper.UTC()
		return p, err
	})
	if err != nil {
		return nil, wrap("expired "+parent, err)
	}
	return parts, nil
}
