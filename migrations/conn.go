package migrations

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/pgid/pgid/internal/dbconn"
)

// DB is what [Version], [ReadStatus], [Up] and [Down] accept, as in
// packages partition and tail (the same constraint): a *pgx.Conn, a
// *pgxpool.Pool (a connection is acquired for the call and released), or a
// *sql.DB or *sql.Conn whose driver is pgx's
// (github.com/jackc/pgx/v5/stdlib). [Up] and [Down] need a connection
// outside any transaction.
type DB = dbconn.DB

// ErrConn is returned (wrapped) when the connection cannot run the
// migrations: a nil one, a database/sql driver other than pgx's, or a
// connection inside a transaction (each step commits its own). It is the
// same error as partition.ErrConn and tail.ErrConn.
var ErrConn = dbconn.ErrConn

// ErrNotOwner is returned (wrapped, with the server's error) when the role
// lacks a privilege that applying or reverting the migrations needs
// (SQLSTATE 42501): they belong to the database owner.
var ErrNotOwner = sqlStates.New("42501", "pgid migrations: permission denied; the migrations belong to the database owner")

// sqlStates maps the SQLSTATEs the runner gives a meaning to its errors.
var sqlStates = dbconn.States{}

// conns is the package's use of the connection layer.
var conns = dbconn.Caller{Name: "pgid migrations"}

// run takes the migration lock on one connection of db, reads the state,
// adopts a tern-era database and calls f.
func run[D DB](ctx context.Context, db D, what string, opts []Option,
	f func(c *pgx.Conn, versioned []step, fn step, s state) error) error {
	o := options{lockWait: DefaultLockWait}
	for _, opt := range opts {
		opt(&o)
	}
	err := dbconn.Run(ctx, conns, db, func(c *pgx.Conn) error {
		if err := conns.Idle(c, "each step commits its own"); err != nil {
			return err
		}
		versioned, fn, err := load()
		if err != nil {
			return err
		}
		if err := lock(ctx, c, LockKey, o.lockWait); err != nil {
			return err
		}
		defer unlock(ctx, c, LockKey)
		s, err := readState(ctx, c, versioned, fn)
		if err != nil {
			return err
		}
		if err := s.trust.err(); err != nil {
			return err
		}
		if !s.table && s.tern && s.ternVer > 0 {
			if err := adopt(ctx, c, versioned, fn, &s, o.lockWait); err != nil {
				return err
			}
		}
		return f(c, versioned, fn, s)
	})
	if err != nil {
		return dbconn.Map(wrap(what, err), sqlStates)
	}
	return nil
}

// wrap prefixes err with "pgid migrations: what: ", unless its text begins
// with the package's name already (a refused connection, a sentinel such as
// ErrUntrusted or ErrLocked, which say what they refuse): then it is err,
// so the name appears once.
func wrap(what string, err error) error {
	if strings.HasPrefix(err.Error(), conns.Name+": ") {
		return err
	}
	return fmt.Errorf("%s: %s: %w", conns.Name, what, err)
}
