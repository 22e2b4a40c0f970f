package partition

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pgid/pgid/internal/dbconn"
	"github.com/pgid/pgid/internal/sqlstate"
)

// ErrKept: [Ensure] made what it had to make, but could not retire some
// expired partitions; [Report.Kept] says which and why (the message says
// it too). SQL reports them as action 'kept' with a WARNING of SQLSTATE
// PGI07.
var ErrKept = errors.New("partition: expired partitions kept")

// Ensure makes the partitions of p.Parent for the period holding p.Now (or
// the server's now()) and the p.Ahead periods after it, then retires the
// partitions older than p.Retain, and reports what it did and what it
// could not do. With everything in place it changes nothing.
//
// Creating is committed first (in autocommit), so a partition that cannot
// be retired never stops the ones ahead from being made. Each expired
// partition is then retired in a statement of its own, only if it holds no
// row at or after the cut and its foreign keys ([Report.FKActions]) would
// not delete or change rows retention keeps (unless p.CascadeIntoRetained).
// One that is not retired is in [Report.Kept] with the reason, and Ensure
// returns the complete Report with an error matching [ErrKept]. Rows in the
// DEFAULT partition are reported in [Report.Default] on every run. Past the
// last time the key's IDs hold, it returns an error matching [ErrRangeEnd].
//
// Inside the caller's transaction the statements run in it and hold the
// parent's ACCESS EXCLUSIVE lock until it ends; with p.Retire
// DetachConcurrently or DetachConcurrentlyThenDrop the connection must not
// be in a transaction. With p.DryRun, Ensure changes nothing and reports
// what it would do. See docs/PARTITIONING.md.
func Ensure[D DB](ctx context.Context, db D, p Plan) (Report, error) {
	if err := p.check(); err != nil {
		return Report{DryRun: p.DryRun}, err
	}
	var rep Report
	err := dbconn.Run(ctx, conns, db, func(conn *pgx.Conn) error {
		var err error
		rep, err = ensure(ctx, conn, p)
		return err
	})
	rep.DryRun = p.DryRun
	return rep, err
}

// ensure is Ensure on one connection: check the key's kind, open the
// session (a dry run's transaction, a concurrent detach's lock), create,
// finish interrupted detaches, retire, and report the DEFAULT partition.
func ensure(ctx context.Context, conn *pgx.Conn, p Plan) (rep Report, err error) {
	if err := checkKind(ctx, conn, p); err != nil {
		return rep, err
	}
	inTx := conn.PgConn().TxStatus() != 'I'
	end, err := begin(ctx, conn, p, inTx)
	if err != nil {
		return rep, err
	}
	defer end(&err)
	errEnd, err := create(ctx, conn, p, &rep)
	if err != nil {
		return rep, err
	}
	if err := finishDetaches(ctx, conn, p, inTx, &rep); err != nil {
		return rep, err
	}
	if !p.Retain.IsZero() {
		if err := retire(ctx, conn, p, &rep); err != nil {
			return rep, err
		}
	}
	if p.DryRun {
		dedupe(&rep)
	}
	if err := defaultRows(ctx, conn, p.Parent, &rep); err != nil {
		return rep, err
	}
	return rep, outcome(rep, errEnd)
}

// checkKind refuses, with ErrKind, a parent whose key is not of p.Kind.
func checkKind(ctx context.Context, conn *pgx.Conn, p Plan) error {
	if p.Kind == AnyKind {
		return nil
	}
	var kind string
	if err := conn.QueryRow(ctx, "SELECT pgid.partition_key_kind($1::pg_catalog.regclass)", p.Parent).Scan(&kind); err != nil {
		return wrap("ensure "+p.Parent, err)
	}
	if kind != p.Kind.String() {
		return fmt.Errorf("%w: %s is partitioned on a %s column, the plan says %s", ErrKind, p.Parent, kind, p.Kind)
	}
	return nil
}

// begin opens what Ensure runs in on conn (inTx: inside the caller's
// transaction): for a dry run a transaction (or a savepoint) that end rolls
// back, for a concurrent detach with a retention the session-level lock
// that end releases. end sets *err to a failed roll back if *err is nil.
func begin(ctx context.Context, conn *pgx.Conn, p Plan, inTx bool) (end func(err *error), err error) {
	if p.Retire.concurrent() && !p.DryRun {
		if err := conns.Idle(conn, p.Retire.String()+" detaches outside any transaction block"); err != nil {
			return nil, err
		}
	}
	switch {
	case p.DryRun:
		open, rollback := "BEGIN", "ROLLBACK"
		if inTx {
			open, rollback = "SAVEPOINT pgid_dry_run", "ROLLBACK TO SAVEPOINT pgid_dry_run; RELEASE SAVEPOINT pgid_dry_run"
		}
		if _, err := conn.Exec(ctx, open); err != nil {
			return nil, wrap("dry run", err)
		}
		return func(err *error) {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if _, rerr := conn.Exec(ctx, rollback); rerr != nil && *err == nil {
				*err = wrap("dry run: roll back", rerr)
			}
		}, nil
	case p.Retire.concurrent() && !p.Retain.IsZero():
		// The session-level lock nests with the functions' transaction-level
		// one (same session, same key) and outlives their transactions.
		unlock, err := lockParent(ctx, conn, p.Parent, false)
		if err != nil {
			return nil, err
		}
		return func(*error) { unlock() }, nil
	}
	return func(*error) {}, nil
}

// Errors of creating a partition, raised by pgid.ensure_partitions with the
// SQLSTATE named here (see [Error]).
var (
	// ErrDefaultHasRows: the DEFAULT partition holds rows in the range of a
	// partition about to be created (PGI04). Nothing was changed; see
	// docs/PARTITIONING.md for the way out.
	ErrDefaultHasRows = sqlStates.New(sqlstate.DefaultHasRows, "partition: default partition holds rows in a new partition's range")
	// ErrOverlap: a range about to be created overlaps an existing
	// partition with other bounds (PGI05), typically after a change of
	// width.
	ErrOverlap = sqlStates.New(sqlstate.Overlap, "partition: overlaps an existing partition")
)

// create makes the partitions p asks for, in a statement of its own (in
// autocommit it is committed before anything is retired), into rep.Created.
// errEnd is ErrRangeEnd when p asks for partitions past the last time the
// key's IDs hold.
func create(ctx context.Context, conn *pgx.Conn, p Plan, rep *Report) (errEnd, err error) {
	var now *time.Time
	if !p.Now.IsZero() {
		now = &p.Now
	}
	rows, err := conn.Query(ctx, `SELECT action, partition, lower, upper
		FROM pgid.ensure_partitions($1::pg_catalog.regclass, $2::pg_catalog.interval, $3::pg_catalog.int4,
		                            NULL::pg_catalog.interval, 'none'::pg_catalog.text,
		                            coalesce($4::pg_catalog.timestamptz, pg_catalog.now()))`,
		p.Parent, p.Every.interval(), p.Ahead, now)
	if err != nil {
		return nil, wrap("ensure "+p.Parent, err)
	}
	var action string
	var name *string
	var lo, hi *time.Time // NULL for MINVALUE / MAXVALUE
	_, err = pgx.ForEachRow(rows, []any{&action, &name, &lo, &hi}, func() error {
		switch action {
		case "created":
			rep.Created = append(rep.Created, partitionOf(deref(name), lo, hi))
		case "end":
			errEnd = rangeEnd(p, lo)
		}
		return nil
	})
	if err != nil {
		return nil, wrap("ensure "+p.Parent, err)
	}
	return errEnd, nil
}

// defaultRows reports parent's DEFAULT partition, if any, in rep.Default.
func defaultRows(ctx context.Context, conn *pgx.Conn, parent string, rep *Report) error {
	rows, err := conn.Query(ctx, `SELECT pg_catalog.format('%I.%I', n.nspname, c.relname), d.row_count, d.oldest, d.newest
		FROM pgid.default_partition_rows($1::pg_catalog.regclass) d
		JOIN pg_catalog.pg_class c ON c.oid = d.partition
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace`, parent)
	if err != nil {
		return wrap("default partition of "+parent, err)
	}
	var rowCount int64
	var defName string
	var lo, hi *time.Time
	_, err = pgx.ForEachRow(rows, []any{&defName, &rowCount, &lo, &hi}, func() error {
		rep.Default = DefaultRows{Name: defName, Rows: rowCount}
		if lo != nil && hi != nil {
			rep.Default.Oldest, rep.Default.Newest = lo.UTC(), hi.UTC()
		}
		return nil
	})
	if err != nil {
		return wrap("default partition of "+parent, err)
	}
	return nil
}

// outcome is Ensure's error for a complete rep: ErrKept naming the kept
// partitions, errEnd (ErrRangeEnd), both, or nil.
func outcome(rep Report, errEnd error) error {
	if len(rep.Kept) == 0 {
		return errEnd
	}
	msgs := make([]string, len(rep.Kept))
	for i, k := range rep.Kept {
		msgs[i] = k.String()
	}
	kept := fmt.Errorf("%w: %s", ErrKept, strings.Join(msgs, "; "))
	if errEnd != nil {
		return errors.Join(errEnd, kept)
	}
	return kept
}

// retire retires the partitions of p.Parent older than p.Retain, one
// statement each, into rep.
func retire(ctx context.Context, conn *pgx.Conn, p Plan, rep *Report) error {
	at := p.RetainAt
	if at.IsZero() {
		at = p.Now
	}
	expired, err := Expired(ctx, conn, p.Parent, p.Retain, at)
	if err != nil {
		return err
	}
	var atArg *time.Time
	if !at.IsZero() {
		atArg = &at
	}
	mode := "drop"
	switch {
	case p.Retire == Detach:
		mode = "detach"
	case p.Retire.concurrent():
		mode = "prepare"
	}
	var parent string
	if len(expired) > 0 {
		if err := conn.QueryRow(ctx, "SELECT $1::pg_catalog.regclass::pg_catalog.text", p.Parent).Scan(&parent); err != nil {
			return wrap("ensure "+p.Parent, err)
		}
	}
	for _, e := range expired {
		var action, name string
		var lo, hi *time.Time
		var reason, detail, hint, blocking *string
		var actions []FKAction
		err := conn.QueryRow(ctx, `SELECT action, partition, lower, upper, reason, detail, hint, blocking, fk_actions
			FROM pgid.retire_partition($1::pg_catalog.regclass, $2::pg_catalog.regclass, $3::pg_catalog.interval, $4::pg_catalog.text,
			                           coalesce($5::pg_catalog.timestamptz, pg_catalog.now()), $6::pg_catalog.bool, $7::pg_catalog.bool)`,
			p.Parent, e.Name, p.Retain.interval(), mode, atArg, p.DryRun, p.CascadeIntoRetained).
			Scan(&action, &name, &lo, &hi, &reason, &detail, &hint, &blocking, &actions)
		if errors.Is(err, pgx.ErrNoRows) {
			continue // no longer expired
		}
		if err != nil {
			gone, gerr := retiredMeanwhile(ctx, conn, p.Parent, e.Name, err)
			if gerr != nil {
				return gerr
			}
			if gone {
				continue // retired meanwhile by another session
			}
			return wrap("retire "+e.Name, err)
		}
		for i := range actions {
			actions[i].Partition = name
		}
		rep.FKActions = append(rep.FKActions, actions...)
		part := partitionOf(name, lo, hi)
		switch action {
		case "dropped":
			rep.Dropped = append(rep.Dropped, part)
		case "detached":
			rep.Detached = append(rep.Detached, part)
		case "kept":
			rep.Kept = append(rep.Kept, Kept{Partition: part, Reason: deref(reason), Detail: deref(detail), Hint: deref(hint), Constraint: deref(blocking)})
		case "prepared":
			if p.DryRun {
				rep.Detached = append(rep.Detached, part)
				if p.Retire == DetachConcurrentlyThenDrop {
					rep.Dropped = append(rep.Dropped, part)
				}
				continue
			}
			if err := detachConcurrently(ctx, conn, parent, part, p.Retire, rep); err != nil {
				return err
			}
		}
	}
	return nil
}

// retiredMeanwhile reports whether err, from retiring name, says that name
// is no longer a partition of parent (42P01, PGI06) and that is so: another
// session retired it between the listing and the call.
func retiredMeanwhile(ctx context.Context, conn *pgx.Conn, parent, name string, err error) (bool, error) {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || (pg.Code != "42P01" && pg.Code != sqlstate.Plan) {
		return false, nil
	}
	var still bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_catalog.pg_inherits
		WHERE inhrelid = pg_catalog.to_regclass($2) AND inhparent = $1::pg_catalog.regclass)`, parent, name).Scan(&still); err != nil {
		return false, wrap("retire "+name, err)
	}
	return !still, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// partitionOf is a Partition of a result row (no row estimate).
func partitionOf(name string, lo, hi *time.Time) Partition {
	p := Partition{Name: name, RowEstimate: -1}
	if lo != nil {
		p.Lower = lo.UTC()
	}
	if hi != nil {
		p.Upper = hi.UTC()
	}
	return p
}

// List returns the partitions of parent in key order, the DEFAULT partition
// (if any) last, with their time ranges and row estimates (pg_class.reltuples,
// -1 before the first VACUUM or ANALYZE). It checks parent as [Ensure] does.
func List[D DB](ctx context.Context, db D, parent string) ([]Partition, error) {
	var parts []Partition
	err := dbconn.Run(ctx, conns, db, func(conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, `SELECT pg_catalog.format('%I.%I', n.nspname, c.relname), l.is_default, l.lower, l.upper,
			coalesce(l.from_bound, ''), coalesce(l.to_bound, ''), coalesce(l.row_estimate, -1)
			FROM pgid.list_partitions($1::pg_catalog.regclass) l
			JOIN pg_catalog.pg_class c ON c.oid = l.partition
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace`, parent)
		if err != nil {
			return wrap("list "+parent, err)
		}
		parts, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Partition, error) {
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
			return wrap("list "+parent, err)
		}
		return nil
	})
	return parts, err
}

// Expired returns the partitions of parent whose whole range is older than
// now - retain (now zero: the server's now()), oldest first: those [Ensure]
// would retire. Their RowEstimate is -1.
func Expired[D DB](ctx context.Context, db D, parent string, retain Span, now time.Time) ([]Partition, error) {
	if err := retain.check("retention"); err != nil {
		return nil, err
	}
	var at *time.Time
	if !now.IsZero() {
		at = &now
	}
	var parts []Partition
	err := dbconn.Run(ctx, conns, db, func(conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, `SELECT pg_catalog.format('%I.%I', n.nspname, c.relname), e.lower, e.upper
			FROM pgid.expired_partitions($1::pg_catalog.regclass, $2::pg_catalog.interval, coalesce($3::pg_catalog.timestamptz, pg_catalog.now())) e
			JOIN pg_catalog.pg_class c ON c.oid = e.partition
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace`,
			parent, retain.interval(), at)
		if err != nil {
			return wrap("expired "+parent, err)
		}
		parts, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Partition, error) {
			var name string
			var lo, hi *time.Time
			err := row.Scan(&name, &lo, &hi)
			return partitionOf(name, lo, hi), err
		})
		if err != nil {
			return wrap("expired "+parent, err)
		}
		return nil
	})
	return parts, err
}
